"""Failure policies (Fail, Retry, Escalate, Compensate) and the compensation sequence.

Retry waits an exponential backoff with seeded jitter (the "full jitter" family of
Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog, 2015; here the jitter is
a deterministic hash of run and attempt, so a transition stays a pure function).
Compensation runs the compensations of succeeded steps in reverse completion order
(Garcia-Molina and Salem, "Sagas", SIGMOD 1987).
"""

from __future__ import annotations

from workflow.backoff import exponential_backoff
from workflow.config import DEFAULTS
from workflow.kinds import FailurePolicy
from workflow.model import (
    DispatchStep,
    RequestDecision,
    RunState,
    StartTimer,
    StepState,
    TimerPurpose,
    WaitingFor,
)
from workflow.scratch import Scratch


def backoff_seconds(run_id: str, attempt_id: str, attempt: int) -> float:
    """Delay before retrying after failed attempt ``attempt`` (1-based).

    ``min(RetryMaxSeconds, base * 2**(attempt-1))`` plus up to ``RetryJitterFraction`` of
    that, seeded by the ids (:func:`workflow.backoff.exponential_backoff`).

    >>> first, third = backoff_seconds("r", "s@0.1", 1), backoff_seconds("r", "s@0.3", 3)
    >>> 1.0 <= first < 1.25, 4.0 <= third < 5.0
    (True, True)
    >>> 3600.0 <= backoff_seconds("r", "s@0.99", 99) < 4500.0
    True
    """
    return exponential_backoff(f"{run_id}/{attempt_id}", attempt,
                               base=DEFAULTS.retry_base_seconds, cap=DEFAULTS.retry_max_seconds,
                               jitter=DEFAULTS.retry_jitter_fraction)


def fail_attempt(w: Scratch, step_id: str, error: str) -> None:
    """Apply the step's failure policy to a failed attempt."""
    spec, step_run = w.plan.steps[step_id], w.step(step_id)
    w.update(step_id, error=error)
    w.emit("step.attempt_failed", step_id, error)
    policy, attempt_id = spec.failure_policy, step_run.attempt_id or ""
    if policy == FailurePolicy.RETRY and step_run.attempt < spec.max_attempts:
        w.update(step_id, state=StepState.WAITING, waiting_for=WaitingFor.RETRY)
        delay = backoff_seconds(w.run.run_id, attempt_id, step_run.attempt)
        w.effects.append(StartTimer(step_id, attempt_id, TimerPurpose.RETRY, w.now + delay))
    elif policy == FailurePolicy.ESCALATE:
        w.update(step_id, state=StepState.WAITING, waiting_for=WaitingFor.ESCALATION)
        w.effects.append(RequestDecision(step_id, attempt_id, f"escalated: {error}"))
    else:
        w.update(step_id, state=StepState.FAILED, finished_at=w.now, waiting_for=None)
        tries = f" after {step_run.attempt} attempts" if step_run.attempt > 1 else ""
        reason = f"step '{step_id}' failed{tries}: {error}"
        if policy == FailurePolicy.COMPENSATE:
            begin_compensation(w, reason)
        else:
            w.finish(RunState.FAILED, reason)


def begin_compensation(w: Scratch, reason: str) -> None:
    """Cancel active steps and compensate succeeded ones, most recently completed first."""
    last_done: dict[str, int] = {s: i for i, s in enumerate(w.completed())}
    to_compensate = [s for s in sorted(last_done, key=last_done.__getitem__, reverse=True)
                     if w.step(s).state is StepState.SUCCEEDED
                     and w.plan.steps[s].step.compensation is not None]
    if not to_compensate:
        w.finish(RunState.FAILED, f"{reason}; no succeeded step has a compensation")
        return
    for step_id, step_run in list(w.steps.items()):
        if step_run.state.is_active:
            w.update(step_id, state=StepState.CANCELLED, finished_at=w.now, waiting_for=None)
    w.state, w.reason, w.compensation = RunState.COMPENSATING, reason, to_compensate
    w.emit("run.compensating", detail=reason)
    compensate_next(w)


def compensate_next(w: Scratch) -> None:
    """Dispatch the next compensation, or end the run Failed when none is left."""
    if not w.compensation:
        done = ", ".join(f"'{s}'" for s in w.compensated)
        w.finish(RunState.FAILED, f"{w.reason}; compensated {done} in reverse completion order")
        return
    target = w.compensation[0]
    target_run, compensation = w.step(target), w.plan.steps[target].step.compensation or ""
    attempt_id = f"{target}@{target_run.iteration}.compensate"
    w.update(target, state=StepState.COMPENSATING, attempt_id=attempt_id)
    compensation_spec = w.plan.steps.get(compensation)
    if compensation_spec is not None:
        w.update(compensation, state=StepState.RUNNING, attempt=1, attempt_id=attempt_id,
                 started_at=w.now, finished_at=None)
    executor = compensation_spec.executor if compensation_spec else compensation
    payload = {"run": w.run.run_id, "step": target, "compensate": True,
               "input": w.run.input, "output": target_run.output}
    w.effects.append(DispatchStep(target, attempt_id, executor or "", payload))
    w.emit("step.compensating", target, compensation)


def compensation_outcome(w: Scratch, ok: bool, output: object, error: str | None) -> None:
    """Record the outcome of the running compensation and go on (or end the run Failed)."""
    target = w.compensation[0]
    compensation = w.plan.steps[target].step.compensation or ""
    if compensation in w.plan.steps:
        w.update(compensation, state=StepState.SUCCEEDED if ok else StepState.FAILED,
                 output=output, error=error, finished_at=w.now)
    if not ok:
        w.update(target, state=StepState.SUCCEEDED)
        done = ", ".join(f"'{s}'" for s in w.compensated) or "none"
        left = ", ".join(f"'{s}'" for s in w.compensation)
        w.state = RunState.RUNNING  # so finish() applies
        w.finish(RunState.FAILED, f"{w.reason}; compensation of '{target}' failed: {error}; "
                 f"compensated: {done}; not compensated: {left}")
        return
    w.update(target, state=StepState.COMPENSATED, finished_at=w.now)
    w.emit("step.compensated", target)
    w.compensated.append(target)
    w.compensation.pop(0)
    compensate_next(w)
