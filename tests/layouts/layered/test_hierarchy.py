"""Compound nodes in the layered engine: every route contract on graphs with three levels
of nesting and edges into and out of compound nodes at every level, in every direction
and at every effort; the compound checkers themselves, each fed one deliberate defect;
the level split, border pinning and jog tracks on their own."""

from __future__ import annotations

import copy
import json
from dataclasses import replace

import pytest

from layouts.api import layout
from layouts.compound_corpus import SAMPLES, sibling_groups, three_levels
from layouts.errors import InvalidGraphError
from layouts.graph import Edge, Graph, Node, Shape
from layouts.layered.contracts.hierarchy import check_compound_labels, check_compound_layout
from layouts.layered.contracts.violations import ViolationKind
from layouts.layered.hierarchy import run_hierarchy
from layouts.layered.hierarchy.frames import LABEL_GAP, PADDING
from layouts.layered.hierarchy.jogs import tracks
from layouts.layered.hierarchy.plan import split
from layouts.mirror import base_direction, mirror_result
from layouts.options import Direction, Effort, LayoutOptions
from layouts.result import (
    Box,
    Diagnostics,
    EdgeEnd,
    EdgeRoute,
    LayoutResult,
    NodeBox,
    Point,
    Side,
)

SMALL = ["three-levels", "sibling-groups"]


def base_frame_violations(graph: Graph, result: LayoutResult, direction: Direction
                          ) -> list[str]:
    """The compound contract violations, checked in the base direction's frame (a
    mirrored layout reflected back: reflections keep every contract)."""
    base = mirror_result(result, direction)
    options = LayoutOptions(direction=base_direction(direction))
    return [v.message for v in check_compound_layout(graph, base, options)]


@pytest.mark.parametrize("effort", list(Effort))
@pytest.mark.parametrize("direction", list(Direction))
@pytest.mark.parametrize("name", SMALL)
def test_compound_layout_keeps_every_contract(name: str, direction: Direction,
                                              effort: Effort) -> None:
    graph = SAMPLES[name]()
    before = copy.deepcopy(graph)
    result = layout(graph, engine="layered", direction=direction, effort=effort)
    assert graph == before, "the caller's graph was changed"
    assert [n.id for n in result.nodes] == [n.id for n in graph.all_nodes()]
    assert base_frame_violations(graph, result, direction) == []
    assert result.diagnostics.direction == direction.value


@pytest.mark.parametrize("direction", [Direction.TOP_TO_BOTTOM, Direction.RIGHT_TO_LEFT])
def test_a_generated_nested_graph_keeps_every_contract(direction: Direction) -> None:
    graph = SAMPLES["generated-60"]()
    result = layout(graph, engine="layered", direction=direction, effort="draft")
    assert base_frame_violations(graph, result, direction) == []


def test_leaves_keep_their_size_and_shape_and_compounds_hold_their_label() -> None:
    graph = three_levels()
    result = layout(graph, engine="layered")
    for node in graph.all_nodes():
        box = result.node(node.id)
        if not node.children:
            assert (box.width, box.height, box.shape) == (node.width, node.height, node.shape)
            continue
        assert box.width >= node.width and box.height >= node.height
        label = box.label_box
        assert label is not None and label.x >= box.x + PADDING and label.y >= box.y + PADDING
        for child in node.children:     # the label row sits above every child
            assert result.node(child.id).y >= label.y + label.height


def test_left_to_right_puts_the_label_on_top_and_flows_right() -> None:
    graph = three_levels()
    result = layout(graph, engine="layered", direction="LR")
    outer, o1 = result.node("outer"), result.node("o1")
    assert outer.label_box is not None
    assert outer.label_box.y == outer.y + PADDING          # top row, not the left column
    assert result.node("start").x + result.node("start").width <= outer.x
    assert o1.x > outer.x + PADDING - 0.5


def test_same_input_gives_byte_identical_json() -> None:
    first = layout(sibling_groups(), engine="layered", effort="best").to_json()
    assert layout(sibling_groups(), engine="layered", effort="best").to_json() == first
    assert LayoutResult.from_dict(json.loads(first)).to_json() == first


def test_an_edge_leaves_through_the_bottom_and_enters_through_the_top() -> None:
    # start (root) -> i1 (three levels down): the route crosses outer, middle and inner
    # top faces once each, going down, and i3 -> end crosses the three bottom faces
    result = layout(three_levels(), engine="layered")
    route = next(r for r in result.edges if r.id == "start-i1")
    for compound in ("outer", "middle", "inner"):
        box = result.node(compound)
        ys = [p.y for p in route.points if box.x < p.x < box.x + box.width]
        assert min(ys) < box.y < max(ys), compound
    assert all(b.y >= a.y for a, b in zip(route.points, route.points[1:], strict=False))


def test_invariant_checks_pass_on_every_level() -> None:
    run_hierarchy(sibling_groups(), LayoutOptions(), check_invariants=True)


def test_an_edge_from_a_compound_into_itself_is_a_clear_error() -> None:
    graph = Graph((Node("g", 9, 9, children=(Node("a", 9, 9),)),), (Edge("down", "g", "a"),))
    with pytest.raises(InvalidGraphError, match="'down' joins compound node 'g' to its own "
                                                "descendant 'a'") as caught:
        layout(graph, engine="layered")
    assert caught.value.offending_id == "down"


def test_split_gives_one_piece_per_level_and_a_crossing_per_border() -> None:
    plan = split(three_levels())
    path = next(p for p in plan.paths if p.edge.id == "start-i1")
    assert [(p.level, p.source) for p in path.pieces] == [
        (None, "start"), ("outer", path.crossings[0].dummy),
        ("middle", path.crossings[1].dummy), ("inner", path.crossings[2].dummy)]
    assert [(c.compound, c.entering) for c in path.crossings] == [
        ("outer", True), ("middle", True), ("inner", True)]
    inner = next(p for p in plan.paths if p.edge.id == "i1-i2")
    assert [p.level for p in inner.pieces] == ["inner"] and inner.crossings == ()
    assert [level.owner for level in plan.levels] == ["inner", "middle", "outer", None]


def test_jog_tracks_keep_coinciding_columns_apart() -> None:
    # jog 0 comes down at x=10 and goes on at 50; jog 1 comes down at 50: if 1's track
    # were below 0's, both would run down x=50 between the two tracks
    assert tracks([(10, 50), (50, 90)]) == [1, 0]
    # and a jog whose lower column is another's upper one goes after it, either way round
    assert tracks([(50, 90), (10, 50)]) == [0, 1]


# The checkers, each fed one deliberate defect on a small hand-made layout:
# g (0..200 x 0..200) holds a (50..150 x 50..90); b (50..150 x 300..340) is outside;
# e runs from a's bottom centre straight down through g's bottom face to b's top.
CHECK_GRAPH = Graph((Node("g", 10, 10, children=(Node("a", 100, 40),)), Node("b", 100, 40)),
                    (Edge("e", "a", "b"),))
BOXES = (NodeBox("g", 0, 0, 200, 200), NodeBox("a", 50, 50, 100, 40, parent="g"),
         NodeBox("b", 50, 300, 100, 40))


def _result(boxes: tuple[NodeBox, ...], points: tuple[Point, ...]) -> LayoutResult:
    route = EdgeRoute("e", "a", "b", points, EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0))
    return LayoutResult(boxes, (route,), 400, 400, Diagnostics("layered", "draft",
                                                               "TopToBottom"))


def _messages(boxes: tuple[NodeBox, ...], points: tuple[Point, ...]) -> list[str]:
    return [v.message for v in check_compound_layout(CHECK_GRAPH, _result(boxes, points),
                                                     LayoutOptions())]


STRAIGHT = (Point(100, 90), Point(100, 300))


def test_the_hand_made_compound_layout_keeps_every_contract() -> None:
    assert _messages(BOXES, STRAIGHT) == []


def test_a_child_outside_its_parents_padding_is_reported() -> None:
    moved = (BOXES[0], replace(BOXES[1], x=5), BOXES[2])
    found = _messages(moved, (Point(55, 90), Point(55, 150), Point(100, 150),
                              Point(100, 300)))
    assert any("'a' is not inside its parent 'g'" in m for m in found)


def test_overlapping_siblings_are_reported_but_a_child_on_its_parent_is_not() -> None:
    boxes = (BOXES[0], BOXES[1], replace(BOXES[2], y=150))
    found = _messages(boxes, (Point(100, 90), Point(100, 150)))
    assert "nodes 'b' and 'g' overlap" in found


def test_an_edge_leaving_and_coming_back_in_is_reported() -> None:
    # out through the bottom, back in, and out again
    points = (Point(100, 90), Point(100, 250), Point(175, 250), Point(175, 150),
              Point(240, 150), Point(240, 300), Point(120, 300))
    found = _messages(BOXES, points)
    assert any("crosses the border of 'g' 3 times, not 1" in m for m in found)


def test_an_edge_through_a_foreign_compound_is_reported() -> None:
    graph = Graph((*CHECK_GRAPH.nodes, Node("h", 10, 10, children=(Node("c", 20, 20),))),
                  CHECK_GRAPH.edges)
    boxes = (*BOXES, NodeBox("h", 60, 220, 80, 60), NodeBox("c", 90, 240, 20, 20, parent="h"))
    result = _result(boxes, STRAIGHT)
    found = [v.message for v in check_compound_layout(graph, result, LayoutOptions())]
    assert "'e' passes through node 'h'" in found


def test_a_crossing_off_the_face_slots_is_reported() -> None:
    # g's bottom face holds one crossing: its slot is the face's centre, x = 100
    points = (Point(100, 90), Point(100, 150), Point(60, 150), Point(60, 250),
              Point(100, 250), Point(100, 300))
    found = _messages(BOXES, points)
    assert any("a crossing at (60, 200) is not slot 0 of 1 on the bottom face of 'g'" in m
               for m in found)


def _deep(levels: int) -> Graph:
    node = Node("leaf", 80, 40)
    for i in range(levels):
        node = Node(f"g{i}", 10, 10, label=f"g{i}", children=(node, Node(f"s{i}", 60, 30)))
    return Graph((Node("top", 80, 40), node, Node("bottom", 80, 40)),
                 (Edge("in", "top", "leaf"), Edge("out", "leaf", "bottom"),
                  Edge("back", "s0", "top"), Edge("across", f"s{levels - 1}", "leaf"),
                  Edge("loop", "leaf", "leaf")))


EDGE_CASES = {
    # 63 compounds deep, the deepest leaf at the model's depth limit of 64
    "deepest nesting": _deep(63),
    "between compound boxes, parallel and labelled": Graph(
        (Node("g1", 9, 9, children=(Node("a", 80, 40),)),
         Node("g2", 9, 9, children=(Node("b", 80, 40),))),
        (Edge("boxes", "g1", "g2"), Edge("down", "a", "b"), Edge("up", "b", "a"),
         Edge("self", "g1", "g1"), Edge("again", "a", "b"),
         Edge("labelled", "a", "b", label="two", label_width=30, label_height=14))),
    "gateway and circle inside": Graph(
        (Node("g", 9, 9, children=(Node("d", 60, 60, Shape.DIAMOND),
                                   Node("c", 40, 40, Shape.CIRCLE))),
         Node("s", 50, 50), Node("t", 50, 50)),
        (*(Edge(f"e{i}", "s", "d") for i in range(4)), Edge("f", "c", "t"),
         Edge("h", "t", "c"), Edge("k", "d", "c"))),
}


@pytest.mark.parametrize("direction", list(Direction))
@pytest.mark.parametrize("case", list(EDGE_CASES))
def test_edge_cases_keep_every_contract(case: str, direction: Direction) -> None:
    graph = EDGE_CASES[case]
    result = layout(graph, engine="layered", direction=direction)
    assert base_frame_violations(graph, result, direction) == []


@pytest.mark.parametrize("direction", [Direction.TOP_TO_BOTTOM, Direction.LEFT_TO_RIGHT])
def test_siblings_inside_a_compound_keep_elks_node_spacing_and_the_root_keeps_ours(
        direction: Direction) -> None:
    # p fans out to a and b inside g, q to c and d at the root: a and b share a layer
    # 20 px apart (ELK's default spacing.nodeNode, which elkjs uses inside a compound
    # that sets none), c and d the caller's 40 (LayoutOptions().node_spacing)
    g = Graph((Node("g", 10, 10, label="G", children=(
        Node("p", 80, 40), Node("a", 80, 40), Node("b", 80, 40))),
        Node("q", 80, 40), Node("c", 80, 40), Node("d", 80, 40)),
        (Edge("pa", "p", "a"), Edge("pb", "p", "b"), Edge("qc", "q", "c"),
         Edge("qd", "q", "d")))
    result = layout(g, engine="layered", direction=direction)

    def gap(first: str, second: str) -> float:
        one, two = sorted((result.node(first), result.node(second)),
                          key=lambda n: (n.x, n.y))
        if direction is Direction.TOP_TO_BOTTOM:
            return two.x - (one.x + one.width)
        return two.y - (one.y + one.height)

    assert gap("a", "b") == pytest.approx(20.0)
    assert gap("c", "d") == pytest.approx(40.0)
    options = LayoutOptions(direction=base_direction(direction))
    assert check_compound_layout(g, mirror_result(result, direction), options) == []


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]
              ) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize(("into", "height"), [("g", 2 * PADDING + 40),
                                               ("a", 2 * PADDING + 16 + 6 + 40)])
def test_left_to_right_puts_the_label_ahead_of_a_long_thin_interior(into: str,
                                                                    height: float) -> None:
    # g holds a chain of three 100 x 40 boxes. A label row across g adds 16 + 6 px of
    # height over g's whole length; the label ahead of the interior (at g's top left,
    # before the first box along the flow) adds only its width 35 + 6 along the flow
    # over g's 64 px height, so g is 12 + 40 + 12 high when an edge ends on g itself.
    # An edge entering g into a runs along a's middle, 12 + 20 px below g's top, within
    # 12 px of a label there (12 .. 28): g keeps its label row, 12 + 16 + 6 + 40 + 12
    chain = (Node("a", 100, 40), Node("b", 100, 40), Node("c", 100, 40))
    graph = Graph((Node("s", 100, 40), Node("g", 10, 10, label="Group", children=chain)),
                  (Edge("ab", "a", "b"), Edge("bc", "b", "c"), Edge("s-in", "s", into)))
    for effort in Effort:
        result = layout(graph, engine="layered", direction="LR", effort=effort)
        g, label = result.node("g"), result.node("g").label_box
        assert label is not None
        assert g.height == height
        assert (label.x, label.y) >= (g.x + PADDING, g.y + PADDING)
        area = (label.x - LABEL_GAP, label.y - LABEL_GAP, label.right + LABEL_GAP,
                label.bottom + LABEL_GAP)
        for n in chain:      # no child within the label's gap, no route on the label
            box = result.node(n.id)
            assert not _overlaps(area, (box.x, box.y, box.x + box.width, box.y + box.height))
        for route in result.edges:
            for p, q in zip(route.points, route.points[1:], strict=False):
                segment = (min(p.x, q.x), min(p.y, q.y), max(p.x, q.x), max(p.y, q.y))
                assert not _overlaps((label.x, label.y, label.right, label.bottom), segment)
        assert base_frame_violations(graph, result, Direction.LEFT_TO_RIGHT) == []


def _segments_through(result: LayoutResult, box: tuple[float, float, float, float]
                      ) -> list[str]:
    """The edges with a segment more than half a pixel inside ``box`` (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = box
    out = []
    for route in result.edges:
        for p, q in zip(route.points, route.points[1:], strict=False):
            if (min(p.x, q.x) < x1 - 0.5 and max(p.x, q.x) > x0 + 0.5
                    and min(p.y, q.y) < y1 - 0.5 and max(p.y, q.y) > y0 + 0.5):
                out.append(route.id)
    return out


def _two_into_one() -> Graph:
    """Two sources feeding ``a`` inside ``g``, whose label is 50 px wide: ``g`` is
    12 + 100 + 12 = 124 wide around ``a`` alone, so the two crossings of its top face take
    slots at 124 / 3 = 41.3 and 82.7, and the first lies inside a label at the top left
    (12 .. 62): a jog down from it to its track would run through the label."""
    group = Node("g", 10, 10, label="Group", label_width=50, label_height=14,
                 children=(Node("a", 100, 40),))
    return Graph((Node("s1", 80, 40), Node("s2", 80, 40), group),
                 (Edge("e1", "s1", "a"), Edge("e2", "s2", "a")))


@pytest.mark.parametrize("effort", list(Effort))
@pytest.mark.parametrize("direction", list(Direction))
@pytest.mark.parametrize("build", [_two_into_one, three_levels, sibling_groups])
def test_no_route_passes_through_a_compound_label(build: object, direction: Direction,
                                                   effort: Effort) -> None:
    assert callable(build)
    graph = build()
    result = layout(graph, engine="layered", direction=direction, effort=effort)
    for node in graph.all_nodes():
        if not node.children:
            continue
        label = result.node(node.id).label_box
        assert label is not None
        assert _segments_through(result, (label.x, label.y, label.right, label.bottom)) == [], \
            node.id
    assert base_frame_violations(graph, result, direction) == []


def test_a_route_through_a_compound_label_is_reported() -> None:
    # g's label at (12, 12) 40 x 16; e runs down x = 30 through it, f down x = 52, on
    # the label's right edge (touching is not passing through)
    g = Graph((Node("g", 9, 9, label="G", children=(Node("a", 9, 9),)),), ())
    box = NodeBox("g", 0, 0, 100, 100, label_box=Box(12, 12, 40, 16))
    through = EdgeRoute("e", "s", "a", (Point(30, 0), Point(30, 50)))
    touching = EdgeRoute("f", "s", "a", (Point(52, 0), Point(52, 50)))
    result = LayoutResult((box,), (through, touching), 100, 100, Diagnostics("x", "", ""))
    found = check_compound_labels(g, result)
    assert [(v.kind, v.edge, v.node) for v in found] == [
        (ViolationKind.COMPOUND_LABEL, "e", "g")]
