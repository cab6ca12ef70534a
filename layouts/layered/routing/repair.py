"""Sub-step 7 of routing: checked safety-net repairs, then the clearance nudge.

The construction already keeps every contract; these passes guard against what it
missed. Each repair targets one defect of one route and is *accepted only when it
reduces that defect without adding* a boundary-angle, under-node (foreign or own),
against-flow, crossing or shared-stretch defect (the acceptance rule of the ElkSharp engine).
The defects are the defect model's (:mod:`layouts.layered.contracts`): a route's are
counted by the contract checkers themselves (:func:`route_defects`), and a shared
stretch is the contracts' (fan trunks exempt).

* **source departure / target approach** (the boundary-angle defect): an end whose
  first segment does not leave its face straight outwards gets a stub of ``clearance``
  px along the face's normal, joined orthogonally to the rest of the route;
* **under-node and clearance nudge**: an inner segment (both ends free, so the route's
  endpoints stay anchored on their slots) that passes through or within ``clearance`` of
  a foreign node moves sideways past the node, and keeps moving outward until it clears
  every node's box by ``clearance`` (nodes within 8 px of the segment's ends count as
  adjacent), trying both sides and keeping the smaller move that is accepted.

Only routes with a defect are touched; a route is first screened (:mod:`.defect_screen`)
and counted exactly only when the screen cannot rule a defect out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from layouts.graph import Graph
from layouts.layered.contracts.angles import check_boundary_angles
from layouts.layered.contracts.segments import (
    check_flow,
    fanned,
    on_one_line,
    route_intrusions,
)
from layouts.layered.contracts.violations import TOLERANCE, ViolationKind
from layouts.layered.model import Deadline
from layouts.layered.routing.defect_screen import DefectScreen
from layouts.layered.routing.polylines import simplify
from layouts.layered.routing.segment_index import SegmentIndex
from layouts.options import Direction, LayoutOptions
from layouts.quality_geometry import Segment, segment_relation
from layouts.quality_grid import Grid
from layouts.result import EdgeRoute, NodeBox, Point, Side

ADJACENT = 8.0
NO_GRAPH = Graph((), ())
"""Flow is judged from the routes' own ``loop_back`` flags (routing marks them)."""
NORMALS = {Side.TOP: (0.0, -1.0), Side.BOTTOM: (0.0, 1.0), Side.LEFT: (-1.0, 0.0),
           Side.RIGHT: (1.0, 0.0)}


@dataclass(frozen=True, slots=True)
class Defects:
    """Defect counts of one route, by the defect model's kinds (:func:`route_defects`)."""

    angle: int
    under: int
    own: int
    near: int
    flow: int

    def worse_than(self, other: Defects) -> bool:
        return (self.angle > other.angle or self.under > other.under or self.own > other.own
                or self.flow > other.flow)

    @property
    def none(self) -> bool:
        return self == Defects(0, 0, 0, 0, 0)


def segments(points: Sequence[Point]) -> list[Segment]:
    return [Segment(a.x, a.y, b.x, b.y, 0, "", "") for a, b in pairwise(points) if a != b]


def route_defects(route: EdgeRoute, boxes: Mapping[str, NodeBox], grid: Grid,
                  clearance: float) -> Defects:
    """The defects the repairs target, for one route (``grid`` files ``boxes``), found by
    the contract checkers (:mod:`layouts.layered.contracts`): ``boundary-angle`` ends,
    ``intrusion`` and ``own-intrusion`` nodes, ``clearance`` nodes (each an edge-node
    pair), and ``against-flow`` (the routing frame is top to bottom)."""
    near = [v.kind for v in route_intrusions(route, segments(route.points), boxes, grid,
                                             clearance)]
    return Defects(len(check_boundary_angles([route], boxes)),
                   near.count(ViolationKind.INTRUSION), near.count(ViolationKind.OWN_INTRUSION),
                   near.count(ViolationKind.CLEARANCE),
                   len(check_flow(NO_GRAPH, [route], Direction.TOP_TO_BOTTOM)))


def crossings(points: Sequence[Point], others: Sequence[EdgeRoute],
              route: EdgeRoute | None = None) -> tuple[int, int]:
    """(crossings, shared stretches) of a polyline (of ``route``) with other routes."""
    return indexed_crossings(points, SegmentIndex.of_routes([r.points for r in others]), None,
                             route, others)


def indexed_crossings(points: Sequence[Point], index: SegmentIndex, skip: int | None,
                      route: EdgeRoute | None = None, filed: Sequence[EdgeRoute] = ()
                      ) -> tuple[int, int]:
    """(crossings, shared stretches) of a polyline with the routes of ``index`` other
    than ``skip``; only segments sharing a grid cell can meet, so only those are tested.
    A shared stretch is the defect model's (:func:`~layouts.layered.contracts.segments.
    on_one_line`, looked for within :data:`TOLERANCE` of the segment): two segments on
    one line, unless the polyline is ``route`` and the other route, ``filed`` under its
    key, is of one fan with it (they may share a trunk)."""
    cross = shared = 0
    for s in segments(points):
        for _key, t in index.near(s, skip):
            cross += segment_relation(s, t) == "cross"
        x0, y0, x1, y1 = s.bounds()
        reach = Segment(x0 - TOLERANCE, y0 - TOLERANCE, x1 + TOLERANCE, y1 + TOLERANCE, 0, "", "")
        for key, t in index.near(reach, skip):
            shared += on_one_line(s, t) and not (
                route is not None and key < len(filed) and fanned(route, filed[key]))
    return cross, shared


@dataclass(frozen=True, slots=True)
class Scene:
    """What every repair looks at: node boxes, their grid, the other routes (``others``,
    or, when ``index`` is given, every route filed there except route ``key``)."""

    boxes: Mapping[str, NodeBox]
    grid: Grid
    others: Sequence[EdgeRoute]
    clearance: float
    index: SegmentIndex | None = None
    key: int | None = None

    filed: Sequence[EdgeRoute] = ()
    """With ``index``: the routes filed there, by key (for their ends, which repairs keep)."""

    def crossings(self, points: Sequence[Point], route: EdgeRoute | None = None
                  ) -> tuple[int, int]:
        if self.index is None:
            return crossings(points, self.others, route)
        return indexed_crossings(points, self.index, self.key, route, self.filed)


def accepted(before: EdgeRoute, after: EdgeRoute, target: Callable[[Defects], int],
             scene: Scene) -> bool:
    """The acceptance rule: the targeted defect drops, nothing else gets worse."""
    if after.points[0] != before.points[0] or after.points[-1] != before.points[-1]:
        return False
    old = route_defects(before, scene.boxes, scene.grid, scene.clearance)
    new = route_defects(after, scene.boxes, scene.grid, scene.clearance)
    if target(new) >= target(old) or new.worse_than(old):
        return False
    old_cross, old_shared = scene.crossings(before.points, before)
    new_cross, new_shared = scene.crossings(after.points, after)
    return new_cross <= old_cross and new_shared <= old_shared


def with_departure_stub(points: Sequence[Point], side: Side, stub: float) -> tuple[Point, ...]:
    """Points with a stub leaving ``points[0]`` straight out of ``side``.

    >>> p = with_departure_stub([Point(50, 40), Point(90, 40), Point(90, 100)], Side.BOTTOM, 12)
    >>> [(q.x, q.y) for q in p]
    [(50, 40), (50.0, 52.0), (90, 52.0), (90, 100)]
    """
    nx, ny = NORMALS[side]
    start = points[0]
    tip = Point(start.x + nx * stub, start.y + ny * stub)
    nxt = points[1]
    corner = Point(nxt.x, tip.y) if ny else Point(tip.x, nxt.y)
    return simplify([start, tip, corner, *points[1:]])


def repair_ends(route: EdgeRoute, scene: Scene) -> EdgeRoute:
    """Source-departure, then target-approach repair, each kept only if accepted."""
    if route.source_end.side is not None:
        moved = replace(route, points=with_departure_stub(route.points, route.source_end.side,
                                                          scene.clearance))
        if accepted(route, moved, lambda d: d.angle, scene):
            route = moved
    if route.target_end.side is not None:
        backwards = with_departure_stub(route.points[::-1], route.target_end.side,
                                        scene.clearance)
        moved = replace(route, points=backwards[::-1])
        if accepted(route, moved, lambda d: d.angle, scene):
            route = moved
    return route


def _blocked(boxes: Sequence[NodeBox], vertical: bool, at: float, low: float, high: float,
             clearance: float) -> list[NodeBox]:
    found = []
    for b in boxes:
        across = (b.x, b.x + b.width) if vertical else (b.y, b.y + b.height)
        along = (b.y, b.y + b.height) if vertical else (b.x, b.x + b.width)
        if along[0] < high + ADJACENT and low - ADJACENT < along[1] and \
                across[0] - clearance < at < across[1] + clearance:
            found.append(b)
    return found


def free_position(boxes: Sequence[NodeBox], vertical: bool, at: float, low: float, high: float,
                  clearance: float, direction: int) -> float:
    """Move a segment (x for vertical, y for horizontal) in ``direction`` (+1/-1) past
    every box it touches until it clears them all by ``clearance``.

    >>> free_position([NodeBox("n", 0, 50, 100, 20)], False, 60.0, 0.0, 100.0, 12, +1)
    82
    """
    for _ in range(len(boxes) + 1):
        blockers = _blocked(boxes, vertical, at, low, high, clearance)
        if not blockers:
            return at
        edges = [(b.x, b.x + b.width) if vertical else (b.y, b.y + b.height) for b in blockers]
        at = (max(e[1] for e in edges) + clearance if direction > 0
              else min(e[0] for e in edges) - clearance)
    return at


def _shifted(points: Sequence[Point], k: int, vertical: bool, at: float) -> tuple[Point, ...]:
    moved = list(points)
    for i in (k, k + 1):
        p = moved[i]
        moved[i] = Point(at, p.y) if vertical else Point(p.x, at)
    return tuple(moved)


def nudge_segments(route: EdgeRoute, scene: Scene) -> EdgeRoute:
    """Move inner segments that pass through or too near a foreign node; see module."""
    clearance = scene.clearance
    foreign = [b for b in scene.boxes.values() if b.id not in (route.source, route.target)]
    for k in range(1, len(route.points) - 2):
        a, b = route.points[k], route.points[k + 1]
        vertical = a.x == b.x
        at, low, high = (a.x, min(a.y, b.y), max(a.y, b.y)) if vertical else \
            (a.y, min(a.x, b.x), max(a.x, b.x))
        if not _blocked(foreign, vertical, at, low, high, clearance):
            continue
        options = sorted((free_position(foreign, vertical, at, low, high, clearance, d)
                          for d in (+1, -1)), key=lambda p: (abs(p - at), p))
        for position in options:
            moved = replace(route, points=_shifted(route.points, k, vertical, position))
            if accepted(route, moved, lambda d: d.under + d.near, scene):
                route = moved
                break
    return route


def repair_routes(routes: Sequence[EdgeRoute], boxes: Mapping[str, NodeBox],
                  options: LayoutOptions, deadline: Deadline) -> list[EdgeRoute]:
    """Run the repairs on every route with a defect, until the deadline (the repairs are
    optional: once the budget is gone the remaining routes stay as constructed)."""
    clearance = options.clearance
    out = list(routes)
    if deadline.expired():
        return out
    screen = DefectScreen(boxes, clearance)
    grid: Grid | None = None
    index: SegmentIndex | None = None
    for position, route in enumerate(routes):
        if deadline.expired():
            break
        if route.source == route.target or len(route.points) < 2:
            continue
        if not screen.may_have_defects(route):
            continue
        grid = grid or Grid.for_items(boxes.values(),
                                      [s for r in routes for s in segments(r.points)])
        if route_defects(route, boxes, grid, clearance).none:
            continue
        index = index or SegmentIndex.of_routes([r.points for r in routes])
        scene = Scene(boxes, grid, (), clearance, index, position, routes)
        out[position] = nudge_segments(repair_ends(route, scene), scene)
        index.replace(position, out[position].points)
    return out
