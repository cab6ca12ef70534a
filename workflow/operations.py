"""Operator verbs as transitions: retry a Failed run, repair (rewind) a run, resume it.

:func:`refusal` says why a verb cannot apply to a run as it is; the HTTP API answers 409
with it, and :func:`workflow.transition.advance` hands a refused verb's run back untouched:
no effect, no state change, not even its key recorded, since the number of recorded keys is
the revision the verbs name (and ``cancel`` is one key for every Cancel: a Cancel a Failed
run refused must still work once the run is retried). :func:`apply` carries out a verb
that refusal let through, on the scratch copy inside ``advance``.

- ``Retry`` (a Failed run with a Failed step, whose compensation never began): the run
  runs again; every Failed step and every step the failure stopped mid-flight (Cancelled
  with no outgoing edge decided) starts its next attempt, so with a fresh attempt id
  (``b@0.1`` failed, ``b@0.2`` runs); Pending steps start as their incoming edges allow.
- ``Repair`` (a Failed run, or an unfinished one, whose compensation never began):
  ``rewind_to`` and every step it reaches forward lose their results and become Pending
  in their next iteration; their outgoing edges become undecided and the loop-backs into
  them forget their count. Other active steps stop (Cancelled) and a Failed step outside
  stays Failed: the resume starts both in their next attempt. ``input`` replaces the run
  input. The run is Suspended: nothing runs until a ``Resume``.
- ``Resume``: a Suspended run runs again, starting what can run as a retry does, then
  ``decision`` goes to the step (the one, or ``step_id``) that now waits for one; a run
  waiting for a human gets ``decision``; a run waiting for a timer has its timers (or
  ``step_id``'s) fire now, a retry backoff starting the next attempt.

>>> from workflow.definitions import VersionRegistry
>>> from workflow.dsl import load_definition_text
>>> from workflow.model import DispatchStep, Start, StepOutcome, new_run
>>> from workflow.plan import compile_plan
>>> from workflow.transition import advance
>>> registered = VersionRegistry().register(load_definition_text(
...     "workflow: w\\nsteps: [{id: a, kind: Tool, tool: t, failurePolicy: Fail}]"))
>>> plan = compile_plan(registered)
>>> run = advance(plan, new_run("r1", "w", "0", registered.hash, {}, at=0.0), Start(at=0.0))[0]
>>> run, _ = advance(plan, run, StepOutcome("a", "a@0.1", False, at=1.0, error="boom"))
>>> run.state, run.revision
(<RunState.FAILED: 'Failed'>, 2)
>>> refusal(plan, run, Retry(at=2.0, revision=1))
'run r1 is at revision 2, not 1'
>>> advance(plan, run, Retry(at=2.0, revision=1)) == (run, ())
True
>>> run, _ = advance(plan, run, Retry(at=2.0, revision=2))
>>> run.state, run.steps["a"].attempt_id
(<RunState.RUNNING: 'Running'>, 'a@0.2')
>>> run, _ = advance(plan, run, Repair(at=3.0, revision=3, rewind_to="a", input={"n": 2}))
>>> run.state, run.steps["a"].state, run.input
(<RunState.SUSPENDED: 'Suspended'>, <StepState.PENDING: 'Pending'>, {'n': 2})
>>> run, effects = advance(plan, run, Resume(at=4.0, revision=4))
>>> run.steps["a"].attempt_id, [e.payload["input"] for e in effects if isinstance(e, DispatchStep)]
('a@1.1', [{'n': 2}])
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping

# transition imports this module too; both only use each other's functions at call time
from workflow import flow, transition
from workflow.model import (
    HUMAN_WAITS,
    Cancel,
    Decision,
    Json,
    Repair,
    Resume,
    Retry,
    Run,
    RunState,
    StepRun,
    StepState,
    TimerFired,
    TimerPurpose,
    WaitingFor,
)
from workflow.plan import Plan
from workflow.scratch import Scratch

OperatorEvent = Retry | Repair | Resume | Cancel

HUMAN = HUMAN_WAITS
TIMER_PURPOSES: Mapping[str, TimerPurpose] = {  # waiting_for -> purpose of the awaited timer
    WaitingFor.TIMER: TimerPurpose.DELAY, WaitingFor.RETRY: TimerPurpose.RETRY}


def refusal(plan: Plan, run: Run, event: OperatorEvent) -> str | None:
    """Why ``event`` cannot apply to ``run`` as it is (``None``: it applies): one sentence
    naming the state, revision, step or decision that stands in the way."""
    if isinstance(event, Cancel):
        if run.state.is_finished:
            return f"run {run.run_id} is {run.state.value}; cancel needs an unfinished run"
        return None
    if event.revision != run.revision:
        return f"run {run.run_id} is at revision {run.revision}, not {event.revision}"
    if isinstance(event, Retry):
        return _retry_refusal(run)
    if isinstance(event, Repair):
        return _repair_refusal(plan, run, event)
    return _resume_refusal(plan, run, event)


def _retry_refusal(run: Run) -> str | None:
    if run.state is not RunState.FAILED:
        return f"run {run.run_id} is {run.state.value}; retry needs a Failed run"
    if run.compensation or run.compensated:
        return f"run {run.run_id} went through compensation; retry needs a run that did not"
    if not any(r.state is StepState.FAILED for r in run.steps.values()):
        return f"run {run.run_id} has no Failed step to retry; repair it to a step instead"
    return None


def _repair_refusal(plan: Plan, run: Run, event: Repair) -> str | None:
    if run.state in (RunState.COMPLETED, RunState.CANCELLED, RunState.COMPENSATING):
        return (f"run {run.run_id} is {run.state.value}; repair needs a Failed run or an "
                "unfinished one that is not compensating")
    if run.compensation or run.compensated:
        return f"run {run.run_id} went through compensation; repair needs a run that did not"
    if event.rewind_to not in plan.steps:
        return f"workflow {plan.workflow} has no step '{event.rewind_to}' to rewind to"
    return None


def _resume_refusal(plan: Plan, run: Run, event: Resume) -> str | None:
    waits = (RunState.SUSPENDED, RunState.WAITING_FOR_HUMAN, RunState.WAITING_FOR_TIMER)
    if run.state not in waits:
        return (f"run {run.run_id} is {run.state.value}; resume needs a Suspended run or one "
                "waiting for a human or a timer")
    if event.decision is not None and event.decision not in transition.DECISIONS:
        return (f"unknown decision '{event.decision}' "
                f"(known: {', '.join(transition.DECISIONS)})")
    if event.step_id is not None and event.step_id not in plan.steps:
        return f"workflow {plan.workflow} has no step '{event.step_id}'"
    if run.state is RunState.WAITING_FOR_TIMER:
        if event.decision is not None:
            return f"run {run.run_id} is WaitingForTimer; no step waits for a decision"
        timers = _waiting(plan, run.steps, TIMER_PURPOSES)
        if event.step_id is not None and event.step_id not in timers:
            return f"step '{event.step_id}' of run {run.run_id} is not waiting for a timer"
        return None
    if run.state is RunState.WAITING_FOR_HUMAN:
        if event.decision is None:
            return "resume of a run waiting for a human needs a decision"
        return _decision_refusal(run.run_id, _waiting(plan, run.steps, HUMAN), event.step_id)
    if event.decision is None:
        return None
    resumed = Scratch.of(plan, run, event.at)  # a Suspended run: who waits once resumed?
    _wake(resumed)
    waiting = _waiting(plan, resumed.steps, HUMAN)
    return _decision_refusal(run.run_id, waiting, event.step_id, " once resumed")


def _decision_refusal(run_id: str, waiting: list[str], step_id: str | None,
                      when: str = "") -> str | None:
    if step_id is not None:
        if step_id in waiting:
            return None
        return f"step '{step_id}' of run {run_id} does not wait for a decision{when}"
    if len(waiting) == 1:
        return None
    if not waiting:
        return f"no step of run {run_id} waits for a decision{when}"
    return (f"steps {_names(waiting)} of run {run_id} wait for a decision{when}; "
            "resume needs a step_id naming one")


def apply(w: Scratch, event: Retry | Repair | Resume) -> None:
    """Carry out an operator verb on the scratch copy of a run.

    Pre-condition: :func:`refusal` lets the verb through (``advance`` checks it first).
    """
    if isinstance(event, Retry):
        w.emit("run.retried")
        _wake(w)
    elif isinstance(event, Repair):
        _repair(w, event)
    elif w.state is RunState.SUSPENDED:
        w.emit("run.resumed")
        _wake(w)
        if event.decision is not None and not w.state.is_finished:
            _decide(w, event.decision, event.data, event.step_id)
    elif w.state is RunState.WAITING_FOR_HUMAN:
        w.emit("run.resumed")
        _decide(w, event.decision or "", event.data, event.step_id)
    else:
        w.emit("run.resumed")
        _fire_timers(w, event.step_id)


def _wake(w: Scratch) -> None:
    """Run again and start every step that can: Failed steps and steps stopped mid-flight in
    their next attempt, Pending entry steps, and Pending steps their incoming edges allow."""
    w.state, w.reason = RunState.RUNNING, None
    for step_id in w.plan.order:
        if w.state.is_finished:
            return
        step_run = w.step(step_id)
        if step_run.state is StepState.FAILED or _stopped(w, step_id):
            flow.start_attempt(w, step_id, step_run.attempt + 1)
        elif step_run.state is StepState.PENDING and step_id in w.plan.entries:
            flow.activate(w, step_id)
        elif step_run.state is StepState.PENDING and w.plan.incoming[step_id]:
            flow.consider(w, step_id)


def _stopped(w: Scratch, step_id: str) -> bool:
    """Cancelled before it decided its outgoing edges: stopped by a failure or a repair (a
    branch a Join cancelled has its edge into the Join dead)."""
    return (w.step(step_id).state is StepState.CANCELLED
            and not any(edge.id in w.edges for edge in w.plan.outgoing[step_id]))


def _repair(w: Scratch, event: Repair) -> None:
    plan, body = w.plan, _reach(w.plan, event.rewind_to)
    rewound = [s for s in plan.order if s in body]
    stopped = [s for s in plan.order if s not in body and w.step(s).state.is_active]
    failed = [s for s in plan.order if s not in body and w.step(s).state is StepState.FAILED]
    for step_id in stopped:
        w.update(step_id, state=StepState.CANCELLED, finished_at=w.now, waiting_for=None)
    flow.reset(w, body)
    for loop_backs in plan.loop_backs.values():
        for edge in loop_backs:
            if edge.target in body:
                w.loops.pop(edge.id, None)
    details = [f"rewound {_names(rewound)}"]
    if stopped:
        details.append(f"stopped {_names(stopped)}")
    if failed:
        details.append(f"resume retries Failed {_names(failed)}")
    if event.input is not None:
        w.run = dataclasses.replace(w.run, input=event.input)
        details.append("replaced the input")
    w.state = RunState.SUSPENDED
    w.reason = f"repaired to step '{event.rewind_to}'; waiting for resume"
    w.emit("run.repaired", event.rewind_to, "; ".join(details))


def _reach(plan: Plan, step_id: str) -> frozenset[str]:
    """``step_id`` and its forward descendants (as :attr:`Plan.loop_bodies` for a target)."""
    seen, todo = {step_id}, [step_id]
    while todo:
        for edge in plan.outgoing[todo.pop()]:
            if edge.target not in seen:
                seen.add(edge.target)
                todo.append(edge.target)
    return frozenset(seen)


def _decide(w: Scratch, decision: str, data: Json, step_id: str | None) -> None:
    """Apply the decision as the Decision event of the (one, or named) waiting step."""
    target = step_id if step_id is not None else _waiting(w.plan, w.steps, HUMAN)[0]
    attempt_id = w.step(target).attempt_id or ""
    transition.decide(w, Decision(target, attempt_id, decision, at=w.now, data=data))


def _fire_timers(w: Scratch, step_id: str | None) -> None:
    """Fire now the timers of the steps waiting for one (only ``step_id``'s if named)."""
    due = [(s, w.step(s).attempt_id or "", TIMER_PURPOSES[w.step(s).waiting_for or ""])
           for s in _waiting(w.plan, w.steps, TIMER_PURPOSES) if step_id in (None, s)]
    for target, attempt_id, purpose in due:
        transition.fire_timer(w, TimerFired(target, attempt_id, purpose, at=w.now))


def _waiting(plan: Plan, steps: Mapping[str, StepRun], waits: Collection[str]) -> list[str]:
    """Steps, in plan order, that wait for one of ``waits``."""
    return [s for s in plan.order if s in steps and steps[s].state is StepState.WAITING
            and steps[s].waiting_for in waits]


def _names(step_ids: Collection[str]) -> str:
    return ", ".join(f"'{s}'" for s in step_ids)
