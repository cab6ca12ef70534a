"""Layouts computed once per layout input: a bounded in-memory LRU in front of the store.

A layout depends only on the layout graph (node and label sizes, shapes, edges, in model
order), the engine and the options, so :func:`layout_key` hashes exactly those (with
:data:`CACHE_FORMAT` and the package version, so an upgrade that may lay out differently
starts afresh). A run's state is not part of it: a drawing of a run at any state has the
layout of its definition, and a state change never moves a node.

:meth:`LayoutCache.layout` looks in memory (an LRU of :data:`MEMORY_ENTRIES`), then in the
store (when there is one), and only then runs the layout with its runner (the service's
worker pool, so under the options' time budget and never in the caller's process). A new
layout is stored as its JSON and the caller gets the layout *read back* from that JSON
(:meth:`LayoutResult.from_dict`), so a fresh layout and a stored one draw the same bytes.
Concurrent callers of one key wait for the first one's layout instead of running their own.

>>> from layouts.graph import Graph, Node
>>> from layouts.result import Diagnostics, NodeBox
>>> calls = []
>>> def runner(graph, engine, options):
...     calls.append(engine)
...     return LayoutResult((NodeBox("a", 0, 0, 9, 9),), (), 9, 9,
...                         Diagnostics(engine, "draft", "TopToBottom"))
>>> cache = LayoutCache(runner)
>>> graph = Graph((Node("a", 9, 9),))
>>> first = cache.layout(graph, "hand", LayoutOptions(), tenant="t")
>>> cache.layout(graph, "hand", LayoutOptions(), tenant="t") == first, calls
(True, ['hand'])
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Protocol

from layouts.graph import Graph
from layouts.options import LayoutOptions
from layouts.result import LayoutResult
from renderer.render import LayoutRunner

LOGGER = logging.getLogger(__name__)

CACHE_FORMAT = 1
"""Part of every key: raise it when stored layouts must not be used any more."""

MEMORY_ENTRIES = 256
"""Layouts kept in memory, the ones used last."""

_STRIPES = 64
"""Key locks: a key waits only for callers of keys in its stripe."""


def _package_version() -> str:
    try:
        return version("workflow-renderer")
    except PackageNotFoundError:
        return "0"


PACKAGE_VERSION = _package_version()


class LayoutStore(Protocol):
    """Where layouts outlive the process (:class:`workflow.sqlite_store.SqliteStore`)."""

    def cached_layout(self, tenant: str, key: str, *, at: float) -> str | None: ...

    def save_layout(self, tenant: str, key: str, document: str, *, at: float) -> None: ...


def layout_key(graph: Graph, engine: str, options: LayoutOptions) -> str:
    """SHA-256 (hex) of everything a layout depends on.

    >>> from layouts.graph import Node
    >>> g = Graph((Node("a", 9, 9),))
    >>> layout_key(g, "layered", LayoutOptions()) == layout_key(g, "layered", LayoutOptions())
    True
    >>> layout_key(g, "layered", LayoutOptions(seed=1)) == layout_key(g, "layered",
    ...                                                                LayoutOptions())
    False
    """
    text = json.dumps({"format": CACHE_FORMAT, "package": PACKAGE_VERSION, "engine": engine,
                       "options": options.to_dict(), "graph": graph.to_dict()},
                      sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class LayoutCache:
    """Layouts by (tenant, :func:`layout_key`); thread-safe."""

    def __init__(self, runner: LayoutRunner, store: LayoutStore | None = None, *,
                 capacity: int = MEMORY_ENTRIES,
                 clock: Callable[[], float] = time.time) -> None:
        if capacity < 1:
            raise ValueError(f"capacity {capacity} must be at least 1")
        self.runner = runner
        self.store = store
        self.capacity = capacity
        self.clock = clock
        self._memory: OrderedDict[tuple[str, str], LayoutResult] = OrderedDict()
        self._lock = threading.Lock()
        self._stripes = tuple(threading.Lock() for _ in range(_STRIPES))

    def __len__(self) -> int:
        with self._lock:
            return len(self._memory)

    def layout(self, graph: Graph, engine: str, options: LayoutOptions, *,
               tenant: str) -> LayoutResult:
        """The layout of ``graph``: remembered, stored, or run now (and then kept).

        Raises what the runner raises (nothing is kept then)."""
        key = (tenant, layout_key(graph, engine, options))
        found = self._remembered(key)
        if found is not None:
            return found
        with self._stripes[hash(key) % _STRIPES]:
            found = self._remembered(key) or self._stored(key)
            if found is None:
                found = self._computed(key, graph, engine, options)
            self._remember(key, found)
        return found

    def _remembered(self, key: tuple[str, str]) -> LayoutResult | None:
        with self._lock:
            found = self._memory.get(key)
            if found is not None:
                self._memory.move_to_end(key)
            return found

    def _remember(self, key: tuple[str, str], result: LayoutResult) -> None:
        with self._lock:
            self._memory[key] = result
            self._memory.move_to_end(key)
            while len(self._memory) > self.capacity:
                self._memory.popitem(last=False)

    def _stored(self, key: tuple[str, str]) -> LayoutResult | None:
        if self.store is None:
            return None
        document = self.store.cached_layout(*key, at=self.clock())
        if document is None:
            return None
        try:
            return LayoutResult.from_dict(json.loads(document))
        except ValueError as error:  # a damaged row only costs a new layout
            LOGGER.warning("stored layout %s is unreadable (%s); laying out again",
                           key[1][:12], error)
            return None

    def _computed(self, key: tuple[str, str], graph: Graph, engine: str,
                  options: LayoutOptions) -> LayoutResult:
        document = self.runner(graph, engine, options).to_json(timings=True)
        if self.store is not None:
            try:
                self.store.save_layout(*key, document, at=self.clock())
            except Exception as error:  # a cache that cannot write still draws the graph
                LOGGER.warning("layout %s not stored: %s", key[1][:12], error)
        return LayoutResult.from_dict(json.loads(document))
