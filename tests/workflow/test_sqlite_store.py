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
    assert names == [name for name, _ in migration_files()] == [
        "0001_initial", "0002_run_revision", "0003_tenants_tasks_audit",
        "0004_layout_cache", "0005_run_children_index", "0006_run_parts"]
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    connection.isolation_level = None
    assert apply_migrations(connection) == []


def test_an_older_database_gets_only_the_newer_migrations(tmp_path):
    path = tmp_path / "old.db"
    connection = sqlite3.connect(path, isolation_level=None)
    first_name, first_sql = migration_files()[0]
    connection.executescript(first_sql)
    connection.execute("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at REAL)")
    connection.execute("INSERT INTO schema_migrations VALUES (?, 0)", (first_name,))
    connection.close()
    SqliteStore(path).close()
    columns = [row[1] for row in sqlite3.connect(path).execute("PRAGMA table_info(runs)")]
    # 0002 added the revision, then 0003 the tenant and the business reference
    assert columns[-3:] == ["revision", "tenant", "business_reference"]


def test_definitions_stored_before_tenants_belong_to_the_default_tenant(tmp_path):
    path = tmp_path / "old.db"
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at REAL)")
    for name, sql in migration_files()[:2]:
        connection.executescript(sql)
        connection.execute("INSERT INTO schema_migrations VALUES (?, 0)", (name,))
    document = ('{"steps":[{"id":"a","kind":"Timer","delayMinutes":1.0}],"version":"1",'
                '"workflow":"w"}')
    connection.execute("INSERT INTO definitions VALUES ('w', '1', 'h', ?, 5.0)", (document,))
    connection.close()
    store = SqliteStore(path)
    (row,) = store.definition_rows("default")
    assert (row.tenant, row.workflow, row.version, row.hash, row.steps, row.loaded_at) == (
        "default", "w", "1", "h", 1, 5.0)
    assert store.definition_rows("other") == ()
    store.close()


def test_a_transition_from_a_stale_revision_is_refused(store, make_engine):
    from workflow.model import StepOutcome
    from workflow.store import Commit, ConcurrentTransitionError
    from workflow.transition import advance

    engine = make_engine(TEXT, store=store)  # both stores
    run_id = engine.start("two").run_id
    pump(engine, limit=1)  # Start applied: a is running
    stale = engine.run(run_id)
    plan = engine.plans[stale.definition_hash]
    pump(engine)  # another worker moves the run on
    newer, _ = advance(plan, stale, StepOutcome("a", "a@0.1", True, at=1.0, output={}))
    with pytest.raises(ConcurrentTransitionError, match="changed concurrently"):
        engine.store.commit(Commit(newer, previous=stale), at=1.0)
    assert engine.run(run_id).state is RunState.WAITING_FOR_TIMER  # nothing overwritten


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


def test_a_row_no_engine_can_read_is_dead_lettered_at_claim_and_blocks_nothing(tmp_path):
    from workflow.store import Commit, QueuedSignal

    store = SqliteStore(tmp_path / "w.db")
    good = QueuedSignal("good", "r", "event", {"type": "Start", "at": 0.0}, 5.0)
    store.commit(Commit(None, enqueue=(good,)), at=0.0)
    with store._transaction() as db:  # a row as an older or newer engine might leave it
        db.execute("INSERT INTO queue (signal_id, run_id, kind, payload, due_at) "
                   "VALUES ('odd', 'r', 'teleport', '{}', 1.0)")
    assert [s.signal_id for s in store.pending()] == ["good"]  # listings skip it
    claimed = store.claim("w", now=10.0, lease_seconds=1.0)
    assert claimed is not None and claimed.signal_id == "good"  # due later, but not blocked
    (letter,) = store.dead_letters()
    assert (letter.signal_id, letter.kind) == ("odd", "teleport")
    assert letter.error.startswith("unreadable queue row:") and "teleport" in letter.error
    store.close()
