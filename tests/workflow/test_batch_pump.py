"""Batched pumping on PostgreSQL: one claim of several rows, one commit for their
transitions, and what happens when another writer changed one of the runs first."""

import dataclasses

import pytest

from workflow.batch import BatchStore, pump_batch
from workflow.dsl import load_definition
from workflow.model import RunState, new_run
from workflow.postgres_group import RunsChangedError, UnsafeGroupError
from workflow.postgres_store import _CLAIM
from workflow.pump import pump
from workflow.store import Commit, MemoryStore, QueuedSignal

from .conftest import postgres_store


@pytest.fixture
def pg(pg_server):
    yield from postgres_store(pg_server)


def pump_batches(engine, limit=16):
    """Batches until nothing is due, jumping the clock to each timer (as ``pump`` does
    with ``simulate_time``); how many batches claimed something."""
    batches = 0
    while True:
        if pump_batch(engine, limit=limit):
            batches += 1
            continue
        due = engine.store.next_due()
        if due is None:
            return batches
        engine.time_offset += max(0.0, due - engine.now())


def signal(signal_id, run_id, due):
    return QueuedSignal(signal_id, run_id, "event", {"type": "Start", "at": due}, due)


def test_only_the_postgres_store_batches(pg, tmp_path):
    from workflow.sqlite_store import SqliteStore

    sqlite = SqliteStore(tmp_path / "w.db")
    assert isinstance(pg, BatchStore)
    assert not isinstance(MemoryStore(), BatchStore) and not isinstance(sqlite, BatchStore)
    sqlite.close()


def test_a_claim_passes_over_the_events_of_a_run_another_worker_holds(pg):
    dispatch = QueuedSignal("d", "r1", "dispatch", {"step_id": "x"}, 2.0)
    pg.commit(Commit(None, enqueue=(signal("a", "r1", 1.0), signal("b", "r2", 1.5), dispatch,
                                    signal("c", "r1", 3.0))), at=0.0)
    first = pg.claim_batch("w1", now=1.0, lease_seconds=60.0, limit=1)
    assert [s.signal_id for s, _ in first] == ["a"]
    # w1 holds an event of r1: its other event waits (no conflict between the two
    # workers' transitions of one run), its dispatch row (no write to the run) does not
    later = pg.claim_batch("w2", now=10.0, lease_seconds=60.0, limit=10)
    assert [s.signal_id for s, _ in later] == ["b", "d"]
    # the holder itself takes the rest of its run
    assert [s.signal_id for s, _ in pg.claim_batch("w1", now=10.0, lease_seconds=60.0,
                                                   limit=10)] == ["c"]


def test_a_run_held_by_a_lease_that_ran_out_is_claimable_again(pg):
    pg.commit(Commit(None, enqueue=(signal("a", "r1", 1.0), signal("b", "r1", 2.0))), at=0.0)
    assert len(pg.claim_batch("dead", now=2.0, lease_seconds=5.0, limit=1)) == 1
    assert pg.claim_batch("w2", now=4.0, lease_seconds=5.0, limit=10) == []  # still held
    # the holder died: at 7.0 its lease is over, and both rows go to the next claim
    assert [s.signal_id for s, _ in pg.claim_batch("w2", now=7.0, lease_seconds=5.0,
                                                   limit=10)] == ["a", "b"]


def test_the_store_never_compiles_its_statements_with_the_jit(pg):
    # a JIT compile took 100+ ms per claim when row-level security made the estimate high
    assert pg._rows("SHOW jit") == [("off",)]


def test_a_batch_claim_leases_due_rows_once_in_due_order(pg):
    pg.commit(Commit(None, enqueue=(signal("c", "r3", 3.0), signal("a", "r1", 1.0),
                                    signal("late", "r9", 50.0), signal("b", "r2", 2.0))),
              at=0.0)
    first = pg.claim_batch("w1", now=10.0, lease_seconds=60.0, limit=2)
    second = pg.claim_batch("w2", now=10.0, lease_seconds=60.0, limit=2)
    # three rows are due by 10.0: the two earliest, then the third; 'late' is not due
    assert [s.signal_id for s, _ in first] == ["a", "b"]
    assert [s.signal_id for s, _ in second] == ["c"]
    assert pg.claim_batch("w3", now=10.0, lease_seconds=60.0, limit=2) == []
    assert all(s.attempts == 1 for s, _ in first + second)


def test_batched_pumping_ends_every_run_as_the_row_by_row_pump_does(pg, make_engine,
                                                                    fixtures_dir):
    ends = []
    for store, batched in ((MemoryStore(), False), (pg, True)):
        engine = make_engine(store=store)
        engine.register(load_definition(fixtures_dir / "document-processing.yaml"))
        runs = [engine.start("document-processing", None, {"document": f"d{i}.pdf"}).run_id
                for i in range(3)]
        if batched:
            # 3 runs share each batch: fewer batches than rows handled one at a time
            assert 0 < pump_batches(engine) < len(engine.store.outbox())
        else:
            pump(engine, simulate_time=True)
        finished = [engine.run(run_id) for run_id in runs]
        assert {run.state for run in finished} == {RunState.COMPLETED}
        ends.append([({s: r.state.value for s, r in run.steps.items()},
                      [(e.kind, e.step_id) for e in store.outbox(run.run_id)])
                     for run in finished])
        assert store.pending() == ()
    assert ends[0] == ends[1]


def test_a_group_with_a_stale_run_writes_nothing_and_names_that_run(pg, make_engine,
                                                                   fixtures_dir):
    engine = make_engine(store=pg)
    engine.register(load_definition(fixtures_dir / "document-processing.yaml"))
    one, two = (engine.start("document-processing", None, {}) for _ in range(2))
    moved = dataclasses.replace(two, processed=two.processed | {"elsewhere"})
    pg.commit(Commit(moved, previous=two), at=2.0)  # another writer: two is now stale
    fresh = dataclasses.replace(one, processed=one.processed | {"x"})
    stale = dataclasses.replace(two, processed=two.processed | {"x"})
    with pytest.raises(RunsChangedError) as refused:
        pg.commit_group([(Commit(fresh, previous=one), 3.0), (Commit(stale, previous=two), 3.0)],
                        ["unrelated"])
    assert refused.value.changed == (two.run_id,)
    assert pg.load_run(one.run_id).revision == one.revision  # rolled back with the rest


def test_a_group_that_would_delete_a_row_it_queues_is_refused_before_writing(pg):
    with pytest.raises(UnsafeGroupError):
        pg.commit_group([(Commit(None, enqueue=(signal("s1", "r1", 1.0),)), 1.0)],
                        acknowledge=["s1"])
    assert pg.pending() == ()


def test_a_refused_group_commits_the_rest_and_redelivers_the_changed_run(pg, make_engine,
                                                                        fixtures_dir,
                                                                        monkeypatch):
    engine = make_engine(store=pg)
    engine.register(load_definition(fixtures_dir / "document-processing.yaml"))
    runs = [engine.start("document-processing", None, {}).run_id for _ in range(3)]
    real, calls = pg.commit_group, []

    def racing(commits, acknowledge=(), **options):
        calls.append(len(commits))
        if len(calls) == 1:  # another writer changes the second run before the group commits
            run = pg.load_run(runs[1])
            real([(Commit(dataclasses.replace(run, processed=run.processed | {"op"}),
                          previous=run), engine.now())])
        return real(commits, acknowledge, **options)

    monkeypatch.setattr(pg, "commit_group", racing)
    assert pump_batch(engine, limit=16) == 3  # the three Start rows
    # the group of three was refused; the other two went again as one group
    assert calls[:2] == [3, 2]
    assert all(pg.load_run(r).transitions == 1 for r in runs)  # each Start applied once
    assert pg.queued_for(runs[1]) != () and not any(
        s.signal_id.endswith(":start") for r in runs for s in pg.queued_for(r))
    monkeypatch.setattr(pg, "commit_group", real)
    pump_batches(engine)
    assert {engine.run(r).state for r in runs} == {RunState.COMPLETED}
    for run_id in runs:  # every step's outbox row once: no transition applied twice
        kinds = [(e.kind, e.step_id) for e in pg.outbox(run_id)]
        assert len(kinds) == len(set(kinds)), kinds


def test_wfr_worker_batches_as_the_pump_does_by_default():
    import argparse

    from workflow.batch import BATCH_SIZE
    from workflow.cli import register_commands

    parser = argparse.ArgumentParser()
    register_commands(parser.add_subparsers(dest="command"))
    assert parser.parse_args(["worker"]).batch == BATCH_SIZE
    assert parser.parse_args(["worker", "--batch", "1"]).batch == 1


def test_rows_a_batch_has_no_time_left_for_go_back_to_the_queue_untouched(pg, make_engine,
                                                                        fixtures_dir):
    engine = make_engine(store=pg)
    engine.register(load_definition(fixtures_dir / "document-processing.yaml"))
    runs = [engine.start("document-processing", None, {}).run_id for _ in range(3)]
    # a lease of a microsecond: half of it is gone once the first row is carried out
    assert pump_batch(engine, limit=16, lease_seconds=1e-6) == 3
    assert engine.run(runs[0]).transitions == 1  # the first row always goes
    for run_id in runs[1:]:
        (start,) = pg.queued_for(run_id)
        assert engine.run(run_id).transitions == 0
        assert (start.attempts, start.last_error) == (0, "batch ran long")


def test_a_batch_size_out_of_range_is_exit_2_with_one_line(tmp_path, capsys):
    from renderer.cli import main

    assert main(["worker", "--batch", "0", "--db", str(tmp_path / "w.db")]) == 2
    assert capsys.readouterr().err == "wfr worker: --batch must be from 1 to 1000, not 0\n"


def test_the_claim_looks_up_runs_held_by_other_workers_in_one_hash(pg):
    # the check "another worker holds an event of this run" was a correlated NOT EXISTS:
    # planned on a stale estimate (one leased row) as a nested loop over every row leased
    # by the others for each due row, 20-150 ms per claim with 4 workers (196,873 pairs
    # compared in one); now the leased runs are read once into a hash (a hashed subplan)
    held = tuple(signal(f"h{i:03}", f"r{i}", 1.0) for i in range(150))
    waiting = tuple(signal(f"w{i:03}", f"r{i}", 2.0) for i in range(150))
    free = tuple(signal(f"f{i:03}", f"x{i}", 2.0) for i in range(150))
    pg.commit(Commit(None, enqueue=held + waiting + free), at=0.0)
    assert len(pg.claim_batch("w1", now=1.0, lease_seconds=60.0, limit=150)) == 150
    parameters = {"owner": "w2", "lease_until": 70.0, "now": 10.0, "late": 9.0,
                  "lease_now": 10.0, "limit": 500, "own": ["x1"]}
    plan = "\n".join(row[0] for row in pg._rows("EXPLAIN " + _CLAIM, parameters))
    assert "hashed SubPlan" in plan and "Anti Join" not in plan
    claimed = pg.claim_batch("w2", now=10.0, lease_seconds=60.0, limit=500)
    assert sorted(s.signal_id for s, _ in claimed) == [s.signal_id for s in free]


def test_a_claim_takes_the_rows_of_the_runs_it_holds_first_but_never_past_a_late_row(pg):
    # r1 and r2 were committed by this store (its cache holds them), x1-x3 were not; each
    # run's row is due at the time shown; affinity waits at most AFFINITY_SECONDS = 1.0
    runs = [new_run(r, "w", "1", "h", {}, at=0.0) for r in ("r1", "r2")]
    for run in runs:
        pg.commit(Commit(run), at=0.0)
    pg.commit(Commit(None, enqueue=(signal("x1", "x1", 8.5), signal("x2", "x2", 9.5),
                                    signal("a", "r1", 9.6), signal("x3", "x3", 9.7),
                                    signal("b", "r2", 9.8))), at=0.0)
    # at 10.0: x1 is late (due 1.5 s ago) and goes first; then the held runs' rows a and b
    # before x2 and x3 though these came due earlier
    claimed = pg.claim_batch("w", now=10.0, lease_seconds=60.0, limit=3)
    assert [s.signal_id for s, _ in claimed] == ["x1", "a", "b"]
    assert [s.signal_id for s, _ in pg.claim_batch("w", now=10.0, lease_seconds=60.0,
                                                   limit=5)] == ["x2", "x3"]
