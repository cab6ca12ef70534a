"""Side-face ends (:mod:`layouts.layered.routing.elbows`) on hand-built placements; every
expected coordinate is worked out by hand.

Defaults: edge_spacing 12, clearance 12, layer_spacing 60; a channel without tracks is
60 high. The common scene: ``a`` (150 wide) over ``m`` (100 wide) over ``b`` (150 wide),
left edges at x = 0, layers at y = 0, 100 and 200 (40 high, empty channels of 60);
``a -> m`` and ``m -> b`` run straight at x = 50 (slot 0 of 2 on a 150-wide face is
150 / 3 = 50, the centre of m), and the skip edge ``a -> b`` runs down a dummy column at
x = 170, 70 right of m and 20 right of a and b.
"""

from __future__ import annotations

from layouts.api import layout
from layouts.graph import Edge, Graph, Node, Shape
from layouts.layered.contracts import check_layout
from layouts.layered.contracts.ends import check_slots
from layouts.layered.contracts.labels import check_labels_nearest
from layouts.layered.model import ChainEdge, Deadline, PlacedNode, Placement, Routing
from layouts.layered.routing import route_edges
from layouts.mirror import mirror_result
from layouts.options import Direction, LayoutOptions
from layouts.quality import measure
from layouts.quality_geometry import bend_count
from layouts.result import Diagnostics, EdgeEnd, EdgeRoute, LayoutResult, NodeBox, Point, Side


def node(node_id: str, layer: int, order: int, x: float, width: float,
         shape: Shape = Shape.RECT) -> PlacedNode:
    return PlacedNode(node_id, layer, order, x, 0.0, width, 40.0, shape)


def dummy(node_id: str, layer: int, order: int, x: float) -> PlacedNode:
    return PlacedNode(node_id, layer, order, x, 0.0, 0.0, 0.0, dummy=True)


def forward(edge_id: str, upper: str, lower: str, chain: tuple[str, ...] = (),
            label: tuple[float, float] = (0.0, 0.0)) -> ChainEdge:
    return ChainEdge(edge_id, upper, lower, upper, lower, chain, False, False, *label)


def route(nodes: list[PlacedNode], edges: list[ChainEdge], *, elbows: bool = True
          ) -> Routing:
    layers = tuple(
        tuple(n.id for n in sorted((n for n in nodes if n.layer == i), key=lambda n: n.order))
        for i in range(max(n.layer for n in nodes) + 1))
    placement = Placement({n.id: n for n in nodes}, layers, tuple(edges), 40.0, 60.0)
    return route_edges(placement, LayoutOptions(), Deadline(10), elbows=elbows)


def pts(*xy: tuple[float, float]) -> tuple[Point, ...]:
    return tuple(Point(x, y) for x, y in xy)


def skip_scene(a_shape: Shape = Shape.RECT, extra: list[PlacedNode] | None = None,
               label: tuple[float, float] = (0.0, 0.0)
               ) -> tuple[list[PlacedNode], list[ChainEdge]]:
    nodes = [node("a", 0, 0, 0, 150, a_shape), node("m", 1, 0, 0, 100), dummy("d", 1, 1, 170),
             node("b", 2, 0, 0, 150), *(extra or [])]
    edges = [forward("am", "a", "m"), forward("mb", "m", "b"),
             forward("ab", "a", "b", ("d",), label)]
    return nodes, edges


def test_a_skip_edge_beside_the_middle_node_leaves_and_enters_by_side_faces() -> None:
    r = route(*skip_scene())
    routes = {e.id: e for e in r.edges}
    # out of a's right face at its middle (150, 20), across to the column, down it, and
    # into b's right face at its middle (150, 200 + 20): two bends instead of four
    assert routes["ab"].points == pts((150, 20), (170, 20), (170, 220), (150, 220))
    assert routes["ab"].source_end == EdgeEnd(Side.RIGHT, 0)
    assert routes["ab"].target_end == EdgeEnd(Side.RIGHT, 0)
    # the ends left on a's bottom and b's top keep slot 0 of the 2-slot lattice: straight
    assert routes["am"].points == pts((50, 40), (50, 100))
    assert routes["mb"].points == pts((50, 140), (50, 200))
    assert routes["am"].source_end == EdgeEnd(Side.BOTTOM, 0, 2)
    assert routes["mb"].target_end == EdgeEnd(Side.TOP, 0, 2)
    boxes = {b.id: b for b in r.nodes}
    assert check_slots(r.edges, boxes) == []


def test_without_elbows_the_same_skip_edge_jogs_in_both_channels() -> None:
    r = route(*skip_scene(), elbows=False)
    skip = next(e for e in r.edges if e.id == "ab")
    assert skip.source_end.side is Side.BOTTOM and bend_count(skip.points) == 4


def test_a_neighbour_beside_the_column_keeps_the_end_on_its_face() -> None:
    # n starts at x = 175 in a's layer: 5 from the column at 170, under the 12 clearance
    nodes, edges = skip_scene(extra=[node("n", 0, 1, 175, 100)])
    skip = next(e for e in route(nodes, edges).edges if e.id == "ab")
    assert skip.source_end.side is Side.BOTTOM
    assert skip.target_end.side is Side.RIGHT


def test_a_neighbour_past_the_clearance_leaves_room_for_the_elbow() -> None:
    nodes, edges = skip_scene(extra=[node("n", 0, 1, 182, 100)])   # 182 - 170 = 12
    skip = next(e for e in route(nodes, edges).edges if e.id == "ab")
    assert skip.source_end.side is Side.RIGHT


def test_a_gateway_leaves_by_the_lower_slot_of_its_side_face_never_the_tip() -> None:
    skip = next(e for e in route(*skip_scene(Shape.DIAMOND)).edges if e.id == "ab")
    # the diamond a (0..150 x 0..40, centre (75, 20)): slot 1 of 2 on its right face is
    # y = 40 * 2/3; there the outline is 75 * (1 - (40 * 2/3 - 20) / 20) = 50 right of
    # the centre, at x = 125; the right tip (150, 20) stays empty
    y = 40 * 2 / 3
    assert skip.points == pts((125, y), (170, y), (170, 220), (150, 220))
    assert skip.source_end == EdgeEnd(Side.RIGHT, 1, 2)


def test_a_labelled_edge_leaves_by_its_side_and_keeps_its_label_below_the_source() -> None:
    r = route(*skip_scene(label=(40.0, 16.0)))
    skip = next(e for e in r.edges if e.id == "ab")
    assert skip.source_end.side is Side.RIGHT
    box = skip.label_box
    assert box is not None
    # in the channel below a (a's bottom at y = 40), and beside the column x = 170,
    # not over m's edges at x = 50
    m_top = next(n.y for n in r.nodes if n.id == "m")
    assert box.y >= 40 and box.y + box.height <= m_top
    assert box.x > 50 and (box.x <= 170 <= box.x + box.width or
                           min(abs(box.x - 170), abs(box.x + box.width - 170)) <= 12)


def test_an_edge_to_the_next_layer_turns_once_into_its_column() -> None:
    # a (0..100) over b (200..300): b's top centre is x = 250, 150 right of a's side
    r = route([node("a", 0, 0, 0, 100), node("b", 1, 0, 200, 100)], [forward("e", "a", "b")])
    assert r.edges[0].points == pts((100, 20), (250, 20), (250, 100))
    assert r.edges[0].source_end == EdgeEnd(Side.RIGHT, 0)


def _crossings(routing: Routing) -> int:
    result = LayoutResult(routing.nodes, routing.edges, routing.width, routing.height,
                          Diagnostics("layered", "balanced", "TopToBottom"))
    return measure(result).crossings


def test_a_leg_crossed_on_every_track_does_not_block_the_elbow() -> None:
    # c (layer 0, 260..360, slot x 310) runs to e (layer 1, 110..150, centre 130): its leg
    # in channel 1 spans 130..310, across the column at 170 but not the skip's slot on
    # a's bottom (150 * 2/3 = 100). Its down vertical at 130 lies between the slot and the
    # column: a jog from 100 to 170 above c's leg crosses it on the column (170), below
    # it is crossed by that vertical (130). Once either way, as the elbow's column is
    nodes = [node("a", 0, 0, 0, 150), node("c", 0, 1, 260, 100), node("m", 1, 0, 0, 100),
             node("e", 1, 1, 110, 40), dummy("d", 1, 2, 170), node("b", 2, 0, 0, 150)]
    edges = [forward("am", "a", "m"), forward("mb", "m", "b"),
             forward("ab", "a", "b", ("d",)), forward("ce", "c", "e")]
    elbowed, jogged = route(nodes, edges), route(nodes, edges, elbows=False)
    skip = next(e for e in elbowed.edges if e.id == "ab")
    assert skip.source_end.side is Side.RIGHT
    assert skip.points[:2] == pts((150, 20), (170, 20))
    assert _crossings(elbowed) == _crossings(jogged) == 1


def test_a_leg_the_jog_can_pass_below_keeps_the_end_on_its_face() -> None:
    # a's bottom holds three ends, by column: am (50), ab (170), ae (e at 220..300, centre
    # 260); slots 150 * 1/4, 2/4, 3/4 = 37.5, 75, 112.5. ae's leg spans 112.5..260: across
    # ab's column (170), not its slot (75), and ae's only vertical between them (112.5)
    # leaves the leg up: ab's jog from 75 to 170 on a track below ae's leg crosses
    # nothing, so the elbow's column, crossing ae's leg, would add a crossing. (n, in a's
    # layer at 200..240, keeps ae from leaving a's right face: 30 past ab's column,
    # short of ae's)
    nodes, edges = skip_scene(extra=[node("e", 1, 2, 220, 80), node("n", 0, 1, 200, 40)])
    edges.insert(0, forward("ae", "a", "e"))
    edges.insert(0, edges.pop(edges.index(next(e for e in edges if e.id == "ab"))))
    elbowed = route(nodes, edges)
    routes = {e.id: e for e in elbowed.edges}
    assert routes["ab"].source_end.side is Side.BOTTOM
    assert routes["ab"].points[0] == Point(75, 40)
    assert _crossings(elbowed) == 0


def test_a_leg_across_both_the_slot_and_the_column_does_not_block_the_elbow() -> None:
    # c (layer 0, 400..500) runs to m's top: m's top now holds two ends, so c's leg runs
    # from 450 to 100 * 2/3 and spans the slot (100) and the column (170) alike: the
    # route crossed it before too, on one of its verticals
    nodes, edges = skip_scene(extra=[node("c", 0, 1, 400, 100)])
    edges.append(forward("cm", "c", "m"))
    skip = next(e for e in route(nodes, edges).edges if e.id == "ab")
    assert skip.source_end.side is Side.RIGHT


def test_an_end_a_later_edge_blocked_moves_once_that_edge_moved() -> None:
    # the scene above without n: ae leaves a's right face after ab was kept on the bottom
    # by ae's leg; in the second round that leg is gone and ab joins ae there, below it
    # (ae's column, 260, lies farther out than ab's, 170): ae's slot 0 of 2 at y = 40 * 1/3,
    # ab's slot 1 at 40 * 2/3. No legs left in channels 1 and 2: layers at 100 and 200
    nodes, edges = skip_scene(extra=[node("e", 1, 2, 220, 80)])
    edges.insert(0, forward("ae", "a", "e"))
    edges.insert(0, edges.pop(edges.index(next(e for e in edges if e.id == "ab"))))
    r = route(nodes, edges)
    routes = {e.id: e for e in r.edges}
    assert routes["ae"].points == pts((150, 40 / 3), (260, 40 / 3), (260, 100))
    assert routes["ab"].points == pts((150, 80 / 3), (170, 80 / 3), (170, 220), (150, 220))
    assert _crossings(r) == 0


def test_ends_blocked_in_a_chain_move_round_after_round() -> None:
    # a (0..150) over p, q, r (centres 220, 320, 420): on a's bottom the slots are 37.5,
    # 75, 112.5. ap's column (220) lies inside aq's leg (75..320), aq's (320) inside ar's
    # (112.5..420): ar leaves a's right face first, then aq, then ap, one round each.
    # On the face the farthest column takes the top slot: y = 40 * 1/4, 2/4, 3/4. (o, at
    # 60..100 in their layer, keeps p's left face shut for ap's column at 37.5, as p and
    # q keep q's and r's)
    nodes = [node("a", 0, 0, 0, 150), node("o", 1, 0, 60, 40), node("p", 1, 1, 200, 40),
             node("q", 1, 2, 300, 40), node("r", 1, 3, 400, 40)]
    r = route(nodes, [forward("ap", "a", "p"), forward("aq", "a", "q"), forward("ar", "a", "r")])
    routes = {e.id: e for e in r.edges}
    assert routes["ar"].points == pts((150, 10), (420, 10), (420, 100))
    assert routes["aq"].points == pts((150, 20), (320, 20), (320, 100))
    assert routes["ap"].points == pts((150, 30), (220, 30), (220, 100))
    assert _crossings(r) == 0


def _labelled_pair(width: float) -> Routing:
    # a (0..100) over p and q (centres 250 and 330); aq leaves a's right face first. ap,
    # with a label ``width`` wide, would join it there: its label then goes beside its
    # column (250) in the channel below a, and may reach width + 2 * 4 (gap) + 12
    # (clearance) either side. (o keeps p's left face shut, as in the test above)
    nodes = [node("a", 0, 0, 0, 100), node("o", 1, 0, 60, 40), node("p", 1, 1, 230, 40),
             node("q", 1, 2, 310, 40)]
    return route(nodes, [forward("aq", "a", "q"), forward("ap", "a", "p", label=(width, 16.0))])


def test_a_labelled_elbow_keeps_its_label_clear_of_the_columns_beside_it() -> None:
    # 60 wide: the label may reach 60 + 8 + 12 = 80 from 250, past q's column (330), so
    # ap stays on a's bottom face; 20 wide, it reaches 40, to 290, and ap joins aq
    wide, narrow = _labelled_pair(60.0), _labelled_pair(20.0)
    assert {e.id: e.source_end.side for e in wide.edges} == {"aq": Side.RIGHT,
                                                            "ap": Side.BOTTOM}
    assert {e.id: e.source_end.side for e in narrow.edges} == {"aq": Side.RIGHT,
                                                              "ap": Side.RIGHT}
    assert check_labels_nearest(wide.edges) == check_labels_nearest(narrow.edges) == []


def _pass_parts(y2_x: float, y1_x: float = 165
                ) -> tuple[list[PlacedNode], list[ChainEdge]]:
    # a long edge z -> w (layers 0 .. 3) comes down x = ``y1_x`` (dummy y1) into b's layer
    # (dummy y2 at ``y2_x``), between b's right side (150) and the skip's column at 190
    # (with y1 right of the column, z at 180 keeps a's right face shut: 10 short of it)
    right = y1_x > 190
    nodes = [node("a", 0, 0, 0, 150), node("z", 0, 1, 180 if right else 215, 100),
             node("m", 1, 0, 0, 100), dummy("y1", 1, 2 if right else 1, y1_x),
             dummy("d", 1, 1 if right else 2, 190), node("b", 2, 0, 0, 150),
             dummy("y2", 2, 1, y2_x), node("w", 3, 0, y2_x - 50, 100)]
    edges = [forward("am", "a", "m"), forward("mb", "m", "b"),
             forward("ab", "a", "b", ("d",)), forward("zw", "z", "w", ("y1", "y2"))]
    return nodes, edges


def _pass_scene(y2_x: float, y1_x: float = 165) -> Routing:
    return route(*_pass_parts(y2_x, y1_x))


def test_the_elbow_may_pass_a_dummy_running_straight_through_the_channel() -> None:
    # y2 runs straight down from y1: the jog from the column to b's top crossed it, the
    # elbow's horizontal into b's right face crosses it instead
    skip = next(e for e in _pass_scene(165).edges if e.id == "ab")
    assert skip.target_end.side is Side.RIGHT
    end = skip.points[-1]
    assert end.x == 150 and skip.points[-2] == Point(190, end.y)


def test_the_elbow_may_pass_a_dummy_that_jogs_short_of_the_column() -> None:
    # y2's chain comes from 165 to 168: both verticals of its jog lie between the skip's
    # slot on b (150 * 2/3 = 100) and its column (190), so the skip's jog from 190 to
    # 100 crossed one of them on any track; the elbow crosses y2's vertical once. (In
    # channel 1 z's jog from 265 to 165 and the skip's from 100 to 190 cross once on any
    # tracks too, as the skip's column does there: 2 crossings with elbows or without)
    routing = _pass_scene(168)
    skip = next(e for e in routing.edges if e.id == "ab")
    assert skip.target_end.side is Side.RIGHT
    assert skip.points[-2:] == pts((190, 220), (150, 220))
    jogged = route(*_pass_parts(168), elbows=False)
    assert _crossings(routing) == _crossings(jogged) == 2


def test_the_elbow_may_not_pass_a_dummy_that_jogs_across_the_column() -> None:
    # y2's chain comes from y1 at 230, right of the column (190): the skip's jog from 190
    # to 100 can run above that jog and cross neither of its verticals (230 lies outside
    # 100..190, and the jog's span 168..230 leaves out the slot at 100); the elbow
    # would cross y2's vertical in b's layer, and its column y2's jog
    skip = next(e for e in _pass_scene(168, y1_x=230).edges if e.id == "ab")
    assert skip.target_end.side is Side.TOP


def _graph() -> Graph:
    return Graph((Node("a", 150, 40), Node("m", 100, 40), Node("b", 150, 40),
                  Node("c", 100, 40)),
                 (Edge("am", "a", "m"), Edge("mb", "m", "b"), Edge("ab", "a", "b"),
                  Edge("ac", "a", "c")))


def test_lattices_survive_the_json_round_trip_and_every_direction() -> None:
    for direction in Direction:
        options = LayoutOptions(direction=direction)
        result = layout(_graph(), engine="layered", options=options)
        assert any(e.source_end.lattice for e in result.edges), direction
        assert check_slots(result.edges, {n.id: n for n in result.nodes}) == [], direction
        if direction in (Direction.TOP_TO_BOTTOM, Direction.LEFT_TO_RIGHT):
            # (the flow check knows only the two base directions, as on main)
            assert check_layout(_graph(), result, options) == [], direction
        again = LayoutResult.from_dict(result.to_dict())
        assert [(e.source_end, e.target_end) for e in again.edges] == \
            [(e.source_end, e.target_end) for e in result.edges]


def test_mirroring_renumbers_a_slot_on_its_whole_lattice() -> None:
    # one end at slot 0 of a 2-slot lattice on a bottom face: mirrored left-right it is
    # slot 2 - 1 - 0 = 1 of the same lattice (not slot 0 of the one end on the face)
    a, b = NodeBox("a", 0, 0, 150, 40), NodeBox("b", 0, 100, 100, 40)
    e = EdgeRoute("e", "a", "b", pts((50, 40), (50, 100)), EdgeEnd(Side.BOTTOM, 0, 2),
                  EdgeEnd(Side.TOP, 0))
    result = LayoutResult((a, b), (e,), 150, 140, Diagnostics("layered", "balanced",
                                                               "LeftToRight"))
    flipped = mirror_result(result, Direction.RIGHT_TO_LEFT)
    assert flipped.edges[0].source_end == EdgeEnd(Side.BOTTOM, 1, 2)


def test_two_exits_share_a_side_face_the_farther_column_on_top() -> None:
    # a (0..100) over b (200..300, top centre 250) and c (400..500, top centre 450). The
    # edge to c comes first: its column is past the other's leg (33.3..250), so it leaves
    # a's right face; then the edge to b, whose column that leg no longer crosses, joins
    # it there. Reach 450 - 100 = 350 and 250 - 100 = 150: the farther, to c, takes the
    # upper of the face's two slots (y = 40 * 1/3), so b's column (250) starts below c's
    # horizontal. No leg is left in channel 1: it keeps its 60 px, b and c at y = 100
    r = route([node("a", 0, 0, 0, 100), node("b", 1, 0, 200, 100), node("c", 1, 1, 400, 100)],
              [forward("ac", "a", "c"), forward("ab", "a", "b")])
    routes = {e.id: e for e in r.edges}
    assert routes["ac"].points == pts((100, 40 / 3), (450, 40 / 3), (450, 100))
    assert routes["ab"].points == pts((100, 80 / 3), (250, 80 / 3), (250, 100))
    assert routes["ac"].source_end == EdgeEnd(Side.RIGHT, 0)
    assert routes["ab"].source_end == EdgeEnd(Side.RIGHT, 1)
    assert check_slots(r.edges, {b.id: b for b in r.nodes}) == []
    assert _crossings(r) == 0


def test_an_entry_sits_above_an_exit_on_a_shared_side_face() -> None:
    # u (layer 0, 300..400) -> m (layer 1, 0..100): n (150..250) left of u blocks u's left
    # elbow, so the route comes down u's column (350) and turns into m's right face; m ->
    # w (layer 2, 500..600, top centre 550) leaves the same face. The entry takes the
    # upper slot (y = 100 + 40 * 1/3), the exit the lower (100 + 40 * 2/3): the entry's
    # column ends above the exit's horizontal. Channels without legs stay 60 high
    nodes = [node("n", 0, 0, 150, 100), node("u", 0, 1, 300, 100), node("m", 1, 0, 0, 100),
             node("w", 2, 0, 500, 100)]
    r = route(nodes, [forward("um", "u", "m"), forward("mw", "m", "w")])
    routes = {e.id: e for e in r.edges}
    assert routes["um"].points == pts((350, 40), (350, 100 + 40 / 3), (100, 100 + 40 / 3))
    assert routes["mw"].points == pts((100, 100 + 80 / 3), (550, 100 + 80 / 3), (550, 200))
    assert routes["um"].target_end == EdgeEnd(Side.RIGHT, 0)
    assert routes["mw"].source_end == EdgeEnd(Side.RIGHT, 1)
    assert check_slots(r.edges, {b.id: b for b in r.nodes}) == []
    assert _crossings(r) == 0


def test_a_gateway_keeps_one_exit_on_its_side_face() -> None:
    # the diamond a (0..100) with three exits, slots 100 * 1/4, 2/4, 3/4 = 25, 50, 75 by
    # column: to d (layer 1, -25..75, straight down at 25: the face is not fanned), to b
    # (200..300) and c (400..500). The exit to c leaves a's right face, below its tip
    # (slot 1 of 2); the one to b may not join it there, and d, left of b in its layer
    # (its right side at 75, 25 past b's column at 50), keeps b's left face shut: b's
    # route stays a jog from a's bottom
    nodes = [node("a", 0, 0, 0, 100, Shape.DIAMOND), node("d", 1, 0, -25, 100),
             node("b", 1, 1, 200, 100), node("c", 1, 2, 400, 100)]
    r = route(nodes, [forward("ac", "a", "c"), forward("ab", "a", "b"), forward("ad", "a", "d")])
    routes = {e.id: e for e in r.edges}
    assert routes["ac"].source_end == EdgeEnd(Side.RIGHT, 1, 2)
    assert routes["ab"].source_end == EdgeEnd(Side.BOTTOM, 1, 3)
    a = next(b for b in r.nodes if b.id == "a")       # (moved right by 25 with d)
    assert routes["ad"].points[0].x == routes["ad"].points[-1].x == a.x + 100 / 4
