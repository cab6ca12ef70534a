"""A bounded, thread-safe memory of parsed runs, each valid while the store still holds the
revision it was read (or written) at.

A store that keeps a run as many rows (its head and one row per item) reads it again only
when another writer changed it: before using a remembered run, the caller compares the
stored (revision, updated_at) with the remembered one's, which it reads with the head.

>>> from workflow.model import new_run
>>> cache = RunCache(2)
>>> run = new_run("r", "w", "1", "h", {}, at=5.0)
>>> cache.remember(run)
>>> cache.get("r", 0, 5.0) is run, cache.get("r", 1, 5.0)
(True, None)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable

from workflow.model import Run

CACHED_RUNS = 512
"""Runs a store keeps parsed (the ones used last)."""


class RunCache:
    """The runs used last, by id (least recently used dropped past ``size``)."""

    def __init__(self, size: int = CACHED_RUNS) -> None:
        self.size = size
        self._runs: OrderedDict[str, Run] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, run_id: str, revision: object, updated_at: object) -> Run | None:
        """The remembered run if it is still the stored one (same revision and time)."""
        with self._lock:
            run = self._runs.get(run_id)
            if run is None or run.revision != revision or run.updated_at != updated_at:
                return None
            self._runs.move_to_end(run_id)
            return run

    def remember(self, run: Run) -> None:
        """Keep ``run`` (as read, or as just committed)."""
        with self._lock:
            self._runs[run.run_id] = run
            self._runs.move_to_end(run.run_id)
            while len(self._runs) > self.size:
                self._runs.popitem(last=False)

    def forget(self, run_ids: Iterable[str]) -> None:
        """Drop runs (purged ones)."""
        with self._lock:
            for run_id in run_ids:
                self._runs.pop(run_id, None)
