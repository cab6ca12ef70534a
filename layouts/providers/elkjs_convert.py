"""ELK's laid-out JSON graph -> our :class:`LayoutResult`.

ELK gives node corners (``x``, ``y``, relative to the parent node), port corners
(relative to their node) and, per edge, ``sections`` with a start point, bend points and
an end point relative to the edge's ``container``, all on node *bounding boxes*; here
they become absolute. Loop-back edges, sent to ELK reversed, are turned back. Diamond
and circle endpoints are then moved onto the true outline along the axis of the segment
that reaches them, so routes stay orthogonal; anything missing or non-numeric in ELK's
answer is a :class:`ProviderFailedError`.

>>> from layouts.graph import Edge, Graph, Node, Shape
>>> graph = Graph((Node("a", 40, 40), Node("d", 40, 40, Shape.DIAMOND)), (Edge("e", "a", "d"),))
>>> elk = {"width": 64, "height": 124, "children": [
...     {"id": "a", "x": 12, "y": 12, "width": 40, "height": 40},
...     {"id": "d", "x": 12, "y": 72, "width": 40, "height": 40}],
...     "edges": [{"id": "e", "sections": [{"startPoint": {"x": 22, "y": 52},
...                                          "endPoint": {"x": 22, "y": 72}}]}]}
>>> route = from_elk_graph(graph, elk, DIAGNOSTICS_EXAMPLE).edges[0]
>>> [(p.x, round(p.y, 6)) for p in route.points]  # tip at (32, 72); x 22 -> y 72 + 10
[(22.0, 52.0), (22.0, 82.0)]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from layouts.errors import ProviderFailedError
from layouts.geometry import clip_to_outline, project_to_outline, side_of
from layouts.graph import Edge, Graph, GraphFeature, Shape
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

DIAGNOSTICS_EXAMPLE = Diagnostics(engine="elkjs", effort="balanced", direction="TopToBottom")


def _fail(problem: str) -> ProviderFailedError:
    return ProviderFailedError(f"elkjs returned an unusable layout: {problem}")


def _number(owner: Mapping[str, Any], key: str, where: str) -> float:
    value = owner.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _fail(f"{where} has no finite number '{key}' (got {value!r})")
    return float(value)


def _items(owner: Mapping[str, Any], key: str, where: str) -> list[Mapping[str, Any]]:
    value = owner.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, Mapping) for item in value):
        raise _fail(f"{where} '{key}' is not a list of objects")
    return value


def _by_id(items: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {str(item.get("id")): item for item in items}


@dataclass(frozen=True, slots=True)
class _Placed:
    """ELK's answer flattened: each node's item and absolute corner, each port's item with
    its node's absolute corner, each edge's item with its declaring parent's corner."""

    nodes: dict[str, tuple[Mapping[str, Any], Point]]
    ports: dict[str, tuple[Mapping[str, Any], Point]]
    edges: dict[str, tuple[Mapping[str, Any], Point]]
    origins: dict[str, Point]


def _flatten(elk: Mapping[str, Any]) -> _Placed:
    placed = _Placed({}, {}, {}, {str(elk.get("id")): Point(0.0, 0.0)})
    stack: list[tuple[Mapping[str, Any], Point]] = [(elk, Point(0.0, 0.0))]
    while stack:
        owner, origin = stack.pop()
        where = f"node '{owner.get('id')}'"
        for edge in _items(owner, "edges", where):
            placed.edges[str(edge.get("id"))] = (edge, origin)
        for child in _items(owner, "children", where):
            child_where = f"node '{child.get('id')}'"
            corner = Point(origin.x + _number(child, "x", child_where),
                           origin.y + _number(child, "y", child_where))
            placed.nodes[str(child.get("id"))] = (child, corner)
            placed.origins[str(child.get("id"))] = corner
            for port in _items(child, "ports", child_where):
                placed.ports[str(port.get("id"))] = (port, corner)
            stack.append((child, corner))
    return placed


def _label_box_at(owner: Mapping[str, Any], origin: Point, where: str) -> Box | None:
    labels = _items(owner, "labels", where)
    if not labels or "x" not in labels[0]:
        return None
    label = labels[0]
    return Box(origin.x + _number(label, "x", where), origin.y + _number(label, "y", where),
               _number(label, "width", where), _number(label, "height", where))


def _extra_label_boxes(owner: Mapping[str, Any], origin: Point, where: str
                       ) -> tuple[Box, ...]:
    """The boxes of every label after the first that ELK placed."""
    return tuple(Box(origin.x + _number(label, "x", where), origin.y + _number(label, "y", where),
                     _number(label, "width", where), _number(label, "height", where))
                 for label in _items(owner, "labels", where)[1:] if "x" in label)


def _node_boxes(graph: Graph, placed: _Placed) -> tuple[NodeBox, ...]:
    """Every node (pre-order) at its absolute corner; compound nodes take ELK's size."""
    parents = graph.parents()
    boxes = []
    for node in graph.all_nodes():
        if node.id not in placed.nodes:
            raise _fail(f"node '{node.id}' is missing")
        where = f"node '{node.id}'"
        item, corner = placed.nodes[node.id]
        width, height = node.width, node.height
        if node.children:
            width, height = _number(item, "width", where), _number(item, "height", where)
        boxes.append(NodeBox(node.id, corner.x, corner.y, width, height, node.shape,
                             parents[node.id], _label_box_at(item, corner, where),
                             _extra_label_boxes(item, corner, where)))
    return tuple(boxes)


def _port_boxes(graph: Graph, placed: _Placed, boxes: Mapping[str, NodeBox]
                ) -> tuple[PortBox, ...]:
    out = []
    for node in graph.all_nodes():
        for port in node.ports:
            if port.id not in placed.ports:
                raise _fail(f"port '{port.id}' is missing")
            where = f"port '{port.id}'"
            item, corner = placed.ports[port.id]
            x = corner.x + _number(item, "x", where)
            y = corner.y + _number(item, "y", where)
            centre = Point(x + port.width / 2, y + port.height / 2)
            out.append(PortBox(port.id, node.id, x, y, port.width, port.height,
                               side_of(boxes[node.id], centre),
                               _label_box_at(item, Point(x, y), where),
                               extra_label_boxes=_extra_label_boxes(item, Point(x, y), where)))
    return tuple(out)


def _point(owner: Mapping[str, Any], where: str) -> Point:
    return Point(_number(owner, "x", where), _number(owner, "y", where))


def _section_points(elk_edge: Mapping[str, Any], where: str, origin: Point) -> list[Point]:
    """The route's points, absolute (ELK gives them relative to the edge's container)."""
    sections = _items(elk_edge, "sections", where)
    if not sections:
        return []
    points: list[Point] = []
    for section in sections:
        start = section.get("startPoint")
        end = section.get("endPoint")
        if not isinstance(start, Mapping) or not isinstance(end, Mapping):
            raise _fail(f"{where} has a section without startPoint/endPoint")
        bends = [_point(p, where) for p in _items(section, "bendPoints", where)]
        for p in [_point(start, where), *bends, _point(end, where)]:
            moved = Point(origin.x + p.x, origin.y + p.y)
            if not points or points[-1] != moved:
                points.append(moved)
    return points


def _onto_outline(node: NodeBox, end: Point, previous: Point) -> Point:
    """Slide ``end`` (on the bounding box) along the axis from ``previous`` onto the
    outline; when that axis misses the outline, use the outline point towards ``previous``."""
    if node.shape is Shape.RECT or end == previous:
        return end
    c = node.center
    vertical = abs(end.x - previous.x) <= abs(end.y - previous.y)
    on_axis = Point(end.x, c.y) if vertical else Point(c.x, end.y)
    clipped = clip_to_outline(node, on_axis, previous)
    still_on_axis = clipped.x == end.x if vertical else clipped.y == end.y
    return clipped if still_on_axis else project_to_outline(node, previous)


def _neighbour(points: Sequence[Point], index: int, step: int) -> Point:
    """The nearest point from ``points[index]`` in direction ``step`` that differs from it."""
    j = index + step
    while 0 <= j < len(points) and points[j] == points[index]:
        j += step
    return points[j] if 0 <= j < len(points) else points[index]


def _end_point(box: NodeBox, port: PortBox | None) -> Point:
    return port.center if port is not None else box.center


def _edge_route(edge: Edge, elk_edge: Mapping[str, Any], origin: Point,
                boxes: Mapping[str, NodeBox], ports: Mapping[str, PortBox],
                warnings: list[str] | None) -> EdgeRoute:
    """``warnings`` is ``None`` for flat graphs: an edge without sections is then an
    unusable answer, not a hierarchy edge ELK was not asked to route."""
    where = f"edge '{edge.id}'"
    points = _section_points(elk_edge, where, origin)
    source, target = boxes[edge.source], boxes[edge.target]
    source_port = ports.get(edge.source_port) if edge.source_port else None
    target_port = ports.get(edge.target_port) if edge.target_port else None
    if not points:  # ELK routes no edge across a compound boundary without INCLUDE_CHILDREN
        if warnings is None:
            raise _fail(f"{where} has no sections")
        warnings.append(f"{where} was not routed by ELK (it crosses a compound boundary "
                        "and elk.hierarchyHandling is not INCLUDE_CHILDREN): drawn straight")
        points = [_end_point(source, source_port), _end_point(target, target_port)]
        if edge.loop_back:
            points.reverse()
    if edge.loop_back:  # ELK laid it out reversed (see elkjs_options._elk_edge)
        points.reverse()
    first = points[0] if source_port else _onto_outline(source, points[0],
                                                         _neighbour(points, 0, 1))
    last = points[-1] if target_port else _onto_outline(
        target, points[-1], _neighbour(points, len(points) - 1, -1))
    points = [first, *points[1:-1], last] if len(points) > 1 else [first, last]
    return EdgeRoute(
        id=edge.id, source=edge.source, target=edge.target, points=tuple(points),
        source_end=EdgeEnd(side=side_of(source, first)),
        target_end=EdgeEnd(side=side_of(target, last)),
        label_box=_label_box_at(elk_edge, origin, where), loop_back=edge.loop_back,
        extra_label_boxes=_extra_label_boxes(elk_edge, origin, where),
        source_port=edge.source_port, target_port=edge.target_port,
        junction_points=tuple(Point(origin.x + p.x, origin.y + p.y) for p in (
            _point(j, where) for j in _items(elk_edge, "junctionPoints", where))),
    )


def _edge_origin(elk_edge: Mapping[str, Any], declared_in: Point, placed: _Placed) -> Point:
    """ELK's coordinates of an edge are relative to its ``container`` (elkjs names it in
    its answer); without one, to the node it is declared in."""
    container = elk_edge.get("container")
    if container is None:
        return declared_in
    origin = placed.origins.get(str(container))
    if origin is None:
        raise _fail(f"edge '{elk_edge.get('id')}' names an unknown container {container!r}")
    return origin


def from_elk_graph(graph: Graph, elk: Mapping[str, Any], diagnostics: Diagnostics
                   ) -> LayoutResult:
    """Our result for ``graph`` from ELK's laid-out graph ``elk``: nodes (pre-order) and
    edges in the graph's model order, every coordinate absolute, drawing size from the
    root's ``width``/``height``."""
    if not isinstance(elk, Mapping):
        raise _fail("the answer is not a JSON object")
    placed = _flatten(elk)
    boxes = _node_boxes(graph, placed)
    by_id = {box.id: box for box in boxes}
    ports = _port_boxes(graph, placed, by_id)
    port_by_id = {p.id: p for p in ports}
    warnings: list[str] = []
    compound = GraphFeature.COMPOUND in graph.features()
    edges = []
    for edge in graph.edges:
        if edge.id not in placed.edges:
            raise _fail(f"edge '{edge.id}' is missing")
        item, declared_in = placed.edges[edge.id]
        origin = _edge_origin(item, declared_in, placed)
        edges.append(_edge_route(edge, item, origin, by_id, port_by_id,
                                 warnings if compound else None))
    return LayoutResult(
        nodes=boxes, edges=tuple(edges),
        width=_number(elk, "width", "the root graph"),
        height=_number(elk, "height", "the root graph"),
        diagnostics=replace(diagnostics, warnings=diagnostics.warnings + tuple(warnings)),
        ports=ports,
    )
