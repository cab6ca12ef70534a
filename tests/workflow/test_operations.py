"""Operator verbs (Retry, Repair, Resume, and Cancel's refusal) as pure transitions.

Expected states and effects are worked out by hand from the definitions here: attempt ids
are ``step@iteration.attempt``; every Tool attempt also asks for a timeout timer (the
default 60 minutes).
"""

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workflow.definitions import VersionRegistry
from workflow.dsl import load_definition_text
from workflow.model import (
    Cancel,
    ChildFinished,
    Decision,
    DispatchStep,
    EmitEvent,
    Repair,
    RequestDecision,
    Resume,
    Retry,
    RunState,
    Start,
    StartChildRun,
    StartTimer,
    StepOutcome,
    StepState,
    TimerFired,
    new_run,
)
from workflow.operations import refusal
from workflow.plan import compile_plan
from workflow.transition import advance


def plan_of(text):
    return compile_plan(VersionRegistry().register(load_definition_text(text)))


LINEAR = plan_of("""
workflow: linear
steps:
  - {id: a, kind: Tool, tool: t, failurePolicy: Fail}
  - {id: b, kind: Tool, tool: t, failurePolicy: Fail}
  - {id: c, kind: Tool, tool: t, failurePolicy: Fail}
edges: [{from: a, to: b}, {from: b, to: c}]
""")

FAN = plan_of("""
workflow: fan
steps:
  - {id: f, kind: Fanout}
  - {id: x, kind: Tool, tool: t, failurePolicy: Fail}
  - {id: y, kind: Tool, tool: t, failurePolicy: Fail}
  - {id: j, kind: Join}
  - {id: z, kind: Tool, tool: t, failurePolicy: Fail}
edges: [{from: f, to: x}, {from: f, to: y}, {from: x, to: j}, {from: y, to: j}, {from: j, to: z}]
""")

FIRST_WINS = plan_of("""
workflow: first-wins
steps:
  - {id: f, kind: Fanout}
  - {id: x, kind: Tool, tool: t, failurePolicy: Fail}
  - {id: y, kind: Tool, tool: t, failurePolicy: Fail}
  - {id: j, kind: Join, quorum: 1}
  - {id: z, kind: Tool, tool: t, failurePolicy: Fail}
edges: [{from: f, to: x}, {from: f, to: y}, {from: x, to: j}, {from: y, to: j}, {from: j, to: z}]
""")

LOOP = plan_of("""
workflow: loop
maxLoopIterations: 1
steps:
  - {id: a, kind: Tool, tool: t, failurePolicy: Fail}
  - {id: b, kind: Condition, expression: "true"}
edges:
  - {from: a, to: b}
  - {from: b, to: a, guard: "true", isLoopBack: true}
""")

COMPENSATED = plan_of("""
workflow: comp
steps:
  - {id: a, kind: Tool, tool: t, failurePolicy: Fail, compensation: ua}
  - {id: ua, kind: Compensation, tool: t, failurePolicy: Fail}
  - {id: b, kind: Tool, tool: t, failurePolicy: Compensate}
edges: [{from: a, to: b}]
""")

HUMAN = plan_of("""
workflow: human
steps:
  - {id: h, kind: Human, failurePolicy: Fail}
  - {id: n, kind: Tool, tool: t, failurePolicy: Fail}
edges: [{from: h, to: n}]
""")

TWO_HUMANS = plan_of("""
workflow: humans
steps:
  - {id: f, kind: Fanout}
  - {id: h1, kind: Human, failurePolicy: Fail}
  - {id: h2, kind: Human, failurePolicy: Fail}
edges: [{from: f, to: h1}, {from: f, to: h2}]
""")

ESCALATE = plan_of("""
workflow: esc
steps:
  - {id: e, kind: Tool, tool: t, failurePolicy: Escalate}
""")

TIMER = plan_of("""
workflow: timer
steps:
  - {id: t, kind: Timer, delayMinutes: 30}
  - {id: n, kind: Tool, tool: t, failurePolicy: Fail}
edges: [{from: t, to: n}]
""")

TWO_TIMERS = plan_of("""
workflow: timers
steps:
  - {id: f, kind: Fanout}
  - {id: t1, kind: Timer, delayMinutes: 1}
  - {id: t2, kind: Timer, delayMinutes: 2}
edges: [{from: f, to: t1}, {from: f, to: t2}]
""")

BACKOFF = plan_of("""
workflow: backoff
steps:
  - {id: r, kind: Tool, tool: t, failurePolicy: Retry, maxAttempts: 3}
""")


def fresh(plan, run_input=None):
    """A Pending run of ``plan`` (revision 0)."""
    return new_run("r1", plan.workflow, "0", plan.hash,
                   {} if run_input is None else run_input, at=0.0)


def drive(plan, run, *events):
    for event in events:
        run = advance(plan, run, event)[0]
    return run


def started(plan, *events):
    """A started run (revision 1) with ``events`` applied."""
    return drive(plan, fresh(plan), Start(at=0.0), *events)


def ok(step, attempt_id, at):
    return StepOutcome(step, attempt_id, True, at=at, output={step: "done"})


def fail(step, attempt_id, at):
    return StepOutcome(step, attempt_id, False, at=at, error="boom")


def summary(effects):
    """Effects as short tuples, to compare with hand-written expectations."""
    out = []
    for effect in effects:
        if isinstance(effect, EmitEvent):
            out.append((effect.kind, effect.step_id))
        elif isinstance(effect, DispatchStep):
            out.append(("dispatch", effect.attempt_id))
        elif isinstance(effect, StartTimer):
            out.append((f"timer:{effect.purpose}", effect.attempt_id))
        elif isinstance(effect, RequestDecision):
            out.append(("ask", effect.attempt_id))
        else:
            out.append(("child", effect.attempt_id))
    return out


def states(run):
    return {s: (r.state, r.attempt_id) for s, r in run.steps.items()}


def started_attempt(step, attempt_id):
    """The effects of starting a Tool attempt."""
    return [("step.started", step), ("dispatch", attempt_id), ("timer:timeout", attempt_id)]


def asked(step, attempt_id):
    """The effects of starting a Human attempt: its task, and its timeout timer (a Human
    step without timeoutMinutes gets DefaultStepTimeoutMinutes, as Agent and Tool do)."""
    return [("step.started", step), ("ask", attempt_id), ("timer:timeout", attempt_id)]


P, RU, W, S, F, C = (StepState.PENDING, StepState.RUNNING, StepState.WAITING,
                     StepState.SUCCEEDED, StepState.FAILED, StepState.CANCELLED)


# --- Retry ------------------------------------------------------------------------------

def linear_failed_at_b():
    """a succeeded, b failed: revision 3 (start, a's outcome, b's outcome); c never ran."""
    return started(LINEAR, ok("a", "a@0.1", 1.0), fail("b", "b@0.1", 2.0))


def test_retry_starts_a_new_attempt_of_the_failed_step():
    run = linear_failed_at_b()
    assert (run.state, run.revision, run.reason) == (RunState.FAILED, 3, "step 'b' failed: boom")
    retried, effects = advance(LINEAR, run, Retry(at=3.0, revision=3))
    assert summary(effects) == [("run.retried", None), *started_attempt("b", "b@0.2")]
    assert retried.state is RunState.RUNNING and retried.reason is None
    assert retried.revision == 4
    assert states(retried) == {"a": (S, "a@0.1"), "b": (RU, "b@0.2")}
    assert (retried.steps["b"].attempt, retried.steps["b"].iteration) == (2, 0)
    dispatch = next(e for e in effects if isinstance(e, DispatchStep))
    assert dispatch.payload == {"run": "r1", "step": "b", "attempt": 2, "input": {},
                                "outputs": {"a": {"a": "done"}}}


def test_a_retried_run_goes_on_to_complete():
    run = drive(LINEAR, linear_failed_at_b(), Retry(at=3.0, revision=3),
                ok("b", "b@0.2", 4.0), ok("c", "c@0.1", 5.0))
    assert run.state is RunState.COMPLETED and run.output == {"c": {"c": "done"}}


def test_after_retry_the_old_attempts_outcome_changes_nothing():
    run = advance(LINEAR, linear_failed_at_b(), Retry(at=3.0, revision=3))[0]
    for stale in (ok("b", "b@0.1", 4.0), fail("b", "b@0.1", 4.0),
                  TimerFired("b", "b@0.1", "timeout", at=4.0)):
        after, effects = advance(LINEAR, run, stale)
        assert effects == () and after.steps == run.steps and after.state is RunState.RUNNING


def test_retry_restarts_the_branch_the_failure_stopped():
    run = started(FAN, fail("x", "x@0.1", 1.0))
    assert states(run) == {"f": (S, "f@0.1"), "x": (F, "x@0.1"), "y": (C, "y@0.1")}
    retried, effects = advance(FAN, run, Retry(at=2.0, revision=2))
    assert summary(effects) == [("run.retried", None), *started_attempt("x", "x@0.2"),
                                *started_attempt("y", "y@0.2")]
    assert states(retried) == {"f": (S, "f@0.1"), "x": (RU, "x@0.2"), "y": (RU, "y@0.2")}
    stale, effects = advance(FAN, retried, ok("y", "y@0.1", 3.0))
    assert effects == () and stale.steps == retried.steps
    done = drive(FAN, retried, ok("x", "x@0.2", 3.0), ok("y", "y@0.2", 4.0))
    assert done.steps["j"].state is S and done.steps["z"].attempt_id == "z@0.1"


def test_retry_leaves_a_branch_the_join_cancelled():
    # quorum 1: x wins, the join cancels y (its edge into j is dead), then z fails
    run = started(FIRST_WINS, ok("x", "x@0.1", 1.0), fail("z", "z@0.1", 2.0))
    assert run.edges["y->j"] == "dead" and run.steps["y"].state is C
    retried, effects = advance(FIRST_WINS, run, Retry(at=3.0, revision=3))
    assert summary(effects) == [("run.retried", None), *started_attempt("z", "z@0.2")]
    assert retried.steps["y"] == run.steps["y"]


def test_retry_of_a_rejected_escalation():
    run = started(ESCALATE, fail("e", "e@0.1", 1.0))
    assert run.state is RunState.WAITING_FOR_HUMAN and run.steps["e"].waiting_for == "escalation"
    run, effects = advance(ESCALATE, run, Resume(at=2.0, revision=2, decision="reject"))
    assert summary(effects) == [("run.resumed", None), ("run.failed", None)]
    assert run.state is RunState.FAILED and run.reason == "step 'e' escalation rejected: boom"
    run, effects = advance(ESCALATE, run, Retry(at=3.0, revision=3))
    assert summary(effects) == [("run.retried", None), *started_attempt("e", "e@0.2")]


def test_a_cancel_a_failed_run_refused_still_cancels_it_once_retried():
    run = linear_failed_at_b()
    why = refusal(LINEAR, run, Cancel(at=3.0))
    assert why == "run r1 is Failed; cancel needs an unfinished run"
    assert advance(LINEAR, run, Cancel(at=3.0)) == (run, ())
    run = drive(LINEAR, run, Retry(at=4.0, revision=3), Cancel(at=5.0))
    assert run.state is RunState.CANCELLED and run.steps["b"].state is C


DIVIDE = plan_of("""
workflow: divide
steps:
  - {id: a, kind: Fanout}
  - {id: q, kind: Condition, expression: '{"/": [1, {"var": "input.d"}]}', failurePolicy: Fail}
  - {id: z, kind: Tool, tool: t, failurePolicy: Fail}
edges: [{from: a, to: q}, {from: a, to: z}]
""")


def divided_by_zero():
    """q fails as it starts; the failure stops the routing of a before it reaches z."""
    run = drive(DIVIDE, fresh(DIVIDE, {"d": 0}), Start(at=0.0))
    assert run.state is RunState.FAILED
    assert run.reason == "step 'q' failed: expression failed: /: float division by zero"
    assert run.edges == {"a->q": "taken", "a->z": "taken"} and "z" not in run.steps
    return run


def test_a_retry_that_fails_again_at_once_starts_nothing_more():
    run, effects = advance(DIVIDE, divided_by_zero(), Retry(at=1.0, revision=1))
    assert summary(effects) == [("run.retried", None), ("step.started", "q"),
                                ("step.attempt_failed", "q"), ("run.failed", None)]
    assert run.state is RunState.FAILED and "z" not in run.steps
    assert run.steps["q"].attempt_id == "q@0.2"


def test_resume_starts_a_pending_step_whose_edges_were_decided_before_the_failure():
    repaired = advance(DIVIDE, divided_by_zero(),
                       Repair(at=1.0, revision=1, rewind_to="q", input={"d": 2}))[0]
    resumed, effects = advance(DIVIDE, repaired, Resume(at=2.0, revision=2))
    assert summary(effects) == [("run.resumed", None), ("step.started", "q"),
                                ("step.succeeded", "q"), *started_attempt("z", "z@0.1")]
    assert resumed.steps["q"].output == {"result": 0.5}


# --- Repair -----------------------------------------------------------------------------

def linear_running_c():
    """a and b succeeded, c@0.1 runs: revision 3."""
    return started(LINEAR, ok("a", "a@0.1", 1.0), ok("b", "b@0.1", 2.0))


def test_repair_rewinds_the_step_and_what_follows_and_suspends():
    run = linear_running_c()
    repaired, effects = advance(LINEAR, run, Repair(at=3.0, revision=3, rewind_to="b",
                                                    input={"v": 2}))
    assert effects == (EmitEvent("run.repaired", "b", "rewound 'b', 'c'; replaced the input"),)
    assert repaired.state is RunState.SUSPENDED
    assert repaired.reason == "repaired to step 'b'; waiting for resume"
    assert repaired.input == {"v": 2} and run.input == {}
    assert states(repaired) == {"a": (S, "a@0.1"), "b": (P, None), "c": (P, None)}
    assert (repaired.steps["b"].iteration, repaired.steps["c"].iteration) == (1, 1)
    assert repaired.steps["b"].output is None
    assert repaired.edges == {"a->b": "taken"}  # b->c undecided again


def test_stale_events_after_repair_change_nothing():
    run = advance(LINEAR, linear_running_c(), Repair(at=3.0, revision=3, rewind_to="b"))[0]
    for stale in (ok("c", "c@0.1", 4.0), ok("b", "b@0.1", 4.0),
                  TimerFired("c", "c@0.1", "timeout", at=4.0), Start(at=4.0)):
        after, effects = advance(LINEAR, run, stale)
        assert effects == () and after.steps == run.steps and after.state is RunState.SUSPENDED


def test_repair_then_resume_re_runs_from_the_rewound_step_with_the_new_input():
    run = drive(LINEAR, linear_running_c(),
                Repair(at=3.0, revision=3, rewind_to="b", input={"v": 2}),
                ok("c", "c@0.1", 4.0))                      # stale, but its key counts
    assert run.revision == 5
    resumed, effects = advance(LINEAR, run, Resume(at=5.0, revision=5))
    assert summary(effects) == [("run.resumed", None), *started_attempt("b", "b@1.1")]
    assert resumed.state is RunState.RUNNING and resumed.reason is None
    dispatch = next(e for e in effects if isinstance(e, DispatchStep))
    assert dispatch.payload == {"run": "r1", "step": "b", "attempt": 1, "input": {"v": 2},
                                "outputs": {"a": {"a": "done"}}}
    after, effects = advance(LINEAR, resumed, ok("b", "b@1.1", 6.0))
    assert states(after) == {"a": (S, "a@0.1"), "b": (S, "b@1.1"), "c": (RU, "c@1.1")}
    dispatch = next(e for e in effects if isinstance(e, DispatchStep))
    assert dispatch.attempt_id == "c@1.1" and dispatch.payload["input"] == {"v": 2}
    # c's one predecessor is b; a is two steps up and c declares no reads
    assert dispatch.payload["outputs"] == {"b": {"b": "done"}}


def test_repair_of_a_failed_run_to_its_first_step():
    run = advance(LINEAR, linear_failed_at_b(), Repair(at=3.0, revision=3, rewind_to="a"))[0]
    assert run.state is RunState.SUSPENDED and run.edges == {}
    assert states(run) == {"a": (P, None), "b": (P, None), "c": (P, None)}
    resumed, effects = advance(LINEAR, run, Resume(at=4.0, revision=4))
    assert summary(effects) == [("run.resumed", None), *started_attempt("a", "a@1.1")]
    assert resumed.state is RunState.RUNNING and resumed.reason is None


def test_repair_stops_active_steps_outside_the_rewound_part_and_resume_restarts_them():
    run = started(FAN)                                      # x@0.1 and y@0.1 run
    repaired, effects = advance(FAN, run, Repair(at=1.0, revision=1, rewind_to="x"))
    assert effects == (EmitEvent("run.repaired", "x", "rewound 'x', 'j', 'z'; stopped 'y'"),)
    assert states(repaired) == {"f": (S, "f@0.1"), "x": (P, None), "y": (C, "y@0.1"),
                                "j": (P, None), "z": (P, None)}
    assert repaired.edges == {"f->x": "taken", "f->y": "taken"}
    stale = drive(FAN, repaired, ok("y", "y@0.1", 2.0), ok("x", "x@0.1", 2.0))
    assert stale.steps == repaired.steps and stale.revision == 4
    resumed, effects = advance(FAN, stale, Resume(at=3.0, revision=4))
    assert summary(effects) == [("run.resumed", None), *started_attempt("x", "x@1.1"),
                                *started_attempt("y", "y@0.2")]
    done = drive(FAN, resumed, ok("x", "x@1.1", 4.0), ok("y", "y@0.2", 4.0))
    assert done.steps["j"].state is S and done.steps["z"].attempt_id == "z@1.1"


def test_repair_keeps_a_failed_step_outside_the_rewound_part_for_resume_to_retry():
    run = started(FAN, fail("x", "x@0.1", 1.0))             # y stopped mid-flight
    repaired, effects = advance(FAN, run, Repair(at=2.0, revision=2, rewind_to="y"))
    assert effects == (EmitEvent("run.repaired", "y",
                                 "rewound 'y', 'j', 'z'; resume retries Failed 'x'"),)
    assert repaired.steps["x"] == run.steps["x"] and repaired.steps["y"].state is P
    resumed, effects = advance(FAN, repaired, Resume(at=3.0, revision=3))
    assert summary(effects) == [("run.resumed", None), *started_attempt("x", "x@0.2"),
                                *started_attempt("y", "y@1.1")]
    assert resumed.steps["x"].attempt == 2 and resumed.steps["x"].iteration == 0


def test_repair_stops_a_waiting_human_and_resume_asks_again():
    run = started(HUMAN)                                    # h@0.1 waits for a decision
    repaired = advance(HUMAN, run, Repair(at=1.0, revision=1, rewind_to="n"))[0]
    assert states(repaired) == {"h": (C, "h@0.1"), "n": (P, None)}
    after, effects = advance(HUMAN, repaired, Decision("h", "h@0.1", "approve", at=2.0))
    assert effects == () and after.steps == repaired.steps
    resumed, effects = advance(HUMAN, after, Resume(at=3.0, revision=3))
    assert summary(effects) == [("run.resumed", None), *asked("h", "h@0.2")]
    assert resumed.state is RunState.WAITING_FOR_HUMAN


def test_resume_of_a_repaired_run_can_carry_the_decision_of_the_step_it_restarts():
    repaired = started(HUMAN, Repair(at=1.0, revision=1, rewind_to="n"))
    resumed, effects = advance(HUMAN, repaired, Resume(at=2.0, revision=2, decision="approve"))
    assert summary(effects) == [("run.resumed", None), *asked("h", "h@0.2"),
                                ("step.succeeded", "h"), *started_attempt("n", "n@1.1")]
    assert resumed.steps["h"].output == {"decision": "approve"}


def test_repair_of_a_run_stopped_by_its_loop_bound_restarts_the_loop_count():
    # a, then b loops back to a once (iteration 1); the second loop-back exceeds the bound
    run = started(LOOP, ok("a", "a@0.1", 1.0), ok("a", "a@1.1", 2.0))
    assert run.state is RunState.FAILED
    assert run.reason == "loop-back edge 'b->a' exceeded maxLoopIterations 1"
    assert refusal(LOOP, run, Retry(at=3.0, revision=3)) == (
        "run r1 has no Failed step to retry; repair it to a step instead")
    repaired, effects = advance(LOOP, run, Repair(at=3.0, revision=3, rewind_to="a"))
    assert effects == (EmitEvent("run.repaired", "a", "rewound 'a', 'b'"),)
    assert repaired.loops == {} and repaired.steps["a"].iteration == 2
    resumed, effects = advance(LOOP, repaired, Resume(at=4.0, revision=4))
    assert summary(effects) == [("run.resumed", None), *started_attempt("a", "a@2.1")]
    looped = advance(LOOP, resumed, ok("a", "a@2.1", 5.0))[0]
    assert looped.loops == {"b->a": 1} and looped.steps["a"].attempt_id == "a@3.1"
    assert looped.state is RunState.RUNNING


def test_repair_of_a_run_not_yet_started():
    repaired = advance(LINEAR, fresh(LINEAR), Repair(at=0.0, revision=0, rewind_to="a"))[0]
    assert repaired.state is RunState.SUSPENDED
    after, effects = advance(LINEAR, repaired, Start(at=1.0))   # too late to start it
    assert effects == () and after.state is RunState.SUSPENDED
    resumed, effects = advance(LINEAR, after, Resume(at=2.0, revision=2))
    assert summary(effects) == [("run.resumed", None), *started_attempt("a", "a@1.1")]
    assert resumed.state is RunState.RUNNING


def test_a_suspended_run_can_be_cancelled_and_repaired_again():
    repaired = advance(LINEAR, linear_running_c(), Repair(at=3.0, revision=3, rewind_to="c"))[0]
    again, effects = advance(LINEAR, repaired, Repair(at=4.0, revision=4, rewind_to="b"))
    assert effects == (EmitEvent("run.repaired", "b", "rewound 'b', 'c'"),)
    assert (again.steps["b"].iteration, again.steps["c"].iteration) == (1, 2)
    cancelled = advance(LINEAR, again, Cancel(at=5.0))[0]
    assert cancelled.state is RunState.CANCELLED


# --- Resume of a waiting run -------------------------------------------------------------

def test_resume_decides_for_the_step_waiting_for_a_human():
    run = started(HUMAN)
    assert run.state is RunState.WAITING_FOR_HUMAN
    resumed, effects = advance(HUMAN, run, Resume(at=5.0, revision=1, decision="input",
                                                  data={"k": 1}))
    assert summary(effects) == [("run.resumed", None), ("step.succeeded", "h"),
                                *started_attempt("n", "n@0.1")]
    assert resumed.steps["h"].output == {"k": 1, "decision": "input"}
    assert resumed.state is RunState.RUNNING
    late, effects = advance(HUMAN, resumed, Decision("h", "h@0.1", "reject", at=6.0))
    assert effects == () and late.steps == resumed.steps


def test_resume_names_the_step_when_several_wait_for_a_human():
    run = started(TWO_HUMANS)
    resumed, effects = advance(TWO_HUMANS, run, Resume(at=1.0, revision=1, decision="reject",
                                                       step_id="h2"))
    assert summary(effects) == [("run.resumed", None), ("step.succeeded", "h2")]
    assert states(resumed)["h1"] == (W, "h1@0.1") and resumed.steps["h2"].state is S
    assert resumed.state is RunState.WAITING_FOR_HUMAN


def test_resume_fires_the_delay_timer_now():
    run = started(TIMER)
    assert run.state is RunState.WAITING_FOR_TIMER
    resumed, effects = advance(TIMER, run, Resume(at=10.0, revision=1))
    assert summary(effects) == [("run.resumed", None), ("step.succeeded", "t"),
                                *started_attempt("n", "n@0.1")]
    assert resumed.steps["t"].output == {"firedAt": 10.0}
    late, effects = advance(TIMER, resumed, TimerFired("t", "t@0.1", "delay", at=1800.0))
    assert effects == () and late.steps == resumed.steps


def test_resume_fires_only_the_named_timer():
    run = started(TWO_TIMERS)
    one = advance(TWO_TIMERS, run, Resume(at=5.0, revision=1, step_id="t2"))[0]
    assert states(one)["t1"] == (W, "t1@0.1") and one.steps["t2"].state is S
    both, effects = advance(TWO_TIMERS, run, Resume(at=5.0, revision=1))
    assert summary(effects) == [("run.resumed", None), ("step.succeeded", "t1"),
                                ("step.succeeded", "t2"), ("run.completed", None)]
    assert both.state is RunState.COMPLETED


def test_resume_starts_the_next_attempt_instead_of_waiting_for_the_backoff():
    run = started(BACKOFF, fail("r", "r@0.1", 1.0))
    assert run.state is RunState.WAITING_FOR_TIMER and run.steps["r"].waiting_for == "retry"
    resumed, effects = advance(BACKOFF, run, Resume(at=1.5, revision=2))
    assert summary(effects) == [("run.resumed", None), *started_attempt("r", "r@0.2")]
    late, effects = advance(BACKOFF, resumed, TimerFired("r", "r@0.1", "retry", at=3.0))
    assert effects == () and late.steps == resumed.steps


# --- refusals ---------------------------------------------------------------------------

def compensating():
    """b failed with Compensate: a's compensation runs (revision 3)."""
    return started(COMPENSATED, ok("a", "a@0.1", 1.0), fail("b", "b@0.1", 2.0))


def compensated():
    return drive(COMPENSATED, compensating(), ok("a", "a@0.compensate", 3.0))


def completed():
    return drive(LINEAR, linear_running_c(), ok("c", "c@0.1", 3.0))


def cancelled():
    return drive(LINEAR, linear_running_c(), Cancel(at=3.0))


def suspended():
    return drive(LINEAR, linear_running_c(), Repair(at=3.0, revision=3, rewind_to="b"))


NEEDS_FAILED = "retry needs a Failed run"
NEEDS_REPAIRABLE = "repair needs a Failed run or an unfinished one that is not compensating"
NEEDS_RESUMABLE = "resume needs a Suspended run or one waiting for a human or a timer"

REFUSED = [
    # (plan, run, verb, refusal)
    (LINEAR, linear_running_c, Retry(at=9.0, revision=3), f"run r1 is Running; {NEEDS_FAILED}"),
    (LINEAR, completed, Retry(at=9.0, revision=4), f"run r1 is Completed; {NEEDS_FAILED}"),
    (LINEAR, suspended, Retry(at=9.0, revision=4), f"run r1 is Suspended; {NEEDS_FAILED}"),
    (LINEAR, linear_failed_at_b, Retry(at=9.0, revision=2), "run r1 is at revision 3, not 2"),
    (LINEAR, linear_failed_at_b, Retry(at=9.0, revision=4), "run r1 is at revision 3, not 4"),
    (COMPENSATED, compensating, Retry(at=9.0, revision=3),
     f"run r1 is Compensating; {NEEDS_FAILED}"),
    (COMPENSATED, compensated, Retry(at=9.0, revision=4),
     "run r1 went through compensation; retry needs a run that did not"),
    (LINEAR, completed, Repair(at=9.0, revision=4, rewind_to="a"),
     f"run r1 is Completed; {NEEDS_REPAIRABLE}"),
    (LINEAR, cancelled, Repair(at=9.0, revision=4, rewind_to="a"),
     f"run r1 is Cancelled; {NEEDS_REPAIRABLE}"),
    (COMPENSATED, compensating, Repair(at=9.0, revision=3, rewind_to="a"),
     f"run r1 is Compensating; {NEEDS_REPAIRABLE}"),
    (COMPENSATED, compensated, Repair(at=9.0, revision=4, rewind_to="a"),
     "run r1 went through compensation; repair needs a run that did not"),
    (LINEAR, linear_failed_at_b, Repair(at=9.0, revision=3, rewind_to="zz"),
     "workflow linear has no step 'zz' to rewind to"),
    (LINEAR, linear_running_c, Repair(at=9.0, revision=1, rewind_to="a"),
     "run r1 is at revision 3, not 1"),
    (LINEAR, linear_running_c, Resume(at=9.0, revision=3), f"run r1 is Running; {NEEDS_RESUMABLE}"),
    (LINEAR, linear_failed_at_b, Resume(at=9.0, revision=3),
     f"run r1 is Failed; {NEEDS_RESUMABLE}"),
    (LINEAR, lambda: fresh(LINEAR), Resume(at=9.0, revision=0),
     f"run r1 is Pending; {NEEDS_RESUMABLE}"),
    (LINEAR, suspended, Resume(at=9.0, revision=3), "run r1 is at revision 4, not 3"),
    (LINEAR, suspended, Resume(at=9.0, revision=4, decision="approve"),
     "no step of run r1 waits for a decision once resumed"),
    (LINEAR, suspended, Resume(at=9.0, revision=4, decision="maybe"),
     "unknown decision 'maybe' (known: approve, reject, input)"),
    (HUMAN, lambda: started(HUMAN), Resume(at=9.0, revision=1),
     "resume of a run waiting for a human needs a decision"),
    (HUMAN, lambda: started(HUMAN), Resume(at=9.0, revision=1, decision="approve",
                                           step_id="n"),
     "step 'n' of run r1 does not wait for a decision"),
    (HUMAN, lambda: started(HUMAN), Resume(at=9.0, revision=1, decision="ok", step_id="h"),
     "unknown decision 'ok' (known: approve, reject, input)"),
    (TWO_HUMANS, lambda: started(TWO_HUMANS), Resume(at=9.0, revision=1, decision="approve"),
     "steps 'h1', 'h2' of run r1 wait for a decision; resume needs a step_id naming one"),
    (TWO_HUMANS, lambda: started(TWO_HUMANS), Resume(at=9.0, revision=1, decision="approve",
                                                     step_id="zz"),
     "workflow humans has no step 'zz'"),
    (TIMER, lambda: started(TIMER), Resume(at=9.0, revision=1, decision="approve"),
     "run r1 is WaitingForTimer; no step waits for a decision"),
    (TIMER, lambda: started(TIMER), Resume(at=9.0, revision=1, step_id="n"),
     "step 'n' of run r1 is not waiting for a timer"),
    (LINEAR, completed, Cancel(at=9.0), "run r1 is Completed; cancel needs an unfinished run"),
    (LINEAR, cancelled, Cancel(at=9.0), "run r1 is Cancelled; cancel needs an unfinished run"),
]


@pytest.mark.parametrize(("plan", "make_run", "verb", "why"), REFUSED,
                         ids=[f"{type(v).__name__}-{w[:40]}" for _, _, v, w in REFUSED])
def test_a_refused_verb_says_why_and_leaves_the_run_as_it_was(plan, make_run, verb, why):
    run = make_run()
    assert refusal(plan, run, verb) == why
    after, effects = advance(plan, run, verb)
    assert after is run and effects == ()


@pytest.mark.parametrize(("plan", "make_run"), [
    (LINEAR, linear_running_c), (LINEAR, suspended), (HUMAN, lambda: started(HUMAN)),
    (TIMER, lambda: started(TIMER)), (COMPENSATED, compensating), (LINEAR, lambda: fresh(LINEAR)),
])
def test_cancel_applies_to_any_unfinished_run(plan, make_run):
    run = make_run()
    assert refusal(plan, run, Cancel(at=9.0)) is None
    assert advance(plan, run, Cancel(at=9.0))[0].state is RunState.CANCELLED


# --- properties -------------------------------------------------------------------------

PROP = plan_of("""
workflow: ops
maxLoopIterations: 2
steps:
  - {id: a, kind: Tool, tool: t, failurePolicy: Retry, maxAttempts: 2}
  - {id: f, kind: Fanout}
  - {id: b, kind: Tool, tool: t, failurePolicy: Escalate}
  - {id: c, kind: Human, failurePolicy: Fail, timeoutMinutes: 5}
  - {id: x, kind: Tool, tool: t, failurePolicy: Fail}
  - {id: s, kind: SubWorkflow, workflow: child, failurePolicy: Fail}
  - {id: j, kind: Join}
  - {id: w, kind: Timer, delayMinutes: 1}
  - {id: again, kind: Condition, expression: '{"==": [{"var": "c.decision"}, "reject"]}'}
edges:
  - {from: a, to: f}
  - {from: f, to: b}
  - {from: f, to: c}
  - {from: f, to: x}
  - {from: f, to: s}
  - {from: b, to: j}
  - {from: c, to: j}
  - {from: x, to: j}
  - {from: s, to: j}
  - {from: j, to: w}
  - {from: w, to: again}
  - {from: again, to: a, guard: "true", isLoopBack: true}
""")
EXECUTING = (DispatchStep, StartTimer, RequestDecision, StartChildRun)
VERBS = (Retry, Repair, Resume, Cancel)


def driving_event(draw, run, at):
    """An event some active step of ``run`` waits for (None when no step is active)."""
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
    if step.waiting_for == "child":
        return ChildFinished(step.step_id, step.attempt_id, draw(st.booleans()), at=at,
                             output={"child": 1}, error="child failed")
    if draw(st.booleans()):
        return TimerFired(step.step_id, step.attempt_id, "timeout", at=at)
    good = draw(st.booleans())
    return StepOutcome(step.step_id, step.attempt_id, good, at=at, output={"n": 1},
                       error=None if good else "boom")


def stale_event(draw, at):
    """An event for some attempt, current or (more likely) long gone."""
    step = draw(st.sampled_from(("a", "b", "c", "x", "s", "w")))
    attempt_id = f"{step}@{draw(st.integers(0, 3))}.{draw(st.integers(1, 3))}"
    return draw(st.sampled_from((
        StepOutcome(step, attempt_id, True, at=at, output={"n": 2}),
        StepOutcome(step, attempt_id, False, at=at, error="late"),
        TimerFired(step, attempt_id, "timeout", at=at),
        TimerFired(step, attempt_id, "delay", at=at),
        Decision(step, attempt_id, "approve", at=at),
        ChildFinished(step, attempt_id, True, at=at),
    )))


def operator_verb(draw, run, at):
    """An operator verb (often the one the run's state calls for) naming the run's revision,
    or (a third of the time) another one."""
    revision = run.revision + draw(st.sampled_from((0, 0, 0, 0, 0, 0, -1, -2, 1)))
    fitting = {RunState.FAILED: "retry", RunState.SUSPENDED: "resume",
               RunState.WAITING_FOR_HUMAN: "resume", RunState.WAITING_FOR_TIMER: "resume"}
    kind = draw(st.sampled_from(("retry",) * 10 + ("repair",) * 10 + ("resume",) * 12
                                + ("cancel",)))
    if run.state in fitting and draw(st.booleans()):
        kind = fitting[run.state]
    if kind == "retry":
        return Retry(at=at, revision=revision)
    if kind == "repair":
        new_input = draw(st.sampled_from((None, {"n": 1}, {"n": 2})))
        return Repair(at=at, revision=revision, input=new_input,
                      rewind_to=draw(st.sampled_from((*PROP.order, "zz"))))
    if kind == "resume":
        return Resume(at=at, revision=revision,
                      decision=draw(st.sampled_from((None, None, "approve", "reject", "input",
                                                     "maybe"))),
                      step_id=draw(st.sampled_from((None, None, "b", "c", "w", "zz"))))
    return Cancel(at=at)


def some_event(draw, run, at):
    kind = draw(st.sampled_from(("drive",) * 4 + ("stale", "verb", "verb")))
    event = driving_event(draw, run, at) if kind == "drive" else None
    if event is None and kind != "stale":
        return operator_verb(draw, run, at)
    return event or stale_event(draw, at)


def check_one(run, event):
    """Apply one event, checking the properties; return the new run."""
    before = copy.deepcopy(run)
    new, effects = advance(PROP, run, event)
    assert run == before, "advance changed the caller's run"
    if isinstance(event, VERBS):
        why = refusal(PROP, run, event)
        if why is not None:
            assert new is run and effects == (), f"refused ({why}) but applied"
        else:
            assert event.key in new.processed and effects, "let through but not applied"
    if RunState.SUSPENDED in (run.state, new.state) and not isinstance(event, Resume):
        executing = [e for e in effects if isinstance(e, EXECUTING)]
        assert not executing, f"a Suspended run started work on {event}"
    again, more = advance(PROP, new, event)
    assert again is new and more == (), "applying an event twice is not idempotent"
    return new


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_operator_verbs_keep_advance_pure_idempotent_and_refusals_inert(data):
    run = advance(PROP, fresh(PROP), Start(at=0.0))[0]
    events = [Start(at=0.0)]
    for index in range(40):
        event = some_event(data.draw, run, float(index + 1))
        events.append(event)
        run = check_one(run, event)
    doubled = [event for event in events for _ in (0, 1)]
    assert drive(PROP, fresh(PROP), *doubled) == run


def stale_events(step_id, attempt_id, at):
    return (StepOutcome(step_id, attempt_id, True, at=at, output={"n": 3}),
            StepOutcome(step_id, attempt_id, False, at=at, error="late"),
            TimerFired(step_id, attempt_id, "timeout", at=at),
            TimerFired(step_id, attempt_id, "delay", at=at),
            TimerFired(step_id, attempt_id, "retry", at=at),
            Decision(step_id, attempt_id, "approve", at=at),
            ChildFinished(step_id, attempt_id, True, at=at))


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_events_for_attempts_before_a_retry_or_repair_never_apply_after_it(data):
    run = advance(PROP, fresh(PROP), Start(at=0.0))[0]
    for index in range(40):
        at = float(index + 1)
        event = some_event(data.draw, run, at)
        new = advance(PROP, run, event)[0]
        if isinstance(event, Retry | Repair) and new is not run:
            for old in run.steps.values():
                for stale in stale_events(old.step_id, old.attempt_id or "", at):
                    after, effects = advance(PROP, new, stale)
                    assert effects == () and after.steps == new.steps, stale
                    assert after.state is new.state
        run = new
