"""Sub-step 6 of routing: the final node boxes and every edge's polyline, label box and
end slots, once the vertical frame is known; then the shift right that makes room for
left corridors (nothing left of x = 0).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from layouts.layered.labels import LabelRequest, LabelRows, label_box
from layouts.layered.model import Placement
from layouts.layered.routing.ends import EdgeKind, EdgePlan, EndSlot
from layouts.layered.routing.frame import Frame
from layouts.layered.routing.geometry import Along, loop_reach
from layouts.layered.routing.legs import Leg
from layouts.layered.routing.polylines import orthogonal_path, self_loop_path
from layouts.layered.routing.slots import VERTICAL_SIDES, outline_depth, slot_point
from layouts.result import Box, EdgeEnd, EdgeRoute, NodeBox, Point, Side


@dataclass(frozen=True, slots=True)
class EdgeGeometry:
    """What drawing needs per edge: its legs (as indexes into the leg list) and the
    x of its first and last columns (snapped), by edge position."""

    legs: tuple[int, ...]
    first_x: float
    last_x: float


def final_boxes(placement: Placement, frame: Frame,
                offsets: Mapping[str, float]) -> dict[str, NodeBox]:
    """Real nodes with their layer moved to the frame's layer top, in layer order."""
    boxes: dict[str, NodeBox] = {}
    for layer in placement.layers:
        for node_id in layer:
            n = placement.nodes[node_id]
            if not n.dummy:
                y = frame.layer_tops[n.layer] + offsets[node_id]
                boxes[node_id] = NodeBox(node_id, n.x, y, n.width, n.height, n.shape)
    return boxes


def _end_point(box: NodeBox, end: EndSlot, along: float) -> Point:
    """:func:`~.slots.slot_point` of ``end`` on ``box``; on a top or bottom face with its
    x ``along`` already known (the final boxes keep the placed boxes' x)."""
    if end.side in VERTICAL_SIDES:
        return Point(along, outline_depth(box, end.side, along))
    return slot_point(box, end.side, end.count, end.index, end.offset)


def _edge_points(plan: EdgePlan, geometry: EdgeGeometry, legs: Sequence[Leg],
                 track_y: Mapping[int, float], boxes: Mapping[str, NodeBox],
                 steps: Mapping[str, float], along: tuple[float, float]
                 ) -> tuple[Point, ...]:
    start = _end_point(boxes[plan.source.node], plan.source, along[0])
    end = _end_point(boxes[plan.target.node], plan.target, along[1])
    if plan.kind is EdgeKind.SELF_LOOP:
        return self_loop_path(start, end, loop_reach(boxes, plan, steps))
    pieces = [(legs[k].start, legs[k].end, track_y[k]) for k in geometry.legs]
    path = orthogonal_path(Point(geometry.first_x, start.y), pieces,
                           Point(geometry.last_x, end.y))
    if plan.source.side not in VERTICAL_SIDES:    # an elbow: across to its column first
        path = (start, *path)
    if plan.target.side not in VERTICAL_SIDES:
        path = (*path, end)
    return path


def draw_routes(plans: Sequence[EdgePlan], geometries: Sequence[EdgeGeometry],
                legs: Sequence[Leg], track_y: Mapping[int, float],
                boxes: Mapping[str, NodeBox], labels: Mapping[int, LabelRequest],
                rows: LabelRows, frame: Frame, steps: Mapping[str, float],
                along: Along, lattices: Mapping[tuple[str, Side], int] | None = None
                ) -> list[EdgeRoute]:
    """One route per edge, in input order, with points from its source to its target
    (``along``: each edge's slot x, :func:`~.geometry.ends_along`; ``lattices``: the
    faces whose lattice has empty slots, :func:`~.elbows.reserved`)."""
    lattices = lattices or {}

    def end_of(end: EndSlot) -> EdgeEnd:
        return EdgeEnd(end.side, end.index, lattices.get((end.node, end.side)))

    routes: list[EdgeRoute] = []
    for plan, geometry in zip(plans, geometries, strict=True):
        edge = plan.edge
        request = labels.get(plan.position)
        box = None if request is None else label_box(
            request, frame.channel_tops[request.channel], rows,
            frame.channel_bottom(request.channel),
            None if request.beside is None else boxes[request.beside])
        routes.append(EdgeRoute(
            edge.id, edge.source, edge.target,
            _edge_points(plan, geometry, legs, track_y, boxes, steps, along[plan.position]),
            end_of(plan.source), end_of(plan.target),
            box, edge.loop_back or edge.reversed,
        ))
    return routes


def shift_right(boxes: Sequence[NodeBox], routes: Sequence[EdgeRoute],
                dx: float) -> tuple[tuple[NodeBox, ...], tuple[EdgeRoute, ...]]:
    """Everything moved right by ``dx``.

    >>> b, r = shift_right([NodeBox("a", 0, 0, 10, 10)], [], 5.0)
    >>> b[0].x
    5.0

    A shift by ``-0.0`` (nothing left of x = 0 to make room for) returns the inputs:
    ``x + -0.0`` is ``x`` for every float, ``-0.0`` included, so nothing would change.

    >>> boxes = [NodeBox("a", -0.0, 0, 10, 10)]
    >>> shift_right(boxes, [], -0.0)[0][0] is boxes[0]
    True
    """
    if dx == 0 and math.copysign(1.0, dx) < 0:
        return tuple(boxes), tuple(routes)
    moved_boxes = tuple(NodeBox(b.id, b.x + dx, b.y, b.width, b.height, b.shape) for b in boxes)
    moved_routes = []
    for r in routes:
        label = r.label_box
        moved_routes.append(EdgeRoute(
            r.id, r.source, r.target, tuple(Point(p.x + dx, p.y) for p in r.points),
            r.source_end, r.target_end,
            None if label is None else Box(label.x + dx, label.y, label.width, label.height),
            r.loop_back))
    return moved_boxes, tuple(moved_routes)
