"""The input-order shuffler: same content, seeded order, caller's graph untouched."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from layouts.errors import InvalidGraphError
from layouts.graph import Edge, Graph, Node, Shape
from layouts.permute import shuffle_graph


def _graph(size: int = 20) -> Graph:
    nodes = tuple(Node(f"n{i}", 10 + i, 20, Shape.DIAMOND if i % 3 == 0 else Shape.RECT,
                       f"label {i}") for i in range(size))
    edges = tuple(Edge(f"e{i}", f"n{i}", f"n{(i * 7 + 1) % size}",
                       label=f"g{i}" if i % 2 else None, loop_back=i % 5 == 0,
                       label_width=3.0 * (i % 2))
                  for i in range(size))
    return Graph(nodes=nodes, edges=edges)


def test_same_multiset_of_nodes_and_edges() -> None:
    g = _graph()
    for seed in range(10):
        s = shuffle_graph(g, seed)
        assert Counter(s.nodes) == Counter(g.nodes)
        assert Counter(s.edges) == Counter(g.edges)
        s.validate()


def test_order_changes_for_most_seeds() -> None:
    # With 20 nodes the chance that a uniform shuffle keeps the order is 1/20!, so
    # every one of 20 seeds should move something; allow one miss per list anyway.
    g = _graph()
    node_orders = [tuple(n.id for n in shuffle_graph(g, seed).nodes) for seed in range(20)]
    edge_orders = [tuple(e.id for e in shuffle_graph(g, seed).edges) for seed in range(20)]
    original_nodes, original_edges = tuple(n.id for n in g.nodes), tuple(e.id for e in g.edges)
    assert sum(order != original_nodes for order in node_orders) >= 19
    assert sum(order != original_edges for order in edge_orders) >= 19
    assert len(set(node_orders)) >= 19  # different seeds, different orders


def test_deterministic_and_independent_of_global_random() -> None:
    g = _graph()
    random.seed(1)
    first = shuffle_graph(g, 42)
    random.seed(2)
    assert shuffle_graph(g, 42) == first


def test_caller_graph_unchanged() -> None:
    g = _graph()
    before = (g.nodes, g.edges)
    shuffle_graph(g, 7)
    assert (g.nodes, g.edges) == before


def test_empty_and_single_node_graphs() -> None:
    assert shuffle_graph(Graph(nodes=()), 1) == Graph(nodes=())
    one = Graph(nodes=(Node("a", 1, 1),))
    assert shuffle_graph(one, 1) == one


@pytest.mark.parametrize("seed", ["1", 1.5, None, True])
def test_bad_seed_is_a_typed_error(seed: object) -> None:
    with pytest.raises(InvalidGraphError, match="seed"):
        shuffle_graph(_graph(), seed)  # type: ignore[arg-type]


def test_not_a_graph_is_a_typed_error() -> None:
    with pytest.raises(InvalidGraphError, match="Graph"):
        shuffle_graph({"nodes": []}, 1)  # type: ignore[arg-type]
