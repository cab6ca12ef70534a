"""Graphviz ``dot`` as a layout provider (through pygraphviz and a killable subprocess).

dot implements the layered method of Gansner, Koutsofios, North and Vo, "A Technique for
Drawing Directed Graphs" (IEEE TSE 19(3), 1993): network-simplex ranking, iterated
median/transpose crossing reduction, network-simplex coordinates, then spline routing.

The pipeline, top to bottom (:meth:`GraphvizProvider.layout`):

1. :func:`build_dot_source` - our graph as DOT text (pygraphviz), internal names ``n<i>``
   and ``e<i>`` so no id needs quoting; every node ``fixedsize`` at our size in inches
   (px / 72); graph attributes from :func:`dot_graph_attributes`, the ONE mapping of
   :class:`LayoutOptions` to dot attributes.
2. :func:`run_dot` - ``dot -Tdot`` in its own process group with ``options.time_budget``
   as hard timeout; on timeout the whole group is killed and
   :class:`LayoutTimeoutError` raised, so dot can never hang a caller.
3. :func:`read_layout` - dot's output read back with pygraphviz: node ``pos``, edge
   ``pos`` (bezier control points flattened to the polyline dot means) and ``lp``,
   converted to our frame (y down, top-left origin; 1 pt = 1 px).
4. :func:`layouts.providers._common.assemble_result` - ends clipped to the true outline,
   sides, label boxes, origin.

>>> from layouts.graph import Edge, Graph, Node
>>> g = Graph((Node("a", 80, 40), Node("b", 80, 40)), (Edge("e", "a", "b"),))
>>> r = GraphvizProvider().layout(g, LayoutOptions())
>>> r.node("a").y + 40 + 60 == r.node("b").y   # ranksep 60 px between the boxes
True
"""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import signal
import subprocess
import time

from layouts.errors import LayoutTimeoutError, ProviderFailedError, ProviderUnavailableError
from layouts.graph import Edge, Graph, GraphFeature, Shape
from layouts.options import Direction, Effort, LayoutOptions
from layouts.providers._common import RawRoute, assemble_result, node_boxes
from layouts.providers.graphviz_hierarchy import (
    add_nodes,
    add_rank_groups,
    cluster_boxes,
    dot_names,
    edge_ends,
    endpoint_names,
    port_boxes,
    record_attributes,
)
from layouts.registry import Availability
from layouts.result import Box, Diagnostics, LayoutResult, Point

MISSING = "Graphviz (dot) not found"
INSTALL_HINT = ("install it with: apt-get install graphviz libgraphviz-dev && "
                "pip install pygraphviz")
POINTS_PER_INCH = 72.0

# dot has no effort setting; effort scales mclimit, the factor on dot's crossing-
# minimisation iteration limits (default 1.0). Ranking and placement run unchanged.
MCLIMIT: dict[Effort, float] = {Effort.DRAFT: 0.25, Effort.BALANCED: 1.0, Effort.BEST: 4.0}

# dot shape per outline. A fixed-size dot "circle" is always as wide as it is tall
# (max of width and height), while ours is the circle of radius min/2 in the box; an
# ellipse of exactly our box keeps dot's spacing equal to the box we report and is a
# circle whenever width == height. Ends are re-clipped to the true outline anyway.
DOT_SHAPES: dict[Shape, str] = {Shape.RECT: "box", Shape.DIAMOND: "diamond",
                                Shape.CIRCLE: "ellipse", Shape.ELLIPSE: "ellipse"}


RANKDIR: dict[Direction, str] = {
    Direction.TOP_TO_BOTTOM: "TB",
    Direction.LEFT_TO_RIGHT: "LR",
    Direction.BOTTOM_TO_TOP: "BT",
    Direction.RIGHT_TO_LEFT: "RL",
}


def _inches(px: float) -> str:
    return f"{px / POINTS_PER_INCH:.6f}"


def dot_graph_attributes(options: LayoutOptions) -> dict[str, str]:
    """The one mapping of layout options to dot graph attributes.

    ``splines=polyline`` because its routes are straight segments (bezier pieces with
    control points on the segment), i.e. exactly the polyline our result holds, and it
    keeps edge labels; ``splines=ortho`` would suit our orthogonal style but dot's ortho
    router ignores edge labels ("Orthogonal edges do not currently handle edge labels").

    >>> options = LayoutOptions.from_mapping({"layerSpacing": 72, "direction": "LR"})
    >>> a = dot_graph_attributes(options)
    >>> a["ranksep"], a["rankdir"], a["splines"]
    ('1.000000', 'LR', 'polyline')
    """
    return {
        "rankdir": RANKDIR[options.direction],
        "nodesep": _inches(options.node_spacing),
        "ranksep": _inches(options.layer_spacing),
        "splines": "polyline",
        "mclimit": f"{MCLIMIT[options.effort]:g}",
    }


def _html_label(edge: Edge) -> str:
    """An empty fixed-size HTML table: dot reserves exactly the label's size (whole
    points, rounded up) and reports its centre as ``lp``."""
    w, h = math.ceil(edge.label_width), math.ceil(edge.label_height)
    return (f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="0" '
            f'FIXEDSIZE="TRUE" WIDTH="{w}" HEIGHT="{h}"><TR><TD></TD></TR></TABLE>>')


def _edge_attributes(edge: Edge, index: int) -> dict[str, str]:
    attrs = {"id": f"e{index}", "dir": "none"}  # no arrow heads: the route ends on the node
    if edge.label is not None and (edge.label_width > 0 or edge.label_height > 0):
        attrs["label"] = _html_label(edge)
    if edge.loop_back:
        # A declared loop-back is given to dot reversed (target -> source; its points are
        # reversed on the way back) with weight 0. Reversed, its rank constraint agrees
        # with the flow and dot orders it like any forward edge, so it runs beside the
        # flow without crossings; weight 0 keeps its length from pulling the loop's
        # nodes together, so it does not drive ranking. constraint=false was tried:
        # dot then routes it around the drawing, crossing two edges on the fixture.
        attrs["weight"] = "0"
    return attrs


def build_dot_source(graph: Graph, options: LayoutOptions) -> str:
    """DOT text of ``graph``: nodes ``n<i>`` and edges ``e<i>`` in model order.

    >>> from layouts.graph import Node
    >>> "width=0.555556" in build_dot_source(Graph((Node("a", 40, 20),)), LayoutOptions())
    True
    """
    import pygraphviz

    names = dot_names(graph)
    dot = pygraphviz.AGraph(directed=True, strict=False)
    dot.graph_attr.update(dot_graph_attributes(options))
    if GraphFeature.COMPOUND in graph.features():
        dot.graph_attr["compound"] = "true"
    dot.node_attr.update({"fixedsize": "true", "label": ""})
    add_nodes(dot, graph.nodes, names, lambda n: {
        "shape": DOT_SHAPES[n.shape], "width": _inches(n.width), "height": _inches(n.height),
        **record_attributes(n)})
    add_rank_groups(dot, graph, names)
    nodes = graph.node_index()
    for i, e in enumerate(graph.edges):
        tail, head = endpoint_names(e, names, nodes)
        attrs = {**_edge_attributes(e, i), **edge_ends(graph, e, options.direction, names, nodes)}
        dot.add_edge(tail, head, key=f"e{i}", **attrs)
    return str(dot.to_string())


def run_dot(command: str, source: str, seconds: float) -> str:
    """Run ``command -Tdot`` on ``source`` with a hard timeout; return its output.

    The process runs in a new session; on timeout its whole process group is killed
    (so a wrapper script cannot leave dot behind) and :class:`LayoutTimeoutError` raised.

    >>> 'pos="27,18"' in run_dot("dot", "digraph { a }", seconds=10)
    True
    """
    try:
        process = subprocess.Popen(
            [command, "-Tdot"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True, text=True)
    except OSError as exc:
        raise ProviderUnavailableError("graphviz", f"{MISSING} ({exc})", INSTALL_HINT) from exc
    try:
        out, err = process.communicate(source, timeout=seconds)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        raise LayoutTimeoutError("graphviz", seconds) from None
    if process.returncode != 0:
        raise ProviderFailedError(f"dot exited with status {process.returncode}: "
                                  f"{err.strip()[:500]}")
    return out


def _kill_group(process: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.communicate()


def _point(text: str, height: float) -> Point:
    x, y = text.split(",")[:2]
    return Point(float(x), height - float(y))


def flatten_bezier(points: list[Point], steps: int = 8) -> list[Point]:
    """Flatten dot's piecewise cubic bezier (``1 + 3k`` control points): a piece whose
    control points lie on its chord is a straight segment (polyline splines) and gives
    its end point; a curved piece (self-loops) is sampled at ``steps`` points.

    >>> flatten_bezier([Point(0, 0), Point(0, 1), Point(0, 2), Point(0, 3)])
    [Point(x=0, y=0), Point(x=0, y=3)]
    """
    out = [points[0]]
    for i in range(0, len(points) - 3, 3):
        p0, p1, p2, p3 = points[i:i + 4]
        if _on_chord(p0, p1, p3) and _on_chord(p0, p2, p3):
            out.append(p3)
            continue
        for k in range(1, steps + 1):
            t = k / steps
            a, b, c, d = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t ** 3
            out.append(Point(a * p0.x + b * p1.x + c * p2.x + d * p3.x,
                             a * p0.y + b * p1.y + c * p2.y + d * p3.y))
    return out


def _on_chord(a: Point, p: Point, b: Point) -> bool:
    cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
    return abs(cross) <= 0.5 * max(math.hypot(b.x - a.x, b.y - a.y), 1.0)


def _spline_points(pos: str, height: float) -> list[Point]:
    first = pos.split(";")[0].split()
    controls = [_point(t, height) for t in first if not t.startswith(("e,", "s,"))]
    return flatten_bezier(controls)


def read_layout(text: str, graph: Graph
                ) -> tuple[dict[str, Point], list[RawRoute], dict[str, Box]]:
    """Leaf centres, raw routes (source to target) and compound nodes' boxes from dot's
    ``-Tdot`` output.

    >>> from layouts.graph import Node
    >>> text = 'digraph { graph [bb="0,0,54,36"]; n0 [pos="27,18"]; }'
    >>> read_layout(text, Graph((Node("a", 54, 36),)))[0]   # y flipped: 36 - 18
    {'a': Point(x=27.0, y=18.0)}
    """
    import pygraphviz

    laid = pygraphviz.AGraph(string=text)
    height = float(str(laid.graph_attr["bb"]).split(",")[3])
    names = dot_names(graph)
    centers = {n.id: _point(str(laid.get_node(names[n.id]).attr["pos"]), height)
               for n in graph.all_nodes() if not n.children}
    by_key = {str(e.attr["id"]): e for e in laid.edges()}
    routes = []
    for i, e in enumerate(graph.edges):
        attrs = by_key[f"e{i}"].attr
        points = _spline_points(str(attrs["pos"]), height)
        if e.loop_back:
            points.reverse()
        lp = attrs.get("lp")
        routes.append(RawRoute(e, tuple(points), _point(str(lp), height) if lp else None))
    return centers, routes, cluster_boxes(laid, graph, height)


class GraphvizProvider:
    """Graphviz dot; ``dot_command`` names the executable (tests point it elsewhere)."""

    name = "graphviz"
    features = frozenset({GraphFeature.PORTS, GraphFeature.COMPOUND})

    def __init__(self, dot_command: str = "dot") -> None:
        self.dot_command = dot_command

    def availability(self) -> Availability:
        """Available when pygraphviz imports and the dot command is on PATH."""
        try:
            import pygraphviz  # noqa: F401  (a broken libcgraph fails here, not in find_spec)
        except ImportError as exc:
            return Availability(False, f"pygraphviz not importable ({exc}); {INSTALL_HINT}")
        if shutil.which(self.dot_command) is None:
            return Availability(False, f"{MISSING}; {INSTALL_HINT}")
        return Availability(True)

    def layout(self, graph: Graph, options: LayoutOptions) -> LayoutResult:
        """Lay ``graph`` out with dot under ``options.time_budget`` (see module doc)."""
        self.availability().require(self.name)
        start = time.perf_counter()
        if not graph.nodes:
            return assemble_result(graph, {}, [], self._diagnostics(options),
                                   lambda: time.perf_counter() - start)
        source = build_dot_source(graph, options)
        built = time.perf_counter()
        output = run_dot(self.dot_command, source, options.time_budget)
        ran = time.perf_counter()
        try:
            centers, routes, clusters = read_layout(output, graph)
        except (KeyError, ValueError, IndexError) as exc:
            raise ProviderFailedError(f"cannot read dot's output: {exc!r}") from exc
        phases = (("build", built - start), ("dot", ran - built),
                  ("read", time.perf_counter() - ran))
        ports = port_boxes(graph, node_boxes(graph, centers, clusters), options.direction)
        return assemble_result(graph, centers, routes, self._diagnostics(options, phases),
                               lambda: time.perf_counter() - start, clusters, ports)

    def _diagnostics(self, options: LayoutOptions,
                     phases: tuple[tuple[str, float], ...] = ()) -> Diagnostics:
        return Diagnostics(
            engine=self.name, effort=options.effort.value, direction=options.direction.value,
            phases=phases,
            notes=(f"effort {options.effort.value} -> dot mclimit={MCLIMIT[options.effort]:g}",),
        )


