"""The kill -9 chaos script, short: 16 runs, two workers, a kill every second, on
PostgreSQL and on SQLite. It must finish every run with no duplicate and no loss, the
poisoned runs dead-lettered and replayed. Never asserts on speed."""

import importlib.util
import io
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location("chaos", ROOT / "bench" / "chaos.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["chaos"] = module
    spec.loader.exec_module(module)
    return module


chaos = _load()
LINE = re.compile(r"chaos: runs=(\d+) finished=(\d+) kills=(\d+) duplicates=(\d+) lost=(\d+) "
                  r"dead_lettered=(\d+) replayed=(\d+)")


@pytest.mark.parametrize("backend", ["postgres", "sqlite"])
def test_a_short_chaos_run_loses_nothing_and_doubles_nothing(backend, request, tmp_path):
    db = (request.getfixturevalue("pg_server").url if backend == "postgres"
          else str(tmp_path / "chaos.db"))
    out = io.StringIO()
    code = chaos.main(["--db", db, "--workers", "2", "--runs", "16", "--kill-every", "1",
                       "--max-kills", "3",
                       "--poison-fraction", "0.1", "--review-fraction", "0.25",
                       "--lease-seconds", "2", "--timer-seconds", "0.2",
                       "--max-seconds", "60"], out)
    text = out.getvalue()
    assert code == 0, text
    runs, finished, kills, duplicates, lost, dead, replayed = map(
        int, LINE.search(text).groups())
    assert (runs, finished, duplicates, lost) == (16, 16, 0, 0)
    assert kills >= 2 and dead >= 1 and replayed == dead, text


def test_the_verdict_counts_a_left_row_as_lost_and_a_missing_run_too():
    from workflow.model import new_run
    from workflow.store import Commit, MemoryStore, QueuedSignal

    store = MemoryStore()
    store.commit(Commit(new_run("r1", "w", "1", "h", {}, at=0.0), enqueue=(
        QueuedSignal("r1:start", "r1", "event", {"type": "Start", "at": 0.0}, 0.0),)), at=0.0)
    result = chaos.verdict(store, {"r1", "r2"})
    assert (result.runs, result.finished, result.lost) == (2, 0, 2)  # one row, one missing run
