"""ELK's laid-out JSON graph -> our :class:`LayoutResult`.

ELK gives node corners (``x``, ``y``) and, per edge, ``sections`` with a start point,
bend points and an end point, all on node *bounding boxes* (coordinates of root-level
shapes are absolute). Loop-back edges, sent to ELK reversed, are turned back. Diamond
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
from typing import Any

from layouts.errors import ProviderFailedError
from layouts.geometry import clip_to_outline, project_to_outline, side_of
from layouts.graph import Edge, Graph, Shape
from layouts.result import Box, Diagnostics, EdgeEnd, EdgeRoute, LayoutResult, NodeBox, Point

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


def _node_boxes(graph: Graph, elk: Mapping[str, Any]) -> tuple[NodeBox, ...]:
    placed = _by_id(_items(elk, "children", "the root graph"))
    boxes = []
    for node in graph.nodes:
        if node.id not in placed:
            raise _fail(f"node '{node.id}' is missing")
        where = f"node '{node.id}'"
        item = placed[node.id]
        boxes.append(NodeBox(node.id, _number(item, "x", where), _number(item, "y", where),
                             node.width, node.height, node.shape))
    return tuple(boxes)


def _point(owner: Mapping[str, Any], where: str) -> Point:
    return Point(_number(owner, "x", where), _number(owner, "y", where))


def _section_points(elk_edge: Mapping[str, Any], where: str) -> list[Point]:
    sections = _items(elk_edge, "sections", where)
    if not sections:
        raise _fail(f"{where} has no sections")
    points: list[Point] = []
    for section in sections:
        start = section.get("startPoint")
        end = section.get("endPoint")
        if not isinstance(start, Mapping) or not isinstance(end, Mapping):
            raise _fail(f"{where} has a section without startPoint/endPoint")
        bends = [_point(p, where) for p in _items(section, "bendPoints", where)]
        for p in [_point(start, where), *bends, _point(end, where)]:
            if not points or points[-1] != p:
                points.append(p)
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


def _label_box(elk_edge: Mapping[str, Any], where: str) -> Box | None:
    labels = _items(elk_edge, "labels", where)
    if not labels:
        return None
    label = labels[0]
    return Box(_number(label, "x", where), _number(label, "y", where),
               _number(label, "width", where), _number(label, "height", where))


def _edge_route(edge: Edge, elk_edge: Mapping[str, Any], boxes: Mapping[str, NodeBox]
                ) -> EdgeRoute:
    where = f"edge '{edge.id}'"
    points = _section_points(elk_edge, where)
    if edge.loop_back:  # ELK laid it out reversed (see elkjs_options._elk_edge)
        points.reverse()
    source, target = boxes[edge.source], boxes[edge.target]
    first = _onto_outline(source, points[0], _neighbour(points, 0, 1))
    last = _onto_outline(target, points[-1], _neighbour(points, len(points) - 1, -1))
    points = [first, *points[1:-1], last] if len(points) > 1 else [first, last]
    return EdgeRoute(
        id=edge.id, source=edge.source, target=edge.target, points=tuple(points),
        source_end=EdgeEnd(side=side_of(source, first)),
        target_end=EdgeEnd(side=side_of(target, last)),
        label_box=_label_box(elk_edge, where), loop_back=edge.loop_back,
    )


def from_elk_graph(graph: Graph, elk: Mapping[str, Any], diagnostics: Diagnostics
                   ) -> LayoutResult:
    """Our result for ``graph`` from ELK's laid-out graph ``elk``: nodes and edges in the
    graph's model order, drawing size from the root's ``width``/``height``."""
    if not isinstance(elk, Mapping):
        raise _fail("the answer is not a JSON object")
    boxes = _node_boxes(graph, elk)
    by_id = {box.id: box for box in boxes}
    routed = _by_id(_items(elk, "edges", "the root graph"))
    edges = []
    for edge in graph.edges:
        if edge.id not in routed:
            raise _fail(f"edge '{edge.id}' is missing")
        edges.append(_edge_route(edge, routed[edge.id], by_id))
    return LayoutResult(
        nodes=boxes, edges=tuple(edges),
        width=_number(elk, "width", "the root graph"),
        height=_number(elk, "height", "the root graph"),
        diagnostics=diagnostics,
    )
