"""Port-aware placement (layouts/layered/placement/port_pass.py): a node's neighbour is
placed so the edge at a port runs straight from the port (or its stub's column) instead
of with a dogleg. Coordinates are worked by hand from the default options: layer
spacing 60 px, stub margin 12 px from the box."""

from __future__ import annotations

import pytest

from layouts.api import layout
from layouts.graph import Edge, Graph, Node, Port, PortConstraints, PortSide
from layouts.port_corpus import SAMPLES
from layouts.quality import measure
from layouts.result import Point


def _fixed_south() -> Graph:
    """``a`` (120 x 40) with its only port fixed at x = 100 on its bottom face; ``b``
    (40 x 40) fed from it."""
    a = Node("a", 120, 40, ports=(Port("p", PortSide.SOUTH, x=100, y=40),),
             port_constraints=PortConstraints.FIXED_POS)
    return Graph((a, Node("b", 40, 40)), (Edge("e", "a", "b", source_port="p"),))


def test_a_fixed_port_off_centre_gets_its_neighbour_right_under_it() -> None:
    result = layout(_fixed_south(), engine="layered")
    # the port at (100, 40); b's top at 40 + 60 = 100, its centre under the port: x = 80
    assert result.edges[0].points == (Point(100, 40), Point(100, 100))
    assert (result.node("b").x, result.node("b").y) == (80, 100)


def test_left_to_right_the_edge_turns_once_below_the_port_and_runs_straight() -> None:
    result = layout(_fixed_south(), engine="layered", direction="LeftToRight")
    # the south port leaves down its stub, 12 px, to y = 52, then right into b, whose
    # centre is on that line: b.y = 52 - 40 / 2 = 32 (before: two more bends)
    points = result.edges[0].points
    assert points[:2] == (Point(100, 40), Point(100, 52))
    assert len(points) == 3 and points[2].y == 52
    assert result.node("b").y == 32


def test_a_side_port_gets_its_neighbour_under_its_stub_column() -> None:
    a = Node("a", 120, 40, ports=(Port("q", PortSide.EAST),),
             port_constraints=PortConstraints.FIXED_SIDE)
    graph = Graph((a, Node("b", 40, 40)), (Edge("e", "a", "b", source_port="q"),))
    result = layout(graph, engine="layered")
    # out of the middle of the east face (y = 20) to the stub column x = 120 + 12, then
    # straight down into b's top (y = 100), b centred on the column: x = 132 - 20
    assert result.edges[0].points == (Point(120, 20), Point(132, 20), Point(132, 100))
    assert result.node("b").x == 112


@pytest.mark.parametrize("name", ["every-side", "mixed-constraints", "bundles"])
def test_the_port_graphs_bend_less_than_with_ports_ignored_by_placement(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Against the first placement alone (the step turned off), counted on the drawing;
    both on network simplex's layers (the layer moves search off: it would draw each
    on the layers that cross least with its own placement, so on different layers)."""
    from layouts.layered.layering import moves
    from layouts.layered.placement import port_pass

    monkeypatch.setattr(moves, "MAX_ITEMS", 0)
    graph = SAMPLES[name]()
    with_step = measure(layout(graph, engine="layered")).bends
    monkeypatch.setattr(port_pass, "run", lambda *args, **kwargs: args[3])
    without = measure(layout(graph, engine="layered")).bends
    assert with_step < without
