"""The graph latency tool: it measures every number it names, on a small generated run."""

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("graph_latency",
                                                  ROOT / "tools" / "graph_latency.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["graph_latency"] = module
    spec.loader.exec_module(module)
    return module


graph_latency = _load()


def test_reports_fresh_cold_cached_and_stored_latency(capsys: pytest.CaptureFixture[str]) -> None:
    assert graph_latency.main(["--generate", "6", "--repeat", "1", "--settle", "0.1",
                               "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert (row["workflow"], row["steps"]) == ("generated-6-1", 6)
    assert set(row["memory"]) == {"svg", "json", "elk"}
    seconds = [row["fresh"], row["cold"], row["notModified"], row["store"],
               *row["memory"].values()]
    assert all(s > 0 for s in seconds)
