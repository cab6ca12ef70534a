"""The store interface (runs, step runs, outbox, durable queue, dead letters) and an
in-memory implementation for tests.

A :class:`Commit` is one transition: the new run (with its step runs), the outbox rows of
its lifecycle events and the queue rows it adds, written atomically. Queue rows are
claimed with a lease (on ``wall`` time: a row is due by the claimer's clock, which
simulated time may have moved ahead, but a lease lasts ``lease_seconds`` of real time, so
another pump can take over a dead one's rows that soon), acknowledged (deleted) after
their commit, released with an error on failure (due again at ``retry_at``, the pump's
backoff; a release with ``count_attempt=False`` gives the claim's attempt back, for a
revision conflict that is no failure of the row), and dead-lettered past the delivery
budget.

>>> from workflow.model import new_run
>>> store = MemoryStore()
>>> store.commit(Commit(new_run("r", "w", "1", "h", {}, at=0.0),
...                     enqueue=(QueuedSignal("r:start", "r", "event", {}, 0.0),)), at=0.0)
>>> store.claim("me", now=1.0, lease_seconds=30.0).signal_id
'r:start'
>>> store.claim("other", now=2.0, lease_seconds=30.0) is None  # leased by "me"
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Generic, Protocol, TypeVar

from workflow.definitions import RegisteredDefinition, VersionConflictError
from workflow.model import EmitEvent, Json, Run, RunDelta, RunState


class QueueRowKind(StrEnum):
    """What a queue row asks for (its value is stored in the row's ``kind`` column)."""

    EVENT = "event"  # apply an event to the run
    DISPATCH = "dispatch"  # call an executor
    START_CHILD = "start-child"  # start a sub-workflow run


@dataclass(frozen=True, slots=True)
class QueuedSignal:
    """A durable queue row: ``kind`` is ``event`` (apply to the run), ``dispatch`` (call an
    executor) or ``start-child`` (start a sub-workflow run)."""

    signal_id: str
    run_id: str
    kind: QueueRowKind
    payload: Json
    due_at: float
    attempts: int = 0
    last_error: str | None = None


@dataclass(frozen=True, slots=True)
class DeadLetter:
    """A queue row that ran out of delivery attempts, with its last error."""

    signal_id: str
    run_id: str
    kind: str  # a QueueRowKind, or the text of a row no engine could read
    payload: Json
    attempts: int
    error: str
    failed_at: float
    tenant: str = "default"


@dataclass(frozen=True, slots=True)
class OutboxEntry:
    """One lifecycle event written in a transition's transaction."""

    seq: int
    run_id: str
    kind: str
    step_id: str | None
    detail: str | None
    created_at: float
    tenant: str = "default"


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """Who changed what: written in the same transaction as the change it records.
    ``seq`` is given by the store."""

    actor: str
    tenant: str
    action: str
    target: str
    revision_before: int | None
    revision_after: int | None
    at: float
    detail: str | None = None
    seq: int = 0


class TaskStatus(StrEnum):
    """A human task is open until decided, or until its step stops waiting."""

    OPEN = "open"
    COMPLETED = "completed"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class HumanTask:
    """A decision a person owes a waiting Human step (or an escalated failure)."""

    task_id: str
    tenant: str
    run_id: str
    step_id: str
    attempt_id: str
    reason: str
    assignee: str | None
    status: TaskStatus
    created_at: float
    closed_at: float | None = None
    decision: str | None = None
    closed_by: str | None = None


@dataclass(frozen=True, slots=True)
class TaskClosure:
    """A task leaves ``open``. With ``required`` the commit fails unless the task was still
    open, so of several callers racing to decide one task exactly one succeeds."""

    task_id: str
    status: TaskStatus
    decision: str | None = None
    closed_by: str | None = None
    required: bool = False


@dataclass(frozen=True, slots=True)
class IdempotencyClaim:
    """A start's ``Idempotency-Key`` and a digest of its request, stored with the new run."""

    key: str
    request_hash: str


@dataclass(frozen=True, slots=True)
class DefinitionRow:
    """One stored definition version, as listed (the document itself is loaded apart)."""

    tenant: str
    workflow: str
    version: str
    hash: str
    steps: int
    loaded_at: float


@dataclass(frozen=True, slots=True)
class RunFilter:
    """What ``GET /instances`` filters on; ``None`` matches anything."""

    workflow: str | None = None
    version: str | None = None
    business_reference: str | None = None
    state: RunState | None = None
    parent_run_id: str | None = None


Item = TypeVar("Item")


@dataclass(frozen=True, slots=True)
class Page(Generic[Item]):
    """One page of a listing: the items and the cursor of the next page (None: the last)."""

    items: tuple[Item, ...]
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class Commit:
    """One transition, written atomically (``run`` is None for a queue-only change)."""

    run: Run | None
    events: tuple[EmitEvent, ...] = ()
    enqueue: tuple[QueuedSignal, ...] = ()
    acknowledge: str | None = None  # a queue row finished by this same transaction
    previous: Run | None = None  # the run before the transition (only changed steps written)
    cancel: tuple[str, ...] = ()  # queue rows no longer needed (timeouts of finished attempts)
    audit: AuditEntry | None = None  # who asked for this change (operator verbs, starts)
    open_tasks: tuple[HumanTask, ...] = ()
    close_tasks: tuple[TaskClosure, ...] = ()
    idempotency: IdempotencyClaim | None = None  # with a new run: its start's key
    delta: RunDelta | None = None
    """What ``run`` changed from ``previous`` when the engine knows it (a store may then
    write just that instead of comparing every step and edge); None: compare."""


class ConcurrentTransitionError(RuntimeError):
    """A transition was computed from a run revision another writer has already replaced;
    the signal is released and applied again to the newer run."""


class TaskConflictError(ConcurrentTransitionError):
    """A task a commit required to be open was already closed by another caller."""


class IdempotencyKeyUsedError(ConcurrentTransitionError):
    """Another start with the same ``Idempotency-Key`` committed first."""

    def __init__(self, tenant: str, key: str) -> None:
        super().__init__(f"Idempotency-Key {key!r} is already used")
        self.tenant, self.key = tenant, key


class Store(Protocol):
    """What the engine needs from durable storage."""

    def save_definition(self, registered: RegisteredDefinition, *, at: float,
                        audit: AuditEntry | None = None) -> None: ...
    def load_definitions(self) -> tuple[RegisteredDefinition, ...]: ...
    def load_run(self, run_id: str) -> Run | None: ...
    def list_runs(self) -> tuple[Run, ...]: ...
    def commit(self, commit: Commit, *, at: float) -> None: ...
    def claim(self, owner: str, *, now: float, lease_seconds: float,
              wall: float | None = None) -> QueuedSignal | None: ...
    def acknowledge(self, signal_id: str) -> None: ...
    def release(self, signal_id: str, error: str, *, now: float, retry_at: float | None = None,
                count_attempt: bool = True) -> None: ...
    def dead_letter(self, signal: QueuedSignal, error: str, *, now: float) -> None: ...
    def dead_letters(self, tenant: str | None = None) -> tuple[DeadLetter, ...]: ...
    def replay(self, signal_id: str, *, now: float, audit: AuditEntry | None = None) -> None: ...
    def idempotent_run(self, tenant: str, key: str) -> tuple[str, str] | None: ...
    def task(self, task_id: str) -> HumanTask | None: ...
    def next_due(self) -> float | None: ...
    def pending(self) -> tuple[QueuedSignal, ...]: ...
    def outbox(self, run_id: str | None = None) -> tuple[OutboxEntry, ...]: ...
    def purge(self, *, before: float, tenant: str | None = None,
              audit: AuditEntry | None = None) -> int: ...
    def save_audit(self, entry: AuditEntry) -> None: ...


class QueryStore(Store, Protocol):
    """What the HTTP API reads besides the engine's own needs; every read is by tenant.

    :meth:`local_read_size` tells the API whether a run's record may be read on its event
    loop: the size in bytes of the run's stored document when reads are local and never
    wait for a writer (SQLite in WAL mode), ``None`` when a read may wait (a database over
    the network) or the run does not exist."""

    def definition_rows(self, tenant: str, workflow: str | None = None
                        ) -> tuple[DefinitionRow, ...]: ...
    def find_runs(self, tenant: str, where: RunFilter, *, limit: int,
                  after: str | None = None) -> Page[Run]: ...
    def tasks(self, tenant: str, *, status: TaskStatus | None = None,
              assignee: str | None = None, run_id: str | None = None, limit: int = 100,
              after: str | None = None) -> Page[HumanTask]: ...
    def queued_for(self, run_id: str) -> tuple[QueuedSignal, ...]: ...
    def events_after(self, tenant: str, after: int, limit: int) -> tuple[OutboxEntry, ...]: ...
    def run_events(self, tenant: str, run_id: str, after: int, limit: int
                   ) -> tuple[OutboxEntry, ...]: ...
    def audit_entries(self, tenant: str, after: int, limit: int) -> tuple[AuditEntry, ...]: ...
    def run_counts(self) -> Iterable[tuple[str, str, str, int]]: ...
    def pending_timers(self) -> Iterable[tuple[str, int]]: ...
    def dead_letter_counts(self) -> Iterable[tuple[str, int]]: ...
    def check(self) -> None: ...
    def local_read_size(self, run_id: str) -> int | None: ...


def definition_conflict(existing: str, offered: RegisteredDefinition) -> VersionConflictError:
    """The error for a changed graph under a stored (workflow, version)."""
    d = offered.definition
    return VersionConflictError(
        f"workflow '{d.workflow}' version {d.version} is already stored with a different graph "
        f"(hash {existing[:12]}, offered {offered.hash[:12]}); bump the version")


@dataclass(slots=True)
class _Row:
    signal: QueuedSignal
    seq: int
    lease_owner: str | None = None
    lease_until: float | None = None


@dataclass(slots=True)
class MemoryStore:
    """Everything in dictionaries; same semantics as the SQLite store, no durability."""

    definitions: dict[tuple[str, str, str], RegisteredDefinition] = field(default_factory=dict)
    runs: dict[str, Run] = field(default_factory=dict)
    queue: dict[str, _Row] = field(default_factory=dict)
    dead: dict[str, DeadLetter] = field(default_factory=dict)
    events: list[OutboxEntry] = field(default_factory=list)
    finished_at: dict[str, float] = field(default_factory=dict)
    sequence: int = 0
    audit: list[AuditEntry] = field(default_factory=list)
    human_tasks: dict[str, HumanTask] = field(default_factory=dict)
    idempotency: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)

    def save_definition(self, registered: RegisteredDefinition, *, at: float,
                        audit: AuditEntry | None = None) -> None:
        key = (registered.tenant, registered.definition.workflow, registered.definition.version)
        existing = self.definitions.get(key)
        if existing is not None and existing.hash != registered.hash:
            raise definition_conflict(existing.hash, registered)
        if existing is None and audit is not None:
            self.save_audit(audit)
        self.definitions[key] = registered

    def load_definitions(self) -> tuple[RegisteredDefinition, ...]:
        return tuple(self.definitions.values())

    def load_run(self, run_id: str) -> Run | None:
        return self.runs.get(run_id)

    def list_runs(self) -> tuple[Run, ...]:
        return tuple(sorted(self.runs.values(), key=lambda r: (r.created_at, r.run_id)))

    def commit(self, commit: Commit, *, at: float) -> None:
        run = commit.run
        if run is not None:
            self._check_revision(run, commit.previous)
            self._check_claims(run, commit)
            self.runs[run.run_id] = run
            if run.state.is_finished:
                self.finished_at.setdefault(run.run_id, at)
            for event in commit.events:
                self.sequence += 1
                self.events.append(OutboxEntry(self.sequence, run.run_id, event.kind,
                                               event.step_id, event.detail, at, run.tenant))
            for task in commit.open_tasks:
                self.human_tasks.setdefault(task.task_id, task)
            for closure in commit.close_tasks:
                self._close_task(closure, at)
            if commit.idempotency is not None:
                self.idempotency[(run.tenant, commit.idempotency.key)] = (
                    run.run_id, commit.idempotency.request_hash)
        if commit.audit is not None:
            self.save_audit(commit.audit)
        for signal in commit.enqueue:
            if signal.signal_id not in self.queue:
                self.sequence += 1
                self.queue[signal.signal_id] = _Row(signal, self.sequence)
        for signal_id in (*commit.cancel, *(() if commit.acknowledge is None
                                            else (commit.acknowledge,))):
            self.acknowledge(signal_id)

    def _check_revision(self, run: Run, previous: Run | None) -> None:
        stored = self.runs.get(run.run_id)
        if previous is None and stored is not None:
            raise ConcurrentTransitionError(f"run '{run.run_id}' already exists")
        if previous is not None and (stored is None
                                     or len(stored.processed) != len(previous.processed)):
            raise ConcurrentTransitionError(f"run '{run.run_id}' changed concurrently "
                                            f"(expected revision {len(previous.processed)})")

    def _check_claims(self, run: Run, commit: Commit) -> None:
        claim = commit.idempotency
        if claim is not None and (run.tenant, claim.key) in self.idempotency:
            raise IdempotencyKeyUsedError(run.tenant, claim.key)
        for closure in commit.close_tasks:
            task = self.human_tasks.get(closure.task_id)
            if closure.required and (task is None or task.status is not TaskStatus.OPEN):
                raise TaskConflictError(f"task '{closure.task_id}' is no longer open")

    def _close_task(self, closure: TaskClosure, at: float) -> None:
        task = self.human_tasks.get(closure.task_id)
        if task is not None and task.status is TaskStatus.OPEN:
            self.human_tasks[task.task_id] = dataclasses.replace(
                task, status=closure.status, closed_at=at, decision=closure.decision,
                closed_by=closure.closed_by)

    def idempotent_run(self, tenant: str, key: str) -> tuple[str, str] | None:
        return self.idempotency.get((tenant, key))

    def task(self, task_id: str) -> HumanTask | None:
        return self.human_tasks.get(task_id)

    def save_audit(self, entry: AuditEntry) -> None:
        self.audit.append(dataclasses.replace(entry, seq=len(self.audit) + 1))

    def claim(self, owner: str, *, now: float, lease_seconds: float,
              wall: float | None = None) -> QueuedSignal | None:
        lease_now = now if wall is None else wall
        free = [row for row in self.queue.values() if row.signal.due_at <= now
                and (row.lease_until is None or row.lease_until <= lease_now)]
        if not free:
            return None
        row = min(free, key=lambda r: (r.signal.due_at, r.seq))
        row.signal = dataclasses.replace(row.signal, attempts=row.signal.attempts + 1)
        row.lease_owner, row.lease_until = owner, lease_now + lease_seconds
        return row.signal

    def acknowledge(self, signal_id: str) -> None:
        self.queue.pop(signal_id, None)

    def release(self, signal_id: str, error: str, *, now: float, retry_at: float | None = None,
                count_attempt: bool = True) -> None:
        row = self.queue.get(signal_id)
        if row is not None:
            row.signal = dataclasses.replace(
                row.signal, last_error=error,
                due_at=row.signal.due_at if retry_at is None else retry_at,
                attempts=row.signal.attempts - (0 if count_attempt else 1))
            row.lease_owner = row.lease_until = None

    def dead_letter(self, signal: QueuedSignal, error: str, *, now: float) -> None:
        self.queue.pop(signal.signal_id, None)
        run = self.runs.get(signal.run_id)
        self.dead[signal.signal_id] = DeadLetter(signal.signal_id, signal.run_id, signal.kind,
                                                 signal.payload, signal.attempts, error, now,
                                                 "default" if run is None else run.tenant)

    def dead_letters(self, tenant: str | None = None) -> tuple[DeadLetter, ...]:
        letters = (d for d in self.dead.values() if tenant is None or d.tenant == tenant)
        return tuple(sorted(letters, key=lambda d: (d.failed_at, d.signal_id)))

    def replay(self, signal_id: str, *, now: float, audit: AuditEntry | None = None) -> None:
        letter = self.dead.pop(signal_id, None)
        if letter is None:
            raise LookupError(f"no dead letter '{signal_id}'")
        if audit is not None:
            self.save_audit(audit)
        self.sequence += 1
        signal = QueuedSignal(signal_id, letter.run_id, QueueRowKind(letter.kind),
                              letter.payload, now)
        self.queue[signal_id] = _Row(signal, self.sequence)

    def next_due(self) -> float | None:
        return min((row.signal.due_at for row in self.queue.values()), default=None)

    def pending(self) -> tuple[QueuedSignal, ...]:
        rows = sorted(self.queue.values(), key=lambda r: (r.signal.due_at, r.seq))
        return tuple(row.signal for row in rows)

    def outbox(self, run_id: str | None = None) -> tuple[OutboxEntry, ...]:
        return tuple(e for e in self.events if run_id is None or e.run_id == run_id)

    def purge(self, *, before: float, tenant: str | None = None,
              audit: AuditEntry | None = None) -> int:
        old = {r for r, at in self.finished_at.items() if at < before
               and (tenant is None or self.runs[r].tenant == tenant)}
        if audit is not None:
            self.save_audit(audit)
        self.human_tasks = {k: t for k, t in self.human_tasks.items() if t.run_id not in old}
        for run_id in old:
            self.runs.pop(run_id, None)
            self.finished_at.pop(run_id, None)
        self.queue = {k: v for k, v in self.queue.items() if v.signal.run_id not in old}
        self.dead = {k: v for k, v in self.dead.items() if v.run_id not in old}
        self.events = [e for e in self.events if e.run_id not in old]
        return len(old)
