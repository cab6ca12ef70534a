"""Ports that would overlap (layouts/layered/port_fit.py): the node grows along that
face until every two neighbouring ports keep 4 px apart, and a warning says so; sizes
worked by hand from the lattice rule (``k`` points ``L / (k + 1)`` apart)."""

from __future__ import annotations

import pytest

from layouts.api import layout
from layouts.graph import Edge, Graph, Node, Port, PortConstraints, PortSide
from layouts.layered.contracts import check_layout, check_port_sides_and_order
from layouts.options import Direction, LayoutOptions
from layouts.result import LayoutResult


def _wide_ports(extra_edge: bool = False) -> Graph:
    """``a`` (80 x 40) with three 30 px wide ports on its south face, one edge each to
    ``b``; with ``extra_edge`` also an edge from ``a`` itself (a fourth point there in
    TopToBottom, where edges leave by the south face)."""
    ports = tuple(Port(f"p{i}", PortSide.SOUTH, width=30, height=6) for i in range(3))
    a = Node("a", 80, 40, ports=ports, port_constraints=PortConstraints.FIXED_SIDE)
    edges = [Edge(f"e{i}", "a", "b", source_port=f"p{i}") for i in range(3)]
    if extra_edge:
        edges.append(Edge("plain", "a", "c"))
    return Graph((a, Node("b", 40, 40), Node("c", 40, 40)), tuple(edges))


def _overlapping_pairs(result: LayoutResult) -> int:
    ports = list(result.ports)
    return sum(1 for i, a in enumerate(ports) for b in ports[i + 1:]
               if a.node == b.node and min(a.x + a.width, b.x + b.width) - max(a.x, b.x) > 0
               and min(a.y + a.height, b.y + b.height) - max(a.y, b.y) > 0)


@pytest.mark.parametrize("direction", ["TopToBottom", "LeftToRight", "BottomToTop"])
def test_ports_wider_than_their_slots_grow_the_node_instead_of_overlapping(
        direction: str) -> None:
    graph = _wide_ports()
    result = layout(graph, engine="layered", direction=direction)
    # 80 px hold 3 points 20 px apart, less than a 30 px port: the face needs
    # (3 + 1) * (30 + 4) = 136 px
    assert result.node("a").width == 136
    assert result.node("a").height == 40
    assert _overlapping_pairs(result) == 0
    assert any("'a' grown from 80 to 136 px along its south face" in w
               for w in result.diagnostics.warnings)
    assert check_layout(graph, result, LayoutOptions(direction=Direction(direction))) == []
    assert check_port_sides_and_order(graph, result) == []


def test_edges_at_the_node_itself_take_points_of_the_face_too() -> None:
    result = layout(_wide_ports(extra_edge=True), engine="layered")
    # three ports and the plain edge's end: (4 + 1) * (30 + 4) = 170 px
    assert result.node("a").width == 170
    assert _overlapping_pairs(result) == 0


def test_ports_that_fit_leave_the_node_and_the_warnings_alone() -> None:
    ports = tuple(Port(f"p{i}", PortSide.SOUTH, width=6, height=6) for i in range(3))
    graph = Graph((Node("a", 80, 40, ports=ports), Node("b", 40, 40)),
                  tuple(Edge(f"e{i}", "a", "b", source_port=f"p{i}") for i in range(3)))
    result = layout(graph, engine="layered")
    assert result.node("a").width == 80     # 80 / 4 = 20 >= 6 + 4
    assert result.diagnostics.warnings == ()
