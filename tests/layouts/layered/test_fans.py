"""Fans (:mod:`layouts.layered.fans`): a gateway's edges share one trunk from its tip and
split on one line. Expected coordinates from the default spacings: a channel with one
track is ``layer_spacing`` = 60 high and centres its track, so the track lies
12 (clearance) + (60 - 24) / 2 = 30 below the layer above: the trunk is 30 long."""

from __future__ import annotations

import pytest

from layouts.graph import Edge, Graph, Node, Shape
from layouts.layered import fans
from layouts.layered.contracts import check_layout, check_shared_stretches, check_slots
from layouts.layered.model import Routing
from layouts.layered.pipeline import run_layout
from layouts.options import Direction, LayoutOptions
from layouts.result import EdgeEnd, EdgeRoute, NodeBox, Point, Side

OPTIONS = LayoutOptions()
TRUNK = 30.0


def _fork(branches: int) -> Graph:
    children = [Node(f"c{i}", 100, 40) for i in range(branches)]
    return Graph((Node("g", 80, 40, Shape.DIAMOND), *children),
                 tuple(Edge(f"e{i}", "g", f"c{i}") for i in range(branches)))


def test_two_branches_share_a_trunk_from_the_tip_and_split_symmetrically() -> None:
    result = run_layout(_fork(2), OPTIONS)
    g = result.node("g")
    tip = Point(g.center.x, g.y + g.height)
    left, right = result.edges
    for route in (left, right):
        assert route.points[0] == tip
        assert route.points[1] == Point(tip.x, tip.y + TRUNK)      # the shared trunk
        assert route.source_end == EdgeEnd(Side.BOTTOM, 0)
    # split on one line, the two branches equally far to either side
    assert left.points[2].y == right.points[2].y == tip.y + TRUNK
    assert tip.x - left.points[2].x == right.points[2].x - tip.x > 0
    assert check_layout(_fork(2), result, OPTIONS) == []


def test_the_middle_of_three_branches_runs_straight_down_the_trunk() -> None:
    result = run_layout(_fork(3), OPTIONS)
    g = result.node("g")
    tip = Point(g.center.x, g.y + g.height)
    outer_left, middle, outer_right = result.edges
    assert middle.points == (tip, Point(tip.x, result.node("c1").y))
    assert outer_left.points[:2] == outer_right.points[:2] == (tip, Point(tip.x, tip.y + TRUNK))
    assert check_layout(_fork(3), result, OPTIONS) == []


def test_left_to_right_fans_leave_the_right_tip() -> None:
    options = LayoutOptions(direction=Direction.LEFT_TO_RIGHT)
    result = run_layout(_fork(2), options)
    g = result.node("g")
    tip = Point(g.x + g.width, g.center.y)
    assert [r.points[:2] for r in result.edges] == [(tip, Point(tip.x + TRUNK, tip.y))] * 2
    assert check_layout(_fork(2), result, options) == []


def test_a_join_under_three_inputs_takes_them_through_one_trunk() -> None:
    # fork g -> b, c, d and join b, c, d -> j: j sits under c, the middle input, which
    # runs straight into its top tip; b and d meet c's line 30 above the tip
    graph = Graph((Node("g", 80, 40, Shape.DIAMOND), Node("b", 100, 40), Node("c", 100, 40),
                   Node("d", 100, 40), Node("j", 80, 40, Shape.DIAMOND), Node("z", 100, 40)),
                  (Edge("e1", "g", "b"), Edge("e2", "g", "c"), Edge("e3", "g", "d"),
                   Edge("e4", "b", "j"), Edge("e5", "c", "j"), Edge("e6", "d", "j"),
                   Edge("e7", "j", "z")))
    result = run_layout(graph, OPTIONS)
    j = result.node("j")
    tip = Point(j.center.x, j.y)
    routes = {r.id: r for r in result.edges}
    assert routes["e5"].points == (Point(tip.x, result.node("c").y + 40), tip)
    for key in ("e4", "e6"):
        assert routes[key].points[-2:] == (Point(tip.x, tip.y - TRUNK), tip)
        assert routes[key].target_end == EdgeEnd(Side.TOP, 0)
    assert check_layout(graph, result, OPTIONS) == []


def test_fan_edges_may_share_their_trunk_but_other_edges_still_may_not() -> None:
    g = NodeBox("g", 80, 0, 80, 40, Shape.DIAMOND)
    b, c = NodeBox("b", 0, 100, 100, 40), NodeBox("c", 140, 100, 100, 40)
    tip = Point(120, 40)
    e1 = EdgeRoute("e1", "g", "b", (tip, Point(120, 70), Point(50, 70), Point(50, 100)),
                   EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0))
    e2 = EdgeRoute("e2", "g", "c", (tip, Point(120, 70), Point(190, 70), Point(190, 100)),
                   EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0))
    nodes = {n.id: n for n in (g, b, c)}
    assert check_slots([e1, e2], nodes) == []          # one slot used: the tip
    assert check_shared_stretches([e1, e2]) == []
    # an edge from elsewhere along the same trunk line is still a shared stretch
    e3 = EdgeRoute("e3", "b", "c", (Point(120, 45), Point(120, 65)))
    assert [v.edge for v in check_shared_stretches([e1, e2, e3])] == ["e1", "e2"]


def test_a_fan_is_weighed_on_the_segments_it_changes_only() -> None:
    # before: down from slot x 106.7 to y 70, across to x 50, down to 100; after: from the
    # tip x 120 down to 70, across to 50, down to 100. The last segment is in both (it
    # meets the other routes the same way), so only the first two of each are compared
    before = [(Point(106.7, 33.3), Point(106.7, 70), Point(50, 70), Point(50, 100))]
    after = [(Point(120, 40), Point(120, 70), Point(50, 70), Point(50, 100))]
    old, new = fans._changed(before, after)
    assert [(s.x1, s.y1, s.x2, s.y2) for s in old] == [(106.7, 33.3, 106.7, 70),
                                                         (106.7, 70, 50, 70)]
    assert [(s.x1, s.y1, s.x2, s.y2) for s in new] == [(120, 40, 120, 70),
                                                         (120, 70, 50, 70)]
    # a segment twice before and once after (two routes on one stretch) counts once
    old, new = fans._changed([before[0], before[0]], before)
    assert len(old) == 3 and new == []


def test_a_drawing_without_diamonds_weighs_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    boxes = (NodeBox("a", 0, 0, 100, 40), NodeBox("b", 0, 100, 100, 40),
             NodeBox("c", 140, 100, 100, 40))
    routes = (EdgeRoute("e", "a", "b", (Point(33.3, 40), Point(33.3, 100))),
              EdgeRoute("f", "a", "c", (Point(66.7, 40), Point(66.7, 70), Point(190, 70),
                                        Point(190, 100))))
    monkeypatch.setattr(fans, "_bounds", lambda points: pytest.fail("bounds taken"))
    monkeypatch.setattr(fans, "NodeBands", lambda nodes: pytest.fail("nodes filed"))
    routing = Routing(boxes, routes, 240, 140)
    assert fans.run(routing, 12) == routing


def _fork_beside(x: float) -> Routing:
    # the module's example, e2 turning at y = 60 (so the split line is 60 and e1's column
    # at x = 50 starts there instead of at 70), and a route f coming down x = ``x`` to
    # y = 65, then off to the left: left of e1's column, so nothing crosses
    g = NodeBox("g", 80, 0, 80, 40, Shape.DIAMOND)
    b, c = NodeBox("b", 0, 100, 100, 40), NodeBox("c", 140, 100, 100, 40)
    e1 = EdgeRoute("e1", "g", "b", (Point(106.7, 33.3), Point(106.7, 70), Point(50, 70),
                   Point(50, 100)), EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0))
    e2 = EdgeRoute("e2", "g", "c", (Point(133.3, 33.3), Point(133.3, 60), Point(190, 60),
                   Point(190, 100)), EdgeEnd(Side.BOTTOM, 1), EdgeEnd(Side.TOP, 0))
    f = EdgeRoute("f", "p", "q", (Point(x, 45), Point(x, 65), Point(-30, 65)))
    return Routing((g, b, c), (e1, e2, f), 240, 140)


def test_a_fan_that_would_run_along_another_route_within_half_a_pixel_is_refused() -> None:
    # fanned, e1's column x = 50 would run from y = 60 down, along f's x = 49.7 from 60 to
    # 65: 0.3 px apart, one line as the contracts see it (0.5 px), a shared stretch
    routing = _fork_beside(49.7)
    assert fans.run(routing, clearance=12) == routing
    # 5 px apart, the same fan is kept: e1 leaves the tip (120, 40) and splits at y = 60
    fanned = fans.run(_fork_beside(45), clearance=12)
    assert fanned.edges[0].points == (Point(120, 40), Point(120, 60), Point(50, 60),
                                      Point(50, 100))
