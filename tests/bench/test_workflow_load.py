"""The workflow load script, on a handful of requests: three phases, no errors, the
server always stopped. Never asserts on speed."""

import importlib.util
import io
import json
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("workflow_load",
                                                  ROOT / "bench" / "workflow_load.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["workflow_load"] = module
    spec.loader.exec_module(module)
    return module


load = _load()


def test_a_small_run_reports_the_three_phases_without_errors(tmp_path: Path) -> None:
    out, report = io.StringIO(), tmp_path / "load.json"
    code = load.main(["--clients", "3", "--requests", "8", "--json", str(report),
                      "--max-seconds", "90"], out)
    text = out.getvalue()
    assert code == 0, text
    rows = {line.split("|")[1].strip(): [cell.strip() for cell in line.split("|")[2:-1]]
            for line in text.splitlines() if line.startswith(("| POST ", "| GET "))}
    assert list(rows) == ["POST /start", "GET /instances/{id}", "POST /tasks/{id}/complete"]
    assert all(cells[0] == "8" and cells[1] == "0" for cells in rows.values()), text
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["ok"] is True and data["settle"]["waitingForTask"] == 8
    assert [p["count"] for p in data["phases"]] == [8, 8, 8]
    assert all(p["errors"] == 0 and p["p95Ms"] >= p["p50Ms"] > 0 for p in data["phases"])


def test_a_server_that_exits_is_one_line_and_exit_1(capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    command = f"{sys.executable} -c 'raise SystemExit(3)'"
    assert load.main(["--server-cmd", command, "--requests", "1"], io.StringIO()) == 1
    assert "the server exited with 3" in capsys.readouterr().err


def test_a_server_that_never_gets_ready_is_stopped_within_max_seconds(
        capsys: pytest.CaptureFixture[str]) -> None:
    command = f"{sys.executable} -c 'import time; time.sleep(120)'"
    started = time.monotonic()
    assert load.main(["--server-cmd", command, "--max-seconds", "1.5"], io.StringIO()) == 1
    assert time.monotonic() - started < 20
    assert "out of time" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--clients", "0"], ["--requests", "0"],
                                  ["--timeout", "0"], ["--port", "70000"]])
def test_bad_options_exit_2_with_one_line(argv: list[str],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert load.main(argv, io.StringIO()) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("workflow_load.py:")
