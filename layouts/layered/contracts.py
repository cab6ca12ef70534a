"""Route contract checkers of the layered engine (PRODUCT.md, "Edge-routing contracts").

:func:`check_layout` runs every checker over a finished :class:`LayoutResult`, in its final
frame (TopToBottom or LeftToRight), and returns typed :class:`Violation` records; an empty
list means the layout keeps every contract:

* ``off-slot``: an end not on a slot point of its own node's face (:mod:`.routing.slots`,
  counting the ends the result attaches to that face);
* ``not-orthogonal``: a segment neither horizontal nor vertical;
* ``boundary-angle``: an end whose segment does not leave (or enter) its face straight
  along the face's outward normal;
* ``shared-stretch``: two edges running along the same line over a positive length;
* ``intrusion`` / ``own-intrusion``: a segment through a foreign node, or back through
  its own source or target beyond its endpoint;
* ``clearance``: a segment closer than ``options.clearance`` to a foreign node's box (the
  box is never farther than the true outline, so this is the stricter reading);
* ``gateway-source-tip`` / ``gateway-tip-entry``: a diamond's side tips are the two
  across the flow (left/right in TopToBottom, top/bottom in LeftToRight): no source exit
  there, and a target entry there only along the tip's axis from outside;
* ``against-flow``: a segment of a forward edge pointing against the layout direction
  (loop-backs, edges drawn as loop-backs and self-loops are exempt);
* ``label-overlap``: an edge label box overlapping a node or another label box;
* ``node-overlap``: two node boxes overlapping; ``missing-route``: an edge without a
  route of at least two points.

Geometry (segments, intrusion, box distance, the uniform grid) comes from helper D's
:mod:`layouts.quality_geometry` and :mod:`layouts.quality_grid`.

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.options import LayoutOptions
>>> from layouts.result import Diagnostics, EdgeEnd, EdgeRoute, LayoutResult, NodeBox, Point
>>> g = Graph((Node("a", 100, 40), Node("b", 100, 40)), (Edge("e", "a", "b"),))
>>> route = EdgeRoute("e", "a", "b", (Point(50, 40), Point(50, 100)),
...                   EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0))
>>> result = LayoutResult((NodeBox("a", 0, 0, 100, 40), NodeBox("b", 0, 100, 100, 40)),
...                       (route,), 100, 140, Diagnostics("layered", "draft", "TopToBottom"))
>>> check_layout(g, result, LayoutOptions())
[]
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from layouts.graph import Graph, Shape
from layouts.layered.routing.slots import slot_point
from layouts.options import Direction, LayoutOptions
from layouts.quality_geometry import Segment, intrudes, segment_box_distance
from layouts.quality_grid import Grid
from layouts.result import EdgeRoute, LayoutResult, NodeBox, Point, Side

TOLERANCE = 0.5
"""Pixels of slack for point positions, overlaps and distances."""


class ViolationKind(StrEnum):
    OFF_SLOT = "off-slot"
    NOT_ORTHOGONAL = "not-orthogonal"
    BOUNDARY_ANGLE = "boundary-angle"
    SHARED_STRETCH = "shared-stretch"
    INTRUSION = "intrusion"
    OWN_INTRUSION = "own-intrusion"
    CLEARANCE = "clearance"
    GATEWAY_SOURCE_TIP = "gateway-source-tip"
    GATEWAY_TIP_ENTRY = "gateway-tip-entry"
    AGAINST_FLOW = "against-flow"
    NODE_OVERLAP = "node-overlap"
    LABEL_OVERLAP = "label-overlap"
    MISSING_ROUTE = "missing-route"


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken contract: its kind, the edge and/or node at fault, and a message."""

    kind: ViolationKind
    edge: str | None
    node: str | None
    message: str


def check_layout(graph: Graph, result: LayoutResult, options: LayoutOptions) -> list[Violation]:
    """Every contract violation of ``result`` (a layout of ``graph``); see the module."""
    nodes = {n.id: n for n in result.nodes}
    routes = [r for r in result.edges if len(r.points) >= 2 and r.source in nodes
              and r.target in nodes]
    return [
        *check_routes_present(graph, result),
        *check_slots(routes, nodes),
        *check_orthogonal(routes),
        *check_boundary_angles(routes, nodes),
        *check_shared_stretches(routes),
        *check_intrusions(routes, nodes, options.clearance),
        *check_gateways(routes, nodes, options.direction),
        *check_flow(graph, routes, options.direction),
        *check_node_overlaps(result.nodes),
        *check_label_overlaps(result),
    ]


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


def check_slots(routes: Sequence[EdgeRoute], nodes: Mapping[str, NodeBox]) -> list[Violation]:
    """Each end lies on its slot point: slot ``i`` of the ``k`` ends on that face."""
    counts: Counter[tuple[str, Side | None]] = Counter()
    for route in routes:
        for _, node, _, side, _ in _ends(route):
            counts[(node, side)] += 1
    out = []
    for route in routes:
        for role, node, point, side, slot in _ends(route):
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


def segments_of(route: EdgeRoute, index: int = 0) -> list[Segment]:
    """The route's non-degenerate segments."""
    pts = route.points
    return [Segment(a.x, a.y, b.x, b.y, index, route.source, route.target)
            for a, b in itertools.pairwise(pts) if (a.x, a.y) != (b.x, b.y)]


def check_orthogonal(routes: Sequence[EdgeRoute]) -> list[Violation]:
    """Every segment is horizontal or vertical."""
    out = []
    for route in routes:
        for s in segments_of(route):
            if abs(s.x2 - s.x1) > 1e-6 and abs(s.y2 - s.y1) > 1e-6:
                out.append(Violation(ViolationKind.NOT_ORTHOGONAL, route.id, None,
                                     f"'{route.id}' has a slanted segment from "
                                     f"({s.x1:g}, {s.y1:g}) to ({s.x2:g}, {s.y2:g})"))
    return out


NORMALS = {Side.TOP: (0.0, -1.0), Side.BOTTOM: (0.0, 1.0), Side.LEFT: (-1.0, 0.0),
           Side.RIGHT: (1.0, 0.0)}


def _at_side_tip(node: NodeBox, p: Point) -> bool:
    return node.shape is Shape.DIAMOND and any(
        _near(p, tip) for direction in Direction for tip in _side_tips(node, direction))


def check_boundary_angles(routes: Sequence[EdgeRoute], nodes: Mapping[str, NodeBox]
                          ) -> list[Violation]:
    """The first and last segments run along their face's outward normal (ends on a
    diamond's tip are left to the gateway rules)."""
    out = []
    for route in routes:
        pts = [p for i, p in enumerate(route.points) if i == 0 or p != route.points[i - 1]]
        if len(pts) < 2:
            continue
        for role, node, side, (a, b) in (
                ("source", route.source, route.source_end.side, pts[:2]),
                ("target", route.target, route.target_end.side, (pts[-1], pts[-2]))):
            if side is None or _at_side_tip(nodes[node], a):
                continue
            nx, ny = NORMALS[side]
            dx, dy = b.x - a.x, b.y - a.y
            if abs(dx * ny - dy * nx) > 1e-6 or dx * nx + dy * ny <= 0:
                out.append(Violation(ViolationKind.BOUNDARY_ANGLE, route.id, None,
                                     f"{role} end of '{route.id}' does not run straight out "
                                     f"of its {side.value} face"))
    return out


def _lines(routes: Sequence[EdgeRoute]) -> dict[bool, list[tuple[float, float, float, int]]]:
    """Axis-parallel segments as (line coordinate, low, high, route index), by verticality."""
    lines: dict[bool, list[tuple[float, float, float, int]]] = {True: [], False: []}
    for index, route in enumerate(routes):
        for s in segments_of(route, index):
            if abs(s.x2 - s.x1) <= 1e-6:
                lines[True].append((s.x1, min(s.y1, s.y2), max(s.y1, s.y2), index))
            elif abs(s.y2 - s.y1) <= 1e-6:
                lines[False].append((s.y1, min(s.x1, s.x2), max(s.x1, s.x2), index))
    return lines


def _collinear_groups(items: list[tuple[float, float, float, int]]
                      ) -> Iterator[list[tuple[float, float, float, int]]]:
    items.sort()
    group: list[tuple[float, float, float, int]] = []
    for item in items:
        if group and item[0] - group[-1][0] > TOLERANCE:
            yield group
            group = []
        group.append(item)
    if group:
        yield group


def check_shared_stretches(routes: Sequence[EdgeRoute]) -> list[Violation]:
    """No two edges overlap along a common line for more than :data:`TOLERANCE`."""
    pairs: set[tuple[int, int]] = set()
    for items in _lines(routes).values():
        for group in _collinear_groups(items):
            group.sort(key=lambda item: item[1])
            active: list[tuple[float, float, float, int]] = []
            for item in group:
                active = [a for a in active if a[2] > item[1] + TOLERANCE]
                pairs.update((min(a[3], item[3]), max(a[3], item[3]))
                             for a in active if a[3] != item[3])
                active.append(item)
    return [Violation(ViolationKind.SHARED_STRETCH, routes[a].id, None,
                      f"'{routes[a].id}' and '{routes[b].id}' share a stretch of line")
            for a, b in sorted(pairs)]


def check_intrusions(routes: Sequence[EdgeRoute], nodes: Mapping[str, NodeBox],
                     clearance: float) -> list[Violation]:
    """No segment through a node's interior; foreign nodes cleared by ``clearance``."""
    segments = [s for i, r in enumerate(routes) for s in segments_of(r, i)]
    grid = Grid.for_items(nodes.values(), segments)
    found: dict[tuple[int, str], Violation] = {}
    for s in segments:
        route = routes[s.edge]
        for node_id in sorted(grid.nodes_near(s, clearance)):
            if (s.edge, node_id) in found:
                continue
            n = nodes[node_id]
            own = node_id in (s.source, s.target)
            if intrudes(s, n):
                kind = ViolationKind.OWN_INTRUSION if own else ViolationKind.INTRUSION
                found[(s.edge, node_id)] = Violation(
                    kind, route.id, node_id, f"'{route.id}' passes through node '{node_id}'")
            elif not own:
                d = segment_box_distance(s, n.x, n.y, n.x + n.width, n.y + n.height)
                if d < clearance - TOLERANCE:
                    found[(s.edge, node_id)] = Violation(
                        ViolationKind.CLEARANCE, route.id, node_id,
                        f"'{route.id}' passes {d:.1f} px from node '{node_id}' "
                        f"(clearance {clearance:g})")
    return [found[k] for k in sorted(found)]


def _side_tips(node: NodeBox, direction: Direction) -> tuple[Point, Point]:
    c = node.center
    if direction is Direction.LEFT_TO_RIGHT:
        return Point(c.x, node.y), Point(c.x, node.y + node.height)
    return Point(node.x, c.y), Point(node.x + node.width, c.y)


def _near(a: Point, b: Point) -> bool:
    return abs(a.x - b.x) <= TOLERANCE and abs(a.y - b.y) <= TOLERANCE


def _tip_entry_ok(tip: Point, node: NodeBox, before: Point) -> bool:
    c = node.center
    if abs(tip.y - c.y) <= TOLERANCE:   # left or right tip: horizontal approach from outside
        return abs(before.y - tip.y) <= TOLERANCE and (before.x - c.x) * (tip.x - c.x) > 0 \
            and abs(before.x - c.x) > abs(tip.x - c.x)
    return abs(before.x - tip.x) <= TOLERANCE and (before.y - c.y) * (tip.y - c.y) > 0 \
        and abs(before.y - c.y) > abs(tip.y - c.y)


def check_gateways(routes: Sequence[EdgeRoute], nodes: Mapping[str, NodeBox],
                   direction: Direction) -> list[Violation]:
    """Diamonds: no source exit at a side tip; a target entry there only along its axis."""
    out = []
    for route in routes:
        source, target = nodes[route.source], nodes[route.target]
        if source.shape is Shape.DIAMOND and any(
                _near(route.points[0], tip) for tip in _side_tips(source, direction)):
            out.append(Violation(ViolationKind.GATEWAY_SOURCE_TIP, route.id, source.id,
                                 f"'{route.id}' leaves gateway '{source.id}' at a side tip"))
        if target.shape is Shape.DIAMOND:
            for tip in _side_tips(target, direction):
                if _near(route.points[-1], tip) and not _tip_entry_ok(
                        tip, target, route.points[-2]):
                    out.append(Violation(
                        ViolationKind.GATEWAY_TIP_ENTRY, route.id, target.id,
                        f"'{route.id}' enters gateway '{target.id}' at a side tip off its axis"))
    return out


def check_flow(graph: Graph, routes: Sequence[EdgeRoute], direction: Direction
               ) -> list[Violation]:
    """Forward edges never step against the layout direction."""
    declared = {e.id for e in graph.edges if e.loop_back}
    out = []
    for route in routes:
        if route.loop_back or route.id in declared or route.source == route.target:
            continue
        for a, b in zip(route.points, route.points[1:], strict=False):
            step = b.x - a.x if direction is Direction.LEFT_TO_RIGHT else b.y - a.y
            if step < -TOLERANCE:
                out.append(Violation(ViolationKind.AGAINST_FLOW, route.id, None,
                                     f"forward edge '{route.id}' runs against the flow"))
                break
    return out


def check_node_overlaps(boxes: Sequence[NodeBox]) -> list[Violation]:
    """No two node boxes overlap by more than :data:`TOLERANCE` (sweep over x)."""
    order = sorted(boxes, key=lambda n: (n.x, n.id))
    active: list[NodeBox] = []
    out = []
    seen: set[tuple[str, str]] = set()
    for n in order:
        active = [a for a in active if a.x + a.width > n.x + TOLERANCE]
        for a in active:
            if a.y < n.y + n.height - TOLERANCE and n.y < a.y + a.height - TOLERANCE:
                key = (min(a.id, n.id), max(a.id, n.id))
                if key not in seen:
                    seen.add(key)
                    out.append(Violation(ViolationKind.NODE_OVERLAP, None, key[0],
                                         f"nodes '{key[0]}' and '{key[1]}' overlap"))
        active.append(n)
    return out


def check_label_overlaps(result: LayoutResult) -> list[Violation]:
    """No label box overlaps a node box or another label box (sweep over x)."""
    items: list[tuple[float, float, float, float, str, str]] = [
        (n.x, n.y, n.width, n.height, "node", n.id) for n in result.nodes]
    items += [(b.x, b.y, b.width, b.height, "label", r.id) for r in result.edges
              if (b := r.label_box) is not None]
    items.sort(key=lambda i: (i[0], i[4], i[5]))
    active: list[tuple[float, float, float, float, str, str]] = []
    out = []
    for item in items:
        x, y, _, h, kind, _ = item
        active = [a for a in active if a[0] + a[2] > x + TOLERANCE]
        for a in active:
            if "label" in (kind, a[4]) and a[1] < y + h - TOLERANCE and y < a[1] + a[3] - TOLERANCE:
                label, other = (item, a) if kind == "label" else (a, item)
                out.append(Violation(ViolationKind.LABEL_OVERLAP, label[5],
                                     other[5] if other[4] == "node" else None,
                                     f"label of '{label[5]}' overlaps {other[4]} '{other[5]}'"))
        active.append(item)
    return out
