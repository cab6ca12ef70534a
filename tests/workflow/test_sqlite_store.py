"""SQLite specifics: migrations, WAL, persisted definitions, restart, step-run rows."""

import sqlite3

import pytest

from workflow.definitions import VersionConflictError
from workflow.dsl import load_definition_text
from workflow.model import RunState
from workflow.pump import pump
from workflow.schema import apply_migrations, migration_files
from workflow.sqlite_store import SqliteStore

TEXT = """
workflow: two
version: 1.0.0
steps:
  - {id: a, kind: Tool, tool: notifier, failurePolicy: Fail}
  - {id: wait, kind: Timer, delayMinutes: 10}
edges: [{from: a, to: wait}]
"""


def test_migrations_are_forward_only_and_applied_once(tmp_path):
    path = tmp_path / "w.db"
    SqliteStore(path).close()
    connection = sqlite3.connect(path)
    names = [row[0] for row in connection.execute("SELECT name FROM schema_migrations")]
    assert names == [name for name, _ in migration_files()] == ["0001_initial"]
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    connection.isolation_level = None
    assert apply_migrations(connection) == []


def test_a_run_survives_a_restart_and_goes_on(tmp_path, make_engine, clock):
    path = tmp_path / "w.db"
    engine = make_engine(TEXT, store=SqliteStore(path), clock=clock)
    run_id = engine.start("two").run_id
    pump(engine)
    assert engine.run(run_id).state is RunState.WAITING_FOR_TIMER
    engine.store.close()
    clock.now += 600  # the 10-minute timer is now due
    reopened = make_engine(store=SqliteStore(path), clock=clock)
    assert reopened.versions.resolve("two").definition.version == "1.0.0"
    pump(reopened)
    assert reopened.run(run_id).state is RunState.COMPLETED


def test_changed_graph_under_a_stored_version_is_refused(tmp_path, make_engine):
    path = tmp_path / "w.db"
    make_engine(TEXT, store=SqliteStore(path)).store.close()
    engine = make_engine(store=SqliteStore(path))
    with pytest.raises(VersionConflictError, match="already"):
        engine.register(load_definition_text(TEXT.replace("delayMinutes: 10", "delayMinutes: 9")))


def test_step_runs_and_outbox_rows_follow_each_transition(tmp_path, make_engine):
    engine = make_engine(TEXT, store=SqliteStore(tmp_path / "w.db"))
    run_id = engine.start("two").run_id
    pump(engine)
    db = engine.store.connection
    rows = dict(db.execute("SELECT step_id, state FROM step_runs WHERE run_id = ?", (run_id,)))
    assert rows == {"a": "Succeeded", "wait": "Waiting"}
    kinds = [e.kind for e in engine.store.outbox(run_id)]
    assert kinds == ["run.created", "run.started", "step.started", "step.succeeded",
                     "step.started"]


def test_unopenable_store_is_a_clear_error(tmp_path):
    with pytest.raises(OSError, match="cannot open workflow store"):
        SqliteStore(tmp_path / "missing-dir" / "w.db")
