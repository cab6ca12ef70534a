"""The layered budget bench, on a small graph: it runs, prints one line per run and a
median per budget, checks contracts when asked. Never asserts on speed."""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("layered_budget",
                                                  ROOT / "bench" / "layered_budget.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["layered_budget"] = module
    spec.loader.exec_module(module)
    return module


def test_bench_prints_every_run_and_the_median(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    bench.main(["--nodes", "150", "--budgets", "0.001,5", "--runs", "2", "--contracts"])
    out = capsys.readouterr().out
    runs = [line for line in out.splitlines() if " run " in line]
    assert len(runs) == 4
    assert all("contract violations 0" in line for line in runs)
    assert "staircase" in runs[0] and "exhausted=True" in runs[0]
    assert out.count("median ratio") == 2
    assert bench.target(0.1) == pytest.approx(0.17)
