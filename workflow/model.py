"""The run and step-run state model, the events a run consumes and the effects it asks for.

Everything here is immutable data; :mod:`workflow.transition` maps (run, event) to
(new run, effects). JSON values (inputs, outputs) are plain JSON data and are never mutated
once placed in a run. Events and effects convert to and from plain dicts (``type`` key) for
the durable queue.

>>> run = new_run("r1", "w", "1", "h", {"n": 1}, at=0.0)
>>> run.state, run.steps == {}
(<RunState.PENDING: 'Pending'>, True)
>>> event_from_dict(event_to_dict(Start(at=1.0))) == Start(at=1.0)
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

from workflow.persistent import AppendOnly, KeySet, OrderedMap

Json = Any  # plain JSON data: dict, list, str, int, float, bool or None


class RunState(StrEnum):
    """Lifecycle of a run (seed design)."""

    PENDING = "Pending"
    RUNNING = "Running"
    WAITING_FOR_TIMER = "WaitingForTimer"
    WAITING_FOR_HUMAN = "WaitingForHuman"
    COMPENSATING = "Compensating"
    SUSPENDED = "Suspended"  # repaired by an operator, waiting for ``resume``
    COMPLETED = "Completed"
    FAILED = "Failed"
    CANCELLED = "Cancelled"

    @property
    def is_finished(self) -> bool:
        """Whether no event can change the run any more."""
        return self in (RunState.COMPLETED, RunState.FAILED, RunState.CANCELLED)


class StepState(StrEnum):
    """Lifecycle of one step run."""

    PENDING = "Pending"
    READY = "Ready"
    RUNNING = "Running"
    WAITING = "Waiting"
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"
    SKIPPED = "Skipped"
    COMPENSATING = "Compensating"
    COMPENSATED = "Compensated"
    CANCELLED = "Cancelled"

    @property
    def is_active(self) -> bool:
        """Whether the step is dispatched or waiting for something."""
        return self is StepState.RUNNING or self is StepState.WAITING or self is StepState.READY


class WaitingFor(StrEnum):
    """What a Waiting step waits for."""

    TIMER = "timer"  # a Timer step's delay
    RETRY = "retry"  # the backoff before the next attempt
    DECISION = "decision"  # a human decision on a Human step
    ESCALATION = "escalation"  # a human decision on an escalated failure
    CHILD = "child"  # the child run of a SubWorkflow step


HUMAN_WAITS = (WaitingFor.DECISION, WaitingFor.ESCALATION)
"""What a step waits for when a person owes it a decision (a human task is open)."""


class TimerPurpose(StrEnum):
    """Why a durable timer was started."""

    DELAY = "delay"  # a Timer step's delay is over
    RETRY = "retry"  # the retry backoff is over
    TIMEOUT = "timeout"  # the attempt ran out of time


@dataclass(frozen=True, slots=True)
class StepRun:
    """One step's progress. ``waiting_for`` says what a Waiting step waits for:
    ``timer``, ``retry``, ``decision``, ``escalation`` or ``child``."""

    step_id: str
    state: StepState = StepState.PENDING
    iteration: int = 0
    attempt: int = 0
    attempt_id: str | None = None
    output: Json = None
    error: str | None = None
    started_at: float | None = None
    finished_at: float | None = None
    waiting_for: WaitingFor | None = None


@dataclass(frozen=True, slots=True)
class RunDelta:
    """What one transition changed in a run, besides its small fields: the step runs and
    edge decisions it wrote (an edge may also have been forgotten) and the event keys it
    added. Steps new to the run come last in its ``steps``, in the order they were added;
    ``completion_order`` only ever grows by appending."""

    steps: frozenset[str]
    edges: frozenset[str]
    processed: frozenset[str]


@dataclass(frozen=True, slots=True)
class Run:
    """A run of one registered definition. ``edges`` maps edge id to ``taken``/``dead``
    (absent: undecided); ``processed`` holds the keys of every event already applied.

    ``steps``, ``edges``, ``processed`` and ``completion_order`` grow with the run: they
    are persistent collections (:mod:`workflow.persistent`), so a transition's new run
    shares all but what it changed with the old one. Plain dicts, sets and tuples given
    here are converted.
    """

    run_id: str
    workflow: str
    version: str
    definition_hash: str
    state: RunState
    input: Json
    created_at: float
    updated_at: float
    steps: OrderedMap[str, StepRun] = field(default_factory=OrderedMap)
    edges: OrderedMap[str, str] = field(default_factory=OrderedMap)
    loops: Mapping[str, int] = field(default_factory=dict)
    completion_order: AppendOnly[str] = field(default_factory=AppendOnly)
    processed: KeySet[str] = field(default_factory=KeySet)
    variables: Json = None
    output: Json = None
    reason: str | None = None
    compensation: tuple[str, ...] = ()  # steps still to compensate, next first
    compensated: tuple[str, ...] = ()
    parent_run_id: str | None = None
    parent_step_id: str | None = None
    parent_attempt_id: str | None = None
    transitions: int = 0  # events applied
    step_transitions: int = 0  # step-run state changes
    tenant: str = "default"  # whose run this is; child runs inherit it
    business_reference: str | None = None  # the caller's own key for the run (filterable)
    # Memos of the transition that made this run (not fields of the run: never compared,
    # serialized or copied by ``dataclasses.replace``, which starts them at None):
    _active: frozenset[str] | None = field(default=None, init=False, compare=False, repr=False)
    _delta: RunDelta | None = field(default=None, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        for name, kind in (("steps", OrderedMap), ("edges", OrderedMap), ("processed", KeySet),
                           ("completion_order", AppendOnly)):
            value = getattr(self, name)
            if not isinstance(value, kind):
                object.__setattr__(self, name, kind(value))

    def active_steps(self) -> frozenset[str]:
        """Ids of the steps that are dispatched or waiting (computed once per run object,
        or handed on by the transition that made it, so a large run is not scanned per
        event).

        >>> run = new_run("r", "w", "1", "h", {}, at=0.0)
        >>> run.active_steps()
        frozenset()
        """
        if self._active is None:
            object.__setattr__(self, "_active", frozenset(
                step_id for step_id, step in self.steps.items() if step.state.is_active))
        assert self._active is not None
        return self._active

    def delta(self) -> RunDelta | None:
        """What the transition that made this run changed, when it says (a run read from
        a store or built by hand does not: ``None``)."""
        return self._delta

    def remember_transition(self, active: frozenset[str], delta: RunDelta) -> None:
        """Record the transition's view of this new run (see :meth:`active_steps`)."""
        object.__setattr__(self, "_active", active)
        object.__setattr__(self, "_delta", delta)

    @property
    def revision(self) -> int:
        """The stored revision: how many events the run has processed. An operator verb
        names the revision it acted on, and a commit from an older one is refused."""
        return len(self.processed)


def new_run(run_id: str, workflow: str, version: str, definition_hash: str, run_input: Json,
            *, at: float, parent: tuple[str, str, str] | None = None,
            tenant: str = "default", business_reference: str | None = None) -> Run:
    """A Pending run; ``parent`` is (run id, step id, attempt id) for a child run."""
    parent_run, parent_step, parent_attempt = parent or (None, None, None)
    return Run(run_id, workflow, version, definition_hash, RunState.PENDING, run_input, at, at,
               variables={}, parent_run_id=parent_run, parent_step_id=parent_step,
               parent_attempt_id=parent_attempt, tenant=tenant,
               business_reference=business_reference)


# --- events -----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Start:
    """Start the run: its entry steps become ready."""

    at: float

    @property
    def key(self) -> str:
        return "start"


@dataclass(frozen=True, slots=True)
class StepOutcome:
    """An executor finished an attempt (``ok`` with ``output``, or failed with ``error``)."""

    step_id: str
    attempt_id: str
    ok: bool
    at: float
    output: Json = None
    error: str | None = None

    @property
    def key(self) -> str:
        return f"outcome:{self.attempt_id}"


@dataclass(frozen=True, slots=True)
class TimerFired:
    """A durable timer came due; ``purpose`` is ``delay``, ``retry`` or ``timeout``."""

    step_id: str
    attempt_id: str
    purpose: TimerPurpose
    at: float

    @property
    def key(self) -> str:
        return f"timer:{self.purpose}:{self.attempt_id}"


@dataclass(frozen=True, slots=True)
class Decision:
    """A human decided a task: ``approve``, ``reject`` or ``input`` (with ``data``)."""

    step_id: str
    attempt_id: str
    decision: str
    at: float
    data: Json = None

    @property
    def key(self) -> str:
        return f"decision:{self.attempt_id}"


@dataclass(frozen=True, slots=True)
class ChildFinished:
    """A child run started by a SubWorkflow step finished."""

    step_id: str
    attempt_id: str
    ok: bool
    at: float
    output: Json = None
    error: str | None = None

    @property
    def key(self) -> str:
        return f"child:{self.attempt_id}"


@dataclass(frozen=True, slots=True)
class Cancel:
    """Cancel the run."""

    at: float
    reason: str = "cancelled"

    @property
    def key(self) -> str:
        return "cancel"


@dataclass(frozen=True, slots=True)
class Retry:
    """An operator retries a Failed run: its failed step starts a new attempt, and the
    steps the failure stopped start again. ``revision`` is the run revision acted on."""

    at: float
    revision: int

    @property
    def key(self) -> str:
        return f"retry:{self.revision}"


@dataclass(frozen=True, slots=True)
class Repair:
    """An operator rewinds a run to ``rewind_to``: that step and every step after it lose
    their results, ``input`` (when given) replaces the run input, and the run is Suspended
    until a :class:`Resume`."""

    at: float
    revision: int
    rewind_to: str
    input: Json = None

    @property
    def key(self) -> str:
        return f"repair:{self.revision}"


@dataclass(frozen=True, slots=True)
class Resume:
    """An operator resumes a Suspended (repaired) or waiting run. ``decision`` (with
    ``data``) becomes the output of the step waiting for one (``step_id`` picks it when
    several wait)."""

    at: float
    revision: int
    decision: str | None = None
    data: Json = None
    step_id: str | None = None

    @property
    def key(self) -> str:
        return f"resume:{self.revision}"


Event = (Start | StepOutcome | TimerFired | Decision | ChildFinished | Cancel
         | Retry | Repair | Resume)

# --- effects ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DispatchStep:
    """Call executor ``executor`` for an attempt; its outcome comes back as a StepOutcome."""

    step_id: str
    attempt_id: str
    executor: str
    payload: Json


@dataclass(frozen=True, slots=True)
class StartTimer:
    """Fire a TimerFired(``purpose``) at ``due_at``."""

    step_id: str
    attempt_id: str
    purpose: TimerPurpose
    due_at: float


@dataclass(frozen=True, slots=True)
class RequestDecision:
    """Open a human task; ``reason`` is why (the step, or an escalated failure)."""

    step_id: str
    attempt_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class StartChildRun:
    """Start a run of ``workflow`` ``version`` whose finish comes back as ChildFinished."""

    step_id: str
    attempt_id: str
    workflow: str
    version: str | None
    input: Json


@dataclass(frozen=True, slots=True)
class EmitEvent:
    """A lifecycle event for the outbox, e.g. ``step.succeeded``."""

    kind: str
    step_id: str | None = None
    detail: str | None = None


Effect = DispatchStep | StartTimer | RequestDecision | StartChildRun | EmitEvent

_EVENT_TYPES: dict[str, type[Any]] = {
    cls.__name__: cls for cls in (Start, StepOutcome, TimerFired, Decision, ChildFinished, Cancel,
                                  Retry, Repair, Resume)
}


def event_to_dict(event: Event) -> dict[str, Json]:
    """Plain JSON data of an event, tagged with its ``type``."""
    return {"type": type(event).__name__, **shallow_fields(event)}


def shallow_fields(item: Any) -> dict[str, Json]:
    """The fields of a dataclass instance as a dict (values shared, not copied)."""
    return {f.name: getattr(item, f.name) for f in fields(item)}


def event_from_dict(data: Mapping[str, Json]) -> Event:
    """Rebuild an event from :func:`event_to_dict` data; ValueError names a bad type/field."""
    cls = _EVENT_TYPES.get(str(data.get("type")))
    if cls is None:
        raise ValueError(f"unknown event type {data.get('type')!r}")
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - names - {"type"})
    if unknown:
        raise ValueError(f"event {cls.__name__} has unknown fields {unknown}")
    values = {k: v for k, v in data.items() if k != "type"}
    try:
        if cls is TimerFired and "purpose" in values:
            values["purpose"] = TimerPurpose(values["purpose"])
        event: Event = cls(**values)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"event {cls.__name__}: {exc}") from None
    return event
