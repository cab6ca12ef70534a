"""The ``elkjs`` provider: upstream ELK layered, run by Node.js.

ELK layered (Schulze, Spönemann and von Hanxleden, "Drawing layered graphs with port
constraints", JVLC 2014) from the elkjs package, pinned in ``tools/elk-layout``. The
pipeline of one call reads top to bottom in :meth:`ElkjsProvider.layout`:

1. :func:`elkjs_install.ensure_installed` - ``npm ci`` once per install folder;
2. :func:`elkjs_options.to_elk_graph` - our graph and options as ELK JSON;
3. one node process per call (:func:`elkjs_runner.run_per_call`, the default), or a
   long-lived worker of :class:`elkjs_pool.WorkerPool` (``mode="worker"`` or
   ``WFR_ELK_MODE=worker``);
4. :func:`elkjs_convert.from_elk_graph` - ELK's coordinates as our result.

A missing Node.js, a failed ``npm ci``, a crashing script or unreadable output raise a
typed error; there is never a fallback to another engine.

>>> provider = ElkjsProvider(mode="per-call")
>>> provider.name, provider.mode
('elkjs', <ElkMode.PER_CALL: 'per-call'>)
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from enum import StrEnum
from pathlib import Path

from layouts.errors import InvalidOptionError, ProviderUnavailableError
from layouts.graph import Graph, GraphFeature
from layouts.options import LayoutOptions
from layouts.providers import elkjs_install
from layouts.providers.elkjs_convert import from_elk_graph
from layouts.providers.elkjs_options import hierarchy_fallback, to_elk_graph
from layouts.providers.elkjs_pool import WorkerPool
from layouts.providers.elkjs_runner import ElkAnswer, run_per_call
from layouts.registry import Availability
from layouts.result import Diagnostics, LayoutResult

MODE_VARIABLE = "WFR_ELK_MODE"
ELKJS_VERSION = "0.12.1"


class ElkMode(StrEnum):
    """How node is run: one process per call, or a pool of long-lived workers."""

    PER_CALL = "per-call"
    WORKER = "worker"


def _parse_mode(value: str | ElkMode | None) -> ElkMode:
    raw = value if value is not None else os.environ.get(MODE_VARIABLE, ElkMode.PER_CALL)
    try:
        return ElkMode(str(raw).strip().lower())
    except ValueError:
        raise InvalidOptionError(f"elkjs mode {raw!r} is not one of per-call, worker",
                                 option="mode") from None


class ElkjsProvider:
    """Upstream ELK layered through Node.js.

    ``install_dir`` (default ``$WFR_ELK_DIR`` or ``tools/elk-layout``) holds
    ``package.json``, ``package-lock.json`` and ``layout.js``; ``mode`` is ``per-call``
    (default, or ``$WFR_ELK_MODE``) or ``worker``; ``workers`` is the worker-pool size;
    ``node`` names the Node.js executable.
    """

    name = "elkjs"
    features = frozenset({GraphFeature.PORTS, GraphFeature.COMPOUND})
    reads_elk_options = True
    places_every_label = True
    """ELK places every label of an element itself (no stacking needed)."""
    """Every ELK option of the graph goes to elkjs unchanged (no warnings needed)."""
    rank_groups_limit = ("ELK has no same-layer constraint; rank=min/max/source/sink "
                         "become elk.layered.layering.layerConstraint "
                         "FIRST/LAST/FIRST_SEPARATE/LAST_SEPARATE")

    def __init__(self, *, install_dir: str | Path | None = None,
                 mode: str | ElkMode | None = None, workers: int = 2,
                 node: str = "node") -> None:
        self.install_dir = (Path(install_dir).resolve() if install_dir is not None
                            else elkjs_install.default_install_dir())
        self.mode = _parse_mode(mode)
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise InvalidOptionError(f"elkjs workers {workers!r} must be an integer >= 1",
                                     option="workers")
        self._workers = workers
        self._node = node
        self._pool: WorkerPool | None = None
        self._inherited_pools: list[WorkerPool] = []
        self._pool_guard = threading.Lock()

    def availability(self) -> Availability:
        """Available when ``node`` runs here and the install folder is complete; ``npm``
        is needed only until elkjs is installed."""
        if elkjs_install.find_node(self._node) is None:
            return Availability(False, "; ".join(elkjs_install.NODE_MISSING))
        absent = elkjs_install.missing_files(self.install_dir)
        if absent:
            return Availability(False, f"elk-layout files {', '.join(absent)} not found in "
                                f"{self.install_dir}; restore tools/elk-layout")
        if not elkjs_install.is_installed(self.install_dir) and not elkjs_install.npm_present():
            return Availability(False, "; ".join(elkjs_install.NPM_MISSING))
        return Availability(True)

    def layout(self, graph: Graph, options: LayoutOptions) -> LayoutResult:
        """Lay out ``graph`` with ELK layered; see the module docstring for the steps."""
        node = self._require_node()
        elkjs_install.ensure_installed(self.install_dir)
        started = time.perf_counter()
        answer = self._run(to_elk_graph(graph, options), node, options.time_budget)
        fallback = hierarchy_fallback(graph)
        diagnostics = Diagnostics(
            engine=self.name, effort=options.effort.value, direction=options.direction.value,
            seconds=time.perf_counter() - started,
            phases=(("elk.layout", answer.layout_seconds), ("node", answer.exchange_seconds)),
            notes=(f"elkjs {ELKJS_VERSION}", f"mode {self.mode.value}"),
            warnings=() if fallback is None else (fallback,),
        )
        return from_elk_graph(graph, answer.graph, diagnostics)

    def _require_node(self) -> str:
        node = elkjs_install.find_node(self._node)
        if node is None:
            raise ProviderUnavailableError(self.name, *elkjs_install.NODE_MISSING)
        return node

    def _run(self, elk_graph: dict[str, object], node: str, timeout: float) -> ElkAnswer:
        script = self.install_dir / elkjs_install.SCRIPT_NAME
        if self.mode is ElkMode.PER_CALL:
            return run_per_call(elk_graph, node=node, script=script, timeout=timeout)
        return self._worker_pool(node, script).layout(elk_graph, timeout)

    def _worker_pool(self, node: str, script: Path) -> WorkerPool:
        with self._pool_guard:
            if self._pool is not None and self._pool.owner_pid != os.getpid():
                # Inherited through fork: the parent's workers, not ours. Keep a reference
                # so garbage collection never finalises the parent's process handles here.
                self._inherited_pools.append(self._pool)
                self._pool = None
            if self._pool is None:
                self._pool = WorkerPool(node, script, size=self._workers)
                atexit.register(self._pool.close)
            return self._pool

    def worker_pids(self) -> tuple[int, ...]:
        """Process ids of the live node workers (empty in per-call mode)."""
        return self._pool.pids() if self._pool is not None else ()

    def close(self) -> None:
        """Stop the worker pool, if any; a later worker-mode call starts a new one."""
        with self._pool_guard:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
            atexit.unregister(pool.close)
