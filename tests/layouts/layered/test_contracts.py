"""Each contract checker, fed a result with one deliberate defect, reports exactly it.

The base layout: a (0..100 x 0..40) above b (0..100 x 100..140), joined by e from a's
bottom centre (50, 40) to b's top centre (50, 100); c (200..300 x 100..140) on b's layer.
"""

from __future__ import annotations

from dataclasses import replace

from layouts.graph import Edge, Graph, Node, Shape
from layouts.layered.contracts import ViolationKind, check_layout
from layouts.options import Direction, LayoutOptions
from layouts.result import Box, Diagnostics, EdgeEnd, EdgeRoute, LayoutResult, NodeBox, Point, Side

BOTTOM0, TOP0 = EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0)


def pts(*xy: tuple[float, float]) -> tuple[Point, ...]:
    return tuple(Point(x, y) for x, y in xy)


def layout(boxes: list[NodeBox], routes: list[EdgeRoute],
           direction: Direction = Direction.TOP_TO_BOTTOM) -> tuple[Graph, LayoutResult]:
    graph = Graph(tuple(Node(b.id, b.width, b.height, b.shape) for b in boxes),
                  tuple(Edge(r.id, r.source, r.target, loop_back=r.loop_back) for r in routes))
    result = LayoutResult(tuple(boxes), tuple(routes), 400, 400,
                          Diagnostics("layered", "draft", direction.value))
    return graph, result


BASE_BOXES = [NodeBox("a", 0, 0, 100, 40), NodeBox("b", 0, 100, 100, 40),
              NodeBox("c", 200, 100, 100, 40)]
BASE_ROUTE = EdgeRoute("e", "a", "b", pts((50, 40), (50, 100)), BOTTOM0, TOP0)


def kinds(boxes: list[NodeBox], routes: list[EdgeRoute],
          direction: Direction = Direction.TOP_TO_BOTTOM) -> list[ViolationKind]:
    graph, result = layout(boxes, routes, direction)
    return [v.kind for v in check_layout(graph, result, LayoutOptions(direction=direction))]


def test_the_base_layout_keeps_every_contract() -> None:
    assert kinds(BASE_BOXES, [BASE_ROUTE]) == []


def test_an_end_off_its_slot_is_reported() -> None:
    moved = replace(BASE_ROUTE, points=pts((45, 40), (45, 100)))   # centre slot is x = 50
    found = kinds(BASE_BOXES, [moved])
    assert found == [ViolationKind.OFF_SLOT, ViolationKind.OFF_SLOT]


def test_an_end_on_the_wrong_slot_count_is_reported() -> None:
    # two ends on a's bottom face put slot 0 at 100/3, not at the centre
    second = EdgeRoute("f", "a", "c", pts((200 / 3, 40), (200 / 3, 70), (250, 70), (250, 100)),
                       EdgeEnd(Side.BOTTOM, 1), TOP0)
    assert kinds(BASE_BOXES, [BASE_ROUTE, second]) == [ViolationKind.OFF_SLOT]


def test_a_slanted_segment_is_reported() -> None:
    slanted = EdgeRoute("f", "a", "c", pts((50, 40), (50, 60), (250, 80), (250, 100)),
                        BOTTOM0, TOP0)
    boxes = [BASE_BOXES[0], BASE_BOXES[2]]
    assert kinds(boxes, [slanted]) == [ViolationKind.NOT_ORTHOGONAL]


def test_an_end_leaving_its_face_sideways_is_reported() -> None:
    # bottom centre slot of a, but the first segment runs right along the bottom face
    sideways = EdgeRoute("f", "a", "c", pts((50, 40), (250, 40), (250, 100)), BOTTOM0, TOP0)
    assert kinds([BASE_BOXES[0], BASE_BOXES[2]], [sideways]) == [ViolationKind.BOUNDARY_ANGLE]


def test_two_edges_on_one_line_are_reported() -> None:
    boxes = [NodeBox("a", 0, 0, 100, 40), NodeBox("b", 0, 100, 100, 40),
             NodeBox("c", 200, 0, 100, 40), NodeBox("d", 200, 100, 100, 40)]
    # a -> d and c -> b both run along y = 70 between x = 50 and 250
    ad = EdgeRoute("ad", "a", "d", pts((50, 40), (50, 70), (250, 70), (250, 100)), BOTTOM0, TOP0)
    cb = EdgeRoute("cb", "c", "b", pts((250, 40), (250, 70), (50, 70), (50, 100)), BOTTOM0, TOP0)
    assert kinds(boxes, [ad, cb]) == [ViolationKind.SHARED_STRETCH]


def test_parallel_edges_a_few_pixels_apart_are_not_one_line() -> None:
    # Three edges run right along y = 70, 70.4 and 70.8 (each within the 0.5 px tolerance
    # of the next), over x = 50..250: 70 and 70.4 count as one line, and so do 70.4 and
    # 70.8, but 70 and 70.8 are 0.8 px apart, so those two are not reported.
    boxes = [NodeBox("a", 0, 0, 100, 40), NodeBox("b", 0, 100, 100, 40),
             NodeBox("c", 200, 0, 100, 40), NodeBox("d", 200, 100, 100, 40)]

    def run(name: str, y: float, x0: float, x1: float) -> EdgeRoute:
        source, target = ("a", "d") if x0 < x1 else ("c", "b")
        return EdgeRoute(name, source, target,
                         pts((x0, 40), (x0, y), (x1, y), (x1, 100)), BOTTOM0, TOP0)

    graph, result = layout(boxes, [run("low", 70, 40, 260), run("mid", 70.4, 45, 255),
                                   run("high", 70.8, 50, 250)])
    pairs = {v.message for v in check_layout(graph, result, LayoutOptions())
             if v.kind is ViolationKind.SHARED_STRETCH}
    assert pairs == {"'low' and 'mid' share a stretch of line",
                     "'mid' and 'high' share a stretch of line"}


def test_an_edge_through_a_foreign_node_is_reported() -> None:
    boxes = [*BASE_BOXES, NodeBox("m", 0, 60, 100, 20)]   # m sits across e's path
    assert kinds(boxes, [BASE_ROUTE]) == [ViolationKind.INTRUSION]


def test_an_edge_back_through_its_own_source_is_reported() -> None:
    # leaves a's bottom centre, loops round the left and back right through a at y = 20
    # on its way to c's top (marked loop-back so that climbing is not also a defect)
    back = EdgeRoute("f", "a", "c", pts((50, 40), (50, 70), (-20, 70), (-20, 20), (250, 20),
                                        (250, 100)), BOTTOM0, TOP0, loop_back=True)
    assert kinds([BASE_BOXES[0], BASE_BOXES[2]], [back]) == [ViolationKind.OWN_INTRUSION]


def test_a_segment_too_close_to_a_foreign_node_is_reported() -> None:
    boxes = [*BASE_BOXES, NodeBox("n", 55, 60, 40, 20)]   # 5 px right of the edge at x = 50
    assert kinds(boxes, [BASE_ROUTE]) == [ViolationKind.CLEARANCE]


def test_a_segment_exactly_at_the_clearance_is_accepted() -> None:
    boxes = [*BASE_BOXES, NodeBox("n", 62, 60, 30, 20)]   # 62 - 50 = 12 px
    assert kinds(boxes, [BASE_ROUTE]) == []


def gateway_boxes() -> list[NodeBox]:
    # diamond g: 60 x 40 centred at (100, 20): side tips (70, 20) and (130, 20)
    return [NodeBox("g", 70, 0, 60, 40, Shape.DIAMOND), NodeBox("t", 0, 100, 40, 40)]


def test_a_source_exit_at_a_gateway_side_tip_is_reported() -> None:
    # the single slot of the left face is its centre: the left tip (70, 20)
    route = EdgeRoute("e", "g", "t", pts((70, 20), (20, 20), (20, 100)),
                      EdgeEnd(Side.LEFT, 0), TOP0)
    assert kinds(gateway_boxes(), [route]) == [ViolationKind.GATEWAY_SOURCE_TIP]


def test_a_tip_entry_off_the_tip_axis_is_reported_and_along_it_accepted() -> None:
    boxes = [NodeBox("s", 0, -100, 40, 40), NodeBox("g", 70, 0, 60, 40, Shape.DIAMOND)]
    # from above straight down onto the left tip (70, 20): off the tip's horizontal axis
    down = EdgeRoute("e", "s", "g", pts((20, -60), (20, -30), (70, -30), (70, 20)),
                     BOTTOM0, EdgeEnd(Side.LEFT, 0))
    assert kinds(boxes, [down]) == [ViolationKind.GATEWAY_TIP_ENTRY]
    # from the left along y = 20 onto the same tip: allowed
    along = replace(down, points=pts((20, -60), (20, 20), (70, 20)))
    assert kinds(boxes, [along]) == []


def test_a_forward_edge_going_up_is_reported_but_a_loop_back_is_not() -> None:
    boxes = [NodeBox("a", 0, 0, 100, 40), NodeBox("b", 200, 0, 100, 40)]
    # from a's bottom (50, 40) down to 70, right, up to 20 and down into b's top? No:
    # into b's top at (250, 0) it has to climb from 70 to -20 first, then drop to 0.
    up = EdgeRoute("e", "a", "b", pts((50, 40), (50, 70), (150, 70), (150, -20), (250, -20),
                                      (250, 0)), BOTTOM0, TOP0)
    assert kinds(boxes, [up]) == [ViolationKind.AGAINST_FLOW]
    assert kinds(boxes, [replace(up, loop_back=True)]) == []


def test_flow_direction_is_judged_in_the_final_frame() -> None:
    boxes = [NodeBox("a", 0, 0, 40, 100), NodeBox("b", 100, 0, 40, 100)]
    # LeftToRight: a's right face centre (40, 50) to b's left face centre (100, 50)
    right = EdgeRoute("e", "a", "b", pts((40, 50), (100, 50)), EdgeEnd(Side.RIGHT, 0),
                      EdgeEnd(Side.LEFT, 0))
    assert kinds(boxes, [right], Direction.LEFT_TO_RIGHT) == []
    left = EdgeRoute("e", "b", "a", pts((100, 50), (40, 50)), EdgeEnd(Side.LEFT, 0),
                     EdgeEnd(Side.RIGHT, 0))
    assert kinds(boxes, [left], Direction.LEFT_TO_RIGHT) == [ViolationKind.AGAINST_FLOW]


def test_overlapping_nodes_are_reported() -> None:
    boxes = [*BASE_BOXES, NodeBox("o", 250, 120, 100, 40)]   # overlaps c (200..300 x 100..140)
    assert kinds(boxes, [BASE_ROUTE]) == [ViolationKind.NODE_OVERLAP]


def test_a_label_over_a_node_or_another_label_is_reported() -> None:
    over_node = replace(BASE_ROUTE, label_box=Box(60, 30, 30, 12))      # dips into a (y < 40)
    assert kinds(BASE_BOXES, [over_node]) == [ViolationKind.LABEL_OVERLAP]
    free = replace(BASE_ROUTE, label_box=Box(54, 44, 30, 12))           # in the gap 40..100
    assert kinds(BASE_BOXES, [free]) == []
    second = EdgeRoute("f", "a", "c", pts((200 / 3, 40), (200 / 3, 70), (250, 70), (250, 100)),
                       EdgeEnd(Side.BOTTOM, 1), TOP0, label_box=Box(70, 50, 30, 12))
    first = replace(BASE_ROUTE, points=pts((100 / 3, 40), (100 / 3, 80), (50, 80), (50, 100)),
                    label_box=Box(54, 44, 30, 12))        # 54..84 x 44..56 meets 70..100 x 50..62
    assert kinds(BASE_BOXES, [first, second]) == [ViolationKind.LABEL_OVERLAP]


def test_an_edge_without_a_route_is_reported() -> None:
    graph, result = layout(BASE_BOXES, [BASE_ROUTE])
    graph = Graph(graph.nodes, (*graph.edges, Edge("lost", "a", "c")))
    found = check_layout(graph, result, LayoutOptions())
    assert [(v.kind, v.edge) for v in found] == [(ViolationKind.MISSING_ROUTE, "lost")]
