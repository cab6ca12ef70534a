"""Free ports on the face of fewest crossings (layouts/layered/port_sides.py)."""

from __future__ import annotations

from layouts.api import layout
from layouts.graph import Edge, Graph, Node, Port, PortConstraints, PortSide
from layouts.layered.contracts import check_layout, check_port_sides_and_order
from layouts.layered.port_sides import free_ports
from layouts.options import Direction, LayoutOptions
from layouts.quality import measure
from layouts.result import Side


def _hub() -> Graph:
    """``hub``'s one free port ``p`` is entered from ``t`` above and left towards ``b``
    below; ``hub`` itself feeds ``x`` and ``y``. One edge each way: the flow rule puts
    ``p`` on the bottom face (sources win ties), and the edge from ``t`` then needs a
    stub round the node and along the bottom, across the edges to ``x`` and ``y``. On
    the top face the edge from ``t`` comes straight down, and the one to ``b`` goes
    round a side strip, outside every other edge: nothing need cross."""
    hub = Node("hub", 120, 40, ports=(Port("p"),), port_constraints=PortConstraints.FREE)
    return Graph((Node("t", 60, 30), hub, Node("x", 60, 30), Node("y", 60, 30),
                  Node("b", 60, 30)),
                 (Edge("tp", "t", "hub", target_port="p"),
                  Edge("pb", "hub", "b", source_port="p"),
                  Edge("hx", "hub", "x"), Edge("hy", "hub", "y")))


def test_the_flow_rule_puts_a_tied_free_port_where_sources_leave() -> None:
    assert free_ports(_hub(), Direction.TOP_TO_BOTTOM) == [("hub", "p", PortSide.SOUTH)]
    assert free_ports(_hub(), Direction.LEFT_TO_RIGHT) == [("hub", "p", PortSide.EAST)]


def test_draft_keeps_the_flow_face() -> None:
    result = layout(_hub(), engine="layered", effort="draft")
    assert [p.side for p in result.ports] == [Side.BOTTOM]
    assert measure(result).crossings > 0


def test_balanced_moves_the_free_port_to_a_face_without_crossings() -> None:
    graph = _hub()
    result = layout(graph, engine="layered", effort="balanced")
    assert measure(result).crossings == 0
    assert [p.side for p in result.ports] != [Side.BOTTOM]
    assert check_layout(graph, result, LayoutOptions()) == []
    assert check_port_sides_and_order(graph, result) == []
    assert any(n.startswith("free port sides:") for n in result.diagnostics.notes)


def test_fixed_side_ports_are_not_free() -> None:
    hub = Node("hub", 80, 40, ports=(Port("p", PortSide.EAST), Port("q")),
               port_constraints=PortConstraints.FIXED_SIDE)
    graph = Graph((hub, Node("b", 9, 9)), (Edge("e", "hub", "b", source_port="q"),))
    assert free_ports(graph, Direction.TOP_TO_BOTTOM) == [("hub", "q", PortSide.SOUTH)]
