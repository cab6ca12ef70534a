"""Batched pumping for a shared store: one claim of up to N due rows, one commit for all.

A pump over PostgreSQL pays per transaction: a round trip, the client library's work per
statement and a WAL flush. :func:`pump_batch` claims up to ``limit`` rows with one
``SKIP LOCKED`` statement (one lease for all), carries each out through the engine with
its commit *held* instead of written, then writes every held commit and acknowledges every
event row in one transaction (:meth:`BatchStore.commit_group`).

What stays as with one row at a time:

- **Each transition is atomic and checked.** The group transaction holds each commit's
  own statements and checks (its run's revision, its task closures); a later row of the
  same run sees the earlier row's held result, so the revision check chains. A crash
  before the group commits loses nothing (every row is still queued and its lease runs
  out); after it, nothing is applied twice (the acknowledgements are in the same commit).
- **A refusal costs one row, not the batch.** If the group is refused (another worker
  changed one of the runs first), the held commits are written one by one; a row whose
  commit is refused is delivered again on its own (:func:`workflow.pump.deliver`), which
  reads its run afresh.
- **One WAL flush per batch.** The group commits without waiting for the flush; the
  pump's next claim waits for it instead (a claim that took rows commits flushed), so a
  batch's transitions are durable before anything that follows from them is carried
  out. A server crash in between loses the group whole, its rows still queued.
- **Leases hold.** Rows are carried out only while the batch is younger than half the
  lease (the first one always); the rest are released untouched, their attempt given
  back (a slow executor cannot make a lease run out).
- **Observers** see a transition only once it is committed.

>>> from workflow.engine import Engine
>>> from workflow.store import MemoryStore
>>> isinstance(MemoryStore(), BatchStore)
False
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast, runtime_checkable

from workflow.config import DEFAULTS
from workflow.engine import Engine
from workflow.model import Run
from workflow.postgres_group import RunsChangedError
from workflow.pump import CrashHook, deliver, failed
from workflow.store import Commit, QueuedSignal, QueueRowKind, Store

LOGGER = logging.getLogger(__name__)

BATCH_SIZE = 128
"""Rows one claim of a batched pump takes (``wfr worker --batch``)."""


@runtime_checkable
class BatchStore(Protocol):
    """A store that claims several rows at once and commits several transitions in one
    transaction (PostgreSQL)."""

    def claim_batch(self, owner: str, *, now: float, lease_seconds: float,
                    wall: float | None = None, limit: int, flush: bool = False
                    ) -> list[tuple[QueuedSignal, Run | None]]: ...

    def commit_group(self, commits: Sequence[tuple[Commit, float]],
                     acknowledge: Sequence[str] = (), *, flushed: bool = True) -> None: ...


Observed = tuple[Run, Any, Any]


@dataclass(slots=True)
class Held:
    """What carrying out one row produced, not yet written."""

    signal: QueuedSignal
    commits: list[tuple[Commit, float]] = field(default_factory=list)
    acknowledge: list[str] = field(default_factory=list)
    observed: list[Observed] = field(default_factory=list)


class HoldingStore:
    """The engine's store during a batch: commits and acknowledgements are held, and a
    run reads as its latest held (or claimed) state; everything else goes to ``store``."""

    def __init__(self, store: Store, claimed: dict[str, Run]) -> None:
        self._store, self._claimed = store, claimed
        self._runs: dict[str, Run] = {}
        self.current: Held | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def begin(self, signal: QueuedSignal) -> Held:
        """Hold what ``signal`` produces from now on."""
        self.current = Held(signal)
        return self.current

    def discard(self, before: dict[str, Run]) -> None:
        """Forget the current row's writes (it failed): runs read as they were before."""
        self._runs = before
        self.current = None

    def snapshot(self) -> dict[str, Run]:
        return dict(self._runs)

    def load_run(self, run_id: str) -> Run | None:
        if run_id in self._runs:
            return self._runs[run_id]
        run = self._claimed.pop(run_id, None)  # read with the claim
        if run is None:
            run = self._store.load_run(run_id)
        if run is not None:
            self._runs[run_id] = run
        return run

    def commit(self, commit: Commit, *, at: float) -> None:
        assert self.current is not None
        self.current.commits.append((commit, at))
        if commit.run is not None:
            self._runs[commit.run.run_id] = commit.run

    def acknowledge(self, signal_id: str) -> None:
        assert self.current is not None
        self.current.acknowledge.append(signal_id)

    def observe(self, run: Run, event: Any, effects: Any) -> None:
        assert self.current is not None
        self.current.observed.append((run, event, effects))


def pump_batch(engine: Engine, *, owner: str = "worker", limit: int = BATCH_SIZE,
               hook: CrashHook | None = None,
               max_delivery_attempts: int = DEFAULTS.max_delivery_attempts,
               lease_seconds: float = DEFAULTS.lease_seconds) -> int:
    """Claim up to ``limit`` due rows, carry them out and commit them together; return
    how many rows were claimed (0: nothing is due). ``engine.store`` must be a
    :class:`BatchStore`."""
    store = cast(BatchStore, engine.store)
    now, began = engine.now(), time.monotonic()
    claimed = store.claim_batch(owner, now=now, lease_seconds=lease_seconds,
                                wall=engine.clock(), limit=limit, flush=True)
    if not claimed:
        return 0
    holding = HoldingStore(engine.store, {signal.run_id: run
                                          for signal, run in claimed if run is not None})
    view = copy.copy(engine)
    view.store, view.observer = cast(Store, holding), holding.observe
    done: list[Held] = []
    for index, (signal, _) in enumerate(claimed):
        if index and time.monotonic() - began > lease_seconds / 2:  # the lease must outlast
            for rest, _ in claimed[index:]:
                engine.store.release(rest.signal_id, "batch ran long", now=now,
                                     count_attempt=False)
            break
        if hook is not None:
            hook.reached("claimed", signal)
        if signal.attempts > max_delivery_attempts:
            deliver(engine, signal, now=now, max_delivery_attempts=max_delivery_attempts)
            continue
        held = _carry_out(engine, view, holding, signal, now, max_delivery_attempts)
        if held is not None:
            done.append(held)
    _write(engine, done, hook, now, max_delivery_attempts)
    return len(claimed)


def _carry_out(engine: Engine, view: Engine, holding: HoldingStore, signal: QueuedSignal,
               now: float, max_delivery_attempts: int) -> Held | None:
    """Process ``signal`` with its writes held; a failed delivery is given back at once."""
    before = holding.snapshot()
    held = holding.begin(signal)
    try:
        view.process(signal)
    except Exception as exc:
        holding.discard(before)
        failed(engine, signal, exc, now=now, max_delivery_attempts=max_delivery_attempts)
        return None
    if signal.kind == QueueRowKind.EVENT:  # others are acknowledged in their commit
        held.acknowledge.append(signal.signal_id)
    return held


def _write(engine: Engine, done: list[Held], hook: CrashHook | None, now: float,
           max_delivery_attempts: int) -> None:
    """Commit every held row in one transaction, else each on its own."""
    if not done:
        return
    store = cast(BatchStore, engine.store)
    try:
        store.commit_group([c for held in done for c in held.commits],
                           [a for held in done for a in held.acknowledge], flushed=False)
    except RunsChangedError as refused:  # the rest again as a group; those runs afresh
        stale = set(refused.changed)
        redo = [held for held in done if _touches(held, stale)]
        if redo and len(redo) < len(done):
            _write(engine, [held for held in done if not _touches(held, stale)], hook, now,
                   max_delivery_attempts)
            for held in redo:
                deliver(engine, held.signal, now=now, hook=hook,
                        max_delivery_attempts=max_delivery_attempts)
            return
        for held in done:
            _write_alone(engine, held, hook, now, max_delivery_attempts)
        return
    except Exception:  # another refusal (or a lost connection): row by row, each checked
        for held in done:
            _write_alone(engine, held, hook, now, max_delivery_attempts)
        return
    for held in done:
        _committed(engine, held, hook)


def _touches(held: Held, runs: set[str]) -> bool:
    return any(c.run is not None and c.run.run_id in runs for c, _ in held.commits)


def _write_alone(engine: Engine, held: Held, hook: CrashHook | None, now: float,
                 max_delivery_attempts: int) -> None:
    try:
        for commit, at in held.commits:
            engine.store.commit(commit, at=at)
        for signal_id in held.acknowledge:
            engine.store.acknowledge(signal_id)
    except Exception:  # refused: carry the row out afresh on its own
        deliver(engine, held.signal, now=now, hook=hook,
                max_delivery_attempts=max_delivery_attempts)
        return
    _committed(engine, held, hook)


def _committed(engine: Engine, held: Held, hook: CrashHook | None) -> None:
    if hook is not None:
        hook.reached("committed", held.signal)
    for run, event, effects in held.observed:
        try:
            engine.observer(run, event, effects)
        except Exception:  # committed: a failing observer cannot undo it
            LOGGER.exception("observer failed after run '%s' revision %d", run.run_id,
                             run.revision)
