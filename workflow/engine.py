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
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

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
from workflow.plan import Plan, compile_plan
from workflow.store import Commit, QueuedSignal, QueueRowKind, Store
from workflow.transition import DECISIONS, advance

Observer = Callable[[Run, Event, tuple[Effect, ...]], None]


class EngineError(ValueError):
    """A request the engine cannot carry out (unknown run, step not waiting, ...)."""


def _no_observer(run: Run, event: Event, effects: tuple[Effect, ...]) -> None:
    return None


def _new_id() -> str:
    return uuid.uuid4().hex[:12]


@dataclass(slots=True)
class Engine:
    """Definitions, runs and signal processing over one store."""

    store: Store
    executors: ExecutorRegistry = field(default_factory=ExecutorRegistry)
    clock: Callable[[], float] = time.time
    new_id: Callable[[], str] = _new_id
    observer: Observer = _no_observer
    time_offset: float = 0.0  # simulated time jumps (``wfr run --simulate-time``)
    versions: VersionRegistry = field(init=False)
    plans: dict[str, Plan] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.versions = VersionRegistry(known_executors=tuple(self.executors))
        for registered in self.store.load_definitions():
            self._remember(self.versions.restore(registered))

    def now(self) -> float:
        """The injected clock plus any simulated jump."""
        return self.clock() + self.time_offset

    def register(self, definition: Definition) -> RegisteredDefinition:
        """Validate, register and store a definition (immutable per version)."""
        registered = self.versions.register(definition)
        self.store.save_definition(registered, at=self.now())
        self._remember(registered)
        return registered

    def _remember(self, registered: RegisteredDefinition) -> None:
        self.plans[registered.hash] = compile_plan(registered)

    def start(self, workflow: str, version: str | None = None, run_input: Json = None, *,
              parent: tuple[str, str, str] | None = None, run_id: str | None = None,
              acknowledge: str | None = None, variables: Json = None) -> Run:
        """Create a Pending run and queue its Start (``acknowledge``: a queue row done by it)."""
        registered = self.versions.resolve(workflow, version)
        definition, now = registered.definition, self.now()
        run = new_run(run_id or self.new_id(), definition.workflow, definition.version,
                      registered.hash, {} if run_input is None else run_input, at=now,
                      parent=parent)
        if variables is not None:
            run = dataclasses.replace(run, variables=variables)
        self.store.commit(Commit(run, (EmitEvent("run.created"),),
                                 (self._event_signal(run.run_id, Start(at=now), now),),
                                 acknowledge=acknowledge), at=now)
        return run

    def run(self, run_id: str) -> Run:
        """The stored run; :class:`EngineError` if there is none."""
        run = self.store.load_run(run_id)
        if run is None:
            raise EngineError(f"no run '{run_id}'")
        return run

    def decide(self, run_id: str, step_id: str, decision: str, data: Json = None) -> str:
        """Queue a human decision for a step that waits for one; return the signal id."""
        step_run = self.run(run_id).steps.get(step_id)
        if step_run is None or step_run.state is not StepState.WAITING or \
                step_run.waiting_for not in (WaitingFor.DECISION, WaitingFor.ESCALATION):
            raise EngineError(f"step '{step_id}' of run '{run_id}' is not waiting for a decision")
        if decision not in DECISIONS:
            raise EngineError(f"unknown decision '{decision}' (known: {', '.join(DECISIONS)})")
        event = Decision(step_id, step_run.attempt_id or "", decision, at=self.now(), data=data)
        signal = self._event_signal(run_id, event, self.now())
        self.store.commit(Commit(None, enqueue=(signal,)), at=self.now())
        return signal.signal_id

    def process(self, signal: QueuedSignal) -> None:
        """Carry out one claimed queue row (raises on a delivery failure)."""
        if signal.kind == QueueRowKind.EVENT:
            self._apply(signal)
        elif signal.kind == QueueRowKind.DISPATCH:
            self._dispatch(signal)
        elif signal.kind == QueueRowKind.START_CHILD:
            self._start_child(signal)
        else:
            raise EngineError(f"unknown queue row kind '{signal.kind}'")

    def _apply(self, signal: QueuedSignal) -> None:
        run = self.run(signal.run_id)
        event = event_from_dict(signal.payload)
        plan = self.plans.get(run.definition_hash)
        if plan is None:
            raise EngineError(f"run '{run.run_id}' needs unknown definition "
                              f"{run.definition_hash[:12]}")
        new, effects = advance(plan, run, event)
        if new == run:
            return
        now = self.now()
        emits = tuple(e for e in effects if isinstance(e, EmitEvent))
        emits += tuple(EmitEvent("task.requested", e.step_id, e.reason)
                       for e in effects if isinstance(e, RequestDecision))
        queued = (*self._signals_for(new, effects, now), *self._cancel_children(run, new, now))
        self.store.commit(Commit(new, emits, queued, previous=run,
                                 cancel=_stale_timeouts(run, new)), at=now)
        self.observer(new, event, effects)

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
        try:
            registered = self.versions.resolve(effect.workflow, effect.version)
        except UnknownWorkflowError as exc:
            failed = ChildFinished(effect.step_id, effect.attempt_id, False, at=self.now(),
                                   error=str(exc))
            self.store.commit(Commit(None, enqueue=(self._event_signal(
                signal.run_id, failed, self.now()),), acknowledge=signal.signal_id),
                at=self.now())
            return
        child_id = f"{signal.run_id}/{effect.attempt_id}"
        if self.store.load_run(child_id) is not None:  # started before a crash
            self.store.acknowledge(signal.signal_id)
            return
        self.start(registered.definition.workflow, registered.definition.version, effect.input,
                   parent=(signal.run_id, effect.step_id, effect.attempt_id), run_id=child_id,
                   acknowledge=signal.signal_id)

    @staticmethod
    def _event_signal(run_id: str, event: Event, due_at: float) -> QueuedSignal:
        return QueuedSignal(f"{run_id}:{event.key}", run_id, QueueRowKind.EVENT,
                            event_to_dict(event), due_at)


def _stale_timeouts(before: Run, after: Run) -> tuple[str, ...]:
    """Timeout timers of attempts that ended in this transition (they can only be no-ops)."""
    stale = []
    for step_id, old in before.steps.items():
        new = after.steps.get(step_id)
        ended = new is None or new.attempt_id != old.attempt_id or not new.state.is_active
        if old.attempt_id and old.state.is_active and ended:
            stale.append(f"{before.run_id}:timer:{TimerPurpose.TIMEOUT}:{old.attempt_id}")
    return tuple(stale)


def _timer_event(effect: StartTimer) -> Event:
    return TimerFired(effect.step_id, effect.attempt_id, effect.purpose, at=effect.due_at)
