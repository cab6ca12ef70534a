"""The one defect model: every kind found by its checker on a hand-made drawing, the
kinds any engine's drawing is checked for, and the cases where the three old models
(contracts, repair, quality) disagreed.

Coordinates: y grows downwards; a NodeBox is (id, x, y, width, height, shape).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from layouts.graph import Edge, Graph, Node, Port, PortConstraints, PortSide, Shape
from layouts.layered.contracts import (
    EVERY_ENGINE_KINDS,
    SCOPE,
    Scope,
    ViolationKind,
    check_boundary_angles,
    check_drawing,
    check_layout,
    find_defects,
)
from layouts.layered.contracts.hierarchy import check_compound_layout
from layouts.layered.invariants import after_routing
from layouts.layered.pipeline import run_layout
from layouts.layered.routing.repair import route_defects, segments
from layouts.options import LayoutOptions
from layouts.quality import DEFECT_FIELDS, measure
from layouts.quality_grid import Grid
from layouts.result import (
    Box,
    Diagnostics,
    EdgeEnd,
    EdgeRoute,
    LayoutResult,
    NodeBox,
    Point,
    PortBox,
    Side,
)
from renderer import corpus

K = ViolationKind
BOTTOM0, TOP0 = EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0)
A, B = NodeBox("a", 0, 0, 100, 40), NodeBox("b", 0, 100, 100, 40)
C = NodeBox("c", 200, 100, 100, 40)
DOWN = EdgeRoute("e", "a", "b", (Point(50, 40), Point(50, 100)), BOTTOM0, TOP0)
"""a's bottom centre (50, 40) straight down to b's top centre (50, 100): no defect."""


def pts(*xy: tuple[float, float]) -> tuple[Point, ...]:
    return tuple(Point(x, y) for x, y in xy)


def drawing(boxes: list[NodeBox], routes: list[EdgeRoute], engine: str = "layered",
            ports: tuple[PortBox, ...] = ()) -> LayoutResult:
    return LayoutResult(tuple(boxes), tuple(routes), 400, 400,
                        Diagnostics(engine, "draft", "TopToBottom"), ports)


def graph_of(result: LayoutResult, nodes: tuple[Node, ...] | None = None) -> Graph:
    return Graph(nodes or tuple(Node(b.id, b.width, b.height, b.shape) for b in result.nodes),
                 tuple(Edge(r.id, r.source, r.target, loop_back=r.loop_back,
                            source_port=r.source_port, target_port=r.target_port)
                       for r in result.edges))


def found(result: LayoutResult, graph: Graph | None = None) -> set[ViolationKind]:
    return {v.kind for v in find_defects(graph or graph_of(result), result, LayoutOptions())}


def test_the_base_drawing_has_no_defect() -> None:
    assert found(drawing([A, B, C], [DOWN])) == set()
    assert check_drawing(drawing([A, B, C], [DOWN], "graphviz")) == []


def _port_cases() -> dict[ViolationKind, tuple[LayoutResult, Graph]]:
    # p is declared on a's south face; fixed_order ports q (order 0) and r (order 1) on
    # a's north face run left to right clockwise, so q must lie left of r
    ports = (Port("p", PortSide.SOUTH), Port("q", PortSide.NORTH, 0),
             Port("r", PortSide.NORTH, 1))
    nodes = (Node("a", 100, 40, ports=ports, port_constraints=PortConstraints.FIXED_ORDER),
             Node("b", 100, 40))
    on_port = EdgeRoute("e", "a", "b", pts((50, 40), (50, 100)), BOTTOM0, TOP0,
                        source_port="p")
    placed = (PortBox("p", "a", 50, 40, side=Side.BOTTOM, slot=0),
              PortBox("q", "a", 30, 0, side=Side.TOP), PortBox("r", "a", 70, 0, side=Side.TOP))
    good = drawing([A, B], [on_port], ports=placed)
    off = replace(on_port, points=pts((30, 40), (30, 100)))          # not at p's (50, 40)
    on_top = (replace(placed[0], y=0, side=Side.TOP), *placed[1:])   # p moved north
    swapped = (placed[0], replace(placed[1], x=70), replace(placed[2], x=30))
    graph = graph_of(good, nodes)
    assert found(good, graph) == set()
    return {K.OFF_PORT: (replace(good, edges=(off,)), graph),
            K.PORT_SIDE: (replace(good, ports=on_top), graph),
            K.PORT_ORDER: (replace(good, ports=swapped), graph)}


def _cases() -> dict[ViolationKind, LayoutResult]:
    gateway = NodeBox("g", 70, 0, 60, 40, Shape.DIAMOND)   # side tips (70, 20), (130, 20)
    t, s = NodeBox("t", 0, 100, 40, 40), NodeBox("s", 0, -100, 40, 40)
    top_right, low_right = NodeBox("c", 200, 0, 100, 40), NodeBox("d", 200, 100, 100, 40)
    # a -> d and c -> b both run along y = 70 between x = 50 and 250
    ad = EdgeRoute("ad", "a", "d", pts((50, 40), (50, 70), (250, 70), (250, 100)), BOTTOM0, TOP0)
    cb = EdgeRoute("cb", "c", "b", pts((250, 40), (250, 70), (50, 70), (50, 100)), BOTTOM0, TOP0)
    return {
        K.OFF_SLOT: drawing([A, B], [replace(DOWN, points=pts((45, 40), (45, 100)))]),
        K.NOT_ORTHOGONAL: drawing([A, C], [EdgeRoute("e", "a", "c", pts(
            (50, 40), (50, 60), (250, 80), (250, 100)), BOTTOM0, TOP0)]),
        K.BOUNDARY_ANGLE: drawing([A, C], [EdgeRoute("e", "a", "c", pts(
            (50, 40), (250, 40), (250, 100)), BOTTOM0, TOP0)]),
        K.SHARED_STRETCH: drawing([A, B, top_right, low_right], [ad, cb]),
        K.INTRUSION: drawing([A, B, NodeBox("m", 0, 60, 100, 20)], [DOWN]),
        K.OWN_INTRUSION: drawing([A, C], [EdgeRoute("e", "a", "c", pts(
            (50, 40), (50, 70), (-20, 70), (-20, 20), (250, 20), (250, 100)), BOTTOM0, TOP0,
            loop_back=True)]),
        K.CLEARANCE: drawing([A, B, NodeBox("n", 55, 60, 40, 20)], [DOWN]),
        K.GATEWAY_SOURCE_TIP: drawing([gateway, t], [EdgeRoute("e", "g", "t", pts(
            (70, 20), (20, 20), (20, 100)), EdgeEnd(Side.LEFT, 0), TOP0)]),
        K.GATEWAY_TIP_ENTRY: drawing([s, gateway], [EdgeRoute("e", "s", "g", pts(
            (20, -60), (20, -30), (70, -30), (70, 20)), BOTTOM0, EdgeEnd(Side.LEFT, 0))]),
        K.AGAINST_FLOW: drawing([A, NodeBox("b", 200, 0, 100, 40)], [EdgeRoute("e", "a", "b", pts(
            (50, 40), (50, 70), (150, 70), (150, -20), (250, -20), (250, 0)), BOTTOM0, TOP0)]),
        K.NODE_OVERLAP: drawing([A, B, C, NodeBox("o", 250, 120, 100, 40)], [DOWN]),
        K.LABEL_OVERLAP: drawing([A, B], [replace(DOWN, label_box=Box(52, 30, 30, 12))]),
        K.OFF_OUTLINE: drawing([A, B], [replace(DOWN, points=pts((50, 40), (50, 97)))]),
        # the label's box (10..40 x 60..72) is 10 px from e (x = 50) and 5 px from f (x = 5)
        K.LABEL_ASTRAY: drawing([A, B, NodeBox("x", -100, 0, 50, 40), NodeBox(
            "y", -100, 100, 50, 40)], [replace(DOWN, label_box=Box(10, 60, 30, 12)),
                                        EdgeRoute("f", "x", "y", pts((-75, 40), (-75, 55), (5, 55),
                                                                     (5, 85), (-75, 85),
                                                                     (-75, 100)), BOTTOM0, TOP0)]),
    }


def _compound_kinds(a_x: float, points: tuple[Point, ...]) -> set[ViolationKind]:
    # compound g (0..200 x 0..200) holds a (100 x 40 at (a_x, 50)); b lies below g
    graph = Graph((Node("g", 9, 9, children=(Node("a", 100, 40),)), Node("b", 100, 40)),
                  (Edge("e", "a", "b"),))
    boxes = (NodeBox("g", 0, 0, 200, 200), NodeBox("a", a_x, 50, 100, 40, parent="g"),
             NodeBox("b", 50, 300, 100, 40))
    route = EdgeRoute("e", "a", "b", points, BOTTOM0, TOP0)
    result = LayoutResult(boxes, (route,), 400, 400, Diagnostics("layered", "draft", ""))
    return {v.kind for v in check_compound_layout(graph, result, LayoutOptions())}


def test_the_compound_kinds_are_found_by_the_compound_checker() -> None:
    assert _compound_kinds(50, pts((100, 90), (100, 300))) == set()
    # a at x = 5 is closer to g's left border than the padding
    assert K.OUTSIDE_PARENT in _compound_kinds(5, pts((55, 90), (55, 150), (100, 150),
                                                      (100, 300)))
    # out through g's bottom, back in, and out again: three border crossings, not one
    assert K.BORDER_CROSSING in _compound_kinds(50, pts(
        (100, 90), (100, 250), (175, 250), (175, 150), (240, 150), (240, 300), (120, 300)))


@pytest.mark.parametrize("kind", [k for k in ViolationKind if SCOPE[k] is not Scope.COMPOUND])
def test_each_kind_is_found_by_the_one_checker(kind: ViolationKind) -> None:
    ports = _port_cases()
    if kind in ports:
        result, graph = ports[kind]
        assert kind in found(result, graph)
    elif kind is K.MISSING_ROUTE:
        result = drawing([A, B, C], [DOWN])
        graph = Graph(graph_of(result).nodes, (*graph_of(result).edges, Edge("lost", "a", "c")))
        assert found(result, graph) == {K.MISSING_ROUTE}
    else:   # an end off the outline is off its slot as well
        also = {K.OFF_SLOT} if kind is K.OFF_OUTLINE else set()
        assert found(_cases()[kind]) == {kind} | also


@pytest.mark.parametrize("kind", sorted(EVERY_ENGINE_KINDS))
def test_every_engine_kinds_are_found_on_another_engines_drawing(kind: ViolationKind) -> None:
    # the same drawing, said to come from Graphviz: ends carry no slot and no face
    result = _cases()[kind]
    bare = [replace(r, source_end=EdgeEnd(), target_end=EdgeEnd()) for r in result.edges]
    kinds = {v.kind for v in check_drawing(replace(result, edges=tuple(bare),
                                                   diagnostics=Diagnostics("graphviz", "", "")))}
    assert kinds == {kind}


def test_slot_rules_do_not_apply_to_another_engines_drawing() -> None:
    # off its slot, leaving its face sideways, climbing against the flow, leaving a
    # gateway's side tip: layered rules, none of them a defect in a Graphviz drawing
    for kind in (K.OFF_SLOT, K.BOUNDARY_ANGLE, K.AGAINST_FLOW, K.GATEWAY_SOURCE_TIP):
        assert check_drawing(replace(_cases()[kind], diagnostics=Diagnostics("graphviz", "", ""))
                             ) == [], kind


def test_every_kind_has_a_scope_and_quality_counts_the_every_engine_ones() -> None:
    assert set(SCOPE) == set(ViolationKind)
    assert set(DEFECT_FIELDS.values()) == EVERY_ENGINE_KINDS
    assert {k for k, s in SCOPE.items() if s is not Scope.EVERY_ENGINE} == \
        set(ViolationKind) - EVERY_ENGINE_KINDS


def test_a_slanted_shared_stretch_is_found() -> None:
    # e1 runs (20, 20) -> (200, 200) on y = x; e2 leaves c's right face at (20, 90), turns
    # onto y = x at (90, 90) and follows it to (150, 150): 60 * sqrt(2) px on one line
    a, b = NodeBox("a", 0, 0, 20, 20), NodeBox("b", 200, 200, 20, 20)
    c, d = NodeBox("c", 0, 80, 20, 20), NodeBox("d", 140, 300, 20, 20)
    e1 = EdgeRoute("e1", "a", "b", pts((20, 20), (200, 200)))
    e2 = EdgeRoute("e2", "c", "d", pts((20, 90), (90, 90), (150, 150), (150, 300)))
    kinds = [v.kind for v in check_drawing(drawing([a, b, c, d], [e1, e2], "graphviz"))]
    assert sorted(kinds) == sorted([K.NOT_ORTHOGONAL, K.NOT_ORTHOGONAL, K.SHARED_STRETCH])
    assert measure(drawing([a, b, c, d], [e1, e2], "graphviz")).shared_segments == 1


# --- where the three old models disagreed -----------------------------------------------

def _fan() -> LayoutResult:
    # gateway g (diamond 60 x 40 at (70, 0)) fans out from its bottom tip (100, 40): both
    # edges share the trunk (100, 40) -> (100, 60), then split left and right
    g = NodeBox("g", 70, 0, 60, 40, Shape.DIAMOND)
    left, right = NodeBox("l", 0, 100, 60, 40), NodeBox("r", 140, 100, 60, 40)
    tip = EdgeEnd(Side.BOTTOM, 0)
    return drawing([g, left, right], [
        EdgeRoute("gl", "g", "l", pts((100, 40), (100, 60), (30, 60), (30, 100)), tip, TOP0),
        EdgeRoute("gr", "g", "r", pts((100, 40), (100, 60), (170, 60), (170, 100)), tip, TOP0)])


def test_a_fan_trunk_is_no_shared_segment_for_quality_either() -> None:
    # the contracts always exempted a fan's trunk; quality counted it as a shared segment
    fan = _fan()
    assert check_layout(graph_of(fan), fan, LayoutOptions()) == []
    assert measure(fan).shared_segments == 0


def test_the_reference_drawing_has_no_shared_segment() -> None:
    # the stress harness reported sharedSegments 6 here: the fan trunks of its gateways
    graph = corpus.file_graph(corpus.REFERENCE_FIXTURE)
    result = run_layout(graph, LayoutOptions())
    assert measure(result).shared_segments == 0
    assert find_defects(graph, result, LayoutOptions()) == []


def test_an_intrusion_is_not_hidden_by_an_earlier_near_miss() -> None:
    # e passes 5 px left of n on its way down (x = 50, n from x = 55), then turns right
    # through n's interior (y = 90): one intrusion; the contracts used to report only the
    # clearance violation they met first
    n = NodeBox("n", 55, 60, 40, 50)
    route = EdgeRoute("e", "a", "c", pts((50, 40), (50, 90), (250, 90), (250, 100)), BOTTOM0,
                      TOP0)
    result = drawing([A, C, n], [route])
    assert [(v.kind, v.node) for v in check_layout(graph_of(result), result, LayoutOptions())] \
        == [(K.INTRUSION, "n")]
    assert measure(result).edge_node_intrusions == 1 and measure(result).clearance_violations == 0


def _repair_angles(route: EdgeRoute, boxes: list[NodeBox]) -> int:
    index = {b.id: b for b in boxes}
    return route_defects(route, index, Grid.for_items(boxes, segments(route.points)), 12).angle


def test_repair_counts_boundary_angles_as_the_contracts_do() -> None:
    # an entry at a gateway's left tip (70, 20) along the tip's axis is the gateway rules'
    # business, not an angle defect; repair used to count it (the face normal of TOP is up)
    s, g = NodeBox("s", 0, -100, 40, 40), NodeBox("g", 70, 0, 60, 40, Shape.DIAMOND)
    along = EdgeRoute("e", "s", "g", pts((20, -60), (20, 20), (70, 20)), BOTTOM0, TOP0)
    assert check_boundary_angles([along], {b.id: b for b in (s, g)}) == []
    assert _repair_angles(along, [s, g]) == 0
    # a repeated first point is no segment: the route still leaves a straight down
    repeated = replace(DOWN, points=pts((50, 40), (50, 40), (50, 100)))
    assert _repair_angles(repeated, [A, B]) == 0
    sideways = EdgeRoute("e", "a", "c", pts((50, 40), (250, 40), (250, 100)), BOTTOM0, TOP0)
    assert _repair_angles(sideways, [A, C]) == len(check_boundary_angles([sideways],
                                                                         {"a": A, "c": C})) == 1


def test_the_invariant_after_routing_asks_the_defect_model() -> None:
    result = _cases()[K.CLEARANCE]
    assert after_routing(graph_of(result), result, LayoutOptions()) == [
        "'e' passes 5.0 px from node 'n' (clearance 12)"]   # n starts at x = 55, e at 50
    assert after_routing(graph_of(_fan()), _fan(), LayoutOptions()) == []
