"""Checks on route segments: orthogonal, no shared stretch between two edges, no
intrusion into a node and clearance to foreign ones, forward edges along the flow.

Geometry (segments, intrusion, box distance, the uniform grid) comes from helper D's
:mod:`layouts.quality_geometry` and :mod:`layouts.quality_grid`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

from layouts.graph import Graph
from layouts.layered.contracts.violations import TOLERANCE, Violation, ViolationKind
from layouts.options import Direction
from layouts.quality_geometry import (
    Segment,
    intrudes,
    is_orthogonal,
    route_segments,
    segment_box_distance,
)
from layouts.quality_grid import Grid
from layouts.result import EdgeRoute, NodeBox, Point


def segments_of(route: EdgeRoute, index: int = 0) -> list[Segment]:
    """The route's non-degenerate segments."""
    pts = route.points
    return [Segment(a.x, a.y, b.x, b.y, index, route.source, route.target)
            for a, b in itertools.pairwise(pts) if (a.x, a.y) != (b.x, b.y)]


def check_orthogonal(routes: Sequence[EdgeRoute]) -> list[Violation]:
    """Every segment of the simplified route (:func:`~layouts.quality_geometry.simplified`:
    the segments a reader sees) is horizontal or vertical within
    :data:`~layouts.quality_geometry.ORTHOGONAL_TOLERANCE`."""
    out = []
    for route in routes:
        for s in route_segments(route.points, 0, route.source, route.target):
            if not is_orthogonal(s):
                out.append(Violation(ViolationKind.NOT_ORTHOGONAL, route.id, None,
                                     f"'{route.id}' has a slanted segment from "
                                     f"({s.x1:g}, {s.y1:g}) to ({s.x2:g}, {s.y2:g})"))
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


def on_one_line(a: Segment, b: Segment) -> bool:
    """Whether two segments run along one line (within :data:`TOLERANCE`) over more than
    :data:`TOLERANCE`: what a shared stretch is, for one pair of segments.

    >>> on_one_line(Segment(0, 70, 100, 70, 0, "", ""), Segment(50, 70.4, 200, 70.4, 1, "", ""))
    True
    >>> on_one_line(Segment(0, 70, 100, 70, 0, "", ""), Segment(50, 71, 200, 71, 1, "", ""))
    False
    """
    for vertical in (True, False):
        if all(abs(s.x2 - s.x1) <= 1e-6 if vertical else abs(s.y2 - s.y1) <= 1e-6
               for s in (a, b)):
            line = a.x1 - b.x1 if vertical else a.y1 - b.y1
            ax, bx = ((a.y1, a.y2), (b.y1, b.y2)) if vertical else ((a.x1, a.x2), (b.x1, b.x2))
            overlap = min(max(ax), max(bx)) - max(min(ax), min(bx))
            return abs(line) <= TOLERANCE and overlap > TOLERANCE
    return _collinear_overlap(a, b) > TOLERANCE


def fanned(a: EdgeRoute, b: EdgeRoute) -> bool:
    """Two edges of one fan, which may share their trunk (see :func:`_fanned`)."""
    return _fanned(a, b)


def _fanned(a: EdgeRoute, b: EdgeRoute) -> bool:
    """Two edges of one fan: they leave one node at one point, or enter one at one point
    (a gateway's merged edges share their trunk, :mod:`layouts.layered.fans`)."""
    return (a.source == b.source and _same(a.points[0], b.points[0])) or \
        (a.target == b.target and _same(a.points[-1], b.points[-1]))


def _same(p: Point, q: Point) -> bool:
    return abs(p.x - q.x) <= TOLERANCE and abs(p.y - q.y) <= TOLERANCE


def check_shared_stretches(routes: Sequence[EdgeRoute],
                           bundled: frozenset[tuple[str, str]] = frozenset()
                           ) -> list[Violation]:
    """No two edges overlap for more than :data:`TOLERANCE` along lines at most
    :data:`TOLERANCE` apart, except two edges of one fan (:func:`_fanned`). Each segment
    is compared with those whose line lies within that window of its own (not with a
    chain of lines each close to the next, which would call segments several pixels apart
    collinear). Slanted segments (other engines' drawings) are compared the same way,
    along their own line (:func:`_slanted_pairs`). Pairs of edge ids in ``bundled`` (ends
    at one port, which leave it as a bundle) may share their way."""
    pairs: set[tuple[int, int]] = set()
    for items in _lines(routes).values():
        items.sort()
        for i, (line, low, high, route) in enumerate(items):
            for other_line, other_low, other_high, other in items[i + 1:]:
                if other_line - line > TOLERANCE:
                    break
                if other != route and min(high, other_high) - max(low, other_low) > \
                        TOLERANCE and not _fanned(routes[route], routes[other]):
                    pairs.add((min(route, other), max(route, other)))
    pairs |= _slanted_pairs(routes)
    return [Violation(ViolationKind.SHARED_STRETCH, routes[a].id, None,
                      f"'{routes[a].id}' and '{routes[b].id}' share a stretch of line")
            for a, b in sorted(pairs) if (routes[a].id, routes[b].id) not in bundled]


def _slanted_pairs(routes: Sequence[EdgeRoute]) -> set[tuple[int, int]]:
    """Route index pairs with slanted segments on one line (both ends of one within
    :data:`TOLERANCE` of the other's line) overlapping by more than :data:`TOLERANCE`."""
    slanted = [s for i, r in enumerate(routes) for s in segments_of(r, i)
               if abs(s.x2 - s.x1) > 1e-6 and abs(s.y2 - s.y1) > 1e-6]
    if len(slanted) < 2:
        return set()
    pairs: set[tuple[int, int]] = set()
    for i, j in Grid.for_items((), slanted).segment_pairs(slanted):
        a, b = slanted[i], slanted[j]
        if a.edge != b.edge and _collinear_overlap(a, b) > TOLERANCE \
                and not _fanned(routes[a.edge], routes[b.edge]):
            pairs.add((min(a.edge, b.edge), max(a.edge, b.edge)))
    return pairs


def _collinear_overlap(a: Segment, b: Segment) -> float:
    """Length along ``a`` that ``b`` covers when ``b`` lies on ``a``'s line, else 0.

    >>> _collinear_overlap(Segment(0, 0, 30, 40, 0, "", ""), Segment(3, 4, 60, 80, 1, "", ""))
    45.0
    """
    ux, uy = (a.x2 - a.x1) / a.length, (a.y2 - a.y1) / a.length
    across = [abs((x - a.x1) * uy - (y - a.y1) * ux) for x, y in ((b.x1, b.y1), (b.x2, b.y2))]
    if max(across) > TOLERANCE:
        return 0.0
    t1, t2 = ((x - a.x1) * ux + (y - a.y1) * uy for x, y in ((b.x1, b.y1), (b.x2, b.y2)))
    return max(0.0, min(a.length, max(t1, t2)) - max(0.0, min(t1, t2)))


def check_intrusions(routes: Sequence[EdgeRoute], nodes: Mapping[str, NodeBox],
                     clearance: float) -> list[Violation]:
    """No segment through a node's interior; foreign nodes cleared by ``clearance``
    (:func:`route_intrusions`, per route)."""
    pieces = [segments_of(r, i) for i, r in enumerate(routes)]
    grid = Grid.for_items(nodes.values(), [s for piece in pieces for s in piece])
    return [v for route, piece in zip(routes, pieces, strict=True)
            for v in route_intrusions(route, piece, nodes, grid, clearance)]


def route_intrusions(route: EdgeRoute, segments: Sequence[Segment],
                     nodes: Mapping[str, NodeBox], grid: Grid,
                     clearance: float) -> list[Violation]:
    """One violation per node that a segment of ``route`` passes through (``intrusion``,
    or ``own-intrusion`` for its own source or target) or, for a foreign node, passes
    closer than ``clearance`` - :data:`TOLERANCE` to (``clearance``); a node passed
    through is an intrusion even when another segment only comes close. ``grid`` files
    ``nodes``; the violations come in node id order (a clearance message gives the
    distance of the first segment too close)."""
    found: dict[str, Violation] = {}
    limit = clearance - TOLERANCE
    for s in segments:
        bounds = s.bounds()
        for node_id in grid.nodes_near(s, clearance):
            prior = found.get(node_id)
            if prior is not None and prior.kind is not ViolationKind.CLEARANCE:
                continue
            n = nodes[node_id]
            gap = _bounds_gap(bounds, n)   # the segment is no nearer than its bounds
            if gap > 0 and gap >= limit:
                continue
            own = node_id in (route.source, route.target)
            if intrudes(s, n):
                kind = ViolationKind.OWN_INTRUSION if own else ViolationKind.INTRUSION
                found[node_id] = Violation(
                    kind, route.id, node_id, f"'{route.id}' passes through node '{node_id}'")
            elif prior is None and not own:
                d = segment_box_distance(s, n.x, n.y, n.x + n.width, n.y + n.height)
                if d < limit:
                    found[node_id] = Violation(
                        ViolationKind.CLEARANCE, route.id, node_id,
                        f"'{route.id}' passes {d:.1f} px from node '{node_id}' "
                        f"(clearance {clearance:g})")
    return [found[k] for k in sorted(found)]


def _bounds_gap(bounds: tuple[float, float, float, float], box: NodeBox) -> float:
    """Distance between a segment's bounding box and a node's box."""
    x0, y0, x1, y1 = bounds
    dx = max(box.x - x1, 0.0, x0 - box.x - box.width)
    dy = max(box.y - y1, 0.0, y0 - box.y - box.height)
    return dx if not dy else dy if not dx else math.hypot(dx, dy)


def check_flow(graph: Graph, routes: Sequence[EdgeRoute], direction: Direction,
               stubbed: frozenset[str] = frozenset()) -> list[Violation]:
    """Forward edges never step against the layout direction (edges in ``stubbed``,
    with an end at a port across or against the flow, run round their node first)."""
    declared = {e.id for e in graph.edges if e.loop_back}
    out = []
    for route in routes:
        if route.loop_back or route.id in declared or route.source == route.target \
                or route.id in stubbed:
            continue
        for a, b in zip(route.points, route.points[1:], strict=False):
            step = b.x - a.x if direction is Direction.LEFT_TO_RIGHT else b.y - a.y
            if step < -TOLERANCE:
                out.append(Violation(ViolationKind.AGAINST_FLOW, route.id, None,
                                     f"forward edge '{route.id}' runs against the flow"))
                break
    return out
