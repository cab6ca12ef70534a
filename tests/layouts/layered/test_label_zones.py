"""Label zones: a label goes beside the first of its edge's verticals that has room, then
centred on one, so a crowded source face (a hub) does not push it onto other edges."""

from __future__ import annotations

from layouts.graph import Edge, Graph, Node
from layouts.layered.contracts import check_labels_nearest
from layouts.layered.labels import LABEL_GAP
from layouts.layered.model import ChainEdge, PlacedNode, Placement
from layouts.layered.pipeline import run_layout
from layouts.layered.routing.ends import EdgeKind, EdgePlan, EndSlot
from layouts.layered.routing.label_zones import Anchor, Zones, anchors_of, choose, fits_beside_loop
from layouts.options import LayoutOptions
from layouts.result import EdgeRoute, LayoutResult, Side


def test_anchors_run_from_the_source_through_every_dummy_to_the_target() -> None:
    nodes = {"a": PlacedNode("a", 0, 0, 0, 0, 40, 20),
             "d1": PlacedNode("d1", 1, 0, 70, 0, 0, 0, dummy=True),
             "d2": PlacedNode("d2", 2, 0, 90, 0, 0, 0, dummy=True),
             "b": PlacedNode("b", 3, 0, 0, 0, 40, 20)}
    edge = ChainEdge("e", "a", "b", "a", "b", ("d1", "d2"), False, False)
    plan = EdgePlan(0, edge, EdgeKind.FORWARD, EndSlot("a", Side.BOTTOM, 0, 1),
                    EndSlot("b", Side.TOP, 0, 1))
    placement = Placement(nodes, (("a",), ("d1",), ("d2",), ("b",)), (edge,), 40, 60)
    # channel 1: below a at its slot (20), above d1 (70); channel 2: below d1, above d2
    # (90); channel 3: below d2, above b's slot (15)
    assert anchors_of(plan, placement, (20.0, 15.0)) == [
        Anchor(1, False, 20.0), Anchor(1, True, 70.0), Anchor(2, False, 70.0),
        Anchor(2, True, 90.0), Anchor(3, False, 90.0), Anchor(3, True, 15.0)]


def test_an_end_on_a_side_face_gives_no_anchor_at_the_target() -> None:
    nodes = {"a": PlacedNode("a", 0, 0, 0, 0, 40, 20),
             "b": PlacedNode("b", 1, 0, 0, 0, 40, 20)}
    edge = ChainEdge("e", "a", "b", "a", "b", (), False, False)
    plan = EdgePlan(0, edge, EdgeKind.FORWARD, EndSlot("a", Side.BOTTOM, 0, 1),
                    EndSlot("b", Side.LEFT, 0, 1))
    placement = Placement(nodes, (("a",), ("b",)), (edge,), 40, 60)
    assert anchors_of(plan, placement, (20.0, 10.0)) == [Anchor(1, False, 20.0)]


# edge 0's verticals: x = 100 in the top zone of channel 1, hemmed in by edges 1 and 2
# 3 px away on each side (a hub's face); x = 300 in the bottom zone, where edge 3 runs
# at 300 + 4 + 30 + 10 on the right and edge 4 at 300 - 22 on the left
CROWDED = Zones({(1, False): ([97.0, 100.0, 103.0], [1, 0, 2]),
                 (1, True): ([278.0, 300.0, 344.0], [4, 0, 3])})
HUB = [Anchor(1, False, 100.0), Anchor(1, True, 300.0)]


def test_a_crowded_first_vertical_sends_the_label_to_the_next_anchor() -> None:
    # width 30 on the right of 300: [304, 334], edge 3 at 344 is 10 > 4.5 px away
    assert choose(CROWDED, 0, 30.0, HUB, left_first=True) == (HUB[1], 300 + LABEL_GAP)


def test_with_no_room_beside_any_vertical_the_label_is_centred_on_one() -> None:
    # width 40: beside 300 it would reach 344 (right) or 278 (left, from 256 to 296);
    # centred it spans [280, 320], 2 px from edge 4 and 24 px from edge 3
    assert choose(CROWDED, 0, 40.0, HUB, left_first=False) == (HUB[1], 280.0)


def test_with_no_room_anywhere_the_label_keeps_its_first_preferred_place() -> None:
    # width 60: centred on 300 it spans [270, 330] across edge 4's vertical at 278
    assert choose(CROWDED, 0, 60.0, HUB, left_first=True) == (HUB[0], 100 - LABEL_GAP - 60)


def test_labels_of_a_point_hub_sit_on_their_own_edges() -> None:
    # a 4 px point with five labelled edges to five 40 px wide nodes 80 px apart: the
    # five first verticals leave the point within 4 px of each other, so only the outer
    # two labels fit beside theirs there; a 90 px label needs 4 + 90 + 4.5 > 80 px beside
    # a target's vertical, but centred on it only 45 + 0.5 < 80 (three were astray when
    # the bottom zone was the last place tried)
    hub = Node("hub", 4, 4)
    targets = tuple(Node(f"t{i}", 40, 20) for i in range(5))
    edges = tuple(Edge(f"e{i}", "hub", f"t{i}", f"label{i}", label_width=90,
                       label_height=14) for i in range(5))
    result = run_layout(Graph((hub, *targets), edges), LayoutOptions())
    assert check_labels_nearest(result.edges) == []


def _route(result: LayoutResult, edge_id: str) -> EdgeRoute:
    return next(e for e in result.edges if e.id == edge_id)


def test_a_self_loop_label_sits_beside_its_loop_where_the_layer_has_room() -> None:
    # a -> a (labelled) and a -> b: nothing to the right of a in its layer, so the label
    # goes right of the loop's outer vertical, centred on a's height (40 - 14) / 2 = 13
    # below a's top, instead of in the channel below, where a -> b's vertical runs
    graph = Graph((Node("a", 60, 40), Node("b", 60, 40)),
                  (Edge("loop", "a", "a", "loop", label_width=30, label_height=14),
                   Edge("e", "a", "b")))
    result = run_layout(graph, LayoutOptions())
    a, loop = result.node("a"), _route(result, "loop")
    assert loop.label_box is not None
    reach = max(p.x for p in loop.points)
    assert (loop.label_box.x, loop.label_box.y) == (reach + LABEL_GAP, a.y + 13)
    assert check_labels_nearest(result.edges) == []


def _loops_side_by_side(label_height: float) -> LayoutResult:
    # a and b side by side below r, each with a loop labelled 300 px wide
    graph = Graph((Node("r", 20, 20), Node("a", 60, 40), Node("b", 60, 40)),
                  (Edge("la", "a", "a", "la", label_width=300, label_height=label_height),
                   Edge("lb", "b", "b", "lb", label_width=300, label_height=label_height),
                   Edge("ra", "r", "a"), Edge("rb", "r", "b")))
    return run_layout(graph, LayoutOptions())


def test_placement_keeps_room_beside_a_labelled_loop_for_its_label() -> None:
    # the left node's neighbour stands clear of its loop's 300 px label
    # (layouts.layered.label_room), so the label sits beside the loop, centred on the
    # node's height (40 - 14) / 2 = 13 below its top, not in the channel below
    result = _loops_side_by_side(14)
    left, right = sorted("ab", key=lambda n: result.node(n).x)
    box = _route(result, f"l{left}").label_box
    assert box is not None and box.y == result.node(left).y + 13
    assert box.right + LABEL_GAP < result.node(right).x
    assert check_labels_nearest(result.edges) == []


def test_a_self_loop_label_taller_than_its_node_stays_in_the_channel() -> None:
    # 50 px tall beside a 40 px node would reach past the layer: the channel below
    result = _loops_side_by_side(50)
    left = min("ab", key=lambda n: result.node(n).x)
    box = _route(result, f"l{left}").label_box
    assert box is not None and box.y >= result.node(left).y + result.node(left).height


def test_a_loop_label_taller_than_its_node_but_not_its_layer_sits_beside_the_loop() -> None:
    # a (30 high) shares its layer with c (60 high, left of a): a label 40 high centred
    # on a's height spans 40 px of the layer's 60, so it stays between the channels;
    # one 61 high would not
    nodes = {"c": PlacedNode("c", 0, 0, -100, 0, 40, 60),
             "a": PlacedNode("a", 0, 1, 0, 15, 40, 30),
             "b": PlacedNode("b", 0, 2, 100, 15, 40, 30)}
    loop = ChainEdge("s", "a", "a", "a", "a", (), False, False)
    plan = EdgePlan(0, loop, EdgeKind.SELF_LOOP, EndSlot("a", Side.RIGHT, 0, 2),
                    EndSlot("a", Side.RIGHT, 1, 2))
    placement = Placement(nodes, (("c", "a", "b"),), (loop,), 30, 60)
    # the box: x from 52 + 4 = 56 to 96, clear of b (at 100) and b's first end (120)
    assert fits_beside_loop(plan, placement, 52.0, 40, 40, frozenset(), {"b": 120.0})
    assert not fits_beside_loop(plan, placement, 52.0, 40, 61, frozenset(), {"b": 120.0})
