"""The pure transition function: (plan, run, event) -> (new run, effects).

Nothing here reads a clock, a random source or a store: time comes from the event and
retry jitter is a hash of the ids, so the same inputs give the same outputs. Advance is
idempotent: an event whose key the run has already processed (or, once the run is
finished, any event but a Retry or Repair of a Failed run) changes nothing and asks for
nothing; so does an operator verb that :func:`workflow.operations.refusal` refuses.

>>> from workflow.definitions import VersionRegistry
>>> from workflow.dsl import load_definition_text
>>> from workflow.model import new_run, Start, StepOutcome
>>> d = load_definition_text(
...     "workflow: w\\nsteps: [{id: a, kind: Tool, tool: t, failurePolicy: Fail}]")
>>> registered = VersionRegistry().register(d)
>>> plan = compile_plan(registered)
>>> run = new_run("r", "w", "0", registered.hash, {}, at=0.0)
>>> run, effects = advance(plan, run, Start(at=0.0))
>>> run.state, [type(effect).__name__ for effect in effects]
(<RunState.RUNNING: 'Running'>, ['EmitEvent', 'EmitEvent', 'DispatchStep', 'StartTimer'])
>>> run, _ = advance(plan, run, StepOutcome("a", "a@0.1", True, at=1.0, output={"x": 1}))
>>> run.state, run.output
(<RunState.COMPLETED: 'Completed'>, {'a': {'x': 1}})
"""

from __future__ import annotations

import dataclasses

from workflow import flow, operations, policies
from workflow.model import (
    Cancel,
    ChildFinished,
    Decision,
    Effect,
    Event,
    Repair,
    Retry,
    Run,
    RunDelta,
    RunState,
    Start,
    StepOutcome,
    StepState,
    TimerFired,
    TimerPurpose,
    WaitingFor,
)
from workflow.plan import Plan, compile_plan
from workflow.scratch import Scratch

__all__ = ["advance", "compile_plan"]

DECISIONS = ("approve", "reject", "input")


def advance(plan: Plan, run: Run, event: Event) -> tuple[Run, tuple[Effect, ...]]:
    """Apply one event to a run; return the new run and the effects to carry out."""
    if event.key in run.processed:
        return run, ()
    if run.state.is_finished and not isinstance(event, Retry | Repair):
        return run, ()
    if plan.hash != run.definition_hash:
        raise ValueError(f"run {run.run_id} belongs to definition {run.definition_hash[:12]}, "
                         f"not {plan.hash[:12]}")
    if isinstance(event, operations.OperatorEvent) and operations.refusal(plan, run, event):
        return run, ()  # not even the key: it would move the revision the verbs name
    w = Scratch.of(plan, run, event.at)
    _apply(w, event)
    if not w.effects and w.steps.unchanged() and w.state is run.state:
        return _only_recorded(run, event.key), ()
    _settle(w)
    new_run = w.freeze(event.key)
    if new_run.state is RunState.COMPLETED:
        new_run = dataclasses.replace(new_run, output={
            s: new_run.steps[s].output for s in plan.sinks
            if s in new_run.steps and new_run.steps[s].state is StepState.SUCCEEDED})
    return new_run, tuple(w.effects)


def _only_recorded(run: Run, key: str) -> Run:
    """``run`` with ``key`` processed and nothing else changed (a stale event), with the
    delta that says so, so that committing it looks at no step."""
    recorded = dataclasses.replace(run, processed=run.processed.add(key))
    recorded.remember_transition(run.active_steps(),
                                 RunDelta(frozenset(), frozenset(), frozenset((key,))))
    return recorded


def _apply(w: Scratch, event: Event) -> None:
    if isinstance(event, Start):
        _start(w)
    elif isinstance(event, Cancel):
        w.finish(RunState.CANCELLED, event.reason)
    elif isinstance(event, StepOutcome):
        _outcome(w, event.step_id, event.attempt_id, event.ok, event.output, event.error)
    elif isinstance(event, ChildFinished):
        if _waiting(w, event.step_id, event.attempt_id, WaitingFor.CHILD):
            _finish_attempt(w, event.step_id, event.ok, event.output, event.error)
    elif isinstance(event, TimerFired):
        fire_timer(w, event)
    elif isinstance(event, Decision):
        decide(w, event)
    else:
        operations.apply(w, event)


def _start(w: Scratch) -> None:
    if w.state is not RunState.PENDING:
        return
    w.state = RunState.RUNNING
    w.emit("run.started")
    for step_id in w.plan.entries:
        flow.activate(w, step_id)


def _current(w: Scratch, step_id: str, attempt_id: str) -> bool:
    return step_id in w.plan.steps and w.step(step_id).attempt_id == attempt_id


def _waiting(w: Scratch, step_id: str, attempt_id: str, *waiting_for: WaitingFor) -> bool:
    step_run = w.step(step_id) if step_id in w.plan.steps else None
    return (step_run is not None and step_run.attempt_id == attempt_id
            and step_run.state is StepState.WAITING and step_run.waiting_for in waiting_for)


def _outcome(w: Scratch, step_id: str, attempt_id: str, ok: bool, output: object,
             error: str | None) -> None:
    if not _current(w, step_id, attempt_id):
        return
    state = w.step(step_id).state
    if state is StepState.COMPENSATING and w.state is RunState.COMPENSATING:
        policies.compensation_outcome(w, ok, output, error)
    elif state is StepState.RUNNING:
        _finish_attempt(w, step_id, ok, output, error)


def _finish_attempt(w: Scratch, step_id: str, ok: bool, output: object, error: str | None) -> None:
    if ok:
        flow.succeed(w, step_id, output)
    else:
        policies.fail_attempt(w, step_id, error or "failed without an error message")


def fire_timer(w: Scratch, event: TimerFired) -> None:
    """Apply a timer that came due (also what resuming a run waiting for a timer does)."""
    step_id, attempt_id = event.step_id, event.attempt_id
    if event.purpose == TimerPurpose.DELAY and _waiting(w, step_id, attempt_id, WaitingFor.TIMER):
        flow.succeed(w, step_id, {"firedAt": event.at})
    elif event.purpose == TimerPurpose.RETRY and _waiting(w, step_id, attempt_id, WaitingFor.RETRY):
        flow.start_attempt(w, step_id, w.step(step_id).attempt + 1)
    elif event.purpose == TimerPurpose.TIMEOUT and _current(w, step_id, attempt_id):
        step_run = w.step(step_id)
        timed_out = (step_run.state is StepState.RUNNING
                     or step_run.waiting_for == WaitingFor.DECISION)
        if timed_out and step_run.state.is_active:
            minutes = w.plan.steps[step_id].timeout_minutes
            policies.fail_attempt(w, step_id, f"timed out after {minutes:g} minutes")


def decide(w: Scratch, event: Decision) -> None:
    """Apply a human decision (also what resuming a run waiting for a human does)."""
    if event.decision not in DECISIONS:
        w.emit("decision.refused", event.step_id, f"unknown decision '{event.decision}'")
        return
    step_id = event.step_id
    data = event.data if isinstance(event.data, dict) else {}
    output = {**data, "decision": event.decision}
    if _waiting(w, step_id, event.attempt_id, WaitingFor.DECISION):
        flow.succeed(w, step_id, output)
    elif _waiting(w, step_id, event.attempt_id, WaitingFor.ESCALATION):
        if event.decision == "reject":
            error = w.step(step_id).error
            w.update(step_id, state=StepState.FAILED, finished_at=w.now, waiting_for=None)
            w.finish(RunState.FAILED, f"step '{step_id}' escalation rejected: {error}")
        else:
            flow.succeed(w, step_id, output)


def _settle(w: Scratch) -> None:
    """Derive the run state from its steps; complete the run when nothing is active."""
    if w.state.is_finished or w.state in (RunState.COMPENSATING, RunState.SUSPENDED):
        return
    active = [w.steps[s] for s in w.active()]
    if not active:
        for step_id in w.plan.order:
            if w.step(step_id).state is StepState.PENDING:
                w.update(step_id, state=StepState.SKIPPED)
        w.finish(RunState.COMPLETED)
    elif any(r.state in (StepState.READY, StepState.RUNNING) for r in active):
        w.state = RunState.RUNNING
    elif any(r.waiting_for in (WaitingFor.DECISION, WaitingFor.ESCALATION) for r in active):
        w.state = RunState.WAITING_FOR_HUMAN
    elif any(r.waiting_for in (WaitingFor.TIMER, WaitingFor.RETRY) for r in active):
        w.state = RunState.WAITING_FOR_TIMER
    else:
        w.state = RunState.RUNNING
