"""Collapsed compound nodes: drawn as one node of their own size, children hidden, their
edges redirected to them, every route contract kept."""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ElementTree
from dataclasses import replace

import pytest

from layouts.api import layout
from layouts.collapse import collapse, hidden_count
from layouts.compound_corpus import three_levels
from layouts.errors import InvalidGraphError
from layouts.graph import Graph, Node
from layouts.layered.contracts import check_layout
from layouts.layered.contracts.hierarchy import check_compound_layout
from layouts.options import Direction, LayoutOptions


def _collapse_ids(graph: Graph, ids: set[str]) -> Graph:
    def visit(n: Node) -> Node:
        return replace(n, collapsed=n.id in ids, children=tuple(visit(c) for c in n.children))
    return replace(graph, nodes=tuple(visit(n) for n in graph.nodes))


@pytest.mark.parametrize("direction", [Direction.TOP_TO_BOTTOM, Direction.LEFT_TO_RIGHT])
def test_a_collapsed_middle_level_is_one_node_with_its_edges_redirected(
        direction: Direction) -> None:
    graph = _collapse_ids(three_levels(), {"middle"})
    before = copy.deepcopy(graph)
    result = layout(graph, engine="layered", direction=direction)
    assert graph == before
    ids = [n.id for n in result.nodes]
    assert ids == ["start", "outer", "o1", "middle", "o2", "end", "side"]
    middle = result.node("middle")
    assert (middle.width, middle.height) == (20, 20)      # its own size: nothing inside
    routes = {r.id: r for r in result.edges}
    # start -> i1 and i3 -> end now start or end at middle; i1 -> i2 (inside) is gone
    assert (routes["start-i1"].source, routes["start-i1"].target) == ("start", "middle")
    assert (routes["i3-end"].source, routes["i3-end"].target) == ("middle", "end")
    assert "i1-i2" not in routes and "i2-i2" not in routes and "m1-inner" not in routes
    drawn = collapse(graph)
    assert check_compound_layout(drawn, result, LayoutOptions(direction=direction)) == []


def test_collapsing_the_outermost_compound_leaves_a_flat_graph() -> None:
    graph = _collapse_ids(three_levels(), {"outer", "inner"})
    drawn = collapse(graph)
    assert drawn.is_flat() and [n.id for n in drawn.nodes] == ["start", "outer", "end", "side"]
    assert hidden_count(graph, "outer") == 9     # o1 middle o2, m1 inner m2, i1 i2 i3
    result = layout(graph, engine="layered")
    assert check_layout(drawn, result, LayoutOptions()) == []
    # the other engines draw the same collapsed graph (grandalf has no compound nodes)
    assert [n.id for n in layout(graph, engine="grandalf").nodes] == [n.id for n in drawn.nodes]


def test_collapsed_round_trips_and_must_be_a_boolean() -> None:
    graph = _collapse_ids(three_levels(), {"inner"})
    data = graph.to_dict()
    assert Graph.from_dict(data) == graph
    data["nodes"][1]["collapsed"] = "yes"
    with pytest.raises(InvalidGraphError, match="node 'outer' has collapsed 'yes'"):
        Graph.from_dict(data)


def test_the_svg_marks_a_collapsed_node_with_its_hidden_count() -> None:
    from renderer.render import render_timed
    from renderer.writers import OutputFormat

    graph = {"nodes": [{"id": "g", "width": 120, "height": 60, "collapsed": True,
                        "children": [{"id": "a", "width": 40, "height": 40},
                                     {"id": "b", "width": 40, "height": 40,
                                      "children": [{"id": "c", "width": 20, "height": 20}]}]},
                       {"id": "d", "width": 80, "height": 40}],
             "edges": [{"id": "e", "source": "c", "target": "d"}]}
    svg = render_timed(json.dumps(graph), fmt=OutputFormat.SVG, engine="layered",
                       options=LayoutOptions(),
                       runner=lambda g, e, o: layout(g, engine=e, options=o)).output
    root = ElementTree.fromstring(svg)
    markers = [el for el in root.iter() if el.get("class") == "collapsed-marker"]
    assert [m.get("data-hidden") for m in markers] == ["3"]      # a, b and c
    assert b"node-a" not in svg and b"node-c" not in svg
