"""Quality metrics on small layouts whose values are worked out by hand.

Coordinates: y grows downwards; a NodeBox is (id, x, y, width, height, shape).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layouts.graph import Shape
from layouts.quality import InvalidLayoutResultError, QualityReport, measure
from layouts.quality_geometry import (
    Segment,
    intrudes,
    route_segments,
    segment_box_distance,
    segment_relation,
    vertex_crossings,
)
from layouts.result import Diagnostics, EdgeRoute, LayoutResult, NodeBox, Point


def _result(nodes: list[NodeBox],
            routes: Sequence[tuple[str, str, Sequence[tuple[float, float]]]],
            width: float = 200, height: float = 200) -> LayoutResult:
    edges = tuple(
        EdgeRoute(f"e{i}", source, target, tuple(Point(x, y) for x, y in points))
        for i, (source, target, points) in enumerate(routes)
    )
    return LayoutResult(tuple(nodes), edges, width, height,
                        Diagnostics(engine="test", effort="draft", direction="TopToBottom"))


# Four 10x10 nodes around a centre: a top, b bottom, c left, d right.
A, B = NodeBox("a", 45, 0, 10, 10), NodeBox("b", 45, 90, 10, 10)
C, D = NodeBox("c", 0, 45, 10, 10), NodeBox("d", 90, 45, 10, 10)


def test_two_edges_forming_an_x_cross_once() -> None:
    # a->b is x=50 from y=10 to 90; c->d is y=50 from x=10 to 90: they meet at (50, 50),
    # inside both segments.
    q = measure(_result([A, B, C, D], [("a", "b", [(50, 10), (50, 90)]),
                                       ("c", "d", [(10, 50), (90, 50)])]))
    assert q.crossings == 1
    assert q.shared_segments == 0
    assert q.bends == 0
    assert q.total_edge_length == 80 + 80
    assert q.non_orthogonal_segments == 0
    assert q.endpoints_off_outline == 0
    assert q.edge_node_intrusions == 0 and q.own_end_intrusions == 0
    # x=50 is 50 - 10 = 40 px from c's right side (x=10) and from d's left (x=90);
    # y=50 is 40 px from a's bottom (y=10) and b's top (y=90).
    assert q.min_clearance == 40
    assert q.clearance_violations == 0
    assert q.area == 200 * 200


def test_crossing_through_a_straight_vertex_counts_once() -> None:
    # a->b has a pass-through vertex at (50, 50), exactly on c->d's line y=50. The route
    # still goes from above the line (y=10) to below it (y=90): one crossing.
    q = measure(_result([A, B, C, D], [("a", "b", [(50, 10), (50, 50), (50, 90)]),
                                       ("c", "d", [(10, 50), (90, 50)])]))
    assert q.crossings == 1


def test_crossing_through_a_bend_on_the_other_edge() -> None:
    # s->t bends at (50, 50) on c->d's line: it arrives from (40, 10) above the line and
    # leaves to (70, 90) below it: one crossing. u->v bends there too but arrives from
    # and returns to above the line (y=10 both): it only touches.
    s, t = NodeBox("s", 35, 0, 10, 10), NodeBox("t", 65, 90, 10, 10)
    u, v = NodeBox("u", 20, 0, 10, 10), NodeBox("v", 75, 0, 10, 10)
    q = measure(_result([C, D, s, t], [("c", "d", [(10, 50), (90, 50)]),
                                       ("s", "t", [(40, 10), (50, 50), (70, 90)])]))
    assert q.crossings == 1
    q = measure(_result([C, D, u, v], [("c", "d", [(10, 50), (90, 50)]),
                                       ("u", "v", [(25, 10), (50, 50), (80, 10)])]))
    assert q.crossings == 0


def test_routes_turning_at_the_same_point() -> None:
    # Both routes bend at (50, 50). Crossing: s->t comes from (10,10) and leaves to
    # (90,70); u->v comes from (90,30) and leaves to (10,70). Going round (50,50), the
    # rays towards (10,10), (90,30), (90,70), (10,70) alternate s, u, s, u: they cross.
    # Kissing: w->x comes from (10,60) and leaves to (10,90): both its rays point left,
    # between s->t's rays on the same side, so it only touches s->t.
    s, t = NodeBox("s", 5, 0, 10, 10), NodeBox("t", 85, 70, 10, 10)
    u, v = NodeBox("u", 85, 20, 10, 10), NodeBox("v", 5, 70, 10, 10)
    w, x = NodeBox("w", 0, 55, 10, 10), NodeBox("x", 5, 90, 10, 10)
    q = measure(_result([s, t, u, v], [("s", "t", [(10, 10), (50, 50), (90, 70)]),
                                       ("u", "v", [(90, 30), (50, 50), (10, 70)])]))
    assert q.crossings == 1
    q = measure(_result([s, t, w, x], [("s", "t", [(10, 10), (50, 50), (90, 70)]),
                                       ("w", "x", [(10, 60), (50, 50), (10, 90)])]))
    assert q.crossings == 0


def test_t_touch_is_no_crossing() -> None:
    # d is moved to (50, 40, 20, 20): its left side x=50 runs along a->b, and c->d ends
    # at (50, 50) on that side, i.e. on a->b. A touch, not a crossing; running along d's
    # side is not an intrusion either (the interior is shrunk by 0.5 px).
    d = NodeBox("d", 50, 40, 20, 20)
    q = measure(_result([A, B, C, d], [("a", "b", [(50, 10), (50, 90)]),
                                       ("c", "d", [(10, 50), (50, 50)])]))
    assert q.crossings == 0
    assert q.shared_segments == 0
    assert q.edge_node_intrusions == 0
    assert q.min_clearance == 0  # a->b touches d's box


def test_edges_meeting_at_a_shared_end_point_do_not_cross() -> None:
    # Both edges leave a at (50, 10): one down to b, one right then down to d's top.
    d = NodeBox("d", 90, 45, 10, 10)
    q = measure(_result([A, B, d], [("a", "b", [(50, 10), (50, 90)]),
                                    ("a", "d", [(50, 10), (95, 10), (95, 45)])]))
    assert q.crossings == 0 and q.shared_segments == 0


def test_parallel_overlapping_segments_are_shared_not_crossing() -> None:
    # c2 -> d2 runs (10,30) -> (50,30) -> (50,70) -> (10,70): its middle segment lies on
    # a->b's line x=50 over y 30..70 (40 px of overlap); its two horizontal segments only
    # touch x=50 at their ends.
    c2, d2 = NodeBox("c", 0, 25, 10, 10), NodeBox("d", 0, 65, 10, 10)
    q = measure(_result([A, B, c2, d2], [
        ("a", "b", [(50, 10), (50, 90)]),
        ("c", "d", [(10, 30), (50, 30), (50, 70), (10, 70)]),
    ]))
    assert q.shared_segments == 1
    assert q.crossings == 0
    assert q.bends == 2  # at (50, 30) and (50, 70)
    assert q.total_edge_length == 80 + (40 + 40 + 40)


def test_collinear_segments_meeting_end_to_end_share_nothing() -> None:
    # a->b covers x=50, y 10..50; e->f covers y 50..90 on the same line: one point common.
    e, f = NodeBox("e", 45, 50, 10, 0.001), NodeBox("f", 45, 90, 10, 10)
    q = measure(_result([A, e, f], [("a", "e", [(50, 10), (50, 50)]),
                                    ("e", "f", [(50, 50.001), (50, 90)])]))
    assert q.shared_segments == 0 and q.crossings == 0


def test_edge_through_a_third_node_is_one_intrusion() -> None:
    # x = (40, 40, 20, 20) sits on a->b's line x=50. The route has a straight pass-through
    # vertex at (50, 50) inside x, so two segments cross x: still one edge-node pair, and
    # no bend (the direction does not change).
    x = NodeBox("x", 40, 40, 20, 20)
    q = measure(_result([A, B, x], [("a", "b", [(50, 10), (50, 50), (50, 90)])]))
    assert q.edge_node_intrusions == 1
    assert q.own_end_intrusions == 0
    assert q.bends == 0
    assert q.min_clearance == 0
    # the one edge-node pair (a->b, x) is an intrusion, so it is not also counted as a
    # clearance violation (the defect model's kinds are exclusive per edge-node pair)
    assert q.clearance_violations == 0


@pytest.mark.parametrize(("shape", "line_x", "expected"), [
    # diamond (40,40,20,20): centre (50,50), half sizes 10. At x=50 it spans y 40..60.
    (Shape.DIAMOND, 50, 1),
    # At x=58 the diamond spans |y-50| < 10 - 8 = 2: still inside.
    (Shape.DIAMOND, 58, 1),
    # x=59.9 is only 0.1 px from the right tip (60, 50): within the 0.5 px margin.
    (Shape.DIAMOND, 59.9, 0),
    # circle radius 10 around (50,50): x=59 passes 9 px from the centre (< 10 - 0.5).
    (Shape.CIRCLE, 59, 1),
    # x=59.8 passes 9.8 px from the centre: not below 9.5.
    (Shape.CIRCLE, 59.8, 0),
    # a rect's corner region at x=59.8 is 0.2 px inside its right side: within margin.
    (Shape.RECT, 59.8, 0),
])
def test_intrusion_follows_the_true_outline(shape: Shape, line_x: float, expected: int) -> None:
    a, b = NodeBox("a", line_x - 5, 0, 10, 10), NodeBox("b", line_x - 5, 90, 10, 10)
    x = NodeBox("x", 40, 40, 20, 20, shape)
    q = measure(_result([a, b, x], [("a", "b", [(line_x, 10), (line_x, 90)])]))
    assert q.edge_node_intrusions == expected


def test_route_back_through_its_own_source() -> None:
    # a = (0,0,40,20), b = (0,80,40,20). The route leaves a's right side, climbs above a and
    # comes down at x=20 through a's interior (y 0..20) to b's top: one own-end intrusion.
    a, b = NodeBox("a", 0, 0, 40, 20), NodeBox("b", 0, 80, 40, 20)
    points = [(40, 10), (50, 10), (50, -10), (20, -10), (20, 80)]
    q = measure(_result([a, b], [("a", "b", points)]))
    assert q.own_end_intrusions == 1
    assert q.edge_node_intrusions == 0
    assert q.endpoints_off_outline == 0
    assert q.bends == 3  # at (50,10), (50,-10), (20,-10)
    assert q.total_edge_length == 10 + 20 + 30 + 90
    assert q.min_clearance == math.inf  # no node other than the edge's own ends


def test_three_bend_route_and_a_straight_vertex() -> None:
    # (20,10) -> (60,10) -> (60,30) -> (60,60) -> (110,60) -> (110,100): (60,30) is a
    # straight vertex; the direction changes at (60,10), (60,60) and (110,60).
    a, b = NodeBox("a", 0, 0, 20, 20), NodeBox("b", 100, 100, 20, 20)
    points = [(20, 10), (60, 10), (60, 30), (60, 60), (110, 60), (110, 100)]
    q = measure(_result([a, b], [("a", "b", points)]))
    assert q.bends == 3
    assert q.total_edge_length == 40 + 20 + 30 + 50 + 40


def test_a_reversal_is_a_bend() -> None:
    a, b = NodeBox("a", 0, 0, 20, 20), NodeBox("b", 0, 100, 20, 20)
    # down to y=60, back up to y=40, then down to b: two reversals
    q = measure(_result([a, b], [("a", "b", [(10, 20), (10, 60), (10, 40), (10, 100)])]))
    assert q.bends == 2


def test_diagonal_segment_is_non_orthogonal() -> None:
    # (20,10) -> (60,10) is horizontal; (60,10) -> (110,100) is diagonal: 1.
    a, b = NodeBox("a", 0, 0, 20, 20), NodeBox("b", 100, 100, 20, 20)
    q = measure(_result([a, b], [("a", "b", [(20, 10), (60, 10), (110, 100)])]))
    assert q.non_orthogonal_segments == 1
    assert q.bends == 1
    assert q.total_edge_length == pytest.approx(40 + math.hypot(50, 90))


def test_clearance_five_and_ten_pixels() -> None:
    # a->b runs x=10 from y=20 to y=200. p = (15,100,20,20) is 15 - 10 = 5 px to its
    # right; q = (-30,100,30,20) ends at x=0, 10 - 0 = 10 px to its left.
    a, b = NodeBox("a", 0, 0, 20, 20), NodeBox("b", 0, 200, 20, 20)
    p, q_node = NodeBox("p", 15, 100, 20, 20), NodeBox("q", -30, 100, 30, 20)
    result = _result([a, b, p, q_node], [("a", "b", [(10, 20), (10, 200)])])
    assert measure(result).min_clearance == 5
    assert measure(result, clearance=12).clearance_violations == 2  # 5 < 12 and 10 < 12
    assert measure(result, clearance=8).clearance_violations == 1  # only 5 < 8
    assert measure(result, clearance=5).clearance_violations == 0  # 5 is not < 5
    assert measure(result).edge_node_intrusions == 0


def test_clearance_to_a_box_corner_beyond_a_bend() -> None:
    # Route (20,10) -> (60,10) -> (60,100) bends at (60,10). t = (63,-10,10,16) has its
    # lower-left corner at (63, 6): hypot(63 - 60, 10 - 6) = hypot(3, 4) = 5 from the
    # bend, which is the nearest point of both segments.
    a, b = NodeBox("a", 0, 0, 20, 20), NodeBox("b", 50, 100, 20, 20)
    t = NodeBox("t", 63, -10, 10, 16)
    q = measure(_result([a, b, t], [("a", "b", [(20, 10), (60, 10), (60, 100)])]))
    assert q.min_clearance == pytest.approx(5.0)
    # both segments pass 5 px from t, but it is one edge-node pair
    assert q.clearance_violations == 1


def test_overlapping_boxes() -> None:
    # a and b overlap in a 10x10 square; c touches a's right side and b's top only
    # (no interior in common); d lies wholly inside e.
    nodes = [NodeBox("a", 0, 0, 20, 20), NodeBox("b", 10, 10, 20, 20),
             NodeBox("c", 20, 0, 10, 10), NodeBox("d", 100, 100, 5, 5),
             NodeBox("e", 98, 98, 20, 20), NodeBox("f", 150, 150, 10, 10)]
    assert measure(_result(nodes, [])).node_overlaps == 2


def test_endpoints_three_pixels_off_a_diamond() -> None:
    # Diamond g = (0,0,40,40): tips (20,0), (40,20), (20,40), (0,20).
    # e0 starts at (20,43), 3 px below the bottom tip: off. It ends on r's left side.
    # e1 starts at (10,30): |10-20|/20 + |30-20|/20 = 1, on the lower-left face; it ends
    #    at (97,20), 3 px left of r's left side x=100: off.
    # e2 starts at (20,40.4), 0.4 px below the tip: within the 0.5 px tolerance.
    g = NodeBox("g", 0, 0, 40, 40, Shape.DIAMOND)
    r = NodeBox("r", 100, 0, 20, 40)
    q = measure(_result([g, r], [
        ("g", "r", [(20, 43), (20, 50), (100, 50), (100, 30)]),
        ("g", "r", [(10, 30), (97, 30), (97, 20)]),
        ("g", "r", [(20, 40.4), (20, 60), (110, 60), (110, 40)]),
    ]))
    assert q.endpoints_off_outline == 2


def test_crossings_of_one_edge_with_itself_do_not_count() -> None:
    a, b = NodeBox("a", 0, 0, 20, 20), NodeBox("b", 0, 180, 20, 20)
    points = [(10, 20), (10, 100), (60, 100), (60, 60), (-20, 60), (-20, 140), (10, 140),
              (10, 180)]
    q = measure(_result([a, b], [("a", "b", points)]))
    assert q.crossings == 0


def test_one_long_segment_crossing_many_short_ones() -> None:
    # A 1000 px horizontal edge at y=50 and 40 vertical edges at x = 20, 45, ..., 995,
    # each from y=10 to y=90: 40 crossings, each counted once though the long segment
    # spans many grid cells.
    nodes = [NodeBox("l", -10, 45, 10, 10), NodeBox("r", 1000, 45, 10, 10)]
    routes: list[tuple[str, str, list[tuple[float, float]]]] = [
        ("l", "r", [(0, 50), (1000, 50)])]
    for i in range(40):
        x = 20 + 25 * i
        nodes += [NodeBox(f"t{i}", x - 2, 0, 4, 10), NodeBox(f"u{i}", x - 2, 90, 4, 10)]
        routes.append((f"t{i}", f"u{i}", [(x, 10), (x, 90)]))
    assert measure(_result(nodes, routes, 1010, 100)).crossings == 40


def _all_segments(result: LayoutResult) -> list[Segment]:
    return [s for i, e in enumerate(result.edges)
            for s in route_segments(e.points, i, e.source, e.target)]


def _brute_force(result: LayoutResult) -> tuple[int, int]:
    """(crossings, pairs of edges sharing a stretch), every pair tested. A shared
    stretch, by the defect model's definition: two axis-parallel segments of different
    edges on lines at most 0.5 px apart that overlap by more than 0.5 px, unless the two
    edges leave one node at one point or enter one at one point (a fan's trunk)."""
    segments = _all_segments(result)
    pairs = [(s, t) for k, s in enumerate(segments) for t in segments[k + 1:]
             if s.edge != t.edge]
    relations = [segment_relation(s, t) for s, t in pairs]
    at_vertices = sum(vertex_crossings(s, t) for s, t in pairs)
    edges = result.edges

    def fanned(a: EdgeRoute, b: EdgeRoute) -> bool:
        def same(p: Point, q: Point) -> bool:
            return abs(p.x - q.x) <= 0.5 and abs(p.y - q.y) <= 0.5
        return (a.source == b.source and same(a.points[0], b.points[0])) or (
            a.target == b.target and same(a.points[-1], b.points[-1]))

    def on_one_line(s: Segment, t: Segment) -> bool:
        for vertical in (True, False):
            if all((u.x1 == u.x2) if vertical else (u.y1 == u.y2) for u in (s, t)):
                line = (s.x1 - t.x1) if vertical else (s.y1 - t.y1)
                lo = [min(u.y1, u.y2) if vertical else min(u.x1, u.x2) for u in (s, t)]
                hi = [max(u.y1, u.y2) if vertical else max(u.x1, u.x2) for u in (s, t)]
                return abs(line) <= 0.5 and min(hi) - max(lo) > 0.5
        return False

    shared = {(min(s.edge, t.edge), max(s.edge, t.edge)) for s, t in pairs
              if on_one_line(s, t) and not fanned(edges[s.edge], edges[t.edge])}
    return relations.count("cross") + at_vertices, len(shared)


@pytest.mark.parametrize("seed", range(8))
def test_grid_pruning_finds_every_pair_that_brute_force_finds(seed: int) -> None:
    rng = random.Random(seed)
    nodes = [NodeBox(f"n{i}", rng.uniform(0, 400), rng.uniform(0, 400), 10, 10)
             for i in range(30)]
    routes = []
    for _ in range(40):
        s, t = rng.sample(nodes, 2)
        points = [(s.x + 5, s.y + 10)]
        for _ in range(rng.randint(0, 3)):  # orthogonal staircase, on a 10 px lattice
            x = points[-1][0]
            points.append((x, round(rng.uniform(0, 400), -1)))
            points.append((round(rng.uniform(0, 400), -1), points[-1][1]))
        points.append((t.x + 5, t.y))
        routes.append((s.id, t.id, points))
    result = _result(nodes, routes, 410, 410)
    q = measure(result)
    assert (q.crossings, q.shared_segments) == _brute_force(result)
    assert (q.min_clearance, q.clearance_violations) == _brute_force_clearance(result)
    assert q.node_overlaps == sum(   # by more than the 0.5 px tolerance on both axes
        min(a.x + a.width, b.x + b.width) - max(a.x, b.x) > 0.5
        and min(a.y + a.height, b.y + b.height) - max(a.y, b.y) > 0.5
        for k, a in enumerate(nodes) for b in nodes[k + 1:])


def _brute_force_clearance(result: LayoutResult) -> tuple[float, int]:
    """(smallest segment-to-foreign-box distance, edge-node pairs closer than
    12 - 0.5 px that the edge does not pass through)."""
    distances: dict[tuple[int, str], float] = {}
    through: set[tuple[int, str]] = set()
    for s in _all_segments(result):
        for n in result.nodes:
            if n.id in (s.source, s.target):
                continue
            d = segment_box_distance(s, n.x, n.y, n.x + n.width, n.y + n.height)
            distances[(s.edge, n.id)] = min(d, distances.get((s.edge, n.id), math.inf))
            if intrudes(s, n):
                through.add((s.edge, n.id))
    near = sum(d < 11.5 for key, d in distances.items() if key not in through)
    return min(distances.values()), near


def test_report_to_dict_is_json_ready() -> None:
    q = measure(_result([A, B], [("a", "b", [(50, 10), (50, 90)])]))
    data = q.to_dict()
    assert data["minClearance"] is None
    assert data["crossings"] == 0 and data["totalEdgeLength"] == 80
    assert set(data) >= {"sharedSegments", "nodeOverlaps", "edgeNodeIntrusions",
                         "ownEndIntrusions", "endpointsOffOutline", "nonOrthogonalSegments",
                         "bends", "area", "clearanceViolations"}
    assert isinstance(q, QualityReport)


def test_bad_results_raise_a_typed_error_naming_the_problem() -> None:
    with pytest.raises(InvalidLayoutResultError, match="unknown node 'zz'"):
        measure(_result([A], [("a", "zz", [(50, 10), (50, 90)])]))
    with pytest.raises(InvalidLayoutResultError, match="fewer than 2"):
        measure(_result([A, B], [("a", "b", [(50, 10)])]))
    with pytest.raises(InvalidLayoutResultError, match="non-finite"):
        measure(_result([A, B], [("a", "b", [(50, 10), (math.nan, 90)])]))
    with pytest.raises(InvalidLayoutResultError, match="clearance"):
        measure(_result([A], []), clearance=-1)
    with pytest.raises(InvalidLayoutResultError, match="duplicate node id 'a'"):
        measure(_result([A, A], []))
    with pytest.raises(InvalidLayoutResultError, match="LayoutResult"):
        measure({"nodes": []})  # type: ignore[arg-type]


def test_own_end_intrusion_follows_a_diamond_outline() -> None:
    # Diamond g = (0,0,40,40), centre (20,20). e0 leaves the right tip (40,20) going right,
    # climbs to y=-10 and comes down at x=20 through the diamond (it spans y 0..40 at
    # x=20) to b's top at y=100: one own-end intrusion. e1 leaves the same tip, climbs
    # and comes down at x=38: at x=38 the diamond spans |y-20| < 20*(1 - 18/20) = 2,
    # and the point (38,20) lies (1 - 18/20) / hypot(1/20, 1/20) = 1.41 px inside the
    # faces, deeper than the 0.5 px margin: intrusion.
    # e2 comes down at x=45, outside the tip: none.
    g = NodeBox("g", 0, 0, 40, 40, Shape.DIAMOND)
    b = NodeBox("b", 0, 100, 60, 20)
    q = measure(_result([g, b], [
        ("g", "b", [(40, 20), (50, 20), (50, -10), (20, -10), (20, 100)]),
        ("g", "b", [(40, 20), (52, 20), (52, -12), (38, -12), (38, 100)]),
        ("g", "b", [(40, 20), (45, 20), (45, 100)]),
    ]))
    assert q.own_end_intrusions == 2
    assert q.endpoints_off_outline == 0


def test_endpoint_off_a_circle_outline() -> None:
    # Circle c = (0,0,40,20): radius min(40,20)/2 = 10 around (20,10). (20,20) is on it;
    # (32,10) is 2 px outside it (|32-20| - 10 = 2), although inside the box.
    c, b = NodeBox("c", 0, 0, 40, 20, Shape.CIRCLE), NodeBox("b", 0, 100, 60, 20)
    q = measure(_result([c, b], [("c", "b", [(20, 20), (20, 100)]),
                                 ("c", "b", [(32, 10), (45, 10), (45, 100)])]))
    assert q.endpoints_off_outline == 1


def test_empty_result_measures_zero() -> None:
    q = measure(_result([], [], 0, 0))
    assert (q.crossings, q.node_overlaps, q.bends, q.total_edge_length, q.area) == (0, 0, 0, 0, 0)
    assert q.min_clearance == math.inf


def _transformed(result: LayoutResult, dx: float, dy: float, transpose: bool) -> LayoutResult:
    def point(p: Point) -> Point:
        x, y = (p.y, p.x) if transpose else (p.x, p.y)
        return Point(x + dx, y + dy)

    nodes = tuple(
        NodeBox(n.id, *((n.y, n.x, n.height, n.width) if transpose
                        else (n.x, n.y, n.width, n.height)), n.shape)
        for n in result.nodes)
    nodes = tuple(NodeBox(n.id, n.x + dx, n.y + dy, n.width, n.height, n.shape) for n in nodes)
    edges = tuple(EdgeRoute(e.id, e.source, e.target, tuple(point(p) for p in e.points))
                  for e in reversed(result.edges))
    return LayoutResult(nodes, edges, result.width, result.height, result.diagnostics)


@given(seed=st.integers(0, 10_000), dx=st.integers(-5000, 5000), dy=st.integers(-5000, 5000),
       transpose=st.booleans())
@settings(max_examples=25, deadline=None)
def test_metrics_do_not_depend_on_position_axis_or_edge_order(
        seed: int, dx: int, dy: int, transpose: bool) -> None:
    # Moving the whole drawing by whole pixels, swapping x and y, and reversing the edge
    # order changes no count and no distance. Routes are orthogonal on a half-pixel
    # lattice, so every distance is computed from exact coordinate differences.
    rng = random.Random(seed)
    nodes = [NodeBox(f"n{i}", rng.randrange(0, 300, 5), rng.randrange(0, 300, 5),
                     rng.choice((10, 20)), 10, rng.choice(list(Shape))) for i in range(12)]
    routes = []
    for _ in range(15):
        s, t = rng.sample(nodes, 2)
        points = [(s.x + s.width / 2, s.y + s.height)]
        for _ in range(rng.randint(0, 2)):
            points.append((points[-1][0], rng.randrange(0, 300, 10)))
            points.append((rng.randrange(0, 300, 10), points[-1][1]))
        points.append((t.x + t.width / 2, points[-1][1]))
        points.append((t.x + t.width / 2, t.y))
        routes.append((s.id, t.id, points))
    original = measure(_result(nodes, routes, 300, 300))
    moved = measure(_transformed(_result(nodes, routes, 300, 300), dx, dy, transpose))
    assert original.to_dict() == moved.to_dict()
