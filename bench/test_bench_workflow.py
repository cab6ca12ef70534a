"""Workflow engine throughput on SQLite: N runs of the document-processing fixture.

Every run is started, then one pump drives all of them to completion with the demo
executors and simulated timer time (each run also starts a records-archival child run).
Reported in ``extra_info``: step transitions per second (step-run state changes, the
issue's target is >= 500/s) and applied events per second.

    .venv/bin/pytest bench/test_bench_workflow.py --benchmark-only -s            # 100 runs
    .venv/bin/pytest bench/test_bench_workflow.py --benchmark-only -s -m explicit  # 1,000
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

import pytest

from workflow.demo import demo_definitions, demo_executors
from workflow.dsl import load_definition
from workflow.engine import Engine
from workflow.model import RunState
from workflow.pump import pump
from workflow.sqlite_store import SqliteStore

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "document-processing.yaml"
TARGET_STEP_TRANSITIONS_PER_SECOND = 500


def _prepared(path: Path, runs: int) -> Engine:
    counter = itertools.count()
    engine = Engine(SqliteStore(path), demo_executors(), clock=lambda: 1.0e9,
                    new_id=lambda: f"run{next(counter)}")
    for definition in (*demo_definitions(), load_definition(FIXTURE)):
        engine.register(definition)
    for index in range(runs):
        engine.start("document-processing", None, {"document": f"doc-{index}.pdf"})
    return engine


@pytest.mark.parametrize("runs", [100, pytest.param(1000, marks=pytest.mark.explicit)])
def test_sqlite_transitions_per_second(benchmark: Any, tmp_path: Path, runs: int) -> None:
    engine = _prepared(tmp_path / "bench.db", runs)
    seconds: list[float] = []

    def drive() -> None:
        started = time.perf_counter()
        pump(engine, simulate_time=True)
        seconds.append(time.perf_counter() - started)

    benchmark.pedantic(drive, rounds=1, iterations=1)
    finished = engine.store.list_runs()
    assert len(finished) == 2 * runs  # each run has one records-archival child
    assert all(run.state is RunState.COMPLETED for run in finished)
    step_transitions = sum(run.step_transitions for run in finished)
    events = sum(run.transitions for run in finished)
    rate = step_transitions / seconds[0]
    benchmark.extra_info.update(runs=runs, seconds=round(seconds[0], 3),
                                step_transitions=step_transitions, events_applied=events,
                                step_transitions_per_second=round(rate),
                                events_per_second=round(events / seconds[0]))
    print(f"\n{runs} runs: {step_transitions} step transitions, {events} events in "
          f"{seconds[0]:.2f} s = {rate:.0f} step transitions/s, "
          f"{events / seconds[0]:.0f} events/s")
    engine.store.close()
    assert rate >= TARGET_STEP_TRANSITIONS_PER_SECOND
