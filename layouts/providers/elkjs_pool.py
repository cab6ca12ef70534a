"""A small pool of long-lived ``node layout.js --worker`` processes: the worker mode.

Each worker answers one line-delimited JSON request at a time, so a service does not pay
Node's start-up per call. A worker that crashes, closes its output, answers garbage or
outlives the call's timeout is killed and dropped; the call that hit it gets
:class:`ProviderFailedError` (exit code and stderr tail) or :class:`LayoutTimeoutError`,
and the next call starts a fresh worker in its place. ELK's own errors (an answer with
``"error"``) leave the worker in service.

>>> pool = WorkerPool("node", Path("layout.js"), size=2)
>>> pool.pids()
()
>>> pool.close()
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from layouts.errors import LayoutTimeoutError, ProviderFailedError
from layouts.providers.elkjs_runner import ENGINE, ElkAnswer, answer_from
from layouts.providers.elkjs_worker import ElkWorker, WorkerBroken, WorkerTimedOut


class WorkerPool:
    """Up to ``size`` workers running ``node script --worker``, started on demand."""

    def __init__(self, node: str, script: Path, *, size: int = 2) -> None:
        if size < 1:
            raise ValueError(f"worker pool size must be at least 1, got {size}")
        self._node, self._script, self._size = node, script, size
        self._idle: list[ElkWorker] = []
        self._busy: set[ElkWorker] = set()
        self._changed = threading.Condition()
        self._closed = False
        self.owner_pid = os.getpid()  # a forked child must not touch its parent's workers

    def pids(self) -> tuple[int, ...]:
        """Process ids of the live workers, idle and busy, sorted."""
        with self._changed:
            return tuple(sorted(w.pid for w in [*self._idle, *self._busy]))

    def _acquire(self, timeout: float) -> ElkWorker:
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                if self._closed:
                    raise ProviderFailedError("the elkjs worker pool is closed")
                while self._idle:
                    worker = self._idle.pop()
                    if worker.alive():
                        self._busy.add(worker)
                        return worker
                    worker.stop()  # died while idle: replace it silently
                if len(self._busy) < self._size:
                    worker = ElkWorker(self._node, self._script)
                    self._busy.add(worker)
                    return worker
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise LayoutTimeoutError(ENGINE, timeout)
                self._changed.wait(remaining)

    def _release(self, worker: ElkWorker, *, healthy: bool) -> None:
        with self._changed:
            self._busy.discard(worker)
            if healthy and not self._closed:
                self._idle.append(worker)
            self._changed.notify()
        if not healthy:
            worker.stop(kill=True)
        elif self._closed:
            worker.stop()

    def layout(self, elk_graph: Mapping[str, Any], timeout: float) -> ElkAnswer:
        """Lay out ``elk_graph`` on a worker within ``timeout`` seconds (waiting included)."""
        started = time.perf_counter()
        worker = self._acquire(timeout)
        healthy = False
        try:
            remaining = max(timeout - (time.perf_counter() - started), 0.001)
            reply = worker.request(elk_graph, remaining)
            healthy = True
        except WorkerTimedOut:
            raise LayoutTimeoutError(ENGINE, timeout) from None
        except WorkerBroken as broken:
            raise ProviderFailedError(f"elkjs worker (pid {worker.pid}) failed: {broken}"
                                      ) from None
        finally:
            self._release(worker, healthy=healthy)
        return self._answer(reply, time.perf_counter() - started)

    @staticmethod
    def _answer(reply: Mapping[str, Any], exchange_seconds: float) -> ElkAnswer:
        if "error" in reply:
            raise ProviderFailedError(f"elkjs worker could not lay out the graph: "
                                      f"{reply['error']}")
        return answer_from(reply, exchange_seconds, "worker answer")

    def close(self) -> None:
        """Stop every worker; later calls raise :class:`ProviderFailedError`. In a forked
        child this only forgets the parent's workers, which stay the parent's to stop."""
        if os.getpid() != self.owner_pid:
            with self._changed:
                self._closed = True
                self._idle.clear()
                self._busy.clear()
            return
        with self._changed:
            self._closed = True
            workers = [*self._idle, *self._busy]
            self._idle.clear()
            self._changed.notify_all()
        for worker in workers:
            worker.stop()
