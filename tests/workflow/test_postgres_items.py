"""PostgreSQL keeps a run as its head and one row per item (issue 15: no whole-run rewrite
per event): an event writes only what it changed, existing stores migrate, and a store
that remembers a run reads it again once another writer changed it."""

import dataclasses
import json

import psycopg
import pytest

from workflow import postgres_schema
from workflow.demo import demo_definitions, demo_executors
from workflow.dsl import load_definition, load_definition_text
from workflow.engine import Engine
from workflow.model import RunState, StepRun, StepState, new_run
from workflow.postgres_store import INLINE_ITEMS, PostgresStore
from workflow.pump import pump, pump_once
from workflow.serialize import run_to_json
from workflow.store import Commit, MemoryStore, QueuedSignal

from .conftest import Clock, postgres_store


@pytest.fixture
def pg(pg_server):
    yield from postgres_store(pg_server)


def _chain(size: int) -> str:
    steps = ", ".join(f"{{id: s{i}, kind: Timer, delayMinutes: 0}}" for i in range(size))
    edges = ", ".join(f"{{from: s{i}, to: s{i + 1}}}" for i in range(size - 1))
    return f"workflow: chain{size}\nsteps: [{steps}]\nedges: [{edges}]\n"


def _rows(pg, sql, parameters=()):
    with psycopg.connect(pg.url, autocommit=True) as db:
        db.execute(f"SET search_path TO {pg.schema}")
        db.execute("SELECT set_config('workflow.tenant', '*', false)")
        return db.execute(sql, parameters).fetchall()


def _nearly_done_chain(pg, size):
    """A chain run pumped until two steps are left; the engine and the run id."""
    engine = Engine(pg, clock=Clock())
    engine.register(load_definition_text(_chain(size)))
    run = engine.start(f"chain{size}")
    for _ in range(size - 2):  # Start, then one timer per step
        assert pump_once(engine)
    return engine, run.run_id


def test_the_stored_document_of_a_run_does_not_grow_with_it(pg):
    sizes = {}
    for size in (20, 400):
        _, run_id = _nearly_done_chain(pg, size)
        ((length,),) = _rows(pg, "SELECT length(document) FROM runs WHERE run_id = %s",
                             (run_id,))
        sizes[size] = length
    # before, the document held every step run, edge and event key: 20x the steps, ~15x
    # the bytes; the head differs only in the workflow's name and the run's counters
    assert sizes[400] < 1.1 * sizes[20], sizes


def test_an_event_rewrites_only_the_item_rows_it_changed(pg):
    engine, run_id = _nearly_done_chain(pg, 30)
    before = dict(_rows(pg, "SELECT step_id, xmin::text FROM step_runs WHERE run_id = %s",
                        (run_id,)))
    parts_before = dict(_rows(pg, "SELECT part || ':' || key, xmin::text FROM run_parts "
                                  "WHERE run_id = %s", (run_id,)))
    old = engine.run(run_id)
    assert pump_once(engine)  # the timer of s28 fires: s28 succeeds, s29 starts
    after = dict(_rows(pg, "SELECT step_id, xmin::text FROM step_runs WHERE run_id = %s",
                       (run_id,)))
    parts_after = dict(_rows(pg, "SELECT part || ':' || key, xmin::text FROM run_parts "
                                 "WHERE run_id = %s", (run_id,)))
    rewritten = {step for step, xmin in after.items() if before.get(step) != xmin}
    new = engine.run(run_id)
    changed = {step for step, step_run in new.steps.items() if old.steps.get(step) != step_run}
    assert rewritten == changed and len(changed) == 2  # one step done, the next one started
    new_parts = {key for key, xmin in parts_after.items() if parts_before.get(key) != xmin}
    # the event's own key, the edge taken and the done step's place in the completion order
    (edge,) = set(new.edges) - set(old.edges)
    assert new_parts == {f"processed:{k}" for k in set(new.processed) - set(old.processed)} \
        | {f"edge:{edge}", f"done:{len(old.completion_order):09d}"}
    assert len(new_parts) == 3 and len(parts_after) == len(parts_before) + 3


def _reference_run_half_done(reference):
    """The reference workflow on a memory store, pumped part of the way: the engine (whose
    store still has the run's queue rows) and the run."""
    engine = Engine(MemoryStore(), demo_executors(), clock=Clock(), new_id=lambda: "run1")
    for definition in demo_definitions():
        engine.register(definition)
    engine.register(load_definition(reference))
    run = engine.start("document-processing", None, {"document": "a.pdf"})
    pump(engine, limit=12)
    return engine, engine.run(run.run_id)


def test_a_run_stored_as_one_document_reads_the_same_after_the_migration(
        pg_server, fixtures_dir, monkeypatch):
    memory, run = _reference_run_half_done(fixtures_dir / "document-processing.yaml")
    assert run.edges and run.completion_order and len(run.steps) > 5
    assert not run.state.is_finished
    files = postgres_schema.postgres_migration_files()
    monkeypatch.setattr(postgres_schema, "postgres_migration_files", lambda: files[:1])
    generator = postgres_store(pg_server)
    old = next(generator)  # a store of the schema before 0002, written as it wrote runs
    with psycopg.connect(old.url, autocommit=True) as db:
        db.execute(f"SET search_path TO {old.schema}")
        db.execute("SELECT set_config('workflow.tenant', '*', false)")
        db.execute("INSERT INTO runs (run_id, tenant, workflow, version, definition_hash, "
                   "state, created_at, updated_at, revision, document) VALUES "
                   "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                   (run.run_id, run.tenant, run.workflow, run.version, run.definition_hash,
                    run.state.value, run.created_at, run.updated_at, run.revision,
                    run_to_json(run)))
        for s in run.steps.values():
            db.execute("INSERT INTO step_runs (run_id, step_id, tenant, state, iteration, "
                       "attempt, attempt_id, output, error, started_at, finished_at) VALUES "
                       "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                       (run.run_id, s.step_id, run.tenant, s.state.value, s.iteration,
                        s.attempt, s.attempt_id, json.dumps(s.output), s.error, s.started_at,
                        s.finished_at))
    old.close()
    monkeypatch.setattr(postgres_schema, "postgres_migration_files", lambda: files)
    store = PostgresStore(old.url, schema=old.schema, max_connections=2)
    try:
        migrated = store.load_run(run.run_id)
        assert migrated == run
        assert list(migrated.steps) == list(run.steps)
        assert list(migrated.completion_order) == list(run.completion_order)
        # and it goes on from there as on the memory store, event for event
        engine = Engine(store, demo_executors(), clock=memory.clock)
        for definition in demo_definitions():
            engine.register(definition)
        engine.register(load_definition(fixtures_dir / "document-processing.yaml"))
        store.commit(Commit(None, enqueue=memory.store.pending()), at=0.0)
        pump(engine, simulate_time=True)
        pump(memory, simulate_time=True)
        finished = memory.run(run.run_id)
        assert finished.state is RunState.COMPLETED
        assert store.load_run(run.run_id) == finished
    finally:
        store.close()
        next(generator, None)  # drops the schema


def _large_run(run_id):
    """A run with more item rows than are read inline."""
    run = new_run(run_id, "w", "1", "h", {}, at=1.0)
    steps = {f"s{i}": StepRun(f"s{i}", StepState.SUCCEEDED) for i in range(INLINE_ITEMS // 2)}
    return dataclasses.replace(run, steps=steps,
                               processed=frozenset(f"e{i}" for i in range(INLINE_ITEMS // 2 + 5)),
                               edges={"s0->s1": "taken"})


@pytest.mark.parametrize("large", [False, True], ids=["inline", "large"])
def test_a_remembered_run_is_read_again_once_another_store_changed_it(pg, pg_server, large):
    run = _large_run("big") if large else new_run("small", "w", "1", "h", {}, at=1.0)
    pg.commit(Commit(run), at=1.0)
    other = PostgresStore(pg_server.url, schema=pg.schema, max_connections=1)
    try:
        assert other.load_run(run.run_id) == run  # read whole (and remembered)
        assert list(other.load_run(run.run_id).steps) == list(run.steps)
        changed = dataclasses.replace(
            run, updated_at=2.0, processed=run.processed.add("later"),
            steps=run.steps.apply({"new": StepRun("new", StepState.RUNNING)}),
            edges=run.edges.apply({"s1->s2": "dead"}, removed=("s0->s1",)))
        pg.commit(Commit(changed, previous=run), at=2.0)
        again = other.load_run(run.run_id)
        assert again == changed and list(again.steps)[-1] == "new"
        assert dict(again.edges) == {"s1->s2": "dead"}
    finally:
        other.close()


def test_a_claim_reads_a_run_only_when_the_store_does_not_hold_its_revision(pg, pg_server):
    def event(signal_id, at):
        return QueuedSignal(signal_id, "r", "event", {"type": "Start", "at": at}, at)

    run = new_run("r", "w", "1", "h", {}, at=1.0)
    pg.commit(Commit(run, enqueue=(event("r:a", 1.0),)), at=1.0)
    ((_, claimed),) = pg.claim_batch("w", now=2.0, lease_seconds=30.0, limit=5)
    assert claimed is run  # the run this store committed, not a copy read back
    pg.acknowledge("r:a")
    other = PostgresStore(pg_server.url, schema=pg.schema, max_connections=1)
    try:
        changed = dataclasses.replace(run, updated_at=2.0, processed=run.processed.add("x"))
        other.commit(Commit(changed, previous=run, enqueue=(event("r:b", 2.0),)), at=2.0)
    finally:
        other.close()
    ((signal, claimed),) = pg.claim_batch("w", now=3.0, lease_seconds=30.0, limit=5)
    assert signal.signal_id == "r:b" and claimed == changed and claimed is not changed

