"""Border dummies moved over their pieces' bends (layouts/layered/hierarchy/straighten.py):
an edge into a compound jogs once at the border, not twice; a move that would meet
another route, a node or a neighbour dummy is not taken."""

from __future__ import annotations

from layouts.api import layout
from layouts.graph import Edge, Graph, Node
from layouts.layered.hierarchy.straighten import straighten_borders
from layouts.layered.model import Routing
from layouts.result import EdgeRoute, NodeBox, Point


def _jogs_inside(route: EdgeRoute, box: NodeBox) -> int:
    return sum(1 for p, q in zip(route.points, route.points[1:], strict=False)
               if abs(p.y - q.y) < 1e-9 and box.y < p.y < box.y + box.height)


def test_each_edge_into_a_compound_jogs_at_most_once_inside_it() -> None:
    # two edges from above into one child: its top face spreads their slots, so each
    # piece from its border dummy used to jog again just inside the border strip
    graph = Graph((Node("t1", 80, 40), Node("t2", 80, 40),
                   Node("g", 10, 10, label="group",
                        children=(Node("a", 100, 40), Node("b", 100, 40)))),
                  (Edge("e1", "t1", "a"), Edge("e2", "t2", "a"), Edge("ab", "a", "b")))
    for direction in ("TopToBottom", "LeftToRight"):
        result = layout(graph, engine="layered", direction=direction)
        g = result.node("g")
        if direction == "LeftToRight":   # look at it in the top-to-bottom frame
            g = NodeBox(g.id, g.y, g.x, g.height, g.width)
            routes = [EdgeRoute(r.id, r.source, r.target,
                                tuple(Point(p.y, p.x) for p in r.points)) for r in result.edges]
        else:
            routes = list(result.edges)
        assert [_jogs_inside(r, g) for r in routes] == [1, 1, 0], direction


def _level(blocker: EdgeRoute | None) -> Routing:
    """An entering dummy at x 40 whose piece jogs at y 30 to column 30 into ``a``."""
    routes = (EdgeRoute("e", "in", "a", (Point(40, 1), Point(40, 30), Point(30, 30),
                                         Point(30, 60))),)
    return Routing((NodeBox("in", 39.5, 0, 1, 1), NodeBox("a", 0, 60, 120, 40)),
                   routes + ((blocker,) if blocker else ()), 120, 100)


def test_a_move_is_taken_when_the_run_is_clear() -> None:
    moved = straighten_borders(_level(None), frozenset({"in"}), frozenset(), 12, 12)
    assert moved.nodes[0].x == 30 - 0.5
    assert moved.edges[0].points == (Point(30, 1), Point(30, 60))


def test_a_move_is_refused_when_another_route_crosses_the_new_run() -> None:
    # a horizontal segment at y 20 from x 20 to 35 crosses x 30 between y 1 and 30
    blocker = EdgeRoute("f", "x", "y", (Point(20, 10), Point(20, 20), Point(35, 20),
                                        Point(35, 60)))
    level = _level(blocker)
    assert straighten_borders(level, frozenset({"in"}), frozenset(), 12, 12) == level


def test_a_move_is_refused_past_a_neighbour_dummy() -> None:
    # a second entering dummy at x 32: moving to 30 would pass it (dummies keep order)
    level = _level(None)
    other = NodeBox("in2", 32 - 0.5, 0, 1, 1)
    level = Routing((*level.nodes, other), level.edges, level.width, level.height)
    assert straighten_borders(level, frozenset({"in", "in2"}), frozenset(), 12, 12) == level
