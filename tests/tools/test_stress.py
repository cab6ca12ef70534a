"""The stress harness: timings and metrics printed, the regression guard exits 1, bad
input exits 2 with one line."""

import importlib.util
import io
import json
import sys
import threading
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "fixtures" / "repository-assessment.yaml")


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("stress", ROOT / "tools" / "stress.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["stress"] = module
    spec.loader.exec_module(module)
    return module


stress = _load()


def test_prints_iterations_phases_summary_and_metrics(tmp_path: Path) -> None:
    out = io.StringIO()
    report = tmp_path / "out.json"
    code = stress.main(["--iterations", "2", "--graph", SMALL, "--effort", "Draft",
                        "--direction", "lefttoright", "--json", str(report)], out)
    text = out.getvalue()
    assert code == 0, text
    assert "iteration 1/2" in text and "iteration 2/2" in text
    assert "ordering" in text  # the layered engine reports its phases by name
    assert "median" in text and "crossings" in text and "minClearance" in text
    data = json.loads(report.read_text(encoding="utf-8"))
    assert len(data["iterations"]) == 2
    assert data["effort"] == "draft" and data["direction"] == "LeftToRight"
    assert data["quality"]["nodeOverlaps"] == 0


def test_iteration_over_the_limit_exits_1_naming_it(capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # the watchdog would end this very process (os._exit) if the layout ran 5 s past the
    # limit, as a loaded machine can make it: give it room, this test is about the guard
    monkeypatch.setattr(stress, "WATCHDOG_GRACE_SECONDS", 600.0)
    code = stress.main(["--iterations", "1", "--graph", SMALL, "--max-seconds", "0.000001"],
                       io.StringIO())
    assert code == 1
    assert "iterations over --max-seconds" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [["--effort", "extreme"], ["--direction", "sideways"], ["--iterations", "0"],
     ["--generate", "1"], ["--warmup", "-1"], ["--graph", "/nonexistent.yaml"],
     ["--engine", "nope"]],
)
def test_bad_input_exits_2_with_one_line(argv: list[str],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code = stress.main(argv, io.StringIO())
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and err.startswith("stress.py:")


def test_a_layout_that_raises_leaves_no_watchdog_behind() -> None:
    """An unknown engine fails inside the first iteration; its watchdog timer used to stay
    armed and, 125 s later, end whatever process had called the harness (``os._exit``):
    the default suite died without a report wherever it had got to by then."""
    assert stress.main(["--engine", "nope", "--graph", SMALL], io.StringIO()) == 2
    armed = [t for t in threading.enumerate()
             if isinstance(t, threading.Timer) and not t.finished.is_set()
             and getattr(t.function, "__func__", None) is stress.Watchdog._fire]
    assert armed == []


def test_generated_graph_runs() -> None:
    out = io.StringIO()
    assert stress.main(["--iterations", "1", "--generate", "30", "--effort", "balanced"],
                       out) == 0
    assert "generated-30" in out.getvalue()


def test_targets_prints_one_row_per_case_with_a_verdict() -> None:
    out = io.StringIO()
    code = stress.main(["--targets", "--targets-nodes", "30", "--targets-iterations", "2"], out)
    text = out.getvalue()
    assert code == 0, text
    rows = [line for line in text.splitlines() if line.startswith("| reference")
            or line.startswith("| generated-30")]
    assert len(rows) == len(stress.TARGET_CASES) == 6
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[4] in ("met", "missed", "-")
        assert cells[7] == "yes"  # two iterations of one input: byte-identical layouts
    generated = [row for row in rows if row.startswith("| generated-30")]
    assert all(row.split("|")[7].strip() in ("met", "missed") for row in generated)


def test_iterations_with_different_layouts_are_reported(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    digests = iter(["a", "b"])
    iterations = [stress.Iteration(n, 0.1, (), False, next(digests)) for n in (1, 2)]
    assert stress.summarise(iterations)["identical"] is False
    same = [stress.Iteration(n, 0.1, (), False, "a") for n in (1, 2)]
    assert stress.summarise(same)["identical"] is True


def test_cpu_time_and_time_outside_the_phases_are_reported(tmp_path: Path) -> None:
    report = tmp_path / "out.json"
    out = io.StringIO()
    assert stress.main(["--iterations", "2", "--graph", SMALL, "--effort", "Draft",
                        "--json", str(report)], out) == 0
    assert "CPU seconds of this process" in out.getvalue()
    summary = json.loads(report.read_text(encoding="utf-8"))["summary"]
    assert summary["cpuMedian"] > 0
    # the phases are timed inside the layout: they cannot add up to more than all of it
    assert 0 <= summary["outsidePhasesMedian"] < summary["median"]


def test_outside_phases_is_the_total_less_the_phases() -> None:
    it = stress.Iteration(1, 0.010, (("a", 0.004), ("b", 0.005)), False, "d", 0.009)
    assert it.outside_phases == pytest.approx(0.010 - (0.004 + 0.005))
