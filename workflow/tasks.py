"""Human tasks from transitions: which tasks a transition opens and which it closes.

A task is opened by a :class:`~workflow.model.RequestDecision` effect and closed when its
step stops waiting on it: ``completed`` when a decision for that attempt was applied (a
:class:`~workflow.model.Decision`, or a :class:`~workflow.model.Resume` carrying one),
``cancelled`` otherwise (the run was cancelled, repaired or failed, the attempt timed out).
A task's id is derived from its run, attempt and what the step waits for, so applying a
transition again opens nothing twice.

>>> first = task_id("r1", "review@0.1", "decision")
>>> first == task_id("r1", "review@0.1", "decision")
True
>>> first == task_id("r1", "review@0.1", "escalation")
False
>>> first.startswith("t-"), len(first)
(True, 18)
"""

from __future__ import annotations

import hashlib

from workflow.model import (
    HUMAN_WAITS,
    Decision,
    Effect,
    Event,
    RequestDecision,
    Resume,
    Run,
    StepRun,
    StepState,
)
from workflow.plan import Plan
from workflow.store import HumanTask, TaskClosure, TaskStatus


def task_id(run_id: str, attempt_id: str, waiting_for: str) -> str:
    """The id of the task of one attempt's wait (stable, URL-safe)."""
    digest = hashlib.sha256(f"{run_id}\0{attempt_id}\0{waiting_for}".encode()).hexdigest()
    return f"t-{digest[:16]}"


def task_changes(plan: Plan, before: Run, after: Run, event: Event, effects: tuple[Effect, ...],
                 now: float, *, changed: frozenset[str] | None = None
                 ) -> tuple[tuple[HumanTask, ...], tuple[TaskClosure, ...]]:
    """The tasks a transition from ``before`` to ``after`` opens and closes (looking only
    at the ``changed`` steps when the transition names them)."""
    later, earlier = after.steps, before.steps
    steps = (earlier.values() if changed is None
             else [earlier[s] for s in sorted(changed) if s in earlier])
    closed = tuple(_closure(before, step, later.get(step.step_id), event)
                   for step in steps
                   if later.get(step.step_id) is not step  # an unchanged step keeps its wait
                   and _waits_on_human(step) and not _same_wait(step, later.get(step.step_id)))
    opened = tuple(_opened(plan, after, effect, now) for effect in effects
                   if isinstance(effect, RequestDecision))
    return opened, closed


def _waits_on_human(step: StepRun | None) -> bool:
    return step is not None and step.state is StepState.WAITING and step.waiting_for in HUMAN_WAITS


def _same_wait(step: StepRun, later: StepRun | None) -> bool:
    return (_waits_on_human(later) and later is not None and later.attempt_id == step.attempt_id
            and later.waiting_for == step.waiting_for)


def _closure(before: Run, step: StepRun, later: StepRun | None, event: Event) -> TaskClosure:
    identifier = task_id(before.run_id, step.attempt_id or "", step.waiting_for or "")
    decision = _decision_for(event, step)
    decided = decision is not None and later is not None and later.attempt_id == step.attempt_id
    if decided:
        return TaskClosure(identifier, TaskStatus.COMPLETED, decision)
    return TaskClosure(identifier, TaskStatus.CANCELLED)


def _decision_for(event: Event, step: StepRun) -> str | None:
    """The decision ``event`` makes on ``step``'s wait, if it makes one."""
    if isinstance(event, Decision):
        return event.decision if event.attempt_id == step.attempt_id else None
    return event.decision if isinstance(event, Resume) else None


def _opened(plan: Plan, run: Run, effect: RequestDecision, now: float) -> HumanTask:
    step = run.steps[effect.step_id]
    waiting_for = step.waiting_for or ""
    return HumanTask(task_id(run.run_id, effect.attempt_id, waiting_for), run.tenant, run.run_id,
                     effect.step_id, effect.attempt_id, effect.reason,
                     plan.steps[effect.step_id].step.assignee, TaskStatus.OPEN, now)
