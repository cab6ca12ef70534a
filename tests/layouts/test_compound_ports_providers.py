"""Compound nodes and ports through the engines that lay them out (elkjs, graphviz):
children inside their parent's box, sibling boxes apart, ports on their node's boundary
on the side asked for, and edges at a port ending at it."""

from __future__ import annotations

from itertools import combinations

import pytest

from layouts.api import layout
from layouts.graph import Edge, Graph, Node, Port, PortConstraints, PortSide
from layouts.layered.contracts import check_port_sides_and_order
from layouts.port_corpus import SAMPLES as PORT_SAMPLES
from layouts.registry import get_provider
from layouts.result import Box, LayoutResult, Side

SIDES = {PortSide.NORTH: Side.TOP, PortSide.EAST: Side.RIGHT, PortSide.SOUTH: Side.BOTTOM,
         PortSide.WEST: Side.LEFT}


def _graph() -> Graph:
    """Three levels (outer > inner > leaves), a port on every side of 'hub', edges into,
    out of and across compound nodes at each level."""
    hub = Node("hub", 80, 60, ports=tuple(
        Port(f"p{side.value}", side, width=6, height=6)
        for side in (PortSide.NORTH, PortSide.EAST, PortSide.SOUTH, PortSide.WEST)),
        port_constraints=PortConstraints.FIXED_SIDE)
    inner = Node("inner", 10, 10, children=(Node("i1", 40, 30), Node("i2", 40, 30)))
    outer = Node("outer", 10, 10, children=(inner, Node("o1", 40, 30)))
    nodes = (hub, outer, Node("n", 40, 30), Node("e", 40, 30), Node("s", 40, 30),
             Node("w", 40, 30))
    edges = (
        Edge("i12", "i1", "i2"), Edge("io", "i2", "o1"), Edge("out", "o1", "hub",
                                                              target_port="pnorth"),
        Edge("toe", "hub", "e", source_port="peast"), Edge("tos", "hub", "s",
                                                           source_port="psouth"),
        Edge("tow", "hub", "w", source_port="pwest"), Edge("ton", "n", "outer"),
    )
    return Graph(nodes, edges)


def _inside(child: Box, parent: Box) -> bool:
    return (child.x >= parent.x - 0.5 and child.y >= parent.y - 0.5
            and child.right <= parent.right + 0.5 and child.bottom <= parent.bottom + 0.5)


def _overlap(a: Box, b: Box) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


def _check(graph: Graph, result: LayoutResult) -> None:
    boxes = {n.id: n for n in result.nodes}
    assert set(boxes) == {n.id for n in graph.all_nodes()}
    parents = graph.parents()
    for node_id, parent in parents.items():
        assert boxes[node_id].parent == parent
        if parent is not None:
            assert _inside(boxes[node_id].box, boxes[parent].box), (node_id, parent)
    siblings: dict[str | None, list[str]] = {}
    for node_id, parent in parents.items():
        siblings.setdefault(parent, []).append(node_id)
    for group in siblings.values():
        for a, b in combinations(group, 2):
            assert not _overlap(boxes[a].box, boxes[b].box), (a, b)
    hub = boxes["hub"]
    for port in graph.node("hub").ports:
        placed = result.port(port.id)
        assert placed.side is SIDES[port.side], port.id
        c = placed.center
        on_face = {Side.TOP: abs(c.y - hub.y), Side.BOTTOM: abs(c.y - hub.box.bottom),
                   Side.LEFT: abs(c.x - hub.x), Side.RIGHT: abs(c.x - hub.box.right)}
        assert on_face[placed.side] <= port.width / 2 + 0.5, (port.id, c)  # within its size
    for route in result.edges:
        if route.source_port:
            p = result.port(route.source_port)
            assert _inside(Box(route.points[0].x, route.points[0].y, 0, 0),
                           Box(p.x - 0.5, p.y - 0.5, p.width + 1, p.height + 1)), route.id


@pytest.mark.parametrize("engine", ["elkjs", "graphviz"])
@pytest.mark.parametrize("direction", ["TopToBottom", "LeftToRight", "BottomToTop"])
def test_compound_and_ports(engine: str, direction: str) -> None:
    status = get_provider(engine).availability()
    if not status.available:
        pytest.skip(status.reason)
    graph = _graph()
    _check(graph, layout(graph, engine=engine, direction=direction))


@pytest.mark.parametrize("engine", ["elkjs", "graphviz"])
@pytest.mark.parametrize("name", list(PORT_SAMPLES))
def test_the_layered_port_graphs_through_the_other_engines(engine: str, name: str) -> None:
    """The port corpus the layered contract tests use (tests/layouts/layered/test_ports.py),
    through elkjs and graphviz: every port placed, every end at a port inside its box;
    on the hand-written graphs also the declared sides and fixed orders."""
    status = get_provider(engine).availability()
    if not status.available:
        pytest.skip(status.reason)
    graph = PORT_SAMPLES[name]()
    for direction in ("TopToBottom", "LeftToRight"):
        result = layout(graph, engine=engine, direction=direction)
        placed = {p.id: p for p in result.ports}
        assert set(placed) == {p.id for n in graph.all_nodes() for p in n.ports}
        routes = {r.id: r for r in result.edges}
        for e in graph.edges:
            route = routes[e.id]
            for port, at in ((e.source_port, route.points[0]), (e.target_port,
                                                               route.points[-1])):
                if port is not None:
                    p = placed[port]
                    assert _inside(Box(at.x, at.y, 0, 0), Box(p.x - 0.5, p.y - 0.5,
                                                               p.width + 1, p.height + 1)), \
                        (e.id, port)
        if not name.startswith("generated"):  # free sides under fixed_order: ELK's own way
            assert check_port_sides_and_order(graph, result) == []
