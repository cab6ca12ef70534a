"""Ports in the layered engine: every route contract on graphs with ports on every side,
mixed port constraints, bundles and a compound with ports, in every direction and at every
effort, plus the port contracts (each end at a port on the port's point, declared sides
kept, ``fixed_order`` kept); hand-worked coordinates for the basic cases.

Defaults: clearance 12 and edge spacing 12, so a stub's first column or row is
``max(12, 12) = 12`` px from its node. Slot ``i`` of ``k`` on a face of length ``L`` is
``L * (i + 1) / (k + 1)`` from the face's start (:mod:`layouts.layered.routing.slots`).
"""

from __future__ import annotations

import copy

import pytest

from layouts.api import layout
from layouts.errors import InvalidGraphError
from layouts.graph import Edge, Graph, GraphFeature, Node, Port, PortConstraints, PortSide
from layouts.layered.contracts import check_layout, check_port_sides_and_order
from layouts.layered.contracts.hierarchy import check_compound_layout
from layouts.layered.staircase_ports import STAIRCASE_NOTE
from layouts.mirror import base_direction, mirror_result
from layouts.options import Direction, Effort, LayoutOptions
from layouts.port_corpus import SAMPLES, generated_ports
from layouts.quality import measure
from layouts.result import LayoutResult, Point, PortBox, Side


def violations(graph: Graph, result: LayoutResult, direction: Direction) -> list[str]:
    """Every contract violation: the route contracts in the base direction's frame (a
    mirrored layout reflected back keeps them), sides and order in the result's own."""
    base = mirror_result(result, direction)
    options = LayoutOptions(direction=base_direction(direction))
    check = check_compound_layout if GraphFeature.COMPOUND in graph.features() \
        else check_layout
    return [v.message for v in check(graph, base, options)] + \
        [v.message for v in check_port_sides_and_order(graph, result)]


@pytest.mark.parametrize("effort", list(Effort))
@pytest.mark.parametrize("direction", list(Direction))
@pytest.mark.parametrize("name", list(SAMPLES))
def test_port_graphs_keep_every_contract(name: str, direction: Direction,
                                         effort: Effort) -> None:
    graph = SAMPLES[name]()
    before = copy.deepcopy(graph)
    result = layout(graph, engine="layered", direction=direction, effort=effort)
    assert graph == before, "the caller's graph was changed"
    assert violations(graph, result, direction) == []
    assert {p.id for p in result.ports} == {p.id for n in graph.all_nodes() for p in n.ports}


@pytest.mark.parametrize("seed", range(6))
def test_generated_port_graphs_keep_every_contract(seed: int) -> None:
    graph = generated_ports(30, seed=seed)
    for direction in (Direction.TOP_TO_BOTTOM, Direction.RIGHT_TO_LEFT):
        result = layout(graph, engine="layered", direction=direction, effort="draft")
        assert violations(graph, result, direction) == [], (seed, direction)


def _start(result: LayoutResult, edge_id: str) -> tuple[Point, ...]:
    return next(e.points for e in result.edges if e.id == edge_id)


def _relative(result: LayoutResult, port: PortBox) -> tuple[float, float]:
    node = result.node(port.node)
    return port.x - node.x, port.y - node.y


def test_fixed_order_on_the_south_face_counts_right_to_left() -> None:
    # ELK's clockwise order runs right to left on the south face: order 0 takes the
    # right slot. Two slots on a 120 px face: 120 * 1/3 = 40 and 120 * 2/3 = 80.
    a = Node("a", 120, 40, ports=(Port("o0", PortSide.SOUTH, 0), Port("o1", PortSide.SOUTH, 1)),
             port_constraints=PortConstraints.FIXED_ORDER)
    graph = Graph((a, Node("b", 80, 40), Node("c", 80, 40)),
                  (Edge("eb", "a", "b", source_port="o0"), Edge("ec", "a", "c",
                                                           source_port="o1")))
    result = layout(graph, engine="layered")
    assert _relative(result, result.port("o0")) == (80, 40)
    assert _relative(result, result.port("o1")) == (40, 40)
    box = result.node("a")
    assert _start(result, "eb")[0] == Point(box.x + 80, box.y + 40)
    assert _start(result, "ec")[0] == Point(box.x + 40, box.y + 40)
    for direction in Direction:
        mirrored = layout(graph, engine="layered", direction=direction)
        assert violations(graph, mirrored, direction) == [], direction


def test_an_east_port_in_top_to_bottom_leaves_sideways_then_turns_down() -> None:
    # one port on the east face of a 80 x 40 box: its middle, (80, 20) from the corner;
    # the stub runs 12 px out to its column, then down past the box
    a = Node("a", 80, 40, ports=(Port("p", PortSide.EAST),))
    graph = Graph((a, Node("b", 80, 40)), (Edge("e", "a", "b", source_port="p"),))
    result = layout(graph, engine="layered")
    box = result.node("a")
    points = _start(result, "e")
    assert result.port("p").side is Side.RIGHT
    assert points[:2] == (Point(box.x + 80, box.y + 20), Point(box.x + 92, box.y + 20))
    assert points[2].x == box.x + 92 and points[2].y > box.y + 40
    assert violations(graph, result, Direction.TOP_TO_BOTTOM) == []


def test_a_north_port_in_left_to_right_is_across_the_flow() -> None:
    # left to right, the north face is across the flow: out 12 px up from its middle
    a = Node("a", 80, 40, ports=(Port("p", PortSide.NORTH),))
    graph = Graph((a, Node("b", 80, 40)), (Edge("e", "a", "b", source_port="p"),))
    result = layout(graph, engine="layered", direction="LR")
    box = result.node("a")
    points = _start(result, "e")
    assert points[:2] == (Point(box.x + 40, box.y), Point(box.x + 40, box.y - 12))
    assert points[2].y == box.y - 12 and points[2].x > box.x + 80
    assert violations(graph, result, Direction.LEFT_TO_RIGHT) == []


def test_a_source_port_against_the_flow_goes_round_its_node() -> None:
    # a source on the north face, top to bottom: up 12 px, along that row to a column
    # 12 px beside the box (the right strip: both strips empty, the tie goes right),
    # down that column past the box
    a = Node("a", 80, 40, ports=(Port("p", PortSide.NORTH),))
    graph = Graph((a, Node("b", 80, 40)), (Edge("e", "a", "b", source_port="p"),))
    result = layout(graph, engine="layered")
    box = result.node("a")
    points = _start(result, "e")
    assert points[:3] == (Point(box.x + 40, box.y), Point(box.x + 40, box.y - 12),
                          Point(box.x + 92, box.y - 12))
    assert points[3].x == box.x + 92 and points[3].y > box.y + 40
    assert violations(graph, result, Direction.TOP_TO_BOTTOM) == []


def test_edges_at_one_port_leave_as_a_bundle_from_its_point() -> None:
    graph = SAMPLES["bundles"]()
    result = layout(graph, engine="layered")
    fan = [_start(result, f"fan{i}") for i in range(3)]
    out = result.port("out")
    assert {points[0] for points in fan} == {Point(out.x, out.y)}
    assert len({points[-1] for points in fan}) == 3      # and part for their own targets
    joins = [_start(result, f"join{i}")[-1] for i in range(4)]
    inbound = result.port("in")
    assert set(joins) == {Point(inbound.x, inbound.y)}
    sides = [_start(result, name)[0] for name in ("side0", "side1")]
    side = result.port("side")
    assert sides[0] == sides[1] == Point(side.x, side.y) and side.side is Side.RIGHT


@pytest.mark.parametrize("direction", list(Direction))
def test_a_fixed_position_stays_where_it_was_given(direction: Direction) -> None:
    # positions are relative to the node's corner in the drawing, whatever the direction
    a = Node("a", 100, 40, ports=(Port("s", PortSide.SOUTH, x=20, y=40),
                                  Port("e", PortSide.EAST, x=100, y=10)),
             port_constraints=PortConstraints.FIXED_POS)
    graph = Graph((a, Node("b", 80, 40), Node("c", 80, 40)),
                  (Edge("eb", "a", "b", source_port="s"), Edge("ec", "a", "c",
                                                          source_port="e")))
    result = layout(graph, engine="layered", direction=direction)
    box = result.node("a")
    assert _relative(result, result.port("s")) == (20, 40)
    assert _relative(result, result.port("e")) == (100, 10)
    assert _start(result, "eb")[0] == Point(box.x + 20, box.y + 40)
    assert _start(result, "ec")[0] == Point(box.x + 100, box.y + 10)
    assert violations(graph, result, direction) == []


@pytest.mark.parametrize(("direction", "into", "out_of"), [
    ("TB", Side.TOP, Side.BOTTOM), ("LR", Side.LEFT, Side.RIGHT),
    ("BT", Side.BOTTOM, Side.TOP), ("RL", Side.RIGHT, Side.LEFT)])
def test_free_ports_face_the_other_end_of_their_edges(direction: str, into: Side,
                                                      out_of: Side) -> None:
    hub = Node("hub", 80, 40, ports=(Port("i"), Port("o")))
    graph = Graph((Node("up", 80, 40), hub, Node("down", 80, 40)),
                  (Edge("a", "up", "hub", target_port="i"),
                   Edge("b", "hub", "down", source_port="o")))
    result = layout(graph, engine="layered", direction=direction)
    assert (result.port("i").side, result.port("o").side) == (into, out_of)


def test_a_self_loop_at_a_port_is_refused_naming_it() -> None:
    graph = Graph((Node("a", 80, 40, ports=(Port("p", PortSide.EAST),)),),
                  (Edge("loop", "a", "a", source_port="p"),))
    with pytest.raises(InvalidGraphError, match=r"ports on a self-loop \(edge 'loop'\)"):
        layout(graph, engine="layered")


def test_the_staircase_fallback_places_ports_and_names_what_it_does_not_keep() -> None:
    graph = generated_ports(300, seed=2)
    result = layout(graph, engine="layered", time_budget=0.01)
    assert result.diagnostics.budget_exhausted
    assert STAIRCASE_NOTE in result.diagnostics.notes
    assert {p.id for p in result.ports} == {p.id for n in graph.nodes for p in n.ports}


def test_the_same_port_graph_gives_the_same_json() -> None:
    graph = SAMPLES["mixed-constraints"]()
    first = layout(graph, engine="layered", effort="best").to_json()
    assert layout(graph, engine="layered", effort="best").to_json() == first


def test_the_port_checkers_catch_a_moved_end_and_a_broken_order() -> None:
    graph = Graph((Node("a", 120, 40, ports=(Port("o0", PortSide.SOUTH, 0),
                                             Port("o1", PortSide.SOUTH, 1)),
                        port_constraints=PortConstraints.FIXED_ORDER),
                   Node("b", 80, 40), Node("c", 80, 40)),
                  (Edge("eb", "a", "b", source_port="o0"), Edge("ec", "a", "c",
                                                           source_port="o1")))
    result = layout(graph, engine="layered")
    swapped = tuple(PortBox(p.id, p.node, q.x, q.y, side=p.side, slot=q.slot)
                    for p, q in zip(result.ports, result.ports[::-1], strict=True))
    broken = LayoutResult(result.nodes, result.edges, result.width, result.height,
                          result.diagnostics, swapped)
    assert any("out of their fixed order" in v.message
               for v in check_port_sides_and_order(graph, broken))
    assert any("is not on port 'o0'" in m for m in violations(graph, broken,
                                                               Direction.TOP_TO_BOTTOM))


def test_ordering_puts_a_west_port_target_left_of_an_east_port_target() -> None:
    # without ports in mind, ordering keeps model order (r first, so left) and the two
    # side stubs cross; the port-aware barycentre puts r right of l
    hub = Node("hub", 80, 40, ports=(Port("e", PortSide.EAST), Port("w", PortSide.WEST)))
    graph = Graph((hub, Node("r", 80, 40), Node("l", 80, 40)),
                  (Edge("to_r", "hub", "r", source_port="e"),
                   Edge("to_l", "hub", "l", source_port="w")))
    for direction in (Direction.TOP_TO_BOTTOM, Direction.BOTTOM_TO_TOP):
        result = layout(graph, engine="layered", direction=direction)
        assert result.node("l").x < result.node("r").x, direction
        assert measure(result).crossings == 0, direction


def test_a_layered_result_with_ports_matches_the_result_schema_and_round_trips() -> None:
    from jsonschema import Draft202012Validator

    from layouts.schemas import result_json_schema

    result = layout(SAMPLES["every-side"](), engine="layered")
    data = result.to_dict()
    assert all("slot" in p for p in data["ports"])   # the slot a port's ends share
    Draft202012Validator(result_json_schema()).validate(data)  # failed: no "slot" allowed
    assert LayoutResult.from_dict(data).to_dict()["ports"] == data["ports"]
