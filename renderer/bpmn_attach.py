"""Boundary events onto their host's border, after the layout.

The layout graph has no boundary events: their outgoing flows leave the host instead, so
the targets are placed after it. Here each event is centred on its host's bottom border
(first at the right end, then at the left end, then inwards, so a collapsed activity's
``+`` in the middle stays free), and each of its flows is routed again as an orthogonal
path from the event's bottom into the target's near side: down and across when the
target lies lower, else down, across to a lane just before the target, up and in.

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.result import Diagnostics, NodeBox
>>> from renderer.bpmn_model import Boundary, BpmnModel
>>> from renderer.diagram import Diagram
>>> model = BpmnModel(b"", (), boundaries=(Boundary("timer", "task", 36, 36),),
...                   flow_ends={"f": ("timer", "late")})
>>> graph = Graph((Node("task", 100, 80), Node("late", 100, 80)), (Edge("f", "task", "late"),))
>>> result = LayoutResult((NodeBox("task", 0, 0, 100, 80), NodeBox("late", 200.0, 150, 100, 80)),
...     (EdgeRoute("f", "task", "late", (Point(100, 40), Point(200, 190))),), 300, 230,
...     Diagnostics("hand", "draft", "LeftToRight"))
>>> placed = attach_boundary_events(Diagram("d", graph, bpmn=model), result)
>>> placed.node("timer").center, placed.edges[0].points
(Point(x=82.0, y=80.0), (Point(x=82.0, y=98.0), Point(x=82.0, y=190.0), Point(x=200.0, y=190.0)))
"""

from __future__ import annotations

from dataclasses import replace

from layouts.geometry import side_of
from layouts.graph import Shape
from layouts.providers._common import label_box
from layouts.result import EdgeEnd, EdgeRoute, LayoutResult, NodeBox, Point
from renderer.diagram import Diagram

BORDER_INSET = 0.0
"""Gap between the right end of the host and the first event's box, in px."""
EVENT_GAP = 6.0
CLEARANCE = 20.0
"""How far below the host a route turns when its target is not lower than the host."""


def attach_boundary_events(diagram: Diagram, result: LayoutResult) -> LayoutResult:
    """``result`` with every boundary event of ``diagram`` placed and its flows routed."""
    model = diagram.bpmn
    if model is None or not model.boundaries:
        return result
    boxes = {n.id: n for n in result.nodes}
    placed: dict[str, NodeBox] = {}
    used: dict[str, int] = {}
    for boundary in model.boundaries:
        host = boxes[boundary.host_id]
        index = used.get(host.id, 0)
        used[host.id] = index + 1
        step = (index // 2) * (boundary.width + EVENT_GAP)
        x = (host.x + host.width - boundary.width - step if index % 2 == 0
             else host.x + step)
        x = min(max(host.x, x), host.x + host.width - boundary.width)
        placed[boundary.event_id] = NodeBox(boundary.event_id, x,
                                            host.y + host.height - boundary.height / 2,
                                            boundary.width, boundary.height, Shape.CIRCLE)
    all_boxes = {**boxes, **placed}
    edges = tuple(_rerouted(route, model.flow_ends.get(route.id), placed, all_boxes, diagram)
                  for route in result.edges)
    nodes = (*result.nodes, *placed.values())
    width = max([result.width, *(n.x + n.width for n in nodes),
                 *(p.x for e in edges for p in e.points)])
    height = max([result.height, *(n.y + n.height for n in nodes),
                  *(p.y for e in edges for p in e.points)])
    return replace(result, nodes=nodes, edges=edges, width=width, height=height)


def _rerouted(route: EdgeRoute, ends: tuple[str, str] | None, placed: dict[str, NodeBox],
              boxes: dict[str, NodeBox], diagram: Diagram) -> EdgeRoute:
    if ends is None or ends[0] not in placed:
        return route
    event, target = placed[ends[0]], boxes[ends[1]]
    points = boundary_route(event, target)
    edge = next(e for e in diagram.graph.edges if e.id == route.id)
    return replace(route, source=event.id, target=target.id, points=points,
                   source_end=EdgeEnd(side_of(event, points[0])),
                   target_end=EdgeEnd(side_of(target, points[-1])),
                   label_box=label_box(edge, None, points))


def boundary_route(event: NodeBox, target: NodeBox) -> tuple[Point, ...]:
    """An orthogonal route from the bottom of ``event`` into ``target``."""
    start = Point(event.center.x, event.y + event.height)
    c = target.center
    lower = c.y > start.y + CLEARANCE
    if not target.x <= start.x <= target.x + target.width:
        right = c.x > start.x
        side_x = target.x if right else target.x + target.width
        if lower:
            return (start, Point(start.x, c.y), Point(side_x, c.y))
        lane_x = side_x - CLEARANCE if right else side_x + CLEARANCE
        below = start.y + CLEARANCE
        return (start, Point(start.x, below), Point(lane_x, below), Point(lane_x, c.y),
                Point(side_x, c.y))
    if lower:
        return (start, Point(start.x, target.y))
    below = max(start.y, target.y + target.height) + CLEARANCE
    return (start, Point(start.x, below), Point(c.x, below),
            Point(c.x, target.y + target.height))
