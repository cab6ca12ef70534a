"""Checks on edge ends: a route per edge, ends on slot points, ends leaving their face
straight, and the gateway (diamond tip) rules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterator, Mapping, Sequence

from layouts.geometry import on_outline
from layouts.graph import Graph, Shape
from layouts.layered.contracts.angles import (
    near,
    side_tips,
)
from layouts.layered.contracts.violations import TOLERANCE, Violation, ViolationKind
from layouts.layered.routing.slots import slot_point
from layouts.options import Direction
from layouts.result import EdgeRoute, LayoutResult, NodeBox, Point, PortBox, Side


def check_routes_present(graph: Graph, result: LayoutResult) -> list[Violation]:
    """Every graph edge has one route of two or more points between its own ends."""
    found = {r.id: r for r in result.edges}
    out = []
    for e in graph.edges:
        r = found.get(e.id)
        if r is None or len(r.points) < 2 or (r.source, r.target) != (e.source, e.target):
            out.append(Violation(ViolationKind.MISSING_ROUTE, e.id, None,
                                 f"edge '{e.id}' has no route from {e.source} to {e.target}"))
    return out


def _ends(route: EdgeRoute) -> Iterator[tuple[str, str, Point, Side | None, int | None]]:
    yield "source", route.source, route.points[0], route.source_end.side, route.source_end.slot
    yield "target", route.target, route.points[-1], route.target_end.side, route.target_end.slot


def _lattices(routes: Sequence[EdgeRoute]) -> dict[tuple[str, Side | None], int]:
    """Faces whose ends declare a lattice with empty slots, and its size (the largest)."""
    sizes: dict[tuple[str, Side | None], int] = {}
    for route in routes:
        for node, end in ((route.source, route.source_end), (route.target, route.target_end)):
            if end.lattice is not None:
                sizes[(node, end.side)] = max(end.lattice, sizes.get((node, end.side), 0))
    return sizes


def check_slots(routes: Sequence[EdgeRoute], nodes: Mapping[str, NodeBox],
                ports: Sequence[PortBox] = (),
                unslotted: frozenset[tuple[str, str]] = frozenset()) -> list[Violation]:
    """Each end lies on its slot point: slot ``i`` of the ``k`` slots on that face, where
    a face's slots are those its ends and ``ports`` use (the ends at a port share its
    slot; without ports, one per end), or the ``lattice`` its ends declare when it has
    more, some left empty (:mod:`layouts.layered.routing.elbows`). Ends ``(route id,
    role)`` in ``unslotted`` (at a ``fixed_pos`` port) are left to
    :func:`~.ports.check_port_ends`."""
    used: dict[tuple[str, Side | None], set[object]] = {}
    for route in routes:
        for role, node, _, side, slot in _ends(route):
            used.setdefault((node, side), set()).add((route.id, role) if slot is None else slot)
    for p in ports:
        if p.slot is not None:
            used.setdefault((p.node, p.side), set()).add(p.slot)
    counts = Counter({face: len(found) for face, found in used.items()})
    for face, size in _lattices(routes).items():
        counts[face] = max(counts[face], size)
    out = []
    for route in routes:
        for role, node, point, side, slot in _ends(route):
            if (route.id, role) in unslotted:
                continue
            count = counts[(node, side)]
            if side is None or slot is None or not 0 <= slot < count:
                out.append(Violation(ViolationKind.OFF_SLOT, route.id, node,
                                     f"{role} end of '{route.id}' names no valid slot"))
                continue
            want = slot_point(nodes[node], side, count, slot)
            if abs(want.x - point.x) > TOLERANCE or abs(want.y - point.y) > TOLERANCE:
                out.append(Violation(
                    ViolationKind.OFF_SLOT, route.id, node,
                    f"{role} end of '{route.id}' at ({point.x:g}, {point.y:g}) is not slot "
                    f"{slot} of {count} on the {side.value} face ({want.x:g}, {want.y:g})"))
    return out


def _tip_entry_ok(tip: Point, node: NodeBox, before: Point) -> bool:
    c = node.center
    if abs(tip.y - c.y) <= TOLERANCE:   # left or right tip: horizontal approach from outside
        return abs(before.y - tip.y) <= TOLERANCE and (before.x - c.x) * (tip.x - c.x) > 0 \
            and abs(before.x - c.x) > abs(tip.x - c.x)
    return abs(before.x - tip.x) <= TOLERANCE and (before.y - c.y) * (tip.y - c.y) > 0 \
        and abs(before.y - c.y) > abs(tip.y - c.y)


def check_gateways(routes: Sequence[EdgeRoute], nodes: Mapping[str, NodeBox],
                   direction: Direction,
                   at_ports: Collection[tuple[str, str]] = ()) -> list[Violation]:
    """Diamonds: no source exit at a side tip; a target entry there only along its axis.
    Ends ``(route id, role)`` in ``at_ports`` attach where their port was put."""
    out = []
    for route in routes:
        source, target = nodes[route.source], nodes[route.target]
        if (route.id, "source") not in at_ports and source.shape is Shape.DIAMOND and any(
                near(route.points[0], tip) for tip in side_tips(source, direction)):
            out.append(Violation(ViolationKind.GATEWAY_SOURCE_TIP, route.id, source.id,
                                 f"'{route.id}' leaves gateway '{source.id}' at a side tip"))
        if target.shape is Shape.DIAMOND and (route.id, "target") not in at_ports:
            for tip in side_tips(target, direction):
                if near(route.points[-1], tip) and not _tip_entry_ok(
                        tip, target, route.points[-2]):
                    out.append(Violation(
                        ViolationKind.GATEWAY_TIP_ENTRY, route.id, target.id,
                        f"'{route.id}' enters gateway '{target.id}' at a side tip off its axis"))
    return out


def check_outline_ends(routes: Sequence[EdgeRoute], nodes: Mapping[str, NodeBox]
                       ) -> list[Violation]:
    """Each route starts on its source's true outline and ends on its target's (rect,
    diamond, circle or ellipse, within :data:`layouts.geometry.OUTLINE_TOLERANCE`)."""
    out = []
    for route in routes:
        for role, node, point in (("source", route.source, route.points[0]),
                                  ("target", route.target, route.points[-1])):
            if not on_outline(nodes[node], point):
                out.append(Violation(ViolationKind.OFF_OUTLINE, route.id, node,
                                     f"{role} end of '{route.id}' at ({point.x:g}, "
                                     f"{point.y:g}) is off the outline of '{node}'"))
    return out
