"""The pure transition function: idempotence (property-based), timeouts, purity."""

from hypothesis import given, settings
from hypothesis import strategies as st

from workflow.definitions import VersionRegistry
from workflow.dsl import load_definition_text
from workflow.model import (
    Decision,
    RunState,
    Start,
    StepOutcome,
    StepState,
    TimerFired,
    new_run,
)
from workflow.plan import compile_plan
from workflow.transition import advance

TEXT = """
workflow: prop
maxLoopIterations: 2
steps:
  - {id: a, kind: Tool, tool: t, failurePolicy: Retry, maxAttempts: 2}
  - {id: f, kind: Fanout}
  - {id: b, kind: Tool, tool: t, failurePolicy: Escalate}
  - {id: c, kind: Human, failurePolicy: Fail, timeoutMinutes: 5}
  - {id: j, kind: Join, quorum: 1}
  - {id: w, kind: Timer, delayMinutes: 1}
  - {id: again, kind: Condition, expression: '{"==": [{"var": "c.decision"}, "reject"]}'}
edges:
  - {from: a, to: f}
  - {from: f, to: b}
  - {from: f, to: c}
  - {from: b, to: j}
  - {from: c, to: j}
  - {from: j, to: w}
  - {from: w, to: again}
  - {from: again, to: a, guard: "true", isLoopBack: true}
"""
REGISTERED = VersionRegistry().register(load_definition_text(TEXT))
PLAN = compile_plan(REGISTERED)
STEPS = ("a", "b", "c", "w")


def fresh_run():
    run = new_run("r", "prop", "0", REGISTERED.hash, {}, at=0.0)
    return advance(PLAN, run, Start(at=0.0))[0]


def attempt_ids(step):
    return [f"{step}@{iteration}.{attempt}" for iteration in range(3) for attempt in (1, 2)]


outcomes = st.one_of(
    st.builds(lambda s, a, ok, t: StepOutcome(s, a, ok, at=t, output={"n": 1},
                                              error=None if ok else "boom"),
              st.sampled_from(("a", "b")), st.sampled_from(attempt_ids("a") + attempt_ids("b")),
              st.booleans(), st.integers(0, 100).map(float)),
    st.builds(lambda s, a, p, t: TimerFired(s, a, p, at=t), st.sampled_from(STEPS),
              st.sampled_from(attempt_ids("a") + attempt_ids("c") + attempt_ids("w")),
              st.sampled_from(("delay", "retry", "timeout")), st.integers(0, 100).map(float)),
    st.builds(lambda s, a, d, t: Decision(s, a, d, at=t), st.sampled_from(("b", "c")),
              st.sampled_from(attempt_ids("b") + attempt_ids("c")),
              st.sampled_from(("approve", "reject", "input")), st.integers(0, 100).map(float)),
)


def apply_all(run, events):
    for event in events:
        run = advance(PLAN, run, event)[0]
    return run


@settings(max_examples=100, deadline=None)
@given(st.lists(outcomes, max_size=25))
def test_applying_a_sequence_twice_equals_applying_it_once(events):
    once = apply_all(fresh_run(), events)
    assert apply_all(once, events) == once


@settings(max_examples=100, deadline=None)
@given(st.lists(outcomes, max_size=25))
def test_each_outcome_duplicated_in_place_changes_nothing(events):
    doubled = [event for event in events for _ in (0, 1)]
    assert apply_all(fresh_run(), doubled) == apply_all(fresh_run(), events)


def plausible_event(draw, run, at):
    """An event some active step of ``run`` is actually waiting for."""
    active = [r for r in run.steps.values() if r.state.is_active]
    if not active:
        return None
    step = draw(st.sampled_from(active))
    if step.waiting_for in ("decision", "escalation"):
        choice = draw(st.sampled_from(("approve", "reject", "input")))
        return Decision(step.step_id, step.attempt_id, choice, at=at)
    if step.waiting_for in ("timer", "retry"):
        purpose = "delay" if step.waiting_for == "timer" else "retry"
        return TimerFired(step.step_id, step.attempt_id, purpose, at=at)
    if draw(st.booleans()):
        return TimerFired(step.step_id, step.attempt_id, "timeout", at=at)
    ok = draw(st.booleans())
    return StepOutcome(step.step_id, step.attempt_id, ok, at=at, output={"n": 1},
                       error=None if ok else "boom")


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_idempotence_on_sequences_that_drive_the_run(data):
    run, events = fresh_run(), []
    for index in range(30):
        event = plausible_event(data.draw, run, float(index))
        if event is None:
            break
        events.append(event)
        run = advance(PLAN, run, event)[0]
    assert apply_all(run, events) == run
    doubled = [event for event in events for _ in (0, 1)]
    assert apply_all(fresh_run(), doubled) == run


def test_a_repeated_outcome_asks_for_no_effects():
    run = fresh_run()
    outcome = StepOutcome("a", "a@0.1", True, at=1.0, output={})
    run, effects = advance(PLAN, run, outcome)
    assert effects
    again, effects = advance(PLAN, run, outcome)
    assert again is run and effects == ()


def test_advance_never_changes_its_input():
    run = fresh_run()
    before = (dict(run.steps), dict(run.edges), run.state)
    advance(PLAN, run, StepOutcome("a", "a@0.1", True, at=1.0, output={}))
    assert (dict(run.steps), dict(run.edges), run.state) == before


def test_human_timeout_applies_the_failure_policy():
    run = apply_all(fresh_run(), [StepOutcome("a", "a@0.1", True, at=1.0, output={})])
    assert run.steps["c"].waiting_for == "decision"
    # c waits from t=1 with timeoutMinutes 5: the timeout timer is due at 1 + 300 s
    run, _ = advance(PLAN, run, TimerFired("c", "c@0.1", "timeout", at=301.0))
    assert run.state is RunState.FAILED
    assert run.reason == "step 'c' failed: timed out after 5 minutes"
    assert run.steps["b"].state is StepState.CANCELLED


def test_stale_attempt_outcomes_are_ignored():
    run = fresh_run()
    stale, effects = advance(PLAN, run, StepOutcome("a", "a@0.2", True, at=1.0, output={}))
    assert effects == () and stale.steps == run.steps


def test_loop_counts_iterations_and_re_runs_the_body():
    run = apply_all(fresh_run(), [
        StepOutcome("a", "a@0.1", True, at=1.0, output={}),
        Decision("c", "c@0.1", "reject", at=2.0),           # quorum 1: join fires on c
        TimerFired("w", "w@0.1", "delay", at=62.0),          # 'again' is true -> loop back
    ])
    assert run.loops == {"again->a": 1}
    assert run.steps["a"].state is StepState.RUNNING and run.steps["a"].attempt_id == "a@1.1"
    assert run.steps["c"].state is StepState.PENDING and run.steps["c"].iteration == 1


def test_unknown_decision_is_refused_and_changes_no_step():
    run = apply_all(fresh_run(), [StepOutcome("a", "a@0.1", True, at=1.0, output={})])
    after, effects = advance(PLAN, run, Decision("c", "c@0.1", "maybe", at=2.0))
    assert [(e.kind, e.detail) for e in effects] == [("decision.refused",
                                                       "unknown decision 'maybe'")]
    assert after.steps == run.steps
