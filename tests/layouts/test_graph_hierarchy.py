"""The graph model's ports and compound nodes: validation, round trips, the schemas, and
the layered engine's typed refusal (until issue 14) instead of a crash."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest

from layouts.api import layout
from layouts.errors import InvalidGraphError, UnsupportedFeatureError
from layouts.graph import (
    MAX_DEPTH,
    Edge,
    Graph,
    GraphFeature,
    Node,
    Port,
    PortConstraints,
    PortSide,
)
from layouts.result import Diagnostics, EdgeRoute, LayoutResult, NodeBox, Point, PortBox, Side
from layouts.schemas import graph_json_schema, result_json_schema

Validator = jsonschema.Draft202012Validator


def _nested() -> Graph:
    """outer > inner > {a, b}; c at the root; ports on a and c."""
    a = Node("a", 80, 40, ports=(Port("a.out", PortSide.EAST, order=0, width=8, height=8),),
             port_constraints=PortConstraints.FIXED_ORDER)
    inner = Node("inner", 20, 20, label="Inner", children=(a, Node("b", 80, 40)))
    outer = Node("outer", 20, 20, children=(inner,))
    c = Node("c", 60, 40, ports=(Port("c.in", PortSide.WEST, x=-4, y=16, width=8, height=8),))
    return Graph((outer, c), (
        Edge("e1", "a", "b"),
        Edge("e2", "a", "c", source_port="a.out", target_port="c.in", label="x",
             label_width=10, label_height=12),
        Edge("e3", "outer", "b"),
        Edge("e4", "b", "b"),
    ))


def test_hierarchy_queries() -> None:
    g = _nested()
    g.validate()
    assert [n.id for n in g.all_nodes()] == ["outer", "inner", "a", "b", "c"]
    assert g.parents() == {"outer": None, "inner": "outer", "a": "inner", "b": "inner",
                           "c": None}
    assert g.node("b").width == 80
    assert g.features() == {GraphFeature.PORTS, GraphFeature.COMPOUND}
    assert not g.is_flat()
    assert Graph((Node("x", 1, 1),)).is_flat()


def test_edge_container_follows_elk() -> None:
    g = _nested()
    containers = {e.id: g.edge_container(e) for e in g.edges}
    # siblings a, b -> their parent; a (depth 3) -> c (root) -> the root; an edge from a
    # compound node into its own descendant belongs to that compound node; a self-loop to
    # the node's parent
    assert containers == {"e1": "inner", "e2": None, "e3": "outer", "e4": "inner"}


def test_round_trip_and_schema() -> None:
    g = _nested()
    data = g.to_dict()
    assert Graph.from_dict(data) == g
    Validator(graph_json_schema()).validate(data)
    port = data["nodes"][1]["ports"][0]
    assert port == {"id": "c.in", "side": "west", "x": -4.0, "y": 16.0, "width": 8.0,
                    "height": 8.0}
    assert data["edges"][1]["sourcePort"] == "a.out"
    assert data["nodes"][0]["children"][0]["children"][0]["portConstraints"] == "fixed_order"


def test_flat_graph_json_unchanged() -> None:
    """Graphs without ports or children write exactly the keys they wrote before."""
    data = Graph((Node("a", 8, 8),), (Edge("e", "a", "a"),)).to_dict()
    assert data == {"nodes": [{"id": "a", "width": 8, "height": 8, "shape": "rect",
                               "label": ""}],
                    "edges": [{"id": "e", "source": "a", "target": "a"}]}


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: d["nodes"][1].update(id="a"), "duplicate node id 'a'"),
    (lambda d: d["nodes"][1]["ports"][0].update(id="a.out"), "duplicate port id 'a.out'"),
    (lambda d: d["nodes"][1]["ports"][0].update(id="b"), "id 'b' names both a node and a port"),
    (lambda d: d["edges"][0].update(sourcePort="c.in"),
     "edge 'e1' has source port 'c.in', which is not a port of node 'a'"),
    (lambda d: d["edges"][0].update(target="nowhere"), "target 'nowhere', which is not a node"),
    (lambda d: d["nodes"][1]["ports"][0].update(side="up"), "has side 'up'; expected one of"),
    (lambda d: d["nodes"][1]["ports"][0].pop("y"), "gives only one of x and y"),
    (lambda d: d["nodes"][1]["ports"][0].update(width=-1), "has width -1"),
    (lambda d: d["nodes"][1]["ports"][0].update(order=1.5), "has order 1.5"),
    (lambda d: d["nodes"][1].update(portConstraints="locked"), "portConstraints 'locked'"),
    (lambda d: d["nodes"][0].update(children={"id": "x"}), "'children' must be a list"),
    (lambda d: d["edges"][0].update(targetPort=7), "targetPort 7"),
])
def test_invalid_hierarchies_are_named(mutate: Any, message: str) -> None:
    data = copy.deepcopy(_nested().to_dict())
    mutate(data)
    with pytest.raises(InvalidGraphError, match=None) as caught:
        Graph.from_dict(data)
    assert message in str(caught.value)


def test_nesting_depth_is_bounded() -> None:
    node: dict[str, Any] = {"id": "leaf", "width": 5, "height": 5}
    for level in range(MAX_DEPTH + 5):
        node = {"id": f"n{level}", "width": 5, "height": 5, "children": [node]}
    with pytest.raises(InvalidGraphError, match="levels are supported"):
        Graph.from_dict({"nodes": [node]})
    built = Graph((Node("x", 5, 5),))
    for level in range(MAX_DEPTH):
        built = Graph((Node(f"m{level}", 5, 5, children=built.nodes),))
    with pytest.raises(InvalidGraphError, match="levels are supported"):
        built.validate()


def test_effective_port_constraints() -> None:
    free = Node("a", 5, 5, ports=(Port("p"),))
    sided = Node("b", 5, 5, ports=(Port("q", PortSide.NORTH),))
    assert free.effective_port_constraints() is PortConstraints.FREE
    assert sided.effective_port_constraints() is PortConstraints.FIXED_SIDE
    fixed = Node("c", 5, 5, port_constraints=PortConstraints.FIXED_POS)
    assert fixed.effective_port_constraints() is PortConstraints.FIXED_POS


def test_result_with_parents_and_ports_round_trips() -> None:
    result = LayoutResult(
        nodes=(NodeBox("g", 0, 0, 200, 100), NodeBox("a", 12, 30, 80, 40, parent="g")),
        edges=(EdgeRoute("e", "a", "a", (Point(92, 50), Point(100, 50)), source_port="p",
                         target_port="p"),),
        width=200, height=100,
        diagnostics=Diagnostics("demo", "draft", "TopToBottom", warnings=("ignored x",)),
        ports=(PortBox("p", "a", 88, 46, 8, 8, Side.RIGHT),),
    )
    data = result.to_dict()
    Validator(result_json_schema()).validate(data)
    assert LayoutResult.from_dict(data) == result
    assert data["nodes"][1]["parent"] == "g" and "parent" not in data["nodes"][0]
    assert data["diagnostics"]["warnings"] == ["ignored x"]
    assert result.offset_of("a") == Point(12, 30) and result.offset_of(None) == Point(0, 0)
    assert result.port("p").center == Point(92, 50)


COMPOUND = Graph((Node("g", 9, 9, children=(Node("a", 9, 9),)),))
PORTS = Graph((Node("a", 9, 9, ports=(Port("p", PortSide.EAST),)), Node("b", 9, 9)),
              (Edge("e", "a", "b", source_port="p"),))


@pytest.mark.parametrize(("engine", "graph"), [
    ("grandalf", COMPOUND), ("grandalf", PORTS),
], ids=["grandalf-compound", "grandalf-ports"])
def test_engines_without_the_feature_refuse_it(engine: str, graph: Graph) -> None:
    with pytest.raises(UnsupportedFeatureError) as caught:
        layout(graph, engine=engine)
    feature = "compound nodes" if graph.features() == {GraphFeature.COMPOUND} else "ports"
    assert f"layout engine '{engine}' does not support {feature}" in str(caught.value)
    assert isinstance(caught.value, InvalidGraphError)  # 422 / exit code 2


def test_engine_options_and_label_sizes_round_trip() -> None:
    port = Port("p", PortSide.NORTH, label="in", label_width=12, label_height=10,
                layout_options=(("elk.port.borderOffset", 2),))
    node = Node("a", 40, 40, label="A", ports=(port,), label_width=9, label_height=14,
                layout_options=(("elk.nodeLabels.placement", "INSIDE V_TOP H_CENTER"),))
    g = Graph((node,), (Edge("e", "a", "a", layout_options=(("elk.edgeLabels.inline", True),)),),
              layout_options=(("elk.direction", "UP"), ("elk.spacing.nodeNode", 25)))
    data = g.to_dict()
    Validator(graph_json_schema()).validate(data)
    assert data["layoutOptions"] == {"elk.direction": "UP", "elk.spacing.nodeNode": 25}
    assert Graph.from_dict(data) == g
    data["nodes"][0]["layoutOptions"] = {"elk.padding": {"top": 3}}
    with pytest.raises(InvalidGraphError, match="it must be a string, number or boolean"):
        Graph.from_dict(data)
