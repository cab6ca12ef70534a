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

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from layouts.errors import (
    InvalidGraphError,
    InvalidOptionError,
    LayoutTimeoutError,
    ProviderFailedError,
    ProviderUnavailableError,
    UnknownEngineError,
)
from layouts.graph import Graph, GraphFeature, Node
from layouts.options import LayoutOptions
from layouts.registry import get_provider, provider_features, provider_names
from layouts.result import LayoutResult
from renderer.bpmn_attach import attach_boundary_events
from renderer.bpmn_lanes import band_lanes
from renderer.bpmn_stack import stack_scopes
from renderer.bpmn_writer import BpmnWriteError
from renderer.diagram import Diagram
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
    """The written bytes, the layout they came from and seconds per stage (the
    document's and the engine's warnings are in ``result.diagnostics.warnings``)."""

    output: bytes
    result: LayoutResult
    stages: tuple[tuple[str, float], ...]


def resolve_options(diagram: Diagram, options: LayoutOptions,
                    given: frozenset[str] | None) -> LayoutOptions:
    """``options`` with the document's own options (:attr:`Diagram.option_values`, e.g. an
    ELK JSON root's ``layoutOptions``) for every option the caller did not give: query and
    CLI options win over the document's. ``given`` ``None`` means the caller gave all.

    >>> from layouts.graph import Graph, Node
    >>> d = Diagram("d", Graph((Node("a", 9, 9),)),
    ...             option_values={"direction": "BottomToTop", "node_spacing": 25.0})
    >>> o = resolve_options(d, LayoutOptions(node_spacing=30), frozenset({"node_spacing"}))
    >>> o.direction.value, o.node_spacing
    ('BottomToTop', 30.0)
    """
    if given is None or not diagram.option_values:
        return options
    from_document = {k: v for k, v in diagram.option_values.items() if k not in given}
    if not from_document:
        return options
    try:
        return options.with_changes(**from_document)
    except InvalidOptionError as error:
        raise InvalidOptionError(f"the document's layout option: {error}",
                                 option=error.option) from None


WARNINGS_HEADER = "x-layout-warnings"


def warning_headers(warnings: tuple[str, ...]) -> dict[str, str]:
    """The response's ``warnings``: a JSON list of lines (ASCII, so any header carries it)
    in :data:`WARNINGS_HEADER`; JSON results also have them in ``diagnostics.warnings``.

    >>> warning_headers(("option x is not honoured",))
    {'x-layout-warnings': '["option x is not honoured"]'}
    >>> warning_headers(())
    {}
    """
    return {WARNINGS_HEADER: json.dumps(list(warnings))} if warnings else {}


def flat_if_needed(diagram: Diagram, engine: str) -> Diagram:
    """``diagram`` with its flat fallback graph (DOT without clusters and record ports)
    when ``engine`` lacks a feature the graph uses, and a warning saying so; unchanged
    otherwise (an
    unknown engine is left for the layout to report).

    >>> from layouts.graph import Graph, Node
    >>> nested = Graph((Node("c", 9, 9, children=(Node("a", 9, 9),)),))
    >>> d = Diagram("d", nested, flat_fallback=Graph((Node("a", 9, 9),)))
    >>> [n.id for n in flat_if_needed(d, "grandalf").graph.nodes]
    ['a']
    >>> flat_if_needed(d, "elkjs").graph is nested
    True
    """
    if diagram.flat_fallback is None:
        return diagram
    try:
        features = provider_features(get_provider(engine))
    except UnknownEngineError:
        return diagram
    needs = diagram.graph.features()
    if needs <= features:
        return diagram
    notes = []
    able = {feature: ", ".join(name for name in provider_names()
                               if feature in _features(name)) or "none here"
            for feature in needs - features}
    if GraphFeature.COMPOUND in needs - features:
        count = sum(1 for n in diagram.graph.all_nodes() if n.children)
        what = ("sub-process(es) drawn collapsed, their content in a frame of its own"
                if diagram.bpmn is not None else "cluster(s) drawn without their box")
        notes.append(f"{count} {what}: engine '{engine}' does not lay out compound nodes "
                     f"({able[GraphFeature.COMPOUND]} do)")
    if GraphFeature.PORTS in needs - features:
        ends = sum((e.source_port is not None) + (e.target_port is not None)
                   for e in diagram.graph.edges)
        notes.append(f"{ends} edge end(s) at a record field or compass point attach to the "
                     f"whole node: "
                     f"engine '{engine}' does not lay out ports ({able[GraphFeature.PORTS]} do)")
    return replace(diagram, graph=diagram.flat_fallback, warnings=(*diagram.warnings, *notes))


INSIDE_TOP_LABEL = ("elk.nodeLabels.placement", "[H_CENTER, V_TOP, INSIDE]")
"""Where a DOT cluster's or an expanded sub-process's name goes: inside the top of its
box, with room kept for it (without it ELK draws the name over the first child)."""


def labels_inside(graph: Graph) -> Graph:
    """``graph`` with :data:`INSIDE_TOP_LABEL` on every labelled compound node that names
    no label placement of its own (for elkjs; other engines keep the room themselves).

    >>> from layouts.graph import Node
    >>> g = labels_inside(Graph((Node("c", 9, 9, "rect", "C", children=(Node("a", 9, 9),),
    ...                              label_width=9, label_height=9),)))
    >>> g.nodes[0].layout_options
    (('elk.nodeLabels.placement', '[H_CENTER, V_TOP, INSIDE]'),)
    """
    def placed(node: Node) -> Node:
        children = tuple(placed(child) for child in node.children)
        options = node.layout_options
        if children and node.label and not any("nodeLabels.placement" in key
                                                for key, _ in options):
            options = (*options, INSIDE_TOP_LABEL)
        return replace(node, children=children, layout_options=options)

    return replace(graph, nodes=tuple(placed(n) for n in graph.nodes))


def _features(engine: str) -> frozenset[GraphFeature]:
    try:
        return provider_features(get_provider(engine))
    except Exception:  # a broken third-party provider supports nothing here
        return frozenset()


def render_timed(
    data: bytes | str, *, filename: str | None = None, fmt: OutputFormat, engine: str,
    options: LayoutOptions, runner: LayoutRunner = layout_isolated,
    given_options: frozenset[str] | None = None,
    transform: Callable[[Diagram], Diagram] | None = None,
) -> Rendering:
    """Like :func:`render_document`, also returning the layout and the stage timings.
    ``given_options`` names the options the caller set (see :func:`resolve_options`);
    ``transform`` changes the diagram read before it is laid out (``--group-fanouts``).

    >>> from renderer.writers import OutputFormat
    >>> text = '{"nodes": [{"id": "a", "width": 80, "height": 40}]}'
    >>> r = render_timed(text, fmt=OutputFormat.JSON, engine="graphviz", options=LayoutOptions())
    >>> [name for name, _ in r.stages]
    ['read', 'layout', 'write']
    """
    clock = time.perf_counter
    start = clock()
    diagram = read_diagram(data, filename=filename)
    if transform is not None:
        diagram = transform(diagram)
    read_done = clock()
    if fmt is OutputFormat.BPMN and diagram.bpmn is None:
        raise BpmnWriteError("format bpmn needs BPMN input (a .bpmn file); this input is "
                             "not BPMN")
    diagram = flat_if_needed(diagram, engine)
    if engine == "elkjs" and (diagram.bpmn is not None or diagram.flat_fallback is not None):
        diagram = replace(diagram, graph=labels_inside(diagram.graph))
    result = runner(diagram.graph, engine, resolve_options(diagram, options, given_options))
    result = stack_scopes(diagram, attach_boundary_events(diagram, band_lanes(diagram, result)))
    if diagram.warnings:
        warnings = (*result.diagnostics.warnings, *diagram.warnings)
        result = replace(result, diagnostics=replace(result.diagnostics, warnings=warnings))
    layout_done = clock()
    output = write_output(diagram, result, fmt)
    stages = (("read", read_done - start), ("layout", layout_done - read_done),
              ("write", clock() - layout_done))
    return Rendering(output, result, stages)


def render_document(
    data: bytes | str, *, filename: str | None = None, fmt: OutputFormat, engine: str,
    options: LayoutOptions, runner: LayoutRunner = layout_isolated,
    given_options: frozenset[str] | None = None,
) -> bytes:
    """Read a diagram (workflow DSL, ELK JSON, graph JSON or DOT), lay it out with ``engine``
    in a worker process under a hard time limit, and write it as ``fmt``.

    ``filename`` only helps to detect the input format. ``runner`` runs the layout (a fresh
    worker process by default; the service passes its pool's ``run``). ``given_options``
    names the options the caller chose (see :func:`resolve_options`). Raises the errors of
    :data:`PROBLEM_TABLE`; see :func:`classify_error`.
    """
    return render_timed(data, filename=filename, fmt=fmt, engine=engine, options=options,
                        runner=runner, given_options=given_options).output


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
    (BpmnWriteError, 400, 2),
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
