"""The reconciler, on every store: a run whose queue rows were lost is found once it has
sat still for the grace period and then finishes; a run with a queued row, or one still
inside the grace period, is left alone."""

from workflow.model import RunState
from workflow.pump import pump
from workflow.reconciler import GRACE_SECONDS, StrandedPolicy, reconcile

TIMER = """
workflow: wait
version: 1.0.0
steps:
  - {id: a, kind: Tool, tool: notifier, failurePolicy: Fail}
  - {id: pause, kind: Timer, delayMinutes: 10}
edges: [{from: a, to: pause}]
"""
RETRIED = """
workflow: retried
version: 1.0.0
steps:
  - {id: a, kind: Tool, tool: notifier, failurePolicy: Retry, maxAttempts: 2}
"""


def lose_every_queue_row(store):
    for signal in store.pending():
        store.acknowledge(signal.signal_id)


def test_a_lost_timer_is_queued_again_at_its_due_time(store, make_engine, clock):
    engine = make_engine(TIMER, store=store, clock=clock)
    run_id = engine.start("wait").run_id
    pump(engine)
    assert engine.run(run_id).state is RunState.WAITING_FOR_TIMER
    started = engine.run(run_id).steps["pause"].started_at
    lose_every_queue_row(store)
    assert reconcile(engine).stranded == ()  # not idle for the grace period yet
    clock.now += GRACE_SECONDS + 1
    found = reconcile(engine)
    assert found.stranded == (run_id,) and found.queued == 1
    (signal,) = store.pending()
    assert signal.due_at == started + 600.0  # the delay's own due time, not now
    assert reconcile(engine).stranded == ()  # the queued row keeps it from counting again
    clock.now = started + 600.0
    pump(engine)
    assert engine.run(run_id).state is RunState.COMPLETED


def test_a_lost_dispatch_times_the_attempt_out_and_the_retry_policy_goes_on(
        store, make_engine, clock):
    engine = make_engine(RETRIED, store=store, clock=clock)
    run_id = engine.start("retried").run_id
    pump(engine, limit=1)  # Start applied: attempt 1 dispatched
    assert engine.run(run_id).steps["a"].state.value == "Running"
    lose_every_queue_row(store)  # the dispatch row and the timeout timer are gone
    clock.now += GRACE_SECONDS + 1
    assert reconcile(engine).stranded == (run_id,)
    pump(engine, simulate_time=True)
    run = engine.run(run_id)
    assert run.state is RunState.COMPLETED and run.steps["a"].attempt == 2


def test_the_cancel_policy_ends_a_stranded_run(store, make_engine, clock):
    engine = make_engine(TIMER, store=store, clock=clock)
    run_id = engine.start("wait").run_id
    pump(engine)
    lose_every_queue_row(store)
    clock.now += GRACE_SECONDS + 1
    assert reconcile(engine, policy=StrandedPolicy.CANCEL).stranded == (run_id,)
    pump(engine)
    assert engine.run(run_id).state is RunState.CANCELLED


def test_a_run_with_its_rows_is_not_stranded(store, make_engine, clock):
    engine = make_engine(TIMER, store=store, clock=clock)
    engine.start("wait")
    pump(engine)
    clock.now += GRACE_SECONDS + 1  # idle, but its timer row is queued
    assert reconcile(engine).stranded == ()


PARENT = """
workflow: parent
version: 1.0.0
steps:
  - {id: child, kind: SubWorkflow, workflow: wait, version: 1.0.0}
"""


def test_a_parent_waiting_for_its_unfinished_child_is_not_stranded(store, make_engine, clock):
    engine = make_engine(TIMER, PARENT, store=store, clock=clock)
    run_id = engine.start("parent").run_id
    pump(engine)  # the child waits for its 10-minute timer; the parent for the child
    assert engine.run(run_id).steps["child"].waiting_for.value == "child"
    assert not any(s.run_id == run_id for s in store.pending())  # the parent has no row
    clock.now += GRACE_SECONDS + 1
    assert reconcile(engine).stranded == ()


CHILD = "workflow: child\nsteps: [{id: c, kind: Tool, tool: notifier, failurePolicy: Fail}]"
STARTER = ("workflow: starter\nsteps: [{id: sub, kind: SubWorkflow, workflow: child, "
          "failurePolicy: Fail}]")


def test_a_sub_workflow_step_whose_child_never_started_starts_it(store, make_engine, clock):
    engine = make_engine(CHILD, STARTER, store=store, clock=clock)
    run_id = engine.start("starter").run_id
    pump(engine, limit=1)  # Start applied: the step waits, its start-child row is queued
    assert engine.run(run_id).steps["sub"].waiting_for.value == "child"
    lose_every_queue_row(store)  # the child is never started
    clock.now += GRACE_SECONDS + 1
    found = reconcile(engine)
    assert found.stranded == (run_id,) and found.queued == 1
    pump(engine)
    run = engine.run(run_id)
    assert run.state is RunState.COMPLETED
    assert run.output == {"sub": {"c": {"notified": True}}}  # the demo notifier's output
    assert [r.run_id for r in store.list_runs()] == [run_id, f"{run_id}/sub@0.1"]


def test_a_finished_child_whose_answer_was_lost_answers_again(store, make_engine, clock):
    engine = make_engine(CHILD, STARTER, store=store, clock=clock)
    run_id = engine.start("starter").run_id
    child_id = f"{run_id}/sub@0.1"
    while store.load_run(child_id) is None or not engine.run(child_id).state.is_finished:
        assert pump(engine, limit=1) == 1
    lose_every_queue_row(store)  # the child's ChildFinished row for the parent is gone
    clock.now += GRACE_SECONDS + 1
    assert reconcile(engine).stranded == (run_id,)
    pump(engine)
    assert engine.run(run_id).state is RunState.COMPLETED


def test_the_cancel_policy_ends_a_run_whose_child_never_started(store, make_engine, clock):
    engine = make_engine(CHILD, STARTER, store=store, clock=clock)
    run_id = engine.start("starter").run_id
    pump(engine, limit=1)
    lose_every_queue_row(store)
    clock.now += GRACE_SECONDS + 1
    assert reconcile(engine, policy=StrandedPolicy.CANCEL).stranded == (run_id,)
    pump(engine)
    assert engine.run(run_id).state is RunState.CANCELLED
    assert store.list_runs()[1:] == ()  # and no child was started
