"""Sub-step 2 of routing on a graph with ports: :mod:`.ends` with a port's slot fixed.

A node with ports (:mod:`layouts.layered.portmap`) has its ports as points of its faces'
boundary-slot lattice (:mod:`.slots`): on the top and bottom faces the lattice holds the
face's ports *and* the ends of edges attached to the node itself, ``k`` points in all,
each port one point however many edges use it (they leave as a bundle); on the left and
right faces it holds that face's ports. A ``fixed_pos`` port keeps its own point (the
lattice point nearest to it counts as taken); ``fixed_order`` ports keep their order
among themselves; the other points are ordered by where their edges go (as in
:mod:`.ends`): a port by the mean of its edges' next columns.

Every edge end is then given the point of its node's (grown) box where the engine's
routing attaches it: the port's own point when the port is on the natural face (sources
at the bottom, targets at the top), else the column of the port's stub in its side strip,
which :mod:`.port_stubs` joins to the port after routing. Columns run inner to outer in
the order that keeps a node's stubs from crossing each other: on a side face the targets
(from above) with the upper ports innermost, then the sources with the lower ports
innermost, then the stubs round from the top or bottom face, the port nearest the strip
innermost.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from layouts.graph import Shape
from layouts.layered.loopbacks.corridors import Corridor
from layouts.layered.model import PlacedNode, Placement
from layouts.layered.portmap import (
    CanonicalPort,
    NodePorts,
    PortTable,
    Role,
    StubGroup,
    StubKind,
)
from layouts.layered.routing.ends import FAR, EdgePlan, EndSlot, edge_kind, requests
from layouts.layered.routing.slots import slot_offset
from layouts.result import Side

_Request = tuple[str, Side, float, int, int, Role]
K = TypeVar("K", float, tuple[int, float])


@dataclass(frozen=True, slots=True)
class PortSlot:
    """Where a port sits: slot ``index`` of ``count`` on ``side`` of its node's own box,
    ``along`` px from the box's corner along that face (x on top/bottom, y on sides)."""

    side: Side
    index: int
    count: int
    along: float


@dataclass(frozen=True, slots=True)
class StubPlace:
    """A stub group's column in its side strip and, against the flow, its row in the top
    or bottom strip (0: nearest the box)."""

    group: StubGroup
    column: int
    row: int


@dataclass(frozen=True, slots=True)
class NodeAssignment:
    """A node's port slots by port id and stub places by ``(port id, role, strip)``
    (a split bundle has a place in each strip)."""

    ports: Mapping[str, PortSlot]
    stubs: Mapping[tuple[str, Role, Side], StubPlace]

    def place(self, own: NodePorts, port: str, role: Role, edge: str) -> StubPlace | None:
        """The stub place of the end of ``edge`` at ``port`` in ``role``, if it has one."""
        group = own.group_for(port, role, edge)
        return None if group is None else self.stubs.get((port, role, group.strip))


def face_start(width: float, height: float, shape: Shape, side: Side) -> tuple[float, float]:
    """Start (from the box's corner) and length of a face of a box of this size.

    >>> face_start(80, 40, Shape.CIRCLE, Side.TOP), face_start(80, 40, Shape.RECT, Side.LEFT)
    ((20.0, 40.0), (0.0, 40.0))
    """
    horizontal = side in (Side.TOP, Side.BOTTOM)
    along = width if horizontal else height
    if shape is Shape.CIRCLE:
        r = min(width, height) / 2
        return along / 2 - r, 2 * r
    return 0.0, float(along)


def plan_port_ends(placement: Placement, corridors: dict[int, Corridor], ports: PortTable
                   ) -> tuple[tuple[EdgePlan, ...], dict[str, NodeAssignment]]:
    """:func:`.ends.plan_ends` with the nodes of ``ports`` laid out as the module says;
    also each such node's :class:`NodeAssignment`."""
    faces: dict[tuple[str, Side], list[_Request]] = defaultdict(list)
    for request in requests(placement, corridors):
        faces[(request[0], request[1])].append(request)
    slots: dict[tuple[int, Role], EndSlot] = {}
    assigned: dict[str, NodeAssignment] = {}
    for node_id, own in ports.nodes.items():
        mine = {side: faces.get((node_id, side), []) for side in (Side.TOP, Side.BOTTOM)}
        node_plan = _NodePlan(own, placement.nodes[node_id], placement, ports, mine)
        assigned[node_id] = node_plan.assignment
        slots.update(node_plan.slots)
    across = _port_end_columns(placement, slots)
    for (node, side), items in faces.items():
        if node in ports.nodes and side in (Side.TOP, Side.BOTTOM):
            continue
        keyed = [(across.get((r[4], r[5]), r[2]), r) for r in items]
        keyed.sort(key=lambda k: (k[0], k[1][3], k[1][5] is Role.TARGET))
        for index, (_, item) in enumerate(keyed):
            slots[(item[4], item[5])] = EndSlot(node, side, index, len(keyed))
    plans = tuple(
        EdgePlan(position, edge, edge_kind(edge), slots[(position, Role.SOURCE)],
                 slots[(position, Role.TARGET)])
        for position, edge in enumerate(placement.edges))
    return plans, assigned


def _port_end_columns(placement: Placement, slots: Mapping[tuple[int, Role], EndSlot]
                      ) -> dict[tuple[int, Role], float]:
    """For each end whose edge runs straight from (to) a node with ports in the next
    layer, the column of that other end on the port node's face, by (edge position,
    end): the slot order of the end's own face then follows where the edge really
    starts (ends), not the port node's centre, which every edge from that node shares
    (two edges from one compound's face, one at a port and one at the compound itself,
    would otherwise take their target's slots in the wrong order and cross)."""
    out: dict[tuple[int, Role], float] = {}
    for position, edge in enumerate(placement.edges):
        if edge.chain or edge.reversed or edge.upper == edge.lower:
            continue
        for here, there in ((Role.TARGET, Role.SOURCE), (Role.SOURCE, Role.TARGET)):
            other = slots.get((position, there))
            if other is None or other.offset is None:
                continue
            node = placement.nodes[other.node]
            start, _ = face_start(node.width, node.height, node.shape, other.side)
            out[(position, here)] = node.x + start + other.offset
    return out


class _NodePlan:
    """The slots of one node with ports (see the module docstring)."""

    def __init__(self, own: NodePorts, placed: PlacedNode, placement: Placement,
                 table: PortTable, faces: Mapping[Side, list[_Request]]) -> None:
        self.own, self.placed, self.table = own, placed, table
        self.port_of: dict[tuple[int, Role], str | None] = {}
        self.keys: dict[tuple[str, Role], list[float]] = defaultdict(list)
        for items in faces.values():
            for r in items:
                role = r[5]
                pair = table.edge_ports.get(placement.edges[r[4]].id, (None, None))
                port = pair[0] if role is Role.SOURCE else pair[1]
                self.port_of[(r[4], r[5])] = port
                if port is not None:
                    self.keys[(port, role)].append(r[2])
        self.strip_of = {(g.port, g.role): g for g in own.groups}
        port_slots: dict[str, PortSlot] = {}
        end_index: dict[tuple[int, Role], tuple[int, int, float]] = {}
        for side in (Side.TOP, Side.BOTTOM):
            regular = [r for r in faces[side] if self.port_of[(r[4], r[5])] is None]
            found, ends = self._flow_face(side, regular)
            port_slots.update(found)
            end_index.update(ends)
        for side in (Side.LEFT, Side.RIGHT):
            port_slots.update(self._side_face(side))
        stubs = self._stubs(port_slots)
        self.assignment = NodeAssignment(port_slots, stubs)
        self.slots: dict[tuple[int, Role], EndSlot] = {}
        for side in (Side.TOP, Side.BOTTOM):
            for r in faces[side]:
                key = (r[4], r[5])
                port = self.port_of[key]
                if port is None:
                    index, count, along = end_index[key]
                    self.slots[key] = EndSlot(own.node, side, index, count,
                                              self._engine_offset(side, along))
                    continue
                slot = port_slots[port]
                role = r[5]
                group = own.group_for(port, role, placement.edges[r[4]].id)
                place = None if group is None else stubs.get((port, role, group.strip))
                along = slot.along if place is None else self._column(place)
                self.slots[key] = EndSlot(own.node, side, slot.index, slot.count,
                                          self._engine_offset(side, along))

    def _engine_offset(self, side: Side, along: float) -> float:
        """``along`` (from the own box's corner) as an offset on the engine box's face."""
        inset = self.own.insets.left if side in (Side.TOP, Side.BOTTOM) else self.own.insets.top
        start, _ = face_start(self.placed.width, self.placed.height, self.placed.shape, side)
        return inset + along - start

    def _column(self, place: StubPlace) -> float:
        """The x of a stub's column, from the own box's left edge."""
        step = self.table.margin + place.column * self.table.spacing
        return self.own.width + step if place.group.strip is Side.RIGHT else -step

    def _mean(self, port: str, role: Role) -> float | None:
        keys = self.keys.get((port, role))
        return sum(keys) / len(keys) if keys else None

    def _flow_face(self, side: Side, regular: list[_Request]
                   ) -> tuple[dict[str, PortSlot], dict[tuple[int, Role], tuple[int, int, float]]]:
        own = self.own
        role = Role.SOURCE if side is Side.BOTTOM else Role.TARGET
        centre = self.placed.x + self.placed.width / 2
        on_face = [p for p in own.ports if p.side is side]
        port_keys: list[float] = []
        for p in on_face:
            mean = self._mean(p.id, role)
            group = self.strip_of.get((p.id, Role.TARGET if role is Role.SOURCE
                                       else Role.SOURCE))
            if mean is None and group is not None:
                mean = -FAR if group.strip is Side.LEFT else FAR
            port_keys.append(centre if mean is None else mean)
        port_keys, ties = self._ordered(on_face, port_keys)
        members: list[tuple[tuple[float, int, int, bool], CanonicalPort | _Request]] = [
            ((k, 1, t, False), p) for p, k, t in zip(on_face, port_keys, ties, strict=True)]
        members += [((r[2], 0, r[3], r[5] is Role.TARGET), r) for r in regular]
        members.sort(key=lambda m: m[0])
        placed = self._lattice(side, [m[1] for m in members])
        ports: dict[str, PortSlot] = {}
        ends: dict[tuple[int, Role], tuple[int, int, float]] = {}
        for m, slot in placed:
            if isinstance(m, CanonicalPort):
                ports[m.id] = slot
            else:
                ends[(m[4], m[5])] = (slot.index, slot.count, slot.along)
        return ports, ends

    def _ordered(self, ports: Sequence[CanonicalPort], keys: list[K]
                 ) -> tuple[list[K], list[int]]:
        """``keys`` given out again in ``fixed_order`` rank when the ports have ranks,
        and each port's tie-break: its rank's place (else its declaration index), so
        equal keys keep the fixed order too."""
        if not ports or ports[0].rank is None:
            return keys, [p.declared for p in ports]
        by_rank = sorted(range(len(ports)), key=lambda i: (ports[i].rank or 0.0, i))
        out = list(keys)
        ties = [0] * len(ports)
        for place, (i, key) in enumerate(zip(by_rank, sorted(keys), strict=True)):
            out[i] = key
            ties[i] = place
        return out, ties

    def _side_face(self, side: Side) -> dict[str, PortSlot]:
        on_face = [p for p in self.own.ports if p.side is side]
        sign = 1.0 if side is Side.RIGHT else -1.0
        keys: list[tuple[int, float]] = []
        for p in on_face:
            into, out = self._mean(p.id, Role.TARGET), self._mean(p.id, Role.SOURCE)
            if into is not None and out is None:    # from above: enters its stub at the top
                keys.append((0, sign * into))
            elif out is not None and into is None:  # leaves down its stub to the bottom
                keys.append((2, -sign * out))
            else:
                keys.append((1, 0.0))
        keys, ties = self._ordered(on_face, keys)
        order = sorted(range(len(on_face)), key=lambda i: (keys[i], ties[i]))
        placed = self._lattice(side, [on_face[i] for i in order])
        return {port.id: slot for port, slot in placed if isinstance(port, CanonicalPort)}

    def _lattice(self, side: Side, members: Sequence[CanonicalPort | _Request]
                 ) -> list[tuple[CanonicalPort | _Request, PortSlot]]:
        """Slot of each member, in order; ``fixed_pos`` ports keep their point and take
        the lattice index nearest to it."""
        count = len(members)
        start, length = face_start(self.own.width, self.own.height, self.own.shape, side)
        taken: dict[int, int] = {}
        for i, m in enumerate(members):
            if isinstance(m, CanonicalPort) and m.fixed is not None:
                fixed = m.fixed
                free = [k for k in range(count) if k not in taken.values()]
                taken[i] = min(free, key=lambda k: abs(start + slot_offset(length, count, k)
                                                       - fixed))
        rest = iter(k for k in range(count) if k not in taken.values())
        out: list[tuple[CanonicalPort | _Request, PortSlot]] = []
        for i, m in enumerate(members):
            index = taken[i] if i in taken else next(rest)
            along = start + slot_offset(length, count, index)
            if isinstance(m, CanonicalPort) and m.fixed is not None:
                along = m.fixed
            out.append((m, PortSlot(side, index, count, along)))
        return out

    def _stubs(self, slots: Mapping[str, PortSlot]
               ) -> dict[tuple[str, Role, Side], StubPlace]:
        """Each group's place, keyed by its port, role and the strip the import gave it
        (the key :meth:`NodeAssignment.place` finds it by), though the place may send
        it round the other strip (:func:`_sides_by_place`)."""
        groups = _sides_by_place(self.own.groups, slots)
        out: dict[tuple[str, Role, Side], StubPlace] = {}
        for strip in (Side.LEFT, Side.RIGHT):
            mine = [(g, was) for g, was in zip(groups, self.own.groups, strict=True)
                    if g.strip is strip]
            mine.sort(key=lambda m: _stub_rank(m[0], slots[m[0].port].along))
            rows: dict[Role, int] = defaultdict(int)
            for column, (g, was) in enumerate(mine):
                row = rows[g.role] if g.kind is StubKind.INVERTED else 0
                if g.kind is StubKind.INVERTED:
                    rows[g.role] += 1
                out[(g.port, g.role, was.strip)] = StubPlace(g, column, row)
        return out


def _stub_rank(g: StubGroup, along: float) -> tuple[int, float]:
    """Inner to outer in a strip: side targets from the top, side sources from the
    bottom, then stubs round from the top or bottom face, the nearest the strip first."""
    if g.kind is StubKind.SIDE:
        return (0, along) if g.role is Role.TARGET else (1, -along)
    return 2, -along if g.strip is Side.RIGHT else along


def _sides_by_place(groups: Sequence[StubGroup], slots: Mapping[str, PortSlot]
                    ) -> list[StubGroup]:
    """``groups`` with the stubs against the flow of each face sent round the side they
    are nearest to: of those the import sent left, as many go left again, the leftmost
    ports, so the stubs of one face never run along each other in its strip (the strips'
    sizes stay as the import made them). The halves of a split bundle keep their strips:
    their edges chose them."""
    out = list(groups)
    for role in (Role.SOURCE, Role.TARGET):
        places = [i for i, g in enumerate(out)
                  if g.kind is StubKind.INVERTED and g.role is role and not g.edges]
        left = sum(1 for i in places if out[i].strip is Side.LEFT)
        places.sort(key=lambda i: (slots[out[i].port].along, i))
        for rank, i in enumerate(places):
            out[i] = replace(out[i], strip=Side.LEFT if rank < left else Side.RIGHT)
    return out
