"""Checks on ports: every edge end at a port lies on the port's point, every port on
its node's outline, declared sides kept and ``fixed_order`` ports in their order.

A port's *point* is its box's centre, on its node's outline: the point on the outline
at the centre's coordinate along the port's face (for a ``fixed_pos`` port whose box the
caller put off the outline, the point on the outline nearest across the face).

>>> from layouts.graph import Edge, Graph, Node, Port, PortSide
>>> from layouts.result import (Diagnostics, EdgeEnd, EdgeRoute, LayoutResult, NodeBox,
...                             Point, PortBox, Side)
>>> g = Graph((Node("a", 100, 40, ports=(Port("p", PortSide.SOUTH),)), Node("b", 100, 40)),
...           (Edge("e", "a", "b", source_port="p"),))
>>> route = EdgeRoute("e", "a", "b", (Point(30, 40), Point(30, 100)),
...                   EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0))
>>> result = LayoutResult((NodeBox("a", 0, 0, 100, 40), NodeBox("b", 0, 100, 100, 40)),
...     (route,), 100, 140, Diagnostics("layered", "draft", "TopToBottom"),
...     (PortBox("p", "a", 50, 40, side=Side.BOTTOM, slot=0),))
>>> [v.message for v in check_port_ends(g, result)]
["source end of 'e' at (30, 40) is not on port 'p' (50, 40)"]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise

from layouts.graph import Graph, PortConstraints, PortSide
from layouts.layered.contracts.violations import TOLERANCE, Violation, ViolationKind
from layouts.layered.routing.slots import outline_depth
from layouts.options import Direction
from layouts.result import LayoutResult, NodeBox, Point, PortBox, Side

DRAWN_SIDE = {PortSide.NORTH: Side.TOP, PortSide.EAST: Side.RIGHT,
              PortSide.SOUTH: Side.BOTTOM, PortSide.WEST: Side.LEFT}
"""The face a declared side names in a drawing (whatever the direction)."""

NATURAL = {Direction.TOP_TO_BOTTOM: (Side.BOTTOM, Side.TOP),
           Direction.LEFT_TO_RIGHT: (Side.RIGHT, Side.LEFT),
           Direction.BOTTOM_TO_TOP: (Side.TOP, Side.BOTTOM),
           Direction.RIGHT_TO_LEFT: (Side.LEFT, Side.RIGHT)}
"""The faces edges leave and enter their nodes by in each direction, without ports."""


@dataclass(frozen=True, slots=True)
class PortFacts:
    """What the flat checkers need to know about ports: ends at ``fixed_pos`` ports
    (``(edge id, role)``, not on the lattice), pairs of edges sharing a port (a bundle)
    and edges with an end at a port across or against the flow."""

    unslotted: frozenset[tuple[str, str]]
    bundled: frozenset[tuple[str, str]]
    stubbed: frozenset[str]
    at_port: Mapping[tuple[str, str], str]
    """The port each ``(edge id, role)`` end is at."""

    @classmethod
    def of(cls, graph: Graph, result: LayoutResult, direction: Direction) -> PortFacts:
        nodes = graph.node_index()
        ports = {p.id: p for p in result.ports}
        at_port: dict[str, list[str]] = defaultdict(list)
        unslotted: set[tuple[str, str]] = set()
        stubbed: set[str] = set()
        ends: dict[tuple[str, str], str] = {}
        natural = NATURAL[direction]
        for e in graph.edges:
            for role, node, port, face in (("source", e.source, e.source_port, natural[0]),
                                           ("target", e.target, e.target_port, natural[1])):
                if port is None:
                    continue
                at_port[port].append(e.id)
                ends[(e.id, role)] = port
                if nodes[node].effective_port_constraints() is PortConstraints.FIXED_POS:
                    unslotted.add((e.id, role))
                placed = ports.get(port)
                if placed is not None and placed.side is not face:
                    stubbed.add(e.id)
        bundled = {(a, b) for ids in at_port.values() for a in ids for b in ids if a != b}
        return cls(frozenset(unslotted), frozenset(bundled), frozenset(stubbed), ends)


def port_point(node: NodeBox, port: PortBox) -> Point:
    """The port's point (see the module docstring)."""
    c = port.center
    side = port.side or Side.TOP
    if side in (Side.TOP, Side.BOTTOM):
        return Point(c.x, outline_depth(node, side, c.x))
    return Point(outline_depth(node, side, c.y), c.y)


def _near(a: Point, b: Point) -> bool:
    return abs(a.x - b.x) <= TOLERANCE and abs(a.y - b.y) <= TOLERANCE


def check_port_ends(graph: Graph, result: LayoutResult) -> list[Violation]:
    """Every port placed, on its node's outline (unless ``fixed_pos``); every edge end at
    a port on the port's point."""
    boxes = {n.id: n for n in result.nodes}
    placed = {p.id: p for p in result.ports}
    out: list[Violation] = []
    for node in graph.all_nodes():
        for p in node.ports:
            box = placed.get(p.id)
            if box is None:
                out.append(Violation(ViolationKind.OFF_PORT, None, node.id,
                                     f"port '{p.id}' of '{node.id}' is not placed"))
            elif node.effective_port_constraints() is not PortConstraints.FIXED_POS and \
                    not _near(box.center, port_point(boxes[node.id], box)):
                out.append(Violation(ViolationKind.OFF_PORT, None, node.id,
                                     f"port '{p.id}' of '{node.id}' is off its outline"))
    routes = {r.id: r for r in result.edges}
    for e in graph.edges:
        route = routes.get(e.id)
        if route is None or len(route.points) < 2:
            continue
        for role, node_id, port_id, at in (("source", e.source, e.source_port, route.points[0]),
                                           ("target", e.target, e.target_port,
                                            route.points[-1])):
            if port_id is None or port_id not in placed:
                continue
            want = port_point(boxes[node_id], placed[port_id])
            if not _near(at, want):
                out.append(Violation(
                    ViolationKind.OFF_PORT, e.id, node_id,
                    f"{role} end of '{e.id}' at ({at.x:g}, {at.y:g}) is not on port "
                    f"'{port_id}' ({want.x:g}, {want.y:g})"))
    return out


def _clockwise(port: PortBox) -> float:
    """Position along its face in ELK's clockwise order (north left to right, east top
    to bottom, south right to left, west bottom to top)."""
    c = port.center
    return {Side.TOP: c.x, Side.RIGHT: c.y, Side.BOTTOM: -c.x, Side.LEFT: -c.y}[
        port.side or Side.TOP]


def check_port_sides_and_order(graph: Graph, result: LayoutResult) -> list[Violation]:
    """Ports keep their declared side unless their node's constraints are ``free``; the
    ports of a ``fixed_order`` node follow :attr:`Port.order` (declaration order where
    missing) clockwise on each side. Run on a result in its own direction."""
    placed = {p.id: p for p in result.ports}
    out: list[Violation] = []
    for node in graph.all_nodes():
        constraints = node.effective_port_constraints()
        if constraints is PortConstraints.FREE:
            continue
        for p in node.ports:
            box = placed.get(p.id)
            if box is not None and p.side is not PortSide.FREE and \
                    box.side is not DRAWN_SIDE[p.side]:
                out.append(Violation(ViolationKind.PORT_SIDE, None, node.id,
                                     f"port '{p.id}' is on the {box.side} face, not "
                                     f"{p.side.value}"))
        if constraints is not PortConstraints.FIXED_ORDER:
            continue
        by_side: dict[Side | None, list[tuple[int, int, PortBox]]] = defaultdict(list)
        for i, p in enumerate(node.ports):
            if p.id in placed:
                by_side[placed[p.id].side].append(
                    (p.order if p.order is not None else i, i, placed[p.id]))
        for side, items in by_side.items():
            items.sort(key=lambda item: (item[0], item[1]))
            spots = [_clockwise(box) for _, _, box in items]
            if any(b <= a for a, b in pairwise(spots)):
                out.append(Violation(ViolationKind.PORT_ORDER, None, node.id,
                                     f"ports of '{node.id}' on its {side} face are out of "
                                     "their fixed order"))
    return out
