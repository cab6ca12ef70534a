"""kill -9 of a worker between claim and commit, and between commit and acknowledge.

The worker is a child process (``python -m workflow.worker``) that SIGKILLs itself at the
point named by WFR_CRASH_AT. After a restart (with the clock past the 30 s lease) the run
must end exactly as an uninterrupted run does: same step states, same number of applied
transitions, same outbox events (nothing lost, nothing applied twice).
"""

import os
import signal
import subprocess
import sys
import time

import pytest

from workflow.config import DEFAULTS
from workflow.demo import demo_executors
from workflow.dsl import load_definition_text
from workflow.engine import Engine
from workflow.model import RunState
from workflow.pump import pump
from workflow.sqlite_store import SqliteStore

CHAIN = """
workflow: chain
version: 1.0.0
steps:
  - {id: a, kind: Tool, tool: document-intake, failurePolicy: Fail}
  - {id: b, kind: Tool, tool: malware-scanner, failurePolicy: Fail}
  - {id: c, kind: Agent, agent: doc-classifier, failurePolicy: Fail}
  - {id: d, kind: Tool, tool: notifier, failurePolicy: Fail}
edges: [{from: a, to: b}, {from: b, to: c}, {from: c, to: d}]
"""


def prepared_store(path, clock=time.time):
    engine = Engine(SqliteStore(path), demo_executors(), clock=clock)
    engine.register(load_definition_text(CHAIN))
    engine.start("chain", run_id="r1")
    return engine


def summary(engine):
    run = engine.run("r1")
    return (run.state, {s: r.state for s, r in run.steps.items()}, run.transitions,
            [e.kind for e in engine.store.outbox("r1")])


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    engine = prepared_store(tmp_path_factory.mktemp("ref") / "w.db")
    pump(engine)
    result = summary(engine)
    engine.store.close()
    assert result[0] is RunState.COMPLETED
    return result


@pytest.mark.parametrize("point", ["claimed:3", "committed:3"])
def test_killed_worker_loses_nothing_and_applies_nothing_twice(tmp_path, reference, point):
    path = tmp_path / "w.db"
    prepared_store(path).store.close()
    environment = {**os.environ, "WFR_CRASH_AT": point}
    child = subprocess.run([sys.executable, "-m", "workflow.worker", "--db", str(path)],
                           env=environment, capture_output=True, timeout=60)
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()
    engine = Engine(SqliteStore(path), demo_executors(),
                    clock=lambda: time.time() + DEFAULTS.lease_seconds + 1)
    interrupted = engine.run("r1")
    assert interrupted.state is RunState.RUNNING
    # the third event row was claimed when the worker died: it is still queued, leased
    assert any(s.attempts == 1 for s in engine.store.pending())
    pump(engine)
    assert summary(engine) == reference
    assert engine.store.dead_letters() == ()
    engine.store.close()
