"""Straight ends of long edges: a dummy run moved under (over) its end slot
(:mod:`layouts.layered.placement.chain_ends`), and a diamond's end turning into its side
face for a column under its outer third (:mod:`layouts.layered.routing.elbows`).
Every expected coordinate is worked out from the slot lattice by hand.

Routing defaults: edge_spacing 12, clearance 12, layer_spacing 60; a channel with no
tracks is 60 high.
"""

from __future__ import annotations

from dataclasses import replace

from pytest import approx

from layouts.api import layout
from layouts.graph import Edge, Graph, Node, Shape
from layouts.layered.graph import EngineNode, ProperGraph
from layouts.layered.model import ChainEdge, Deadline, PlacedNode, Placement
from layouts.layered.placement.chain_ends import straighten
from layouts.layered.placement.ports import port_offsets
from layouts.layered.routing import route_edges
from layouts.options import Direction, LayoutOptions
from layouts.quality_geometry import bend_count, simplified
from layouts.result import EdgeEnd, EdgeRoute, Point, Side

# --- placement: dummy runs under their slots ------------------------------------------

LAYERS = [[0], [4, 1], [5, 2, 6], [3]]
"""a (90 wide) over its child b and the run ~d1, ~d2 of the long edge a -> c; y stands
at the right end of ~d2's layer."""


def long_edge_graph() -> ProperGraph:
    nodes = (EngineNode("a", 90, 40), EngineNode("b", 40, 40), EngineNode("x", 40, 40),
             EngineNode("c", 40, 40), EngineNode("~d1", 0, 0, dummy=True),
             EngineNode("~d2", 0, 0, dummy=True), EngineNode("y", 40, 40))
    edges = (ChainEdge("long", "a", "c", "a", "c", ("~d1", "~d2"), False, False),
             ChainEdge("ab", "a", "b", "a", "b", (), False, False),
             ChainEdge("bx", "b", "x", "b", "x", (), False, False))
    segments = ((0, 4), (4, 5), (5, 3), (0, 1), (1, 2))
    index = {n.id: i for i, n in enumerate(nodes)}
    return ProperGraph(nodes, (0, 1, 2, 3, 1, 2, 2), 4, segments, edges, (0,) * 7, index)


def xy(point: Point) -> tuple[float, float]:
    return point.x, point.y


def spaced(left: int, right: int) -> float:
    return 50.0


def test_the_dummy_run_moves_under_the_slot_its_edge_leaves_from() -> None:
    g = long_edge_graph()
    ports = port_offsets(g, LAYERS, ())
    # a's bottom face holds two ends, ~d1 (left) and b: slots at 90 * 1/3 and 90 * 2/3
    # from a's left side (a centred at 45, so at 30 and 60)
    assert ports.bottom[(0, 4)] == 90 / 3 - 45
    centre = [45.0, 150.0, 150.0, 200.0, 38.0, 38.0, 400.0]   # the run at 38, c not under it
    straighten(g, LAYERS, centre, spaced, ports, 12)
    assert centre[4] == centre[5] == 90 / 3


def test_the_run_stays_when_it_would_bend_the_straight_segment_below_it() -> None:
    g = long_edge_graph()
    centre = [45.0, 150.0, 150.0, 38.0, 38.0, 38.0, 400.0]    # c (centre 38) under the run
    straighten(g, LAYERS, centre, spaced, port_offsets(g, LAYERS, ()), 12)
    assert centre[4] == centre[5] == 38.0


def test_the_run_stays_when_a_neighbour_leaves_no_room() -> None:
    g = long_edge_graph()
    # b sits 70 right of the run in ~d1's layer; at 30 the run would be 80 from b, but
    # x (in ~d2's layer) sits at 75, only 45 right of 30 with 50 to keep; nor out
    # beside a's right side, at 45 + 90 / 2 + 12 = 102, past x and too near b
    centre = [45.0, 108.0, 75.0, 200.0, 38.0, 38.0, 400.0]
    straighten(g, LAYERS, centre, spaced, port_offsets(g, LAYERS, ()), 12)
    assert centre[4] == centre[5] == 38.0


def test_the_last_run_moves_over_the_slot_its_edge_enters() -> None:
    g = long_edge_graph()
    centre = [45.0, 150.0, 250.0, 200.0, 30.0, 190.0, 400.0]  # ~d1 under a; ~d2 off c's slot
    straighten(g, LAYERS, centre, spaced, port_offsets(g, LAYERS, ()), 12)
    # c has one end on its top face: its centre slot, x = 200 (x, right of ~d2 in
    # its layer at 250, leaves 250 - 50 of room)
    assert centre[5] == 200.0 and centre[4] == 30.0


def test_a_run_kept_from_its_slot_moves_out_beside_its_node() -> None:
    # ~d1 right of b (centre 30, under a's left slot): a's right slot (60) is only 30 from
    # b, with 50 to keep; out beside a's right side instead, half a's width and the
    # clearance right of its centre, where the end turns into a's side face
    g = long_edge_graph()
    layers = [[0], [1, 4], [2, 5, 6], [3]]
    centre = [45.0, 30.0, 30.0, 200.0, 80.0, 80.0, 160.0]   # y keeps ~d2 from c's 200
    straighten(g, layers, centre, spaced, port_offsets(g, layers, ()), 12)
    assert centre[4] == centre[5] == 45 + 90 / 2 + 12


def test_a_run_far_beside_its_node_moves_in_to_the_side_face_reach() -> None:
    g = long_edge_graph()
    layers = [[0], [1, 4], [2, 5, 6], [3]]
    centre = [45.0, 30.0, 30.0, 300.0, 200.0, 200.0, 260.0]   # y keeps ~d2 left of 210
    straighten(g, layers, centre, spaced, port_offsets(g, layers, ()), 12)
    # a's right slot (60) is 30 from b, with 50 to keep: in to 45 + 90 / 2 + 12 instead;
    # c (centre 300) stays out of reach (y), over it or 20 + 12 beside it
    assert centre[4] == centre[5] == 45 + 90 / 2 + 12


def test_a_diamond_run_moves_out_to_its_off_tip_side_slot_column() -> None:
    g = long_edge_graph()
    diamond = replace(g.nodes[0], shape=Shape.DIAMOND)
    g = replace(g, nodes=(diamond, *g.nodes[1:]))
    layers = [[0], [1, 4], [2, 5, 6], [3]]
    centre = [45.0, 30.0, 30.0, 200.0, 80.0, 80.0, 160.0]   # y keeps ~d2 from c's 200
    straighten(g, layers, centre, spaced, port_offsets(g, layers, ()), 12)
    # a third of the width and half the clearance: 45 + 90 / 3 + 12 / 2 = 81
    assert centre[4] == centre[5] == 45 + 90 / 3 + 12 / 2


def test_a_long_edge_enters_its_target_straight_down_from_its_last_dummy() -> None:
    # n0 -> n2 spans two layers beside n0 -> n1 -> n2; Brandes-Koepf left its dummy a
    # fraction of a pixel off n2's top slot, a jog of two bends just above n2
    g = Graph((Node("n0", 100, 40), Node("n1", 60, 40), Node("n2", 140, 40),
               Node("n3", 100, 40), Node("n4", 140, 40)),
              (Edge("e1", "n0", "n1"), Edge("e2", "n0", "n2"), Edge("e3", "n2", "n3"),
               Edge("e4", "n1", "n4"), Edge("x0", "n1", "n2")))
    result = layout(g, engine="layered", options=LayoutOptions())
    n2 = result.node("n2")
    route = next(e for e in result.edges if e.id == "e2")
    points = simplified(route.points)
    # n2's top face holds x0 (from n1, on the left) and e2: e2 takes slot 1 of 2
    assert route.target_end == EdgeEnd(Side.TOP, 1)
    assert xy(points[-1]) == approx((n2.x + 140 * 2 / 3, n2.y))
    assert points[-2].x == points[-1].x                 # one vertical down from the track
    assert bend_count(route.points) == 2                # the one jog below n0


# --- routing: a diamond's side face for a column under its outer third ---------------

def node(node_id: str, layer: int, order: int, x: float, y: float, width: float,
         height: float, shape: Shape = Shape.RECT) -> PlacedNode:
    return PlacedNode(node_id, layer, order, x, y, width, height, shape)


def dummy(node_id: str, layer: int, order: int, x: float) -> PlacedNode:
    return PlacedNode(node_id, layer, order, x, 0.0, 0.0, 0.0, dummy=True)


def forward(edge_id: str, upper: str, lower: str, chain: tuple[str, ...] = ()) -> ChainEdge:
    return ChainEdge(edge_id, upper, lower, upper, lower, chain, False, False)


def routes(nodes: list[PlacedNode], edges: list[ChainEdge],
           layers: tuple[tuple[str, ...], ...]) -> dict[str, EdgeRoute]:
    placement = Placement({n.id: n for n in nodes}, layers, tuple(edges), 40.0, 60.0)
    routing = route_edges(placement, LayoutOptions(), Deadline(10), elbows=True)
    return {e.id: e for e in routing.edges}


def test_a_gateway_exit_over_its_outer_third_leaves_by_the_side_face() -> None:
    # the diamond g: 0..120 x 0..60, centre (60, 30); its bottom face holds gb (b centred
    # under slot 0 of 2, x = 120/3 = 40) and gc, whose dummy lies at x = 110, under the
    # face but past 60 + 120/3 + 12/2 = 106 (a third of the width and half the clearance)
    nodes = [node("g", 0, 0, 0, 0, 120, 60, Shape.DIAMOND), node("b", 1, 0, 20, 100, 40, 40),
             dummy("d", 1, 1, 110), node("c", 2, 0, 90, 200, 40, 40)]
    edges = [forward("gb", "g", "b"), forward("gc", "g", "c", ("d",))]
    r = routes(nodes, edges, (("g",), ("b", "d"), ("c",)))
    # slot 1 of 2 on the right face: y = 60 * 2/3 = 40, where the outline is
    # 60 * (1 - (40 - 30) / 30) = 40 right of the centre: x = 100 (= 60 + 120/3);
    # across to the column and straight down to c's top (layer 2 at 60 + 60 + 40 + 60)
    assert r["gc"].points == (Point(100, 40), Point(110, 40), Point(110, 220))
    assert r["gc"].source_end == EdgeEnd(Side.RIGHT, 1, 2)
    # gb keeps its slot of the bottom face's lattice of two: x = 40, where the outline
    # is 30 * (1 - 20/60) = 20 below the centre
    assert r["gb"].points == (Point(40, 50), Point(40, 120))
    assert r["gb"].source_end == EdgeEnd(Side.BOTTOM, 0, 2)


def test_a_column_short_of_the_outer_third_keeps_the_end_on_the_bottom_face() -> None:
    # the dummy at 105 lies under 106: the route jogs from the bottom face instead
    nodes = [node("g", 0, 0, 0, 0, 120, 60, Shape.DIAMOND), node("b", 1, 0, 20, 100, 40, 40),
             dummy("d", 1, 1, 105), node("c", 2, 0, 85, 200, 40, 40)]
    edges = [forward("gb", "g", "b"), forward("gc", "g", "c", ("d",))]
    gc = routes(nodes, edges, (("g",), ("b", "d"), ("c",)))["gc"]
    assert gc.source_end.side is Side.BOTTOM and bend_count(gc.points) == 2


def test_a_join_entry_over_its_outer_third_enters_by_the_upper_side_slot() -> None:
    # the join j: 0..120 x 200..260 (layer 2), centre (60, 230); b (centred at 40) runs
    # straight into slot 0 of 2 of its top face, a's long edge comes down at x = 110
    nodes = [node("a", 0, 0, 90, 0, 40, 40), node("b", 1, 0, 20, 100, 40, 40),
             dummy("d", 1, 1, 110), node("j", 2, 0, 0, 200, 120, 60, Shape.DIAMOND)]
    edges = [forward("aj", "a", "j", ("d",)), forward("bj", "b", "j")]
    r = routes(nodes, edges, (("a",), ("b", "d"), ("j",)))
    # slot 0 of 2 on the right face: y = 200 + 60/3 = 220, the outline 60 * (1 - 10/30)
    # = 40 right of the centre: x = 100; the side tip (120, 230) stays empty
    assert r["aj"].points == (Point(110, 40), Point(110, 220), Point(100, 220))
    assert r["aj"].target_end == EdgeEnd(Side.RIGHT, 0, 2)
    assert r["bj"].points == (Point(40, 140), Point(40, 210))   # 230 - 30 * (1 - 20/60)


def decision_graph() -> Graph:
    """p -> d (a gateway) -> a -> x -> z, and d -> z past a and x."""
    return Graph((Node("p", 120, 50), Node("d", 140, 70, Shape.DIAMOND), Node("a", 120, 50),
                  Node("x", 120, 50), Node("z", 120, 50)),
                 (Edge("pd", "p", "d"), Edge("da", "d", "a"), Edge("ax", "a", "x"),
                  Edge("xz", "x", "z"), Edge("dz", "d", "z")))


def test_a_gateway_skip_edge_leaves_by_its_side_in_both_directions() -> None:
    for direction in (Direction.TOP_TO_BOTTOM, Direction.LEFT_TO_RIGHT):
        result = layout(decision_graph(), engine="layered",
                        options=LayoutOptions(direction=direction))
        d = result.node("d")
        dz = simplified(next(e for e in result.edges if e.id == "dz").points)
        if direction is Direction.TOP_TO_BOTTOM:
            # the lower slot of two on the right face: a third of the width right of the
            # centre, two thirds down the face; then across and down (one bend)
            assert xy(dz[0]) == approx((d.x + 140 / 2 + 140 / 3, d.y + 70 * 2 / 3))
            assert dz[1].y == dz[0].y and dz[1].x > dz[0].x and dz[2].x == dz[1].x
        else:
            # transposed: the lower slot of two on the bottom face, a third of the
            # height below the centre, two thirds along; then down and right
            assert xy(dz[0]) == approx((d.x + 140 * 2 / 3, d.y + 70 / 2 + 70 / 3))
            assert dz[1].x == dz[0].x and dz[1].y > dz[0].y and dz[2].y == dz[1].y
