"""Routing on hand-built placements: every expected coordinate is worked out by hand.

Defaults: edge_spacing 12, clearance 12, layer_spacing 60. An inner channel with t
tracks is max(60, 12 + 12 * (t - 1) + 12) high and centres its tracks, so one track
sits 30 px below the channel's top; an outer channel (above the first or below the
last layer) is only as high as its tracks need (24 for one track, track at 12).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from layouts.graph import Shape
from layouts.layered.model import ChainEdge, Deadline, PlacedNode, Placement, Routing
from layouts.layered.routing import RoutingInputError, route_edges
from layouts.options import LayoutOptions
from layouts.result import Point, Side


def node(node_id: str, layer: int, order: int, x: float, y: float, width: float,
         height: float, shape: Shape = Shape.RECT) -> PlacedNode:
    return PlacedNode(node_id, layer, order, x, y, width, height, shape)


def dummy(node_id: str, layer: int, order: int, x: float) -> PlacedNode:
    return PlacedNode(node_id, layer, order, x, 0.0, 0.0, 0.0, dummy=True)


def forward(edge_id: str, upper: str, lower: str, chain: tuple[str, ...] = (),
            label: tuple[float, float] = (0.0, 0.0)) -> ChainEdge:
    return ChainEdge(edge_id, upper, lower, upper, lower, chain, False, False, *label)


def loop_back(edge_id: str, source: str, target: str) -> ChainEdge:
    """A declared loop-back from ``source`` (lower layer) to ``target`` (upper layer)."""
    return ChainEdge(edge_id, source, target, target, source, (), True, True)


def self_loop(edge_id: str, node_id: str) -> ChainEdge:
    return ChainEdge(edge_id, node_id, node_id, node_id, node_id, (), False, False)


def placement(nodes: list[PlacedNode], edges: list[ChainEdge]) -> Placement:
    layer_count = max(n.layer for n in nodes) + 1
    layers = tuple(
        tuple(n.id for n in sorted((n for n in nodes if n.layer == i), key=lambda n: n.order))
        for i in range(layer_count))
    return Placement({n.id: n for n in nodes}, layers, tuple(edges), 40.0, 60.0)


def route(nodes: list[PlacedNode], edges: list[ChainEdge],
          options: LayoutOptions | None = None) -> Routing:
    return route_edges(placement(nodes, edges), options or LayoutOptions(), Deadline(10))


def pts(*xy: tuple[float, float]) -> tuple[Point, ...]:
    return tuple(Point(x, y) for x, y in xy)


def test_two_nodes_in_a_column_get_a_straight_edge_between_centre_slots() -> None:
    r = route([node("a", 0, 0, 0, 0, 100, 40), node("b", 1, 0, 0, 100, 100, 40)],
              [forward("e", "a", "b")])
    e = r.edges[0]
    # bottom centre of a: (0 + 100/2, 40); b's layer: 40 + 60 (empty channel) = 100
    assert e.points == pts((50, 40), (50, 100))
    assert (e.source_end.side, e.source_end.slot) == (Side.BOTTOM, 0)
    assert (e.target_end.side, e.target_end.slot) == (Side.TOP, 0)
    assert (r.width, r.height) == (100, 140)


def gateway_nodes(targets: list[tuple[str, float, float]]) -> list[PlacedNode]:
    # a 60 x 40 diamond centred at x = 100: tips (70, 20), (130, 20), (100, 0), (100, 40)
    nodes = [node("g", 0, 0, 70, 0, 60, 40, Shape.DIAMOND)]
    nodes += [node(t, 1, i, x, 100, w, 40) for i, (t, x, w) in enumerate(targets)]
    return nodes


def test_gateway_with_two_branches_uses_slots_at_thirds_on_the_diamond_outline() -> None:
    nodes = gateway_nodes([("a", 0, 80), ("b", 120, 80)])
    r = route(nodes, [forward("ea", "g", "a"), forward("eb", "g", "b")])
    # slots x = 70 + 60 * 1/3 = 90 and 70 + 60 * 2/3 = 110; |dx| = 10 from the centre, so
    # y = 20 + 20 * (1 - 10/30) = 33.33 on the lower outline. Legs 90->40 and 110->160 are
    # 20 px apart (> 12): both on track 0 at 40 + 30 = 70. Layer 1 top: 40 + 60 = 100.
    y = 20 + 20 * (1 - 10 / 30)
    assert r.edges[0].points == pts((90, y), (90, 70), (40, 70), (40, 100))
    assert r.edges[1].points == pts((110, y), (110, 70), (160, 70), (160, 100))
    assert [e.source_end.slot for e in r.edges] == [0, 1]


def test_gateway_with_three_branches_middle_one_leaves_from_the_bottom_tip() -> None:
    nodes = gateway_nodes([("a", -60, 80), ("m", 50, 100), ("b", 180, 80)])
    r = route(nodes, [forward("ea", "g", "a"), forward("em", "g", "m"), forward("eb", "g", "b")])
    # slots x = 70 + 15, 70 + 30, 70 + 45; |dx| = 15 gives y = 20 + 20 * (1 - 15/30) = 30.
    # Node a starts at x = -60, so everything then shifts right by 60.
    shift = 60
    assert r.edges[0].points[0] == Point(85 + shift, 30)
    assert r.edges[1].points == pts((100 + shift, 40), (100 + shift, 100))  # bottom tip down
    assert r.edges[2].points[0] == Point(115 + shift, 30)
    assert r.edges[0].points[-1] == Point(-20 + shift, 100)
    assert r.nodes[0].x == 70 + shift


def test_long_edge_runs_vertically_through_its_dummy() -> None:
    nodes = [node("a", 0, 0, 0, 0, 100, 40), dummy("d", 1, 0, 150),
             node("c", 2, 0, 0, 200, 100, 40)]
    r = route(nodes, [forward("e", "a", "c", chain=("d",))])
    # layer 1 holds only the dummy (height 0): channel 1 spans 40..100 (track at 70),
    # channel 2 spans 100..160 (track at 130), layer 2 starts at 160.
    assert r.edges[0].points == pts((50, 40), (50, 70), (150, 70), (150, 130), (50, 130),
                                    (50, 160))


def test_loop_back_runs_round_the_left_in_its_own_corridor() -> None:
    nodes = [node("a", 0, 0, 0, 0, 100, 40), node("b", 1, 0, 0, 100, 100, 40)]
    r = route(nodes, [forward("f", "a", "b"), loop_back("r", "b", "a")])
    # corridor at 0 - 12 = -12, then everything shifts right by 12.
    # channel 0 (above a) holds one track: 24 high, track at 12; a at 24..64;
    # channel 1 is empty (60): b at 124..164; channel 2 (below b): track at 164 + 12.
    assert r.edges[1].points == pts((62, 164), (62, 176), (0, 176), (0, 12), (62, 12),
                                    (62, 24))
    assert r.edges[1].loop_back and not r.edges[0].loop_back
    assert (r.edges[1].source, r.edges[1].target) == ("b", "a")
    assert r.edges[0].points == pts((62, 64), (62, 124))
    assert (r.width, r.height) == (112, 188)


def test_two_loop_backs_over_overlapping_layers_get_separate_nested_corridors() -> None:
    nodes = [node(n, i, 0, 0, 100 * i, 100, 40) for i, n in enumerate("abc")]
    edges = [forward("ab", "a", "b"), forward("bc", "b", "c"),
             loop_back("long", "c", "a"), loop_back("short", "c", "b")]
    r = route(nodes, edges)
    corridor_x = {e.id: e.points[2].x for e in r.edges if e.loop_back}
    # the shorter loop takes the inner corridor (0 - 12 = -12), the longer the next one
    # out (-12 - 12 = -24); after the shift by 24: 12 and 0.
    assert corridor_x == {"short": 12, "long": 0}


def test_self_loop_takes_two_slots_on_the_right_face() -> None:
    r = route([node("a", 0, 0, 0, 0, 100, 60)], [self_loop("s", "a")])
    # right face, 2 slots: y = 60/3 = 20 and 40; the loop reaches 100 + 12
    assert r.edges[0].points == pts((100, 20), (112, 20), (112, 40), (100, 40))
    assert (r.edges[0].source_end.side, r.edges[0].source_end.slot) == (Side.RIGHT, 0)
    assert (r.edges[0].target_end.side, r.edges[0].target_end.slot) == (Side.RIGHT, 1)
    assert r.width == 112


def test_two_edges_into_one_channel_take_a_crossing_free_track_order() -> None:
    # a (centre 50) -> d (centre 250) and b (centre 170) -> e (centre 370): both go right;
    # a's leg 50..250 holds b's up-vertical at 170, so b's leg must be above a's.
    nodes = [node("a", 0, 0, 0, 0, 100, 40), node("b", 0, 1, 120, 0, 100, 40),
             node("d", 1, 0, 200, 100, 100, 40), node("e", 1, 1, 320, 100, 100, 40)]
    r = route(nodes, [forward("ad", "a", "d"), forward("be", "b", "e")])
    y_ad, y_be = r.edges[0].points[1].y, r.edges[1].points[1].y
    # two tracks, 12 apart, centred in the 60 px channel from 40: 64 and 76
    assert (y_be, y_ad) == (64, 76)


def test_gateway_labels_sit_beside_their_edges_in_rows_below_the_gateway() -> None:
    nodes = gateway_nodes([("a", -60, 80), ("m", 50, 100), ("b", 180, 80)])
    label = (60, 14)
    r = route(nodes, [forward("ea", "g", "a", label=label), forward("em", "g", "m", label=label),
                      forward("eb", "g", "b", label=label)])
    boxes = [e.label_box for e in r.edges]
    assert all(b is not None for b in boxes)
    # slots at 85, 100, 115 (before the shift of 60). ea turns left: its label ends 4 px
    # left of x = 85 (85 - 4 - 60 = 21), clear of the verticals at 100 and 115; eb turns
    # right: 119..179, clear of 85 and 100. Both take the first row, 4 px below the
    # gateway (y 40 + 4). em goes straight down, and beside its first vertical either
    # side would cover a neighbour's (104..164 holds 115, 36..96 holds 85), so its label
    # goes below the tracks, beside its vertical into m (x 100): 104..164, where the only
    # other verticals enter a (x -20) and b (x 220).
    shift = 60
    assert [(b.x, b.y) for b in boxes if b is not None] == [
        (21 + shift, 44), (104 + shift, 90), (119 + shift, 44)]
    # top labels take 4 + 18 = 22 px, bottom ones 22; the single track lies 12 px below
    # the top ones (40 + 22 + 12 = 74) and the channel grows to 22 + 12 + 12 + 22 = 68, so
    # the next layer starts at 40 + 68 = 108 and em's label at 108 - 22 + 4 = 90.
    assert r.edges[0].points[1].y == 74
    assert r.nodes[1].y == 108


def test_bad_placement_gets_a_typed_error_naming_the_edge() -> None:
    nodes = [node("a", 0, 0, 0, 0, 100, 40), node("b", 1, 0, 0, 100, 100, 40)]
    bad = ChainEdge("e", "a", "zz", "a", "zz", (), False, False)
    with pytest.raises(RoutingInputError, match="edge 'e' names node 'zz'"):
        route_edges(placement(nodes, [bad]), LayoutOptions(), Deadline(5))
    skipping = ChainEdge("s", "a", "b", "a", "b", ("x",), False, False)
    with pytest.raises(RoutingInputError, match="'x'"):
        route_edges(placement(nodes, [skipping]), LayoutOptions(), Deadline(5))


def test_routing_is_deterministic_and_leaves_the_placement_alone() -> None:
    nodes = gateway_nodes([("a", -60, 80), ("m", 50, 100), ("b", 180, 80)])
    edges = [forward("ea", "g", "a"), forward("em", "g", "m"), forward("eb", "g", "b")]
    p = placement(nodes, edges)
    before = repr(p)
    first = route_edges(p, LayoutOptions(), Deadline(5))
    assert route_edges(p, LayoutOptions(), Deadline(5)) == first
    assert repr(p) == before


def test_a_self_loop_squeezes_to_keep_its_right_neighbour_cleared() -> None:
    nodes = [node("a", 0, 0, 0, 0, 100, 60), node("b", 0, 1, 130, 0, 50, 60)]
    options = LayoutOptions(edge_spacing=20, clearance=12)
    r = route(nodes, [self_loop("s", "a")], options)
    # a 20 px loop would leave 130 - 120 = 10 px to b; the step shrinks to 30 - 12 = 18
    assert r.edges[0].points[1] == Point(118, 20)
    assert r.nodes[1].x - r.edges[0].points[1].x == 12


def test_zero_clearance_still_keeps_corridors_an_edge_spacing_off_the_nodes() -> None:
    nodes = [node("a", 0, 0, 0, 0, 100, 40), node("b", 1, 0, 0, 100, 100, 40)]
    r = route(nodes, [forward("f", "a", "b"), loop_back("r", "b", "a")],
              LayoutOptions(clearance=0))
    # corridor at 0 - max(0, 12) = -12: after the shift by 12 the nodes start at x = 12
    assert r.edges[1].points[2].x == 0 and r.nodes[0].x == 12


def test_a_loop_back_takes_the_corridor_side_ordering_planned() -> None:
    nodes = [node("a", 0, 0, 0, 0, 100, 40), node("b", 1, 0, 0, 100, 100, 40)]
    planned = replace(loop_back("r", "b", "a"), corridor_side=Side.RIGHT)
    r = route(nodes, [forward("f", "a", "b"), planned])
    # without a plan the tie of the ends' mean x (50) with the middle (50) goes left; the
    # plan says right: 100 + 12 = 112, and nothing shifts
    assert r.edges[1].points[2].x == 112 and r.nodes[0].x == 0


def test_two_edges_swapping_places_get_a_dogleg_instead_of_a_shared_stretch() -> None:
    # p (centre 100) -> q (centre 200) and r (centre 200) -> s (centre 100): with one
    # horizontal each, the lower one's vertical would run along the upper one's.
    nodes = [node("p", 0, 0, 60, 0, 80, 40), node("r", 0, 1, 160, 0, 80, 40),
             node("s", 1, 0, 60, 100, 80, 40), node("q", 1, 1, 160, 100, 80, 40)]
    r = route(nodes, [forward("a", "p", "q"), forward("b", "r", "s")])
    # a splits at the free middle x = 150: a1 (100..150) above b above a2 (150..200);
    # three tracks need 12 + 24 + 12 = 48 < 60, centred from 40 + 12 + 6 = 58: 58, 70, 82.
    # Everything then shifts left by 60 (the left-most node starts at x = 60).
    assert r.edges[0].points == pts((40, 40), (40, 58), (90, 58), (90, 82), (140, 82),
                                    (140, 100))
    assert r.edges[1].points == pts((140, 40), (140, 70), (40, 70), (40, 100))


def test_each_layer_gap_is_sized_by_its_own_channels_tracks() -> None:
    # Five edges a_i -> b_i, a_i 20 wide at x = 40 i (centre 10 + 40 i), b_i 20 wide at
    # x = 400 + 40 i (centre 410 + 40 i): every leg spans every other one's start, so the
    # channel needs five tracks: 12 + 4 * 12 + 12 = 72 px. One edge b0 -> c (c's centre
    # 470) needs one track in the next channel: 12 + 12 = 24 px with layer_spacing 20,
    # not the 72 px of the busiest channel. So layer 1's top is 40 + 72 = 112, layer 2's
    # 112 + 40 + 24 = 176, and that one track lies 12 px below layer 1's bottom, at 164.
    nodes = [node(f"a{i}", 0, i, 40 * i, 0, 20, 40) for i in range(5)]
    nodes += [node(f"b{i}", 1, i, 400 + 40 * i, 100, 20, 40) for i in range(5)]
    nodes += [node("c", 2, 0, 460, 200, 20, 40)]
    edges = [forward(f"e{i}", f"a{i}", f"b{i}") for i in range(5)] + [forward("f", "b0", "c")]
    r = route_edges(replace(placement(nodes, edges), layer_spacing=20.0), LayoutOptions(),
                    Deadline(10))
    boxes = {n.id: n for n in r.nodes}
    assert (boxes["b0"].y, boxes["c"].y) == (112, 176)
    legs = sorted(e.points[1].y for e in r.edges if e.id.startswith("e"))
    assert legs == [52, 64, 76, 88, 100]
    assert next(e for e in r.edges if e.id == "f").points == \
        pts((410, 152), (410, 164), (470, 164), (470, 176))
