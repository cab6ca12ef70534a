"""Admission control for renders: two lanes of bounded queues in front of the worker pool.

A render request joins a lane by the size of its input (the server does not parse it, so
bytes are the measure it has): inputs up to :attr:`RenderLimits.big_input_bytes` go to the
*small* lane, larger ones to the *big* lane. Each lane runs at most ``workers`` jobs at once
and lets at most ``queue`` more wait; a request beyond that is refused at once with 503 and
``Retry-After`` instead of queueing for seconds. The big lane runs at most ``pool size - 1``
jobs, so a small request never waits behind more than the small ones ahead of it: at least
one worker is always free of big jobs.

>>> limits = RenderLimits()
>>> admission = Admission(pool_size=2, limits=limits)
>>> admission.lane_for(10).name, admission.lane_for(limits.big_input_bytes + 1).name
('small', 'big')
>>> admission.lane_for(10).workers, admission.lane_for(10**6).workers
(2, 1)
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio

from renderer.web import RequestProblem


@dataclass(frozen=True, slots=True)
class RenderLimits:
    """The service's hard limits on renders (``python -m renderer.serve`` flags)."""

    max_budget: float = 30.0
    """Largest ``timeBudget`` in seconds a request may ask; more is refused with 400."""
    worker_memory_mb: int = 1024
    """Address-space limit of each layout worker (``RLIMIT_AS``)."""
    queue_per_lane: int = 8
    """Requests that may wait in each lane beyond the ones running."""
    big_input_bytes: int = 64 * 1024
    """Inputs larger than this go to the big lane."""
    body_seconds: float = 30.0
    """Time a client has to send its whole request body."""
    retry_after_seconds: int = 1
    """What a refused request is told to wait (``Retry-After``)."""

    def check_budget(self, budget: float) -> None:
        """:class:`RequestProblem` 400 for a time budget over :attr:`max_budget`.

        >>> RenderLimits(max_budget=30).check_budget(600)
        Traceback (most recent call last):
        ...
        renderer.web.RequestProblem: timeBudget 600 s is over this server's maximum of 30 s
        """
        if budget > self.max_budget:
            raise RequestProblem(400, f"timeBudget {budget:g} s is over this server's "
                                      f"maximum of {self.max_budget:g} s")


class Overloaded(RequestProblem):
    """A lane is full: 503 with ``Retry-After``."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(503, message)
        self.headers = {"Retry-After": str(retry_after)}


@dataclass(slots=True)
class Lane:
    """At most ``workers`` jobs at once and ``queue`` waiting; used from one event loop."""

    name: str
    workers: int
    queue: int
    retry_after: int = 1
    admitted: int = 0
    _slots: anyio.Semaphore | None = field(default=None, repr=False)

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one of the lane's running slots; :class:`Overloaded` when the lane is full."""
        if self.admitted >= self.workers + self.queue:
            raise Overloaded(f"the render service is busy ({self.admitted} {self.name} "
                             "renders running or queued); retry shortly", self.retry_after)
        if self._slots is None:
            self._slots = anyio.Semaphore(self.workers)
        self.admitted += 1
        try:
            async with self._slots:
                yield
        finally:
            self.admitted -= 1


class Admission:
    """The small and the big lane of one worker pool."""

    def __init__(self, *, pool_size: int, limits: RenderLimits) -> None:
        self.limits = limits
        retry = limits.retry_after_seconds
        self.small = Lane("small", pool_size, limits.queue_per_lane, retry)
        self.big = Lane("big", max(1, pool_size - 1), limits.queue_per_lane, retry)

    def lane_for(self, input_bytes: int) -> Lane:
        """The lane of an input of ``input_bytes`` bytes."""
        return self.big if input_bytes > self.limits.big_input_bytes else self.small
