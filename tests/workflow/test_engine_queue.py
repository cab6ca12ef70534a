"""Fixtures end to end, the delivery budget, dead letters, replay and retention."""

import pytest

from workflow.dsl import load_definition
from workflow.executors import ExecutorRegistry
from workflow.model import RunState, StepState
from workflow.pump import pump
from workflow.store import Commit, QueuedSignal


def test_document_processing_runs_to_completion_with_demo_executors(make_engine, fixtures_dir,
                                                                    store):
    engine = make_engine(store=store)
    engine.register(load_definition(fixtures_dir / "document-processing.yaml"))
    run = engine.start("document-processing", None, {"document": "inv.pdf"})
    pump(engine, simulate_time=True)
    run = engine.run(run.run_id)
    assert run.state is RunState.COMPLETED
    states = {s: r.state.value for s, r in run.steps.items()}
    # demo: clean scan, an invoice, all enrichment at confidence 0.95 >= 0.9
    assert states["quarantine"] == "Skipped" and states["extract-contract"] == "Skipped"
    assert states["review"] == "Skipped" and states["reverse-posting"] == "Skipped"
    assert states["archive"] == "Succeeded" and states["audit-trail"] == "Succeeded"
    # quorum 2 of 3: branches answer in dispatch order, so the third is cancelled
    assert states["check-duplicates"] == "Cancelled"
    # the 30-minute settle window fired 1800 s after it started
    settle = run.steps["settle-window"]
    assert settle.output == {"firedAt": settle.started_at + 1800.0}
    assert engine.store.pending() == ()  # every queue row handled (stale timeouts included)


def test_repository_assessment_runs_to_completion_with_demo_executors(make_engine, fixtures_dir,
                                                                       store):
    engine = make_engine(store=store)
    engine.register(load_definition(fixtures_dir / "repository-assessment.yaml"))
    run = engine.start("repository-assessment", None, {"repository": "r"})
    pump(engine, simulate_time=True)
    run = engine.run(run.run_id)
    # demo assessor answers confidence 0.85 >= 0.8: straight to propose, no review
    assert run.state is RunState.COMPLETED
    assert run.steps["review"].state is StepState.SKIPPED
    assert run.output == {"propose": {"proposal": "pr-1"}}


def test_document_processing_loop_through_review(make_engine, fixtures_dir, store):
    from workflow.demo import demo_executors

    executors = demo_executors().with_executor("vendor-registry", lambda p: {"confidence": 0.5})
    executors = executors.with_executor("tax-validator", lambda p: {"confidence": 0.5})
    engine = make_engine(executors=executors, store=store)  # no timer due on this path
    engine.register(load_definition(fixtures_dir / "document-processing.yaml"))
    run = engine.start("document-processing", None, {})
    pump(engine)
    assert engine.run(run.run_id).state is RunState.WAITING_FOR_HUMAN
    for _ in range(3):  # maxLoopIterations 3: three rejections loop back to classify
        engine.decide(run.run_id, "review", "reject")
        pump(engine)
        engine.decide(run.run_id, "request-changes", "input", {"note": "fix"})
        pump(engine)
    assert engine.run(run.run_id).loops == {"request-changes->classify": 3}
    engine.decide(run.run_id, "review", "reject")
    pump(engine)
    engine.decide(run.run_id, "request-changes", "input")
    pump(engine)
    final = engine.run(run.run_id)
    assert final.state is RunState.FAILED
    assert final.reason == ("loop-back edge 'request-changes->classify' exceeded "
                            "maxLoopIterations 3")


def test_undeliverable_signal_goes_to_dead_letters_after_five_attempts_and_replays(
        make_engine, clock, store):
    engine = make_engine(clock=clock, store=store)
    bad = QueuedSignal("ghost:start", "ghost", "event", {"type": "Start", "at": 0.0}, 0.0)
    engine.store.commit(Commit(None, enqueue=(bad,)), at=0.0)
    for failures in range(1, 5):  # MaxDeliveryAttempts 5: five deliveries, then dead-lettered
        assert pump(engine) == 1  # not again at once: it waits its backoff
        (row,) = engine.store.pending()
        backoff = 0.5 * 2 ** (failures - 1)  # DeliveryBackoffSeconds 0.5, doubling
        assert backoff <= row.due_at - clock.now < 1.25 * backoff  # jitter up to 25 %
        assert row.attempts == failures
        clock.now = row.due_at
    assert pump(engine) == 1
    (letter,) = engine.store.dead_letters()
    assert letter.signal_id == "ghost:start" and letter.attempts == 5
    assert letter.error == "NotFoundError: no run 'ghost'"
    assert engine.store.pending() == ()
    engine.store.replay("ghost:start", now=clock())
    assert [s.signal_id for s in engine.store.pending()] == ["ghost:start"]
    assert engine.store.dead_letters() == ()
    with pytest.raises(LookupError, match="no dead letter 'nope'"):
        engine.store.replay("nope", now=clock())


def test_retention_purges_finished_runs_older_than_the_reference(make_engine, clock, store):
    engine = make_engine("workflow: t\nsteps: [{id: s, kind: Tool, tool: notifier, "
                         "failurePolicy: Fail}]", store=store, clock=clock)
    old = engine.start("t").run_id
    pump(engine)
    clock.now += 100
    waiting = engine.start("t").run_id  # not pumped: still Pending
    assert engine.store.purge(before=clock.now) == 1
    assert engine.store.load_run(old) is None and engine.store.load_run(waiting) is not None
    assert engine.store.outbox(old) == ()


def test_executor_error_never_counts_as_success(make_engine, store):
    engine = make_engine("workflow: t\nsteps: [{id: s, kind: Agent, agent: gone, "
                         "failurePolicy: Fail}]", executors=ExecutorRegistry(), store=store)
    run = engine.start("t")
    pump(engine)
    assert engine.run(run.run_id).reason == "step 's' failed: no executor named 'gone' is " \
        "registered"
