"""What the HTTP API reads, the same on SQLite and PostgreSQL: run pages by tenant, tasks
and their race, idempotency keys, events and audit after a sequence number, retention by
tenant, dead letters and replay, the layout cache."""

import pytest

from workflow.model import EmitEvent, new_run
from workflow.store import (
    AuditEntry,
    Commit,
    HumanTask,
    IdempotencyClaim,
    IdempotencyKeyUsedError,
    QueuedSignal,
    RunFilter,
    TaskClosure,
    TaskConflictError,
    TaskStatus,
)


def start(store, run_id, tenant="acme", at=1.0, **fields):
    run = new_run(run_id, "w", "1", "h", {}, at=at, tenant=tenant, **fields)
    store.commit(Commit(run, (EmitEvent("run.created"),)), at=at)
    return run


def test_run_pages_are_newest_first_and_by_tenant(query_store):
    for i in range(5):
        start(query_store, f"r{i}", at=float(i))
    start(query_store, "other", tenant="globex", at=9.0)
    first = query_store.find_runs("acme", RunFilter(), limit=2)
    assert [r.run_id for r in first.items] == ["r4", "r3"] and first.next_cursor
    second = query_store.find_runs("acme", RunFilter(), limit=2, after=first.next_cursor)
    third = query_store.find_runs("acme", RunFilter(), limit=2, after=second.next_cursor)
    assert [r.run_id for r in second.items + third.items] == ["r2", "r1", "r0"]
    assert third.next_cursor is None
    assert [r.run_id for r in query_store.find_runs("globex", RunFilter(workflow="w"),
                                                    limit=9).items] == ["other"]


def test_of_two_closures_of_one_task_exactly_one_commits(query_store):
    run = start(query_store, "r1")
    task = HumanTask("t1", "acme", "r1", "review", "review@0.1", "decision", "finance",
                     TaskStatus.OPEN, 1.0)
    query_store.commit(Commit(run, open_tasks=(task,), previous=run), at=1.0)
    close = TaskClosure("t1", TaskStatus.COMPLETED, "approve", "ada", required=True)
    query_store.commit(Commit(None, close_tasks=(close,)), at=2.0)  # queue-only: no task
    assert query_store.task("t1").status is TaskStatus.OPEN
    query_store.commit(Commit(run, close_tasks=(close,), previous=run), at=2.0)
    with pytest.raises(TaskConflictError, match="no longer open"):
        query_store.commit(Commit(run, close_tasks=(close,), previous=run), at=3.0)
    closed = query_store.task("t1")
    assert (closed.status, closed.decision, closed.closed_by, closed.closed_at) == (
        TaskStatus.COMPLETED, "approve", "ada", 2.0)
    assert query_store.tasks("acme", status=TaskStatus.OPEN).items == ()
    assert query_store.tasks("globex").items == ()


def test_an_idempotency_key_starts_one_run(query_store):
    claim = IdempotencyClaim("k1", "digest")
    query_store.commit(Commit(new_run("r1", "w", "1", "h", {}, at=1.0, tenant="acme"),
                              idempotency=claim), at=1.0)
    with pytest.raises(IdempotencyKeyUsedError):
        query_store.commit(Commit(new_run("r2", "w", "1", "h", {}, at=1.0, tenant="acme"),
                                  idempotency=claim), at=1.0)
    assert query_store.idempotent_run("acme", "k1") == ("r1", "digest")
    assert query_store.load_run("r2") is None  # the refused start left nothing
    assert query_store.idempotent_run("globex", "k1") is None


def test_events_and_audit_come_in_order_after_a_sequence_number(query_store):
    for i in range(3):
        start(query_store, f"r{i}")
        query_store.save_audit(AuditEntry("ada", "acme", "run.start", f"r{i}", None, 0, 1.0))
    events = query_store.events_after("acme", 0, 10)
    assert [e.run_id for e in events] == ["r0", "r1", "r2"]
    assert [e.run_id for e in query_store.events_after("acme", events[0].seq, 10)] == ["r1", "r2"]
    audit = query_store.audit_entries("acme", 0, 2)
    assert [a.target for a in audit] == ["r0", "r1"] and audit[0].seq < audit[1].seq
    assert query_store.events_after("globex", 0, 10) == ()


def test_a_runs_history_comes_in_order_a_page_at_a_time_and_by_tenant(query_store):
    run = start(query_store, "r1")
    start(query_store, "r2")  # another run's events are not in r1's history
    query_store.commit(Commit(run, (EmitEvent("step.started", "a"),
                                    EmitEvent("step.succeeded", "a", "took 1 s")),
                              previous=run), at=2.0)
    start(query_store, "g1", tenant="globex")
    history = query_store.run_events("acme", "r1", 0, 10)
    assert [(e.kind, e.step_id, e.detail) for e in history] == [
        ("run.created", None, None), ("step.started", "a", None),
        ("step.succeeded", "a", "took 1 s")]
    assert [e.seq for e in history] == sorted(e.seq for e in history)
    first = query_store.run_events("acme", "r1", 0, 2)
    rest = query_store.run_events("acme", "r1", first[-1].seq, 2)
    assert first + rest == history
    assert query_store.run_events("acme", "r1", history[-1].seq, 10) == ()
    assert query_store.run_events("globex", "r1", 0, 10) == ()  # r1 is acme's
    assert [e.run_id for e in query_store.run_events("globex", "g1", 0, 10)] == ["g1"]


def test_retention_purges_one_tenants_finished_runs(query_store):
    import dataclasses

    from workflow.model import RunState

    for run_id, tenant in (("a1", "acme"), ("g1", "globex")):
        run = start(query_store, run_id, tenant=tenant)
        done = dataclasses.replace(run, state=RunState.COMPLETED,
                                   processed=frozenset({"start"}))
        query_store.commit(Commit(done, previous=run), at=5.0)
    assert query_store.purge(before=10.0, tenant="acme") == 1
    assert query_store.load_run("a1") is None and query_store.load_run("g1") is not None
    assert query_store.outbox("a1") == ()


def test_a_dead_letter_is_listed_by_tenant_and_replayed(query_store):
    start(query_store, "r1")
    signal = QueuedSignal("r1:x", "r1", "event", {"type": "Start", "at": 0.0}, 0.0)
    query_store.commit(Commit(None, enqueue=(signal,)), at=1.0)
    claimed = query_store.claim("w", now=1.0, lease_seconds=5.0)
    query_store.dead_letter(claimed, "boom", now=2.0)
    (letter,) = query_store.dead_letters("acme")
    assert (letter.signal_id, letter.attempts, letter.error, letter.tenant) == (
        "r1:x", 1, "boom", "acme")
    assert query_store.dead_letters("globex") == () and query_store.pending() == ()
    query_store.replay("r1:x", now=3.0)
    assert [s.signal_id for s in query_store.pending()] == ["r1:x"]
    assert query_store.dead_letters() == ()
    with pytest.raises(LookupError):
        query_store.replay("r1:x", now=4.0)


def test_the_layout_cache_keeps_the_layouts_used_last(query_store):
    for i in range(3):
        query_store.save_layout("acme", f"k{i}", f"doc{i}", at=float(i), keep=2)
    assert query_store.cached_layout("acme", "k0", at=5.0) is None
    assert query_store.cached_layout("acme", "k2", at=5.0) == "doc2"
    assert query_store.cached_layout("globex", "k2", at=5.0) is None
