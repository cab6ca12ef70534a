"""The reconciler: finds runs a lost signal would strand and gives them a way on.

A run is *stranded* when it is unfinished, has not changed for ``grace_seconds``, has an
active step run (Ready, Running or Waiting), and has no queue row (due, future or leased),
no open human task and no unfinished child run: nothing would ever move it again. By
:class:`StrandedPolicy` the reconciler then queues, for each active attempt, the timer
signal the engine itself would have queued (``requeue``: a Running attempt or a Human
decision times out, so the step's retry and failure policy decide; a Timer step's delay
fires at its due time; a retry backoff fires now; a SubWorkflow step whose child run
never started has it started, one whose child finished unanswered gets the answer), or
cancels the run (``cancel``). Signal
ids are the engine's own, so a row that turns up after all is not doubled, and applying a
stale one changes nothing.

Several workers run it as a singleton job (:func:`workflow.stores.singleton`: PostgreSQL's
advisory lock), so one of them at a time does.

>>> from workflow.store import MemoryStore
>>> from workflow.engine import Engine
>>> reconcile(Engine(MemoryStore(), clock=lambda: 0.0)).stranded
()
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from enum import StrEnum

from workflow.config import DEFAULTS
from workflow.engine import Engine
from workflow.model import (
    Cancel,
    ChildFinished,
    Event,
    Run,
    RunState,
    StartChildRun,
    StepRun,
    StepState,
    TimerFired,
    TimerPurpose,
    WaitingFor,
    event_to_dict,
    shallow_fields,
)
from workflow.store import Commit, QueuedSignal, QueueRowKind

LOGGER = logging.getLogger(__name__)
GRACE_SECONDS = 2 * DEFAULTS.lease_seconds
"""How long a run must sit unchanged before it can count as stranded (a claimed row is
leased for ``LeaseSeconds``; a transition in flight commits well within that)."""
BATCH = 100


class StrandedPolicy(StrEnum):
    """What the reconciler does with a stranded run."""

    REQUEUE = "requeue"  # queue each active attempt's timer signal (step policies decide)
    CANCEL = "cancel"  # cancel the run


@dataclass(frozen=True, slots=True)
class Reconciled:
    """What one pass found (run ids) and how many signals it queued."""

    stranded: tuple[str, ...]
    queued: int


def reconcile(engine: Engine, *, policy: StrandedPolicy = StrandedPolicy.REQUEUE,
              grace_seconds: float = GRACE_SECONDS, limit: int = BATCH) -> Reconciled:
    """One pass over the store of ``engine``."""
    now = engine.now()
    stranded = stranded_runs(engine, idle_before=now - grace_seconds, limit=limit)
    queued = 0
    for run in stranded:
        signals = _signals(engine, run, policy, now)
        if signals:
            engine.store.commit(Commit(None, enqueue=signals), at=now)
            queued += len(signals)
    return Reconciled(tuple(run.run_id for run in stranded), queued)


def stranded_runs(engine: Engine, *, idle_before: float, limit: int) -> tuple[Run, ...]:
    """The stranded runs (the store's own query where it has one, else a scan)."""
    store = engine.store
    query = getattr(store, "stranded_runs", None)
    if query is not None:
        found = [store.load_run(run_id) for run_id, _ in query(idle_before=idle_before,
                                                              limit=limit)]
        return tuple(run for run in found if run is not None)
    queued = {signal.run_id for signal in store.pending()}
    runs = store.list_runs()
    parents = {run.parent_run_id for run in runs if not run.state.is_finished}
    return tuple(run for run in runs
                 if not run.state.is_finished and run.updated_at < idle_before
                 and run.run_id not in queued and run.run_id not in parents and _active(run)
                 and not _waits_for_a_person(run))[:limit]


def _active(run: Run) -> list[StepRun]:
    return [s for s in run.steps.values() if s.state.is_active and s.attempt_id]


def _waits_for_a_person(run: Run) -> bool:
    """Whether a step waits on a human task (the stores with a query look at the task)."""
    return any(s.state is StepState.WAITING and s.waiting_for in (WaitingFor.DECISION,
                                                                  WaitingFor.ESCALATION)
               for s in run.steps.values())


def _signals(engine: Engine, run: Run, policy: StrandedPolicy, now: float
             ) -> tuple[QueuedSignal, ...]:
    if policy is StrandedPolicy.CANCEL:
        return (_signal(run.run_id, Cancel(at=now, reason="stranded: no queued signal, lease "
                                                          "or open task"), now),)
    signals = []
    for step in _active(run):
        if step.state is StepState.WAITING and step.waiting_for == WaitingFor.CHILD:
            child = _child_signal(engine, run, step, now)
            signals += [] if child is None else [child]
            continue
        fired = _timer_for(engine, run, step, now)
        if fired is not None:
            signals.append(_signal(run.run_id, fired, max(now, fired.at)))
    return tuple(signals)


def _child_signal(engine: Engine, run: Run, step: StepRun, now: float) -> QueuedSignal | None:
    """What a SubWorkflow step waiting on a child run that no row moves needs: the child's
    start again when it never started (the engine's own row: its id, its effect), or the
    child's answer again when it finished but the answer was lost. None while the child
    runs (its end answers)."""
    attempt = step.attempt_id or ""
    child = engine.store.load_run(f"{run.run_id}/{attempt}")
    if child is None:
        spec = engine.plan(run).steps[step.step_id].step
        effect = StartChildRun(step.step_id, attempt, spec.workflow or "", spec.version,
                               run.input)
        return QueuedSignal(f"{run.run_id}:start-child:{attempt}", run.run_id,
                            QueueRowKind.START_CHILD, shallow_fields(effect), now)
    if not child.state.is_finished:
        return None
    ok = child.state is RunState.COMPLETED
    return _signal(run.run_id, ChildFinished(
        step.step_id, attempt, ok, at=now, output=child.output,
        error=None if ok else f"child run '{child.run_id}' {child.state.value}: "
                              f"{child.reason}"), now)


def _timer_for(engine: Engine, run: Run, step: StepRun, now: float) -> TimerFired | None:
    attempt = step.attempt_id or ""
    if step.state is StepState.WAITING and step.waiting_for == WaitingFor.TIMER:
        spec = engine.plan(run).steps[step.step_id]
        due = (step.started_at or now) + 60.0 * (spec.step.delay_minutes or 0.0)
        return TimerFired(step.step_id, attempt, TimerPurpose.DELAY, at=due)
    if step.state is StepState.WAITING and step.waiting_for == WaitingFor.RETRY:
        return TimerFired(step.step_id, attempt, TimerPurpose.RETRY, at=now)
    if step.state is StepState.RUNNING or step.waiting_for == WaitingFor.DECISION:
        return TimerFired(step.step_id, attempt, TimerPurpose.TIMEOUT, at=now)
    return None  # an escalation: only an operator moves it


def _signal(run_id: str, event: Event, due_at: float) -> QueuedSignal:
    return QueuedSignal(f"{run_id}:{event.key}", run_id, QueueRowKind.EVENT,
                        event_to_dict(event), due_at)


def reconcile_periodically(engine: Engine, stop: threading.Event, *, every: float,
                           policy: StrandedPolicy = StrandedPolicy.REQUEUE) -> threading.Thread:
    """A daemon thread running :func:`reconcile` every ``every`` seconds as the singleton
    job ``reconcile`` (one worker of a shared store at a time) until ``stop`` is set."""
    from workflow import jobs

    def run_pass() -> None:
        done = reconcile(engine, policy=policy)
        if done.stranded:
            LOGGER.warning("reconciler: %d stranded run(s), %d signal(s) queued: %s",
                           len(done.stranded), done.queued, ", ".join(done.stranded))

    return jobs.every(engine.store, "reconcile", every, run_pass, stop)
