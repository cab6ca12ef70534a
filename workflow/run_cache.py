"""A bounded, thread-safe memory of parsed runs, each valid while the store still holds the
revision it was read (or written) at.

A store that keeps a run as many rows (its head and one row per item) reads it again only
when another writer changed it: before using a remembered run, the caller compares the
stored (revision, updated_at) with the remembered one's, which it reads with the head.
The memory is bounded twice: by runs and by their items (step runs, edges, processed
keys, completions), so a few very large runs cannot fill it.

>>> from workflow.model import new_run
>>> cache = RunCache(2)
>>> run = new_run("r", "w", "1", "h", {}, at=5.0)
>>> cache.remember(run)
>>> cache.get("r", 0, 5.0) is run, cache.get("r", 1, 5.0)
(True, None)
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from collections.abc import Iterable

from workflow.model import Run

CACHED_RUNS = 512
"""Runs a store keeps parsed (the ones used last)."""
CACHED_ITEMS = 200_000
"""Items those runs may hold together (a 5,000-step run has about 20,000)."""


def item_count(run: Run) -> int:
    """How many item rows ``run`` has: step runs, edge decisions, processed event keys and
    completions.

    >>> from workflow.model import new_run
    >>> item_count(new_run("r", "w", "1", "h", {}, at=0.0))
    0
    """
    return len(run.steps) + len(run.edges) + len(run.processed) + len(run.completion_order)


class RunCache:
    """The runs used last, by id (least recently used dropped past ``size`` runs or
    ``items`` items; a run larger than ``items`` alone is not kept)."""

    def __init__(self, size: int = CACHED_RUNS, items: int = CACHED_ITEMS) -> None:
        self.size, self.items = size, items
        self._runs: OrderedDict[str, tuple[Run, int]] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    def get(self, run_id: str, revision: object, updated_at: object) -> Run | None:
        """The remembered run if it is still the stored one (same revision and time)."""
        with self._lock:
            entry = self._runs.get(run_id)
            if entry is None or entry[0].revision != revision or \
                    entry[0].updated_at != updated_at:
                return None
            self._runs.move_to_end(run_id)
            return entry[0]

    def remember(self, run: Run) -> None:
        """Keep ``run`` (as read, or as just committed).

        >>> from workflow.model import new_run
        >>> import dataclasses
        >>> cache = RunCache(10, items=3)
        >>> big = dataclasses.replace(new_run("b", "w", "1", "h", {}, at=0.0),
        ...                           processed=frozenset({"x", "y", "z", "w"}))
        >>> cache.remember(big); cache.get("b", 4, 0.0) is None
        True
        """
        count = item_count(run)
        with self._lock:
            old = self._runs.pop(run.run_id, None)
            if old is not None:
                self._held -= old[1]
            if count > self.items:
                return
            self._runs[run.run_id] = (run, count)
            self._held += count
            while len(self._runs) > self.size or self._held > self.items:
                _, (_, dropped) = self._runs.popitem(last=False)
                self._held -= dropped

    def recent(self, count: int) -> list[str]:
        """The ids of the ``count`` runs used last, the last first.

        >>> from workflow.model import new_run
        >>> cache = RunCache()
        >>> for name in "abc":
        ...     cache.remember(new_run(name, "w", "1", "h", {}, at=0.0))
        >>> cache.recent(2)
        ['c', 'b']
        """
        with self._lock:
            return list(itertools.islice(reversed(self._runs), count))

    def forget(self, run_ids: Iterable[str]) -> None:
        """Drop runs (purged ones)."""
        with self._lock:
            for run_id in run_ids:
                entry = self._runs.pop(run_id, None)
                if entry is not None:
                    self._held -= entry[1]
