"""The engine: registers definitions, starts runs and applies queued signals to them.

It is the impure shell around :func:`workflow.transition.advance`: it loads a run, applies
one event, and writes the new run, its outbox events and the queue rows for its effects
in one store commit. The clock and the id source are injected, so tests are deterministic.

>>> from workflow.demo import demo_executors
>>> from workflow.dsl import load_definition_text
>>> from workflow.store import MemoryStore
>>> engine = Engine(MemoryStore(), demo_executors(), clock=lambda: 0.0, new_id=lambda: "r1")
>>> _ = engine.register(load_definition_text(
...     "workflow: w\\nsteps: [{id: s, kind: Tool, tool: notifier, failurePolicy: Fail}]"))
>>> engine.start("w").run_id
'r1'
"""

from __future__ import annotations

import dataclasses
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from workflow import operations
from workflow.config import DEFAULTS
from workflow.definitions import RegisteredDefinition, UnknownWorkflowError, VersionRegistry
from workflow.dsl import Definition
from workflow.executors import ExecutorRegistry, execute
from workflow.model import (
    Cancel,
    ChildFinished,
    Decision,
    DispatchStep,
    Effect,
    EmitEvent,
    Event,
    Json,
    RequestDecision,
    Run,
    Start,
    StartChildRun,
    StartTimer,
    StepState,
    TimerFired,
    TimerPurpose,
    WaitingFor,
    event_from_dict,
    event_to_dict,
    new_run,
    shallow_fields,
)
from workflow.operations import OperatorEvent
from workflow.plan import Plan, compile_plan
from workflow.store import (
    AuditEntry,
    Commit,
    ConcurrentTransitionError,
    IdempotencyClaim,
    IdempotencyKeyUsedError,
    QueuedSignal,
    QueueRowKind,
    Store,
    TaskClosure,
    TaskStatus,
)
from workflow.tasks import task_changes
from workflow.transition import DECISIONS, advance

Observer = Callable[[Run, Event, tuple[Effect, ...]], None]
LOGGER = logging.getLogger(__name__)


class EngineError(ValueError):
    """A request the engine cannot carry out (unknown run, step not waiting, ...)."""


class NotFoundError(EngineError, LookupError):
    """No run, task or definition by that name (for this tenant)."""


class RunConflictError(EngineError):
    """An operator verb does not fit the run's current state or revision (HTTP 409)."""

    def __init__(self, run: Run, message: str) -> None:
        super().__init__(message)
        self.run = run


class IdempotencyMismatchError(EngineError):
    """An ``Idempotency-Key`` came back with a different request than its first use."""


def _no_observer(run: Run, event: Event, effects: tuple[Effect, ...]) -> None:
    return None


def _new_id() -> str:
    return uuid.uuid4().hex[:12]


CONFLICT_RETRIES = 5
"""How often a queued event is re-applied at once after another writer changed its run."""


@dataclass(slots=True)
class Engine:
    """Definitions, runs and signal processing over one store."""

    store: Store
    executors: ExecutorRegistry = field(default_factory=ExecutorRegistry)
    clock: Callable[[], float] = time.time
    new_id: Callable[[], str] = _new_id
    observer: Observer = _no_observer
    time_offset: float = 0.0  # simulated time jumps (``wfr run --simulate-time``)
    max_subworkflow_depth: int = DEFAULTS.max_subworkflow_depth
    versions: VersionRegistry = field(init=False)
    plans: dict[str, Plan] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.versions = VersionRegistry(known_executors=tuple(self.executors))
        self.refresh_definitions()

    def refresh_definitions(self) -> None:
        """Load definitions other processes sharing the store have imported since."""
        for registered in self.store.load_definitions():
            self._remember(self.versions.restore(registered))

    def now(self) -> float:
        """The injected clock plus any simulated jump."""
        return self.clock() + self.time_offset

    def register(self, definition: Definition, *, tenant: str = "default",
                 audit: AuditEntry | None = None) -> RegisteredDefinition:
        """Validate, register and store a definition (immutable per version)."""
        registered = self.versions.register(definition, tenant=tenant)
        self.store.save_definition(registered, at=self.now(), audit=audit)
        self._remember(registered)
        return registered

    def _remember(self, registered: RegisteredDefinition) -> None:
        if registered.hash not in self.plans:
            self.plans[registered.hash] = compile_plan(registered)

    def resolve(self, workflow: str, version: str | None = None, *, tenant: str = "default"
                ) -> RegisteredDefinition:
        """The registered definition a start would use (reloading from the store once)."""
        try:
            return self.versions.resolve(workflow, version, tenant=tenant)
        except UnknownWorkflowError:
            self.refresh_definitions()
            return self.versions.resolve(workflow, version, tenant=tenant)

    def definition(self, workflow: str, version: str, *, tenant: str
                   ) -> RegisteredDefinition:
        """Exactly that version of a tenant's definition (reloading from the store once)."""
        found = self.versions.get(tenant, workflow, version)
        if found is None:
            self.refresh_definitions()
            found = self.versions.get(tenant, workflow, version)
        if found is None:
            raise NotFoundError(f"no workflow '{workflow}' version {version}")
        return found

    def plan(self, run: Run) -> Plan:
        """The compiled plan of a run's definition (reloading from the store once)."""
        plan = self.plans.get(run.definition_hash)
        if plan is None:
            self.refresh_definitions()
            plan = self.plans.get(run.definition_hash)
        if plan is None:
            raise EngineError(f"run '{run.run_id}' needs unknown definition "
                              f"{run.definition_hash[:12]}")
        return plan

    def start(self, workflow: str, version: str | None = None, run_input: Json = None, *,
              parent: tuple[str, str, str] | None = None, run_id: str | None = None,
              acknowledge: str | None = None, variables: Json = None,
              tenant: str = "default", business_reference: str | None = None,
              idempotency: IdempotencyClaim | None = None,
              audit: AuditEntry | None = None) -> Run:
        """Create a Pending run and queue its Start (``acknowledge``: a queue row done by it).

        With ``idempotency``, a start whose key was used before returns that first run
        (:class:`IdempotencyMismatchError` if the request differs) instead of a second one.
        """
        if idempotency is not None:
            existing = self._idempotent_run(tenant, idempotency)
            if existing is not None:
                return existing
        registered = self.resolve(workflow, version, tenant=tenant)
        definition, now = registered.definition, self.now()
        run = new_run(run_id or self.new_id(), definition.workflow, definition.version,
                      registered.hash, {} if run_input is None else run_input, at=now,
                      parent=parent, tenant=tenant, business_reference=business_reference)
        if variables is not None:
            run = dataclasses.replace(run, variables=variables)
        if audit is not None:
            audit = dataclasses.replace(audit, target=run.run_id, revision_after=run.revision)
        try:
            self.store.commit(Commit(run, (EmitEvent("run.created"),),
                                     (self._event_signal(run.run_id, Start(at=now), now),),
                                     acknowledge=acknowledge, audit=audit,
                                     idempotency=idempotency), at=now)
        except IdempotencyKeyUsedError:
            assert idempotency is not None
            existing = self._idempotent_run(tenant, idempotency)
            if existing is None:
                raise
            return existing
        return run

    def _idempotent_run(self, tenant: str, claim: IdempotencyClaim) -> Run | None:
        found = self.store.idempotent_run(tenant, claim.key)
        if found is None:
            return None
        run_id, request_hash = found
        if request_hash != claim.request_hash:
            raise IdempotencyMismatchError(
                f"Idempotency-Key {claim.key!r} was first used for a different request "
                f"(run '{run_id}'); use a new key for a new start")
        return self.run(run_id)

    def run(self, run_id: str, *, tenant: str | None = None) -> Run:
        """The stored run (of ``tenant``, when given); :class:`EngineError` if there is none."""
        run = self.store.load_run(run_id)
        if run is None or (tenant is not None and run.tenant != tenant):
            raise NotFoundError(f"no run '{run_id}'")
        return run

    def decide(self, run_id: str, step_id: str, decision: str, data: Json = None, *,
               actor: str = "cli") -> Run:
        """Apply a human decision to a step that waits for one, now, and return the run.

        Of several callers racing to decide one wait exactly one wins: the others get
        :class:`RunConflictError` (the run's revision moved under them, or the step was
        already decided); a step that never waited for a decision is an :class:`EngineError`.
        """
        if decision not in DECISIONS:
            raise EngineError(f"unknown decision '{decision}' (known: {', '.join(DECISIONS)})")
        run = self.run(run_id)
        step_run = run.steps.get(step_id)
        if step_run is None or step_run.state is not StepState.WAITING or \
                step_run.waiting_for not in (WaitingFor.DECISION, WaitingFor.ESCALATION):
            if step_run is not None and f"decision:{step_run.attempt_id}" in run.processed:
                raise RunConflictError(run, f"step '{step_id}' of run '{run_id}' was already "
                                            "decided by another caller")
            raise EngineError(f"step '{step_id}' of run '{run_id}' is not waiting for a decision")
        event = Decision(step_id, step_run.attempt_id or "", decision, at=self.now(), data=data)
        new, effects = advance(self.plan(run), run, event)
        audit = AuditEntry(actor, run.tenant, "task.complete", run_id, run.revision,
                           new.revision, self.now(), decision)
        try:
            self._commit_transition(run, new, event, effects, audit=audit)
        except ConcurrentTransitionError:
            raise RunConflictError(self.run(run_id), f"run '{run_id}' changed while deciding "
                                   f"step '{step_id}' (another decision or verb won); "
                                   "look at the run again") from None
        return new

    def operate(self, run_id: str, build: Callable[[Run, float], OperatorEvent], *,
                tenant: str, actor: str, expected_revision: int | None = None) -> Run:
        """Apply an operator verb now, in one commit with its audit row, and return the run.

        ``build`` makes the verb's event from the run as read. :class:`RunConflictError`
        when the verb does not fit the run's state or ``expected_revision``; a writer that
        changed the run between this read and the commit makes the store raise
        :class:`~workflow.store.ConcurrentTransitionError`.
        """
        run = self.run(run_id, tenant=tenant)
        if expected_revision is not None and expected_revision != run.revision:
            raise RunConflictError(run, f"run '{run_id}' is at revision {run.revision}, "
                                        f"not {expected_revision}")
        event, plan = build(run, self.now()), self.plan(run)
        refused = operations.refusal(plan, run, event)
        if refused is not None:
            raise RunConflictError(run, refused)
        new, effects = advance(plan, run, event)
        audit = AuditEntry(actor, tenant, _verb(event), run_id, run.revision, new.revision,
                           self.now())
        self._commit_transition(run, new, event, effects, audit=audit)
        return new

    def complete_task(self, task_id: str, decision: str, data: Json = None, *, tenant: str,
                      actor: str) -> Run:
        """Decide an open human task now; exactly one of several racing callers wins."""
        task = self.store.task(task_id)
        if task is None or task.tenant != tenant:
            raise NotFoundError(f"no task '{task_id}'")
        run = self.run(task.run_id)
        if task.status is not TaskStatus.OPEN:
            raise RunConflictError(run, f"task '{task_id}' is already {task.status.value}")
        if decision not in DECISIONS:
            raise EngineError(f"unknown decision '{decision}' (known: {', '.join(DECISIONS)})")
        event = Decision(task.step_id, task.attempt_id, decision, at=self.now(), data=data)
        new, effects = advance(self.plan(run), run, event)
        closure = TaskClosure(task_id, TaskStatus.COMPLETED, decision, actor, required=True)
        audit = AuditEntry(actor, tenant, "task.complete", task_id, run.revision, new.revision,
                           self.now(), decision)
        self._commit_transition(run, new, event, effects, audit=audit, closures=(closure,))
        return new

    def process(self, signal: QueuedSignal) -> None:
        """Carry out one claimed queue row (raises on a delivery failure)."""
        if signal.kind == QueueRowKind.EVENT:
            self._apply_with_retries(signal)
        elif signal.kind == QueueRowKind.DISPATCH:
            self._dispatch(signal)
        elif signal.kind == QueueRowKind.START_CHILD:
            self._start_child(signal)
        else:
            raise EngineError(f"unknown queue row kind '{signal.kind}'")

    def _apply_with_retries(self, signal: QueuedSignal) -> None:
        """Apply an event row; another writer (an operator verb, a second worker) changing
        the run meanwhile only makes it apply again to the newer revision."""
        for attempt in range(CONFLICT_RETRIES):
            try:
                self._apply(signal)
                return
            except ConcurrentTransitionError:
                if attempt == CONFLICT_RETRIES - 1:
                    raise

    def _apply(self, signal: QueuedSignal) -> None:
        run = self.run(signal.run_id)
        event = event_from_dict(signal.payload)
        new, effects = advance(self.plan(run), run, event)
        if new is run:  # an event already applied, or one the run ignores
            return
        self._commit_transition(run, new, event, effects)

    def _commit_transition(self, run: Run, new: Run, event: Event, effects: tuple[Effect, ...],
                           *, audit: AuditEntry | None = None,
                           closures: tuple[TaskClosure, ...] = ()) -> None:
        """Write one transition: the run, its outbox rows, queue rows, tasks and audit."""
        now = self.now()
        emits = tuple(e for e in effects if isinstance(e, EmitEvent))
        emits += tuple(EmitEvent("task.requested", e.step_id, e.reason)
                       for e in effects if isinstance(e, RequestDecision))
        queued = (*self._signals_for(new, effects, now), *self._cancel_children(run, new, now))
        delta = new.delta()
        changed = None if delta is None else delta.steps
        opened, closed = task_changes(self.plan(run), run, new, event, effects, now,
                                      changed=changed)
        required = {c.task_id for c in closures}
        self.store.commit(Commit(new, emits, queued, previous=run, delta=delta,
                                 cancel=_stale_timeouts(run, new, changed), audit=audit,
                                 open_tasks=opened,
                                 close_tasks=(*closures,
                                              *(c for c in closed if c.task_id not in required))),
                          at=now)
        try:
            self.observer(new, event, effects)
        except Exception:  # the transition is committed: a failing observer cannot undo it
            LOGGER.exception("observer failed after run '%s' revision %d", new.run_id,
                             new.revision)

    def _signals_for(self, run: Run, effects: tuple[Effect, ...], now: float
                     ) -> list[QueuedSignal]:
        signals = []
        for effect in effects:
            if isinstance(effect, DispatchStep):
                signals.append(QueuedSignal(f"{run.run_id}:dispatch:{effect.attempt_id}",
                                            run.run_id, QueueRowKind.DISPATCH,
                                            shallow_fields(effect), now))
            elif isinstance(effect, StartTimer):
                fired = _timer_event(effect)
                signals.append(self._event_signal(run.run_id, fired, effect.due_at))
            elif isinstance(effect, StartChildRun):
                signals.append(QueuedSignal(f"{run.run_id}:start-child:{effect.attempt_id}",
                                            run.run_id, QueueRowKind.START_CHILD,
                                            shallow_fields(effect), now))
        if run.state.is_finished and run.parent_run_id is not None:
            signals.append(self._event_signal(run.parent_run_id, ChildFinished(
                run.parent_step_id or "", run.parent_attempt_id or "",
                run.state.value == "Completed", at=now, output=run.output,
                error=None if run.state.value == "Completed" else
                f"child run '{run.run_id}' {run.state.value}: {run.reason}"), now))
        return signals

    def _cancel_children(self, before: Run, after: Run, now: float) -> list[QueuedSignal]:
        """A run that finished while sub-workflows ran cancels those child runs."""
        if not after.state.is_finished:
            return []
        return [self._event_signal(f"{before.run_id}/{step.attempt_id}",
                                   Cancel(at=now, reason=f"parent run {after.state.value}"), now)
                for step in before.steps.values()
                if step.state is StepState.WAITING and step.waiting_for == WaitingFor.CHILD]

    def cancel(self, run_id: str, reason: str = "cancelled by an operator") -> str:
        """Queue the cancellation of a run (and so of its child runs); return the signal id."""
        self.run(run_id)
        signal = self._event_signal(run_id, Cancel(at=self.now(), reason=reason), self.now())
        self.store.commit(Commit(None, enqueue=(signal,)), at=self.now())
        return signal.signal_id

    def _dispatch(self, signal: QueuedSignal) -> None:
        effect = DispatchStep(**signal.payload)
        outcome = execute(self.executors, effect, at=self.now())
        self.store.commit(Commit(None, enqueue=(self._event_signal(
            signal.run_id, outcome, self.now()),), acknowledge=signal.signal_id), at=self.now())

    def _start_child(self, signal: QueuedSignal) -> None:
        effect = StartChildRun(**signal.payload)
        parent = self.run(signal.run_id)
        try:
            registered = self.resolve(effect.workflow, effect.version, tenant=parent.tenant)
        except UnknownWorkflowError as exc:
            self._child_failed(signal, effect, str(exc))
            return
        chain = self._ancestry(parent)
        if len(chain) > self.max_subworkflow_depth:
            self._child_failed(signal, effect, (
                f"sub-workflow depth limit {self.max_subworkflow_depth} reached: "
                + " -> ".join(reversed(chain)) + f" -> {effect.workflow}"))
            return
        child_id = f"{signal.run_id}/{effect.attempt_id}"
        if self.store.load_run(child_id) is not None:  # started before a crash
            self.store.acknowledge(signal.signal_id)
            return
        self.start(registered.definition.workflow, registered.definition.version, effect.input,
                   parent=(signal.run_id, effect.step_id, effect.attempt_id), run_id=child_id,
                   acknowledge=signal.signal_id, tenant=parent.tenant)

    def _ancestry(self, run: Run) -> list[str]:
        """The workflows of ``run`` and of its parent runs, innermost first (at most one
        more than :attr:`max_subworkflow_depth`)."""
        chain = [run.workflow]
        while run.parent_run_id is not None and len(chain) <= self.max_subworkflow_depth:
            parent = self.store.load_run(run.parent_run_id)
            if parent is None:
                break
            run = parent
            chain.append(run.workflow)
        return chain

    def _child_failed(self, signal: QueuedSignal, effect: StartChildRun, error: str) -> None:
        """Answer a start-child row with a failed ChildFinished instead of a child run."""
        failed = ChildFinished(effect.step_id, effect.attempt_id, False, at=self.now(),
                               error=error)
        self.store.commit(Commit(None, enqueue=(self._event_signal(
            signal.run_id, failed, self.now()),), acknowledge=signal.signal_id), at=self.now())

    @staticmethod
    def _event_signal(run_id: str, event: Event, due_at: float) -> QueuedSignal:
        return QueuedSignal(f"{run_id}:{event.key}", run_id, QueueRowKind.EVENT,
                            event_to_dict(event), due_at)


def _stale_timeouts(before: Run, after: Run, changed: frozenset[str] | None = None
                    ) -> tuple[str, ...]:
    """Timeout timers of attempts that ended in this transition (they can only be no-ops);
    only the ``changed`` steps are looked at when the transition names them."""
    stale = []
    later = after.steps
    earlier = before.steps
    ids = earlier.keys() if changed is None else sorted(s for s in changed if s in earlier)
    for step_id in ids:
        old, new = earlier[step_id], later.get(step_id)
        if new is old:  # unchanged (most steps of a large run): nothing ended
            continue
        ended = new is None or new.attempt_id != old.attempt_id or not new.state.is_active
        if old.attempt_id and old.state.is_active and ended:
            stale.append(f"{before.run_id}:timer:{TimerPurpose.TIMEOUT}:{old.attempt_id}")
    return tuple(stale)


def _timer_event(effect: StartTimer) -> Event:
    return TimerFired(effect.step_id, effect.attempt_id, effect.purpose, at=effect.due_at)


def _verb(event: OperatorEvent) -> str:
    """The audit action of an operator event, e.g. ``run.retry``."""
    return f"run.{type(event).__name__.lower()}"
