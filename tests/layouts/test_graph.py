import math

import pytest

from layouts.errors import InvalidGraphError
from layouts.graph import Edge, Graph, Node, Shape


def _graph(*nodes: Node, edges: tuple[Edge, ...] = ()) -> Graph:
    return Graph(nodes=nodes, edges=edges)


def test_valid_graph_passes() -> None:
    g = _graph(Node("a", 10, 10), Node("b", 10, 10, Shape.CIRCLE), edges=(Edge("e", "a", "b"),))
    g.validate()


@pytest.mark.parametrize(
    ("graph", "offending"),
    [
        (_graph(Node("a", 10, 10), Node("a", 5, 5)), "a"),
        (_graph(Node("a", 10, 10), edges=(Edge("e", "a", "zz"),)), "e"),
        (_graph(Node("a", 10, 10), edges=(Edge("e", "a", "a"), Edge("e", "a", "a"))), "e"),
        (_graph(Node("n", math.nan, 10)), "n"),
        (_graph(Node("n", 10, math.inf)), "n"),
        (_graph(Node("n", 0, 10)), "n"),
        (_graph(Node("n", 10, -1)), "n"),
    ],
)
def test_invalid_graphs_name_the_offender(graph: Graph, offending: str) -> None:
    with pytest.raises(InvalidGraphError) as info:
        graph.validate()
    assert info.value.offending_id == offending
    assert f"'{offending}'" in str(info.value)


def test_round_trip_through_dict() -> None:
    g = _graph(
        Node("a", 120, 40, label="A"),
        Node("gw", 40, 40, Shape.DIAMOND),
        edges=(Edge("e1", "a", "gw", label="yes", label_width=20, label_height=12),
               Edge("e2", "gw", "a", loop_back=True)),
    )
    assert Graph.from_dict(g.to_dict()) == g


def test_from_dict_rejects_unknown_shape_naming_node() -> None:
    with pytest.raises(InvalidGraphError, match=r"'x'.*hexagon"):
        Graph.from_dict({"nodes": [{"id": "x", "width": 1, "height": 1, "shape": "hexagon"}]})


def test_from_dict_rejects_boolean_size() -> None:
    with pytest.raises(InvalidGraphError, match="'x'"):
        Graph.from_dict({"nodes": [{"id": "x", "width": True, "height": 1}]})


def test_from_dict_needs_nodes_list() -> None:
    with pytest.raises(InvalidGraphError, match="nodes"):
        Graph.from_dict({"edges": []})
