"""Result assembly shared by the external-engine providers (graphviz, grandalf).

An engine adapter hands over, in our frame (px, y down), the centre of every node and
for every edge a raw polyline from the source side to the target side plus, when the
engine placed one, the centre of the label. :func:`assemble_result` then does the same
steps for every engine, in this order:

1. node boxes from the centres and the caller's sizes;
2. route ends clipped to the TRUE node outline (:mod:`layouts.geometry`: diamonds and
   circles included), keeping the direction of the engine's end segments;
3. label boxes of the edge's measured size, centred where the engine put the label
   (or at the middle of the route when it did not);
4. everything shifted so the drawing starts at (0, 0).

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.result import Diagnostics
>>> g = Graph((Node("a", 40, 20), Node("b", 40, 20)), (Edge("e", "a", "b"),))
>>> raw = RawRoute(g.edges[0], (Point(20, 10), Point(20, 110)))
>>> r = assemble_result(g, {"a": Point(20, 10), "b": Point(20, 110)}, [raw],
...                     Diagnostics("demo", "draft", "TopToBottom"))
>>> [(round(p.x, 6), round(p.y, 6)) for p in r.edges[0].points]
[(20.0, 20.0), (20.0, 100.0)]
>>> r.edges[0].source_end.side, r.height
(<Side.BOTTOM: 'bottom'>, 120.0)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from layouts.geometry import clip_to_outline, side_of, strictly_inside
from layouts.graph import Edge, Graph
from layouts.result import (
    Box,
    Diagnostics,
    EdgeEnd,
    EdgeRoute,
    LayoutResult,
    NodeBox,
    Point,
    PortBox,
)

_SAME_POINT = 1e-9


@dataclass(frozen=True, slots=True)
class RawRoute:
    """An engine's route of ``edge`` before clipping, from the source side to the target
    side, in our frame; ``label_center`` is where the engine put the label, if it did."""

    edge: Edge
    points: tuple[Point, ...]
    label_center: Point | None = None


def transpose(p: Point) -> Point:
    """Swap x and y: turns a top-to-bottom drawing into a left-to-right one.

    >>> transpose(Point(1, 2))
    Point(x=2, y=1)
    """
    return Point(p.y, p.x)


def node_boxes(graph: Graph, centers: Mapping[str, Point],
               compound: Mapping[str, Box] | None = None) -> dict[str, NodeBox]:
    """Node boxes of the caller's sizes and shapes around the engine's centres, every node
    of the hierarchy with its parent; a compound node takes the engine's box of it.

    >>> from layouts.graph import Node
    >>> node_boxes(Graph((Node("a", 40, 20),)), {"a": Point(20, 10)})["a"].x
    0.0
    """
    parents = graph.parents()
    boxes = {}
    for n in graph.all_nodes():
        if n.children and compound is not None:
            b = compound[n.id]
            boxes[n.id] = NodeBox(n.id, b.x, b.y, b.width, b.height, n.shape, parents[n.id])
            continue
        boxes[n.id] = NodeBox(n.id, centers[n.id].x - n.width / 2,
                              centers[n.id].y - n.height / 2, float(n.width), float(n.height),
                              n.shape, parents[n.id])
    return boxes


def _line_foot(center: Point, a: Point, b: Point) -> Point:
    """The point of the infinite line through ``a`` and ``b`` nearest ``center``."""
    dx, dy = b.x - a.x, b.y - a.y
    length2 = dx * dx + dy * dy
    if length2 < _SAME_POINT:
        return a
    t = ((center.x - a.x) * dx + (center.y - a.y) * dy) / length2
    return Point(a.x + t * dx, a.y + t * dy)


def clip_end(node: NodeBox, end: Point, neighbour: Point) -> Point:
    """Move the route end ``end`` (whose next point is ``neighbour``) onto ``node``'s
    outline. The end segment keeps its direction when its line passes through the node;
    otherwise the end goes to where the ray from the centre to ``neighbour`` leaves it.

    >>> from layouts.graph import Shape
    >>> d = NodeBox("d", 0, 0, 40, 40, Shape.DIAMOND)
    >>> p = clip_end(d, Point(10, 38), Point(10, 100))  # x=10 meets the diamond at y=30
    >>> round(p.x, 6), round(p.y, 6)
    (10.0, 30.0)
    """
    foot = _line_foot(node.center, end, neighbour)
    inside = foot if strictly_inside(node, foot, 0.0) else node.center
    return clip_to_outline(node, inside, neighbour)


def _dedupe(points: Iterable[Point]) -> list[Point]:
    out: list[Point] = []
    for p in points:
        if not out or math.hypot(p.x - out[-1].x, p.y - out[-1].y) > _SAME_POINT:
            out.append(p)
    return out


def clip_route(points: Sequence[Point], source: NodeBox, target: NodeBox) -> tuple[Point, ...]:
    """The route with its ends on the true outlines: inner points that lie inside the
    end nodes are dropped, then both ends are clipped with :func:`clip_end`.

    >>> a, b = NodeBox("a", 0, 0, 20, 20), NodeBox("b", 0, 100, 20, 20)
    >>> route = clip_route([Point(10, 10), Point(10, 15), Point(10, 110)], a, b)
    >>> [(round(p.x, 6), round(p.y, 6)) for p in route]
    [(10.0, 20.0), (10.0, 100.0)]
    """
    pts = _dedupe(points)
    if len(pts) < 2:
        pts = [source.center, target.center]
    while len(pts) > 2 and strictly_inside(source, pts[1], 0.0):
        pts.pop(0)
    while len(pts) > 2 and strictly_inside(target, pts[-2], 0.0):
        pts.pop()
    start = clip_end(source, pts[0], pts[1])
    end = clip_end(target, pts[-1], pts[-2])
    return tuple(_dedupe([start, *pts[1:-1], end])) if len(pts) > 2 else (start, end)


def route_midpoint(points: Sequence[Point]) -> Point:
    """The point halfway along the polyline, by length.

    >>> route_midpoint([Point(0, 0), Point(0, 10), Point(30, 10)])
    Point(x=10.0, y=10.0)
    """
    pairs = list(itertools.pairwise(points))
    lengths = [math.hypot(b.x - a.x, b.y - a.y) for a, b in pairs]
    remaining = sum(lengths) / 2
    for (a, b), length in zip(pairs, lengths, strict=True):
        if remaining <= length and length > 0:
            t = remaining / length
            return Point(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t)
        remaining -= length
    return points[-1]


def label_box(edge: Edge, center: Point | None, route: Sequence[Point]) -> Box | None:
    """The label box of ``edge`` (``None`` when it has no label), of its measured size,
    centred on ``center`` or, when the engine placed no label, on the route's middle.

    >>> e = Edge("e", "a", "b", label="yes", label_width=20, label_height=10)
    >>> label_box(e, Point(50, 50), [])
    Box(x=40.0, y=45.0, width=20.0, height=10.0)
    """
    if edge.label is None:
        return None
    c = center if center is not None else route_midpoint(route)
    w, h = float(edge.label_width), float(edge.label_height)
    return Box(c.x - w / 2, c.y - h / 2, w, h)


def self_loop_points(node: NodeBox, reach: float) -> tuple[Point, ...]:
    """A rectangular loop on the right of ``node`` reaching ``reach`` px beyond its box,
    for engines that do not route self-loops; its ends still need :func:`clip_route`.

    >>> self_loop_points(NodeBox("a", 0, 0, 40, 40), 10)[1:3]
    (Point(x=50.0, y=10.0), Point(x=50.0, y=30.0))
    """
    c = node.center
    offset = min(node.width, node.height) / 4
    far_x = float(node.x + node.width + reach)
    return (Point(c.x, c.y - offset), Point(far_x, c.y - offset),
            Point(far_x, c.y + offset), Point(c.x, c.y + offset))


def _shift_box(b: Box, dx: float, dy: float) -> Box:
    return Box(b.x + dx, b.y + dy, b.width, b.height)


def _extent(boxes: Iterable[NodeBox], routes: Iterable[EdgeRoute]) -> tuple[float, ...]:
    xs: list[float] = []
    ys: list[float] = []
    for n in boxes:
        xs += [n.x, n.x + n.width]
        ys += [n.y, n.y + n.height]
    for r in routes:
        xs += [p.x for p in r.points]
        ys += [p.y for p in r.points]
        if r.label_box is not None:
            xs += [r.label_box.x, r.label_box.right]
            ys += [r.label_box.y, r.label_box.bottom]
    return min(xs), min(ys), max(xs), max(ys)


def _edge_route(raw: RawRoute, boxes: Mapping[str, NodeBox],
                ports: Mapping[str, PortBox]) -> EdgeRoute:
    e = raw.edge
    source, target = boxes[e.source], boxes[e.target]
    points = clip_route(raw.points, source, target)
    if e.source_port is not None and e.source_port in ports:
        points = (ports[e.source_port].center, *points[1:])
    if e.target_port is not None and e.target_port in ports:
        points = (*points[:-1], ports[e.target_port].center)
    return EdgeRoute(
        e.id, e.source, e.target, points,
        source_end=EdgeEnd(side_of(source, points[0])),
        target_end=EdgeEnd(side_of(target, points[-1])),
        label_box=label_box(e, raw.label_center, points),
        loop_back=e.loop_back, source_port=e.source_port, target_port=e.target_port,
    )


def _shifted(route: EdgeRoute, dx: float, dy: float) -> EdgeRoute:
    return replace(
        route, points=tuple(Point(p.x + dx, p.y + dy) for p in route.points),
        label_box=None if route.label_box is None else _shift_box(route.label_box, dx, dy),
    )


def assemble_result(
    graph: Graph,
    centers: Mapping[str, Point],
    raw_routes: Sequence[RawRoute],
    diagnostics: Diagnostics,
    elapsed: Callable[[], float] | None = None,
    compound: Mapping[str, Box] | None = None,
    ports: Sequence[PortBox] = (),
) -> LayoutResult:
    """Build the :class:`LayoutResult` (nodes and edges in the graph's model order) from
    the engine's centres and raw routes; see the module docstring for the steps.
    ``elapsed`` (seconds since the layout began) is read last, so the diagnostics'
    ``seconds`` include this assembly; when the engine timed its phases, an
    ``assemble`` phase is appended with the rest of the time. ``compound`` gives the
    engine's box of each compound node, ``ports`` each port's box; edges at a port end
    at its centre."""
    boxes = node_boxes(graph, centers, compound)
    by_id = {raw.edge.id: raw for raw in raw_routes}
    port_by_id = {p.id: p for p in ports}
    routes = [_edge_route(by_id[e.id], boxes, port_by_id) for e in graph.edges]
    nodes: tuple[NodeBox, ...] = ()
    edges: tuple[EdgeRoute, ...] = ()
    shifted_ports: tuple[PortBox, ...] = ()
    x0 = y0 = x1 = y1 = 0.0
    if boxes:
        x0, y0, x1, y1 = _extent(boxes.values(), routes)
        nodes = tuple(replace(b, x=b.x - x0, y=b.y - y0) for b in boxes.values())
        edges = tuple(_shifted(r, -x0, -y0) for r in routes)
        shifted_ports = tuple(replace(p, x=p.x - x0, y=p.y - y0) for p in ports)
    if elapsed is not None:
        seconds = elapsed()
        before = sum(t for _, t in diagnostics.phases)
        phases = ((*diagnostics.phases, ("assemble", seconds - before))
                  if diagnostics.phases else ())
        diagnostics = replace(diagnostics, seconds=seconds, phases=phases)
    return LayoutResult(nodes, edges, x1 - x0, y1 - y0, diagnostics, shifted_ports)
