"""BottomToTop and RightToLeft (ELK's UP and LEFT, Graphviz's BT and RL) on every engine,
and the mirror that gives them to the layered engine and grandalf."""

from __future__ import annotations

import pytest

from layouts.api import layout
from layouts.geometry import on_outline
from layouts.graph import Edge, Graph, Node, Shape
from layouts.layered.contracts import check_layout
from layouts.mirror import mirror_result
from layouts.options import Direction, LayoutOptions, parse_direction
from layouts.registry import get_provider
from layouts.result import Diagnostics, EdgeEnd, EdgeRoute, LayoutResult, NodeBox, Point, Side

CHAIN = Graph((Node("a", 80, 40), Node("b", 40, 40, Shape.DIAMOND), Node("c", 80, 40)),
              (Edge("e1", "a", "b"), Edge("e2", "b", "c")))


@pytest.mark.parametrize(("alias", "expected"), [
    ("UP", Direction.BOTTOM_TO_TOP), ("bt", Direction.BOTTOM_TO_TOP),
    ("BottomToTop", Direction.BOTTOM_TO_TOP), ("LEFT", Direction.RIGHT_TO_LEFT),
    ("RL", Direction.RIGHT_TO_LEFT), ("righttoleft", Direction.RIGHT_TO_LEFT),
])
def test_aliases(alias: str, expected: Direction) -> None:
    assert parse_direction(alias) is expected


@pytest.mark.parametrize("engine", ["layered", "graphviz", "elkjs", "grandalf"])
@pytest.mark.parametrize("direction", ["BottomToTop", "RightToLeft"])
def test_flow_runs_against_the_axis(engine: str, direction: str) -> None:
    status = get_provider(engine).availability()
    if not status.available:
        pytest.skip(status.reason)
    result = layout(CHAIN, engine=engine, direction=direction)
    a, b, c = (result.node(n).center for n in "abc")
    if direction == "BottomToTop":
        assert a.y > b.y > c.y
    else:
        assert a.x > b.x > c.x
    assert result.diagnostics.direction == direction
    for route in result.edges:
        assert on_outline(result.node(route.source), route.points[0], 1.0)
        assert on_outline(result.node(route.target), route.points[-1], 1.0)


@pytest.mark.parametrize("direction", [Direction.BOTTOM_TO_TOP, Direction.RIGHT_TO_LEFT])
def test_layered_keeps_its_contracts_when_mirrored(direction: Direction) -> None:
    base = Direction.TOP_TO_BOTTOM if direction is Direction.BOTTOM_TO_TOP \
        else Direction.LEFT_TO_RIGHT
    mirrored = layout(CHAIN, engine="layered", direction=direction)
    # a reflection of a valid layout is checked in the base frame by reflecting it back
    back = mirror_result(mirrored, direction)
    assert check_layout(CHAIN, back, LayoutOptions(direction=base)) == []


def test_mirror_swaps_faces_and_renumbers_slots_along_the_flipped_axis() -> None:
    # node n (0..100 x 0..40) in a 100 x 100 drawing; two ends on its right face, slots
    # 0 (upper, y=10) and 1 (lower, y=30); one end on its bottom face, slot 0
    nodes = (NodeBox("n", 0, 0, 100, 40), NodeBox("m", 0, 80, 100, 20))
    routes = (
        EdgeRoute("e1", "n", "m", (Point(100, 10), Point(120, 10), Point(120, 90),
                                   Point(100, 90)), EdgeEnd(Side.RIGHT, 0), EdgeEnd(Side.RIGHT, 0)),
        EdgeRoute("e2", "n", "m", (Point(100, 30), Point(100, 30)), EdgeEnd(Side.RIGHT, 1),
                  EdgeEnd(None, None)),
        EdgeRoute("e3", "n", "m", (Point(50, 40), Point(50, 80)), EdgeEnd(Side.BOTTOM, 0),
                  EdgeEnd(Side.TOP, 0)),
    )
    down = LayoutResult(nodes, routes, 100, 100, Diagnostics("demo", "draft", "TopToBottom"))
    up = mirror_result(down, Direction.BOTTOM_TO_TOP)
    assert up.node("n").y == 100 - 0 - 40 and up.node("m").y == 100 - 80 - 20
    e1, e2, e3 = up.edges
    # y=10 becomes 90, now the lower of the two right-face ends: slot 1 of 2
    assert e1.points[0] == Point(100, 90) and e1.source_end == EdgeEnd(Side.RIGHT, 1)
    assert e2.source_end == EdgeEnd(Side.RIGHT, 0)
    assert e3.source_end == EdgeEnd(Side.TOP, 0) and e3.target_end == EdgeEnd(Side.BOTTOM, 0)
    assert mirror_result(up, Direction.BOTTOM_TO_TOP).edges == down.edges
