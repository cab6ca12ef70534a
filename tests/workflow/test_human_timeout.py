"""A Human step without timeoutMinutes gets DefaultStepTimeoutMinutes, as config.py documents
("timeout of an Agent/Tool/Human/Compensation attempt", 60 minutes)."""

from workflow.config import DEFAULTS_TABLE
from workflow.definitions import VersionRegistry
from workflow.dsl import load_definition_text
from workflow.kinds import KIND_RULES
from workflow.model import RunState, Start, StartTimer, TimerPurpose, new_run
from workflow.plan import compile_plan
from workflow.pump import pump
from workflow.store import QueueRowKind
from workflow.transition import advance

HUMAN = "workflow: h\nsteps: [{id: ask, kind: Human, failurePolicy: Fail}]"
HOUR = 60 * 60.0


def test_the_documented_kinds_are_the_kinds_the_default_applies_to():
    [entry] = [e for e in DEFAULTS_TABLE if e.name == "DefaultStepTimeoutMinutes"]
    assert entry.value == 60.0
    for rule in KIND_RULES:
        assert (rule.kind.value in entry.description) == rule.default_timeout, rule.kind


def test_compile_plan_gives_a_human_step_the_default_timeout():
    plan = compile_plan(VersionRegistry().register(load_definition_text(HUMAN)))
    assert plan.steps["ask"].timeout_minutes == 60.0


def test_an_explicit_human_timeout_is_kept():
    text = "workflow: h\nsteps: [{id: ask, kind: Human, failurePolicy: Fail, timeoutMinutes: 5}]"
    plan = compile_plan(VersionRegistry().register(load_definition_text(text)))
    assert plan.steps["ask"].timeout_minutes == 5.0


def test_starting_a_human_entry_step_starts_its_timeout_timer():
    registered = VersionRegistry().register(load_definition_text(HUMAN))
    run = new_run("r", "h", "0", registered.hash, {}, at=500.0)
    _, effects = advance(compile_plan(registered), run, Start(at=500.0))
    timers = [e for e in effects if isinstance(e, StartTimer)]
    assert timers == [StartTimer("ask", "ask@0.1", TimerPurpose.TIMEOUT, 500.0 + HOUR)]


def test_the_engine_queues_the_timeout_an_hour_after_the_start(make_engine, clock):
    engine = make_engine(HUMAN, clock=clock)
    run = engine.start("h")
    pump(engine)
    assert engine.run(run.run_id).state is RunState.WAITING_FOR_HUMAN
    [timer] = engine.store.pending()
    assert timer.kind is QueueRowKind.EVENT
    assert timer.due_at == clock.now + HOUR
    assert timer.payload["type"] == "TimerFired" and timer.payload["purpose"] == "timeout"
    assert timer.payload["step_id"] == "ask"


def test_an_unanswered_human_task_times_out(make_engine, clock):
    engine = make_engine(HUMAN, clock=clock)
    run = engine.start("h")
    pump(engine)
    clock.now += HOUR - 1  # one second early: still waiting
    pump(engine)
    assert engine.run(run.run_id).state is RunState.WAITING_FOR_HUMAN
    clock.now += 1
    pump(engine)
    run = engine.run(run.run_id)
    assert run.state is RunState.FAILED
    assert run.reason == "step 'ask' failed: timed out after 60 minutes"


def test_a_decision_in_time_cancels_the_timeout(make_engine, clock):
    engine = make_engine(HUMAN, clock=clock)
    run = engine.start("h")
    pump(engine)
    engine.decide(run.run_id, "ask", "approve")
    pump(engine)
    assert engine.run(run.run_id).state is RunState.COMPLETED
    assert engine.store.pending() == ()
