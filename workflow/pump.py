"""The pump: claims due queue rows with a lease and carries them out through the engine.

Each row is claimed (lease), processed (its transition committed in one transaction) and
then acknowledged. A worker killed between claim and commit leaves the row to be claimed
again when the lease runs out; one killed between commit and acknowledge makes the row be
applied again, which changes nothing because advance is idempotent. A failed delivery is
due again after an exponential backoff with jitter (:func:`workflow.backoff.delivery_backoff`);
a row that fails ``MaxDeliveryAttempts`` times moves to the dead letters with its error.
A revision conflict (another writer changed the run first) is no failure: the row is
applied again after a short pause, and its attempt is given back.

For crash tests, ``WFR_CRASH_AT=<point>:<n>`` kills the process with SIGKILL the n-th time
it reaches ``claimed`` or ``committed`` for an ``event`` row.

>>> from workflow.engine import Engine
>>> from workflow.store import MemoryStore
>>> pump(Engine(MemoryStore(), clock=lambda: 0.0))
0
"""

from __future__ import annotations

import os
import signal as signals
from collections.abc import Callable
from dataclasses import dataclass, field

from workflow.backoff import conflict_pause, delivery_backoff
from workflow.config import DEFAULTS
from workflow.engine import Engine
from workflow.store import ConcurrentTransitionError, QueuedSignal, QueueRowKind

CRASH_VARIABLE = "WFR_CRASH_AT"


@dataclass(slots=True)
class CrashHook:
    """Kills the process with SIGKILL at the configured point and count (tests only)."""

    point: str | None = None
    count: int = 0
    seen: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_environment(cls) -> CrashHook:
        """Read ``WFR_CRASH_AT`` (e.g. ``committed:3``); no variable means no crash."""
        value = os.environ.get(CRASH_VARIABLE, "")
        point, _, count = value.partition(":")
        return cls(point or None, int(count or "1"))

    def reached(self, point: str, signal: QueuedSignal) -> None:
        """Called at each crash point of an ``event`` row."""
        if self.point != point or signal.kind != QueueRowKind.EVENT:
            return
        self.seen[point] = self.seen.get(point, 0) + 1
        if self.seen[point] == self.count:
            os.kill(os.getpid(), signals.SIGKILL)


def pump_once(engine: Engine, *, owner: str = "worker", hook: CrashHook | None = None,
              max_delivery_attempts: int = DEFAULTS.max_delivery_attempts,
              lease_seconds: float = DEFAULTS.lease_seconds) -> bool:
    """Claim and carry out one due row; False when nothing is due.

    A row is due by the engine's time (simulated jumps included); its lease is on the
    engine's clock without them, real time, so a crash holds it ``lease_seconds`` at most.
    """
    store, now = engine.store, engine.now()
    signal = store.claim(owner, now=now, lease_seconds=lease_seconds, wall=engine.clock())
    if signal is None:
        return False
    if hook is not None:
        hook.reached("claimed", signal)
    deliver(engine, signal, hook=hook, max_delivery_attempts=max_delivery_attempts, now=now)
    return True


def deliver(engine: Engine, signal: QueuedSignal, *, now: float, hook: CrashHook | None = None,
            max_delivery_attempts: int = DEFAULTS.max_delivery_attempts) -> None:
    """Carry out one claimed row on its own: process, then acknowledge, release (a conflict
    or a failed delivery, with backoff) or dead-letter it."""
    store = engine.store
    if signal.attempts > max_delivery_attempts:
        store.dead_letter(signal, f"delivery attempts exhausted ({signal.attempts - 1} tried, "
                          f"last error: {signal.last_error or 'worker stopped'})", now=now)
        return
    try:
        engine.process(signal)
    except Exception as exc:
        failed(engine, signal, exc, now=now, max_delivery_attempts=max_delivery_attempts)
        return
    if hook is not None:
        hook.reached("committed", signal)
    # dispatch and start-child rows are acknowledged in their commit
    if signal.kind == QueueRowKind.EVENT:
        store.acknowledge(signal.signal_id)


def failed(engine: Engine, signal: QueuedSignal, exc: Exception, *, now: float,
           max_delivery_attempts: int = DEFAULTS.max_delivery_attempts) -> None:
    """Give back a row whose delivery raised ``exc``: a revision conflict (the run moved
    on) is no failure and is retried soon with its attempt given back; anything else is
    retried after a backoff, then dead-lettered, never lost."""
    store, error = engine.store, f"{type(exc).__name__}: {exc}"
    if isinstance(exc, ConcurrentTransitionError):
        store.release(signal.signal_id, error, now=now,
                      retry_at=now + conflict_pause(signal.signal_id, signal.attempts),
                      count_attempt=False)
    elif signal.attempts >= max_delivery_attempts:
        store.dead_letter(signal, error, now=now)
    else:
        store.release(signal.signal_id, error, now=now,
                      retry_at=now + delivery_backoff(signal.signal_id, signal.attempts))


def pump(engine: Engine, *, simulate_time: bool = False, limit: int | None = None,
         owner: str = "worker", hook: CrashHook | None = None,
         may_jump: Callable[[], bool] | None = None,
         lease_seconds: float = DEFAULTS.lease_seconds) -> int:
    """Carry out due rows until none is due (or ``limit``); return how many were handled.

    With ``simulate_time`` the engine's clock jumps to the next timer whenever nothing
    else is due (and ``may_jump`` allows it), so timers fire at once; their recorded times
    stay the due times.
    """
    handled = 0
    while limit is None or handled < limit:
        if pump_once(engine, owner=owner, hook=hook, lease_seconds=lease_seconds):
            handled += 1
            continue
        due = engine.store.next_due()
        if not simulate_time or due is None or due <= engine.now():
            break
        if may_jump is not None and not may_jump():
            break
        engine.time_offset += due - engine.now()
    return handled
