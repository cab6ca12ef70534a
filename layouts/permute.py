"""Seeded shuffles of a graph's input order, to measure how much a layout depends on it.

Engines keep the model order of nodes and edges where it is free; an engine that is
stable under input order gives layouts of about the same quality for every shuffle.
The benchmark and the layered engine's stability tests lay out several shuffles of one
graph and compare their crossing counts.

>>> from layouts.graph import Edge, Graph, Node
>>> g = Graph(nodes=tuple(Node(f"n{i}", 10, 10) for i in range(5)),
...           edges=(Edge("e1", "n0", "n1"), Edge("e2", "n1", "n2")))
>>> s = shuffle_graph(g, seed=3)
>>> sorted(n.id for n in s.nodes) == [n.id for n in g.nodes]
True
>>> shuffle_graph(g, seed=3) == s
True
"""

from __future__ import annotations

import random

from layouts.errors import InvalidGraphError
from layouts.graph import Graph


def shuffle_graph(graph: Graph, seed: int) -> Graph:
    """The same graph with its node order and edge order shuffled by ``seed``.

    Nothing but the order changes: every node and edge is the same (equal, immutable)
    object, and the caller's graph is left as it was. Nodes and edges are shuffled
    with two independent draws of one ``random.Random(seed)``, so the result depends
    on the seed alone, never on global random state.

    >>> from layouts.graph import Graph, Node
    >>> shuffle_graph(Graph(nodes=(Node("a", 1, 1),)), seed=0).nodes[0].id
    'a'
    """
    if not isinstance(graph, Graph):
        raise InvalidGraphError(f"shuffle_graph needs a Graph, not {type(graph).__name__}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidGraphError(f"shuffle seed must be an integer, not {seed!r}")
    rng = random.Random(seed)
    nodes = list(graph.nodes)
    rng.shuffle(nodes)
    edges = list(graph.edges)
    rng.shuffle(edges)
    return Graph(nodes=tuple(nodes), edges=tuple(edges))
