"""The worker side of :mod:`renderer.isolation`: the jobs, the job loop and the error transport.

A worker applies its :class:`WorkerSetup` (extra providers, the memory limit as
``RLIMIT_AS``; with ``warm``, :func:`warm_up` and :func:`settle_heap`), reports ready
(at the CPU priority :data:`WORKER_NICENESS`), then reads jobs from its connection and
answers each with ``("result", value)`` or ``("error", description)``. A job is a small
dataclass whose ``run()`` does the work in the worker: :class:`LayoutJob` lays out a graph,
:class:`RenderJob` reads, checks, lays out and writes a whole document (so parsing YAML or
DOT never happens in the server), :class:`PingJob` answers at once (a health probe).

:func:`describe_error` and :func:`rebuild_error` are a pair: an error of one of our
packages (:data:`OWN_PACKAGES`) crosses the process boundary as its class path, message and
simple attributes, and comes back as the same class with the same message and attributes
(pickling them directly fails for errors whose ``__init__`` takes other arguments than the
message). Any other error comes back as :class:`ProviderFailedError` naming it.

>>> from layouts.errors import InvalidGraphError
>>> sent = InvalidGraphError("duplicate node id 'a'", offending_id="a")
>>> back = rebuild_error(describe_error(sent, "layered"))
>>> type(back).__name__, str(back), back.offending_id
('InvalidGraphError', "duplicate node id 'a'", 'a')
>>> str(rebuild_error(describe_error(KeyError("x"), "layered")))
"layout engine 'layered' failed: KeyError: 'x'"
"""

from __future__ import annotations

import gc
import importlib
import pickle
import resource
import signal
import sys
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from layouts.api import layout
from layouts.errors import LayoutError, ProviderFailedError
from layouts.graph import Graph
from layouts.options import LayoutOptions
from layouts.registry import DEFAULT_ENGINE, ProviderFactory, register
from layouts.result import LayoutResult

OWN_PACKAGES = ("layouts.", "renderer.", "workflow.")
"""Errors from modules of these packages travel typed; others become ProviderFailedError."""

MEBIBYTE = 1024 * 1024

WORKER_NICENESS = 10
"""Workers run at a lower CPU priority than the server (:mod:`renderer.isolation` starts
them so), so on a busy machine the server's event loop (``/healthz``, admission, refusals)
still gets the CPU when it needs it."""


class WorkerMemoryError(ProviderFailedError):
    """A job needed more memory than the worker's limit; the worker is replaced."""


@dataclass(frozen=True, slots=True)
class WorkerSetup:
    """What a new worker applies before it reports ready."""

    providers: Mapping[str, ProviderFactory] = field(default_factory=dict)
    memory_limit_mb: int | None = None
    """The worker's address-space limit (``RLIMIT_AS``) in MiB; ``None``: unlimited."""
    warm: bool = False
    """Render :data:`WARM_UP_DEFINITION` and settle the heap before reporting ready (a
    long-lived service worker; a one-shot CLI worker skips the cost)."""


@dataclass(frozen=True, slots=True)
class LayoutJob:
    """Lay out ``graph`` with ``engine``; the result is a :class:`LayoutResult`."""

    graph: Graph
    engine: str
    options: LayoutOptions

    def run(self) -> Any:
        return layout(self.graph, engine=self.engine, options=self.options)


@dataclass(frozen=True, slots=True)
class RenderOutput:
    """The bytes of a render, the seconds of its stages in the worker and the layout's
    warnings (options the engine could not honour, parts not drawn). The stages are the
    wall-clock ``read``, ``layout`` and ``write`` of :func:`renderer.render.render_timed`
    and ``cpu``, the worker's CPU time for the three together: wall time well over the CPU
    time is time the worker waited for a core (a busy machine, its lower priority)."""

    output: bytes
    stages: tuple[tuple[str, float], ...]
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RenderJob:
    """Read ``data`` (any input format), check it against the input limits, lay it out
    and write it as ``fmt``; the result is a :class:`RenderOutput`. The layout comes from
    the worker's :data:`LAYOUTS` unless ``fresh``."""

    data: bytes
    filename: str | None
    fmt: str
    engine: str
    options: LayoutOptions
    fresh: bool = False
    given_options: frozenset[str] | None = None  # the options the caller set

    def run(self) -> Any:
        from renderer.render import render_timed  # the render pipeline, worker side
        from renderer.writers import OutputFormat

        runner = _in_process if self.fresh else LAYOUTS.layout
        cpu = time.thread_time()
        done = render_timed(self.data, filename=self.filename, fmt=OutputFormat(self.fmt),
                            engine=self.engine, options=self.options, runner=runner,
                            given_options=self.given_options)
        stages = (*done.stages, ("cpu", time.thread_time() - cpu))
        return RenderOutput(done.output, stages, done.result.diagnostics.warnings)


@dataclass(frozen=True, slots=True)
class PingJob:
    """Answer at once: the worker is alive and reading jobs."""

    engine: str = ""

    def run(self) -> Any:
        return "pong"


Job = LayoutJob | RenderJob | PingJob


def _in_process(graph: Graph, engine: str, options: LayoutOptions) -> LayoutResult:
    return layout(graph, engine=engine, options=options)


class LayoutMemo:
    """The last ``capacity`` layouts of this worker by
    :func:`renderer.layout_cache.layout_key` (graph, engine and options), so one graph
    drawn as SVG and as JSON, or sent as YAML and as JSON, is laid out once. Graphs of more
    than ``max_items`` nodes and edges are not kept (their layouts would crowd the worker's
    memory limit).

    >>> from layouts.graph import Node
    >>> memo = LayoutMemo(capacity=1)
    >>> first = memo.layout(Graph((Node("a", 9, 9),)), "layered", LayoutOptions())
    >>> memo.layout(Graph((Node("a", 9, 9),)), "layered", LayoutOptions()) is first
    True
    """

    def __init__(self, capacity: int = 32, max_items: int = 2000) -> None:
        self.capacity = capacity
        self.max_items = max_items
        self._results: OrderedDict[str, LayoutResult] = OrderedDict()

    def layout(self, graph: Graph, engine: str, options: LayoutOptions) -> LayoutResult:
        from renderer.layout_cache import layout_key

        if len(graph.nodes) + len(graph.edges) > self.max_items:
            return _in_process(graph, engine, options)
        key = layout_key(graph, engine, options)
        found = self._results.get(key)
        if found is None:
            found = _in_process(graph, engine, options)
            self._results[key] = found
            while len(self._results) > self.capacity:
                self._results.popitem(last=False)
        self._results.move_to_end(key)
        return found


LAYOUTS = LayoutMemo()
"""This worker's layouts (a worker runs one job at a time, so no lock)."""


WARM_UP_DEFINITION = b"""workflow: warm-up
steps:
  - {id: fetch, kind: Tool, tool: fetch}
  - {id: decide, kind: Condition}
  - {id: review, kind: Human}
  - {id: wait, kind: Timer, delayMinutes: 5}
edges:
  - {from: fetch, to: decide}
  - {from: decide, to: review, guard: '{"==": [{"var": "fetch.ok"}, false]}'}
  - {from: decide, to: wait, guard: else}
  - {from: wait, to: fetch, isLoopBack: true}
"""
"""A small workflow of each drawn shape, a guard label and a loop-back."""

GC_THRESHOLDS = (10_000, 10, 10)
"""The worker's collector thresholds: a young collection per 10,000 allocations instead
of Python's 700 (a render allocates hundreds of thousands of short-lived objects, most
freed by reference counting before any collection would look at them)."""


def warm_up() -> None:
    """Render :data:`WARM_UP_DEFINITION` as SVG and JSON with the default engine and
    options, so the first request pays none of the pipeline's imports, the font files'
    reading or the first calls' caches. A failure is reported on stderr only: the
    requests that meet the same failure report it to their callers."""
    from renderer.render import render_timed  # the render pipeline, worker side
    from renderer.writers import OutputFormat

    try:
        for fmt in (OutputFormat.SVG, OutputFormat.JSON):
            render_timed(WARM_UP_DEFINITION, fmt=fmt, engine=DEFAULT_ENGINE,
                         options=LayoutOptions(), runner=_in_process)
    except Exception as error:  # the worker still serves; each job reports its own error
        print(f"layout worker warm-up failed: {type(error).__name__}: {error}",
              file=sys.stderr)


def settle_heap() -> None:
    """Collect once, then move every object alive (modules, fonts, caches) to the
    collector's permanent generation and set :data:`GC_THRESHOLDS`: the full collections
    during jobs then look at the jobs' objects only (they took 3 ms per reference render
    on average, up to 120 ms at once, walking the imported modules' objects)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def apply_memory_limit(limit_mb: int | None) -> None:
    """Cap this process's address space at ``limit_mb`` MiB (children inherit it)."""
    if limit_mb is None:
        return
    limit = limit_mb * MEBIBYTE
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def serve(connection: Connection) -> None:
    """The worker's loop: apply the setup, report ready, then answer jobs.

    A job that runs out of memory gets :class:`WorkerMemoryError` and the worker exits
    after answering (its heap may be fragmented or half-built state left behind)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the caller decides when workers stop
    setup: WorkerSetup = connection.recv()
    for name, factory in setup.providers.items():
        register(name, factory)
    apply_memory_limit(setup.memory_limit_mb)
    if setup.warm:
        warm_up()
        settle_heap()
    connection.send(("ready", None))
    while True:
        try:
            job: Job = connection.recv()
        except EOFError:
            return
        reply, exhausted = _answer(job, setup.memory_limit_mb)
        try:
            connection.send(reply)
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            connection.send(("error", describe_error(error, job.engine)))
        if exhausted:
            return


def _answer(job: Job, limit_mb: int | None) -> tuple[tuple[str, Any], bool]:
    try:
        return ("result", job.run()), False
    except MemoryError:
        message = (f"the render needed more memory than the layout worker's limit of "
                   f"{limit_mb} MiB; send a smaller graph")
        return ("error", describe_error(WorkerMemoryError(message), job.engine)), True
    except Exception as error:  # every failure goes back to the caller, typed
        return ("error", describe_error(error, job.engine)), False


def describe_error(error: Exception, engine: str) -> dict[str, Any]:
    """A picklable description of ``error`` that :func:`rebuild_error` turns back into it."""
    cls = type(error)
    if not isinstance(error, LayoutError) and not cls.__module__.startswith(OWN_PACKAGES):
        return {"module": "layouts.errors", "qualname": "ProviderFailedError",
                "message": f"layout engine '{engine}' failed: {cls.__name__}: {error}",
                "attributes": {}}
    simple = (str, int, float, bool, type(None))
    attributes = {k: v for k, v in vars(error).items() if isinstance(v, simple)}
    return {"module": cls.__module__, "qualname": cls.__qualname__,
            "message": str(error), "attributes": attributes}


def rebuild_error(payload: Mapping[str, Any]) -> Exception:
    """The worker's error as the same class (of :data:`OWN_PACKAGES`), message and
    attributes."""
    cls = _own_error_class(payload["module"], payload["qualname"])
    if cls is None:
        return ProviderFailedError(f"{payload['qualname']}: {payload['message']}")
    error: Exception = cls.__new__(cls)
    Exception.__init__(error, payload["message"])
    error.__dict__.update(payload["attributes"])
    return error


def _own_error_class(module: str, qualname: str) -> type[Exception] | None:
    if not (module + ".").startswith(OWN_PACKAGES):
        return None
    try:
        found: object = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return None
    return found if isinstance(found, type) and issubclass(found, Exception) else None
