"""The last sub-step of routing on a graph with ports: each node with ports back to its
own box, each port on its point, and each edge end at a port joined to it.

Routing treated a node with stubs as its box grown by its strips
(:mod:`layouts.layered.portmap`), so nothing else comes nearer to its box and stubs than
to any node. Here every end at a port gets its stub prepended (a source) or appended (a
target), inside those strips:

* a port on the natural face: the end point moves onto the port's point (same x);
* a left or right port: out of the port sideways to the stub's column, then along it to
  where routing left the grown box;
* against the flow (a source on the top face, a target on the bottom face): out of the
  face to the stub's row, along it to the column, then along the column.

All the ends at one port in one role share one stub: the bundle leaves the port's point
together and splits where its routes part. A bundle against the flow may be split between
the two side strips (:func:`layouts.layered.ordering.ports.splits`): both halves leave
the port's point along one run out of the face, then part along the row, one to each
side. An end at the node itself on a grown box moves
straight onto the node's own outline.

>>> from layouts.result import NodeBox, Side
>>> port_point(NodeBox("a", 10, 20, 80, 40), Side.RIGHT, 10.0)
Point(x=90.0, y=30.0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from layouts.layered.portmap import NodePorts, PortTable, Role, StubKind
from layouts.layered.routing.ends import EdgePlan
from layouts.layered.routing.polylines import simplify
from layouts.layered.routing.port_ends import NodeAssignment, StubPlace
from layouts.layered.routing.port_labels import port_label_box
from layouts.layered.routing.slots import outline_depth
from layouts.result import EdgeEnd, EdgeRoute, NodeBox, Point, PortBox, Side


def port_point(box: NodeBox, side: Side, along: float) -> Point:
    """The point ``along`` px from ``box``'s corner along ``side``, on its outline."""
    if side in (Side.TOP, Side.BOTTOM):
        x = box.x + along
        return Point(x, outline_depth(box, side, x))
    y = box.y + along
    return Point(outline_depth(box, side, y), y)


def own_box(engine: NodeBox, own: NodePorts) -> NodeBox:
    """A node's own box inside the grown box routing placed."""
    return NodeBox(engine.id, engine.x + own.insets.left, engine.y + own.insets.top,
                   own.width, own.height, own.shape)


class _Stubs:
    def __init__(self, table: PortTable, assigned: Mapping[str, NodeAssignment],
                 boxes: Mapping[str, NodeBox]) -> None:
        self.table, self.assigned = table, assigned
        self.boxes = dict(boxes)
        for node_id, own in table.nodes.items():
            self.boxes[node_id] = own_box(boxes[node_id], own)

    def point(self, node: str, port: str) -> Point:
        slot = self.assigned[node].ports[port]
        return port_point(self.boxes[node], slot.side, slot.along)

    def _row(self, box: NodeBox, place: StubPlace, role: Role) -> float:
        step = self.table.margin + place.row * self.table.spacing
        return box.y - step if role is Role.SOURCE else box.y + box.height + step

    def lead(self, node: str, port: str | None, role: Role, end: Point, edge: str
             ) -> tuple[list[Point], EdgeEnd | None]:
        """Points from the node (or its port) to ``end``, where routing left the grown
        box, in that order; and the end's new :class:`EdgeEnd` (``None``: unchanged)."""
        box = self.boxes[node]
        if port is None:
            face = role.natural
            return [Point(end.x, outline_depth(box, face, end.x)), end], None
        slot = self.assigned[node].ports[port]
        at = port_point(box, slot.side, slot.along)
        place = self.assigned[node].place(self.table.nodes[node], port, role, edge)
        new_end = EdgeEnd(slot.side, slot.index)
        if place is None:
            return [at, end], new_end
        x = end.x   # routing left the grown box on the stub's column (_column, exactly)
        if place.group.kind is StubKind.SIDE:
            return [at, Point(x, at.y), end], new_end
        y = self._row(box, place, role)
        return [at, Point(at.x, y), Point(x, y), end], new_end

    def route(self, route: EdgeRoute, plan: EdgePlan) -> EdgeRoute:
        points = list(route.points)
        ports = self.table.edge_ports.get(route.id, (None, None))
        source_end, target_end = route.source_end, route.target_end
        if plan.source.node in self.table.nodes:
            lead, end = self.lead(plan.source.node, ports[0], Role.SOURCE, points[0],
                                  route.id)
            points = [*lead[:-1], *_snapped(points, lead[-2].x if len(lead) == 2 else None)]
            source_end = end or source_end
        if plan.target.node in self.table.nodes:
            lead, end = self.lead(plan.target.node, ports[1], Role.TARGET, points[-1],
                                  route.id)
            x = lead[-2].x if len(lead) == 2 else None
            points = [*reversed(_snapped(points[::-1], x)), *reversed(lead[:-1])]
            target_end = end or target_end
        return EdgeRoute(route.id, route.source, route.target, simplify(points), source_end,
                         target_end, route.label_box, route.loop_back)

    def port_boxes(self) -> tuple[PortBox, ...]:
        out: list[PortBox] = []
        for node_id, own in self.table.nodes.items():
            box = self.boxes[node_id]
            for p in own.ports:
                slot = self.assigned[node_id].ports[p.id]
                at = port_point(box, slot.side, slot.along)
                if p.corner is not None:
                    x, y = box.x + p.corner[0], box.y + p.corner[1]
                else:
                    x, y = at.x - p.width / 2, at.y - p.height / 2
                placed = PortBox(p.id, node_id, x, y, p.width, p.height, slot.side, None,
                                 slot.index)
                label = port_label_box(box, placed, p.label_width, p.label_height)
                out.append(placed if label is None else replace(placed, label_box=label))
        return tuple(out)


def _snapped(points: Sequence[Point], x: float | None) -> list[Point]:
    """``points`` with the straight run from the first point moved onto column ``x``
    (a port's own x, which may differ from where routing put the end by float noise),
    the first point itself dropped; as they are, less the first, when ``x`` is ``None``."""
    out = list(points[1:])
    if x is None:
        return out
    old = points[0].x
    for i, p in enumerate(out):
        if abs(p.x - old) > 1e-6:
            break
        out[i] = Point(x, p.y)
    return out


def attach_ports(routes: Sequence[EdgeRoute], boxes: Sequence[NodeBox],
                 plans: Sequence[EdgePlan], table: PortTable,
                 assigned: Mapping[str, NodeAssignment]
                 ) -> tuple[tuple[NodeBox, ...], tuple[EdgeRoute, ...], tuple[PortBox, ...]]:
    """Own boxes, routes joined to their ports, and every port's box (see the module)."""
    stubs = _Stubs(table, assigned, {b.id: b for b in boxes})
    moved = tuple(stubs.route(r, plan) for r, plan in zip(routes, plans, strict=True))
    return tuple(stubs.boxes[b.id] for b in boxes), moved, stubs.port_boxes()
