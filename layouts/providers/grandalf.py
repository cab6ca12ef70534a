"""grandalf's SugiyamaLayout as a baseline provider.

grandalf implements the layered method of Sugiyama, Tagawa and Toda, "Methods for Visual
Understanding of Hierarchical System Structures" (IEEE SMC 11(2), 1981): longest-path
layering, layer-by-layer barycentre ordering with Barth-Mutzel cross counting and
Brandes-Köpf coordinates ("Fast and Simple Horizontal Coordinate Assignment", GD 2001).

The pipeline, top to bottom (:meth:`GrandalfProvider.layout`):

1. work in the top-to-bottom frame: for LeftToRight every width and height is swapped
   on the way in and every point transposed on the way out;
2. split the graph into connected components (model order); each one is laid out on its
   own and the components are placed side by side, ``node_spacing`` apart;
3. per component (:func:`_layout_component`): a fresh grandalf graph built from a COPY
   (grandalf flips edges in place), sizes through view objects, declared loop-backs (and
   the back edges of a depth-first search) passed as inverted edges, ``effort`` rounds
   of ordering stopped early when the time budget runs out, then placement and the
   dummy-vertex polylines;
4. self-loops, which grandalf drops, get a small loop on the node's right;
5. :func:`layouts.providers._common.assemble_result` clips the ends to the true outline.

Limits of this baseline: parallel edges share one route (grandalf's layer-neighbour
lookup only sees the first edge between two vertices), and labels are centred on the
middle of their route without reserved space.

>>> from layouts.graph import Edge, Graph, Node
>>> g = Graph((Node("a", 80, 40), Node("b", 80, 40)), (Edge("e", "a", "b"),))
>>> r = GrandalfProvider().layout(g, LayoutOptions())
>>> r.node("b").y - r.node("a").y   # one layer: 40 px node + 60 px layer spacing
100.0
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from layouts.graph import Edge, Graph, Node
from layouts.mirror import base_direction, mirror_result
from layouts.options import Direction, Effort, LayoutOptions
from layouts.providers._common import RawRoute, assemble_result, self_loop_points, transpose
from layouts.registry import Availability
from layouts.result import Diagnostics, LayoutResult, NodeBox, Point

INSTALL_HINT = "install it with: pip install grandalf"

# Effort is the number of grandalf ordering rounds (one round sweeps the layers down and
# back up); grandalf's own default draw() does 1.5.
ORDERING_ROUNDS: dict[Effort, int] = {Effort.DRAFT: 1, Effort.BALANCED: 3, Effort.BEST: 8}


@dataclass(frozen=True, slots=True)
class _Drawing:
    """One component's drawing in the top-to-bottom frame."""

    centers: dict[str, Point]
    routes: dict[str, tuple[Point, ...]]
    width: float
    budget_exhausted: bool


class _VertexView:
    """The duck-typed view grandalf reads sizes from and writes centres to."""

    def __init__(self, w: float, h: float) -> None:
        self.w, self.h = w, h
        self.xy: tuple[float, float] = (0.0, 0.0)


class _EdgeView:
    """Receives the polyline grandalf draws through the dummy vertices."""

    def __init__(self) -> None:
        self.points: list[tuple[float, float]] = []

    def setpath(self, points: list[tuple[float, float]]) -> None:
        self.points = list(points)


def canonical_graph(graph: Graph, direction: Direction) -> Graph:
    """The graph in the top-to-bottom frame: sizes swapped for LeftToRight.

    >>> g = canonical_graph(Graph((Node("a", 80, 40),)), Direction.LEFT_TO_RIGHT)
    >>> g.nodes[0].width, g.nodes[0].height
    (40, 80)
    """
    if direction != Direction.LEFT_TO_RIGHT:
        return graph
    nodes = tuple(Node(n.id, n.height, n.width, n.shape, n.label) for n in graph.nodes)
    return Graph(nodes, graph.edges)


def components(graph: Graph) -> list[tuple[list[Node], list[Edge]]]:
    """Connected components (ignoring direction and self-loops), in model order.

    >>> g = Graph((Node("a", 1, 1), Node("b", 1, 1), Node("c", 1, 1)), (Edge("e", "c", "a"),))
    >>> [[n.id for n in nodes] for nodes, _ in components(g)]
    [['a', 'c'], ['b']]
    """
    parent = {n.id: n.id for n in graph.nodes}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    index = {n.id: i for i, n in enumerate(graph.nodes)}
    for e in graph.edges:
        a, b = sorted((root(e.source), root(e.target)), key=index.__getitem__)
        if a != b:
            parent[b] = a
    groups: dict[str, tuple[list[Node], list[Edge]]] = {}
    for n in graph.nodes:
        groups.setdefault(root(n.id), ([], []))[0].append(n)
    for e in graph.edges:
        if e.source != e.target:
            groups[root(e.source)][1].append(e)
    return list(groups.values())


def inverted_edges(nodes: Sequence[Node], edges: Sequence[Edge]) -> set[str]:
    """Ids of the edges grandalf must invert to get a DAG: declared loop-backs, plus the
    back edges of a depth-first search (model order) of the graph with loop-backs
    reversed (an edge reversed twice is not inverted).

    >>> n = [Node(i, 1, 1) for i in "abc"]
    >>> sorted(inverted_edges(n, [Edge("1", "a", "b"), Edge("2", "b", "c"),
    ...                           Edge("3", "c", "a"), Edge("4", "c", "b", loop_back=True)]))
    ['3', '4']
    """
    oriented = {e.id: (e.target, e.source) if e.loop_back else (e.source, e.target)
                for e in edges}
    out: dict[str, list[tuple[str, str]]] = {n.id: [] for n in nodes}
    for e in edges:
        tail, head = oriented[e.id]
        out[tail].append((e.id, head))
    back = _back_edges([n.id for n in nodes], out)
    return {e.id for e in edges if e.loop_back != (e.id in back)}


def _back_edges(order: list[str], out: dict[str, list[tuple[str, str]]]) -> set[str]:
    state: dict[str, int] = {}  # 1 on the DFS stack, 2 finished
    back: set[str] = set()
    for start in order:
        if start in state:
            continue
        state[start] = 1
        stack: list[tuple[str, Iterator[tuple[str, str]]]] = [(start, iter(out[start]))]
        while stack:
            node, successors = stack[-1]
            step = next(successors, None)
            if step is None:
                state[node] = 2
                stack.pop()
            elif state.get(step[1]) == 1:
                back.add(step[0])
            elif step[1] not in state:
                state[step[1]] = 1
                stack.append((step[1], iter(out[step[1]])))
    return back


def _order_layers(sugiyama: Any, rounds: int, out_of_time: Callable[[], bool]) -> bool:
    """Run grandalf's ordering sweeps; stop after the layer where time ran out."""
    for _ in range(rounds):
        for _step in sugiyama.ordering_step():
            if out_of_time():
                return True
    return False


def _layout_component(nodes: list[Node], edges: list[Edge], options: LayoutOptions,
                      out_of_time: Callable[[], bool]) -> _Drawing:
    from grandalf.graphs import Edge as GEdge
    from grandalf.graphs import Vertex, graph_core
    from grandalf.layouts import SugiyamaLayout

    vertices = {n.id: Vertex(n.id) for n in nodes}
    for n in nodes:
        vertices[n.id].view = _VertexView(n.width, n.height)
    shared: dict[frozenset[str], Edge] = {}
    for e in edges:
        shared.setdefault(frozenset((e.source, e.target)), e)
    firsts = list(shared.values())
    g_edges = {e.id: GEdge(vertices[e.source], vertices[e.target], data=e.id) for e in firsts}
    for g_edge in g_edges.values():
        g_edge.view = _EdgeView()
    sugiyama = SugiyamaLayout(graph_core(list(vertices.values()), list(g_edges.values())))
    sugiyama.xspace, sugiyama.yspace = options.node_spacing, options.layer_spacing
    sugiyama.dw = sugiyama.dh = options.edge_spacing  # dummy vertex size
    inverted = inverted_edges(nodes, firsts)
    heads = {(e.source if e.id in inverted else e.target) for e in firsts}
    sugiyama.init_all(roots=[vertices[n.id] for n in nodes if n.id not in heads],
                      inverted_edges=[g_edges[i] for i in sorted(inverted)])
    exhausted = _order_layers(sugiyama, ORDERING_ROUNDS[options.effort], out_of_time)
    sugiyama.setxy()
    sugiyama.draw_edges()
    return _normalised(nodes, edges, vertices, g_edges, shared, exhausted or out_of_time())


def _normalised(nodes: list[Node], edges: list[Edge], vertices: dict[str, Any],
                g_edges: dict[str, Any], shared: dict[frozenset[str], Edge],
                exhausted: bool) -> _Drawing:
    """Centres and routes shifted so the component's boxes start at x = 0, y = 0."""
    left = min(vertices[n.id].view.xy[0] - n.width / 2 for n in nodes)
    top = min(vertices[n.id].view.xy[1] - n.height / 2 for n in nodes)
    right = max(vertices[n.id].view.xy[0] + n.width / 2 for n in nodes)
    centers = {n.id: Point(vertices[n.id].view.xy[0] - left, vertices[n.id].view.xy[1] - top)
               for n in nodes}
    routes: dict[str, tuple[Point, ...]] = {}
    for e in edges:
        first = shared[frozenset((e.source, e.target))]
        points = [Point(x - left, y - top) for x, y in g_edges[first.id].view.points]
        if first.source != e.source:
            points.reverse()
        routes[e.id] = tuple(points)
    return _Drawing(centers, routes, right - left, exhausted)


class GrandalfProvider:
    """grandalf's Sugiyama layout; ``clock`` is the time source of the budget."""

    name = "grandalf"
    rank_groups_limit = "grandalf takes no rank constraints"

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock

    def availability(self) -> Availability:
        """Available when the grandalf package imports."""
        if importlib.util.find_spec("grandalf") is None:
            return Availability(False, f"grandalf not importable; {INSTALL_HINT}")
        return Availability(True)

    def layout(self, graph: Graph, options: LayoutOptions) -> LayoutResult:
        """Lay ``graph`` out with grandalf within ``options.time_budget`` (cooperative);
        BottomToTop and RightToLeft are mirror images (:mod:`layouts.mirror`)."""
        base = replace(options, direction=base_direction(options.direction))
        return mirror_result(self._layout(graph, base), options.direction)

    def _layout(self, graph: Graph, options: LayoutOptions) -> LayoutResult:
        self.availability().require(self.name)
        start = self.clock()
        deadline = start + options.time_budget
        canonical = canonical_graph(graph, options.direction)
        centers, routes, exhausted = self._place_components(
            canonical, options, lambda: self.clock() > deadline)
        if options.direction == Direction.LEFT_TO_RIGHT:
            centers = {k: transpose(p) for k, p in centers.items()}
            routes = [RawRoute(r.edge, tuple(transpose(p) for p in r.points)) for r in routes]
        diagnostics = Diagnostics(
            engine=self.name, effort=options.effort.value, direction=options.direction.value,
            budget_exhausted=exhausted, phases=(("sugiyama", self.clock() - start),),
            notes=(f"effort {options.effort.value} -> "
                   f"{ORDERING_ROUNDS[options.effort]} grandalf ordering rounds",))
        return assemble_result(graph, centers, routes, diagnostics,
                               lambda: self.clock() - start)

    def _place_components(
        self, graph: Graph, options: LayoutOptions, out_of_time: Callable[[], bool],
    ) -> tuple[dict[str, Point], list[RawRoute], bool]:
        """Every component laid out and shifted right of the previous one."""
        centers: dict[str, Point] = {}
        points: dict[str, tuple[Point, ...]] = {}
        exhausted, cursor = False, 0.0
        for nodes, edges in components(graph):
            drawing = _layout_component(nodes, edges, options, out_of_time)
            centers.update({k: Point(p.x + cursor, p.y) for k, p in drawing.centers.items()})
            points.update({k: tuple(Point(p.x + cursor, p.y) for p in route)
                           for k, route in drawing.routes.items()})
            exhausted = exhausted or drawing.budget_exhausted
            cursor += drawing.width + options.node_spacing
        for e in graph.edges:
            if e.source == e.target:
                n = graph.node(e.source)
                c = centers[n.id]
                box = NodeBox(n.id, c.x - n.width / 2, c.y - n.height / 2, n.width, n.height,
                              n.shape)
                points[e.id] = self_loop_points(box, options.node_spacing / 2)
        return centers, [RawRoute(e, points[e.id]) for e in graph.edges], exhausted
