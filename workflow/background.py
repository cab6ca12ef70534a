"""Pumps that run in the background: the service's embedded worker and ``wfr worker``.

A :class:`PumpThread` claims and carries out due queue rows until stopped. When nothing is
due it sleeps until the next row comes due, at most ``idle_seconds`` (rows other processes
queue are seen within that), or until :meth:`PumpThread.wake` says this process queued one:
so durable timers fire in real time, within ``idle_seconds`` of their due time, with no
other command running. Its leases last ``lease_seconds`` of real time.

>>> from workflow.engine import Engine
>>> from workflow.store import MemoryStore
>>> pump = PumpThread(Engine(MemoryStore(), clock=lambda: 0.0), owner="doc")
>>> pump.start(); pump.wake(); pump.stop()
>>> pump.alive
False
"""

from __future__ import annotations

import logging
import threading

from workflow.batch import BATCH_SIZE, BatchStore, pump_batch
from workflow.config import DEFAULTS
from workflow.engine import Engine
from workflow.pump import CrashHook, pump_once

LOGGER = logging.getLogger(__name__)

IDLE_SECONDS = 0.5
"""Longest sleep of an idle pump: how late it sees rows that other processes queue."""
MIN_PAUSE_SECONDS = 0.05
"""Shortest sleep: a due row that another pump holds leased must not make this one spin."""
ERROR_PAUSE_SECONDS = 1.0
"""Pause after the store itself failed (locked past its timeout, disk full), then go on."""


class PumpThread:
    """One background thread pumping ``engine``'s queue."""

    def __init__(self, engine: Engine, *, owner: str, idle_seconds: float = IDLE_SECONDS,
                 hook: CrashHook | None = None,
                 lease_seconds: float = DEFAULTS.lease_seconds, batch: int = BATCH_SIZE) -> None:
        self.engine, self.owner, self.idle_seconds, self.hook = engine, owner, idle_seconds, hook
        self.lease_seconds = lease_seconds
        self.batch = batch if isinstance(engine.store, BatchStore) else 1
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"pump-{owner}", daemon=True)
        self.handled = 0

    @property
    def alive(self) -> bool:
        """Whether the thread runs."""
        return self._thread.is_alive()

    def start(self) -> None:
        """Start pumping."""
        self._thread.start()

    def wake(self) -> None:
        """Something was queued: look at the queue now."""
        self._wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop after the row in hand (waits up to ``timeout`` seconds)."""
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                handled = self._pump()
                if handled:
                    self.handled += handled
                    continue
                pause = self._idle_pause()
            except Exception:  # the store failed; never let the pump die silently
                LOGGER.exception("pump %s: the store failed; pausing", self.owner)
                pause = ERROR_PAUSE_SECONDS
            self._wake.wait(pause)
            self._wake.clear()

    def _pump(self) -> int:
        """Rows handled by one claim: a batch on a :class:`~workflow.batch.BatchStore`."""
        if self.batch > 1:
            return pump_batch(self.engine, owner=self.owner, limit=self.batch, hook=self.hook,
                              lease_seconds=self.lease_seconds)
        return int(pump_once(self.engine, owner=self.owner, hook=self.hook,
                             lease_seconds=self.lease_seconds))

    def _idle_pause(self) -> float:
        due = self.engine.store.next_due()
        if due is None:
            return self.idle_seconds
        return min(self.idle_seconds, max(MIN_PAUSE_SECONDS, due - self.engine.now()))
