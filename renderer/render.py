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
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace

from layouts.errors import (
    InvalidGraphError,
    InvalidOptionError,
    LayoutTimeoutError,
    ProviderFailedError,
    ProviderUnavailableError,
    UnknownEngineError,
)
from layouts.graph import Graph
from layouts.options import OPTION_SPECS, LayoutOptions, canonical_option_name
from layouts.result import LayoutResult
from renderer.bpmn_attach import attach_boundary_events
from renderer.bpmn_stack import stack_scopes
from renderer.bpmn_writer import BpmnWriteError
from renderer.isolation import layout_isolated
from renderer.readers import ReaderError, read_diagram
from renderer.writers import OutputFormat, write_output
from workflow.dsl import DslError

LayoutRunner = Callable[[Graph, str, LayoutOptions], LayoutResult]
"""Runs one layout: :func:`renderer.isolation.layout_isolated` or ``WorkerPool.run``."""


@dataclass(frozen=True, slots=True)
class Rendering:
    """The written bytes, the layout they came from, seconds per stage and the
    document's warnings (what it asked for that the drawing cannot show)."""

    output: bytes
    result: LayoutResult
    stages: tuple[tuple[str, float], ...]
    warnings: tuple[str, ...] = ()


def resolve_options(options: LayoutOptions, document: Mapping[str, object],
                    given: Collection[str] | None = None) -> LayoutOptions:
    """``options`` with the document's own layout options (DOT's ``rankdir``, BPMN's
    left-to-right) filled in where the caller did not choose: query and CLI options
    win over the document's. An option counts as chosen when ``given`` names it (any
    spelling) or, without ``given``, when it differs from its default.

    >>> lr = {"direction": "LeftToRight"}
    >>> resolve_options(LayoutOptions(), lr).direction.value
    'LeftToRight'
    >>> resolve_options(LayoutOptions(), lr, given=["direction"]).direction.value
    'TopToBottom'
    """
    chosen = ({canonical_option_name(name) for name in given} if given is not None else
              {name for name, spec in OPTION_SPECS.items()
               if getattr(options, name) != spec.default})
    changes = {name: value for name, value in document.items() if name not in chosen}
    return options.with_changes(**changes) if changes else options


def render_timed(
    data: bytes | str, *, filename: str | None = None, fmt: OutputFormat, engine: str,
    options: LayoutOptions, runner: LayoutRunner = layout_isolated,
    given: Collection[str] | None = None,
) -> Rendering:
    """Like :func:`render_document`, also returning the layout, the stage timings and
    the document's warnings (also in the result's ``diagnostics.notes``).

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
    if fmt is OutputFormat.BPMN and diagram.bpmn is None:
        raise BpmnWriteError("format bpmn needs BPMN input (a .bpmn file); this input is "
                             "not BPMN")
    effective = resolve_options(options, diagram.layout_defaults, given)
    result = runner(diagram.graph, engine, effective)
    result = stack_scopes(diagram, attach_boundary_events(diagram, result))
    if diagram.warnings:
        notes = (*result.diagnostics.notes, *diagram.warnings)
        result = replace(result, diagnostics=replace(result.diagnostics, notes=notes))
    layout_done = clock()
    output = write_output(diagram, result, fmt)
    stages = (("read", read_done - start), ("layout", layout_done - read_done),
              ("write", clock() - layout_done))
    return Rendering(output, result, stages, diagram.warnings)


def render_document(
    data: bytes | str, *, filename: str | None = None, fmt: OutputFormat, engine: str,
    options: LayoutOptions, runner: LayoutRunner = layout_isolated,
    given: Collection[str] | None = None,
) -> bytes:
    """Read a diagram (workflow DSL, ELK JSON, graph JSON or DOT), lay it out with ``engine``
    in a worker process under a hard time limit, and write it as ``fmt``.

    ``filename`` only helps to detect the input format. ``runner`` runs the layout (a fresh
    worker process by default; the service passes its pool's ``run``). ``given`` names
    the options the caller chose (see :func:`resolve_options`). Raises the errors of
    :data:`PROBLEM_TABLE`; see :func:`classify_error`.
    """
    return render_timed(data, filename=filename, fmt=fmt, engine=engine, options=options,
                        runner=runner, given=given).output


@dataclass(frozen=True, slots=True)
class Problem:
    """How one error is reported: HTTP status, CLI exit code and the one-line message."""

    status: int
    exit_code: int
    message: str


PROBLEM_TABLE: tuple[tuple[type[Exception], int, int], ...] = (
    # (error class, HTTP status, CLI exit code); the first matching row wins.
    (InvalidGraphError, 422, 2),
    (ReaderError, 400, 2),
    (DslError, 400, 2),
    (BpmnWriteError, 400, 2),
    (InvalidOptionError, 400, 2),
    (UnknownEngineError, 400, 2),
    (ProviderUnavailableError, 503, 2),
    (LayoutTimeoutError, 504, 2),
    (ProviderFailedError, 502, 1),
)
"""Expected failures. 504 for a timeout: the layout worker, like an upstream server, did
not answer in time; the input may be fine with a larger ``timeBudget``. A crashed provider
is 502 (a failed upstream) and exit code 1 (not the user's fault)."""


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
