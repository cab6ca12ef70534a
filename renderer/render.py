"""One rendering pipeline for the CLI and the service: read -> lay out in isolation -> write.

Both ``wfr render`` and ``POST /api/render`` call :func:`render_document`, so the same input
and options give the same bytes from both. Errors that mean "bad input" are classified once,
in :data:`PROBLEM_TABLE`, into an HTTP status and a CLI exit code.

>>> from renderer.writers import OutputFormat
>>> graph_json = '{"nodes": [{"id": "a", "width": 80, "height": 40}], "edges": []}'
>>> svg = render_document(graph_json, fmt=OutputFormat.SVG, engine="graphviz",
...                       options=LayoutOptions())
>>> svg.startswith(b"<?xml")
True
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from layouts.errors import (
    InvalidGraphError,
    InvalidOptionError,
    LayoutTimeoutError,
    ProviderFailedError,
    ProviderUnavailableError,
    UnknownEngineError,
)
from layouts.graph import Graph
from layouts.options import LayoutOptions
from layouts.result import LayoutResult
from renderer.isolation import (
    JobCancelledError,
    PoolClosedError,
    WorkerDiedError,
    layout_isolated,
)
from renderer.isolation_worker import WorkerMemoryError
from renderer.readers import InputLimitError, ReaderError, read_diagram
from renderer.writers import OutputFormat, write_output
from workflow.dsl import DslError

LayoutRunner = Callable[[Graph, str, LayoutOptions], LayoutResult]
"""Runs one layout: :func:`renderer.isolation.layout_isolated` or ``WorkerPool.run``."""


@dataclass(frozen=True, slots=True)
class Rendering:
    """The written bytes, the layout they came from and seconds per stage."""

    output: bytes
    result: LayoutResult
    stages: tuple[tuple[str, float], ...]


def render_timed(
    data: bytes | str, *, filename: str | None = None, fmt: OutputFormat, engine: str,
    options: LayoutOptions, runner: LayoutRunner = layout_isolated,
) -> Rendering:
    """Like :func:`render_document`, also returning the layout and the stage timings.

    >>> from renderer.writers import OutputFormat
    >>> text = '{"nodes": [{"id": "a", "width": 80, "height": 40}]}'
    >>> r = render_timed(text, fmt=OutputFormat.JSON, engine="graphviz", options=LayoutOptions())
    >>> [name for name, _ in r.stages]
    ['read', 'layout', 'write']
    """
    clock = time.perf_counter
    start = clock()
    diagram = read_diagram(data, filename=filename)
    read_done = clock()
    result = runner(diagram.graph, engine, options)
    layout_done = clock()
    output = write_output(diagram, result, fmt)
    stages = (("read", read_done - start), ("layout", layout_done - read_done),
              ("write", clock() - layout_done))
    return Rendering(output, result, stages)


def render_document(
    data: bytes | str, *, filename: str | None = None, fmt: OutputFormat, engine: str,
    options: LayoutOptions, runner: LayoutRunner = layout_isolated,
) -> bytes:
    """Read a diagram (workflow DSL, ELK JSON, graph JSON or DOT), lay it out with ``engine``
    in a worker process under a hard time limit, and write it as ``fmt``.

    ``filename`` only helps to detect the input format. ``runner`` runs the layout (a fresh
    worker process by default; the service passes its pool's ``run``). Raises the errors of
    :data:`PROBLEM_TABLE`; see :func:`classify_error`.
    """
    return render_timed(data, filename=filename, fmt=fmt, engine=engine, options=options,
                        runner=runner).output


@dataclass(frozen=True, slots=True)
class Problem:
    """How one error is reported: HTTP status, CLI exit code and the one-line message."""

    status: int
    exit_code: int
    message: str


PROBLEM_TABLE: tuple[tuple[type[Exception], int, int], ...] = (
    # (error class, HTTP status, CLI exit code); the first matching row wins.
    (InvalidGraphError, 422, 2),
    (InputLimitError, 413, 2),
    (ReaderError, 400, 2),
    (DslError, 400, 2),
    (InvalidOptionError, 400, 2),
    (UnknownEngineError, 400, 2),
    (ProviderUnavailableError, 503, 2),
    (LayoutTimeoutError, 504, 2),
    (WorkerMemoryError, 413, 2),
    (PoolClosedError, 503, 1),
    (WorkerDiedError, 503, 1),
    (JobCancelledError, 503, 1),
    (ProviderFailedError, 502, 1),
)
"""Expected failures. 413 for an input over a limit (nodes, edges, label length) and for a
render that needs more than the worker's memory limit: the input is too large to process.
504 for a timeout: the layout worker, like an upstream server, did not answer in time; the
input may be fine with a larger ``timeBudget``. A closed pool and a worker that died (it is
replaced; C code that runs out of memory exits instead of raising) are 503: try again. A
provider that fails otherwise is 502 (a failed upstream); both are exit code 1 (not the
user's fault)."""


def classify_error(error: BaseException) -> Problem | None:
    """The :class:`Problem` for an expected error, ``None`` for a bug.

    >>> classify_error(UnknownEngineError("unknown layout engine 'x'"))
    Problem(status=400, exit_code=2, message="unknown layout engine 'x'")
    >>> classify_error(KeyError("oops")) is None
    True
    """
    for kind, status, exit_code in PROBLEM_TABLE:
        if isinstance(error, kind):
            return Problem(status, exit_code, one_line(str(error)) or type(error).__name__)
    return None


def one_line(message: str) -> str:
    """``message`` with its lines joined by ``"; "``, so it fits on one line.

    >>> one_line("bad input\\n  at line 3")
    'bad input; at line 3'
    """
    return "; ".join(part.strip() for part in message.splitlines() if part.strip())
