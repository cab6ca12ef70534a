"""Collapsed compound nodes: the graph as it is drawn when some compound nodes are
collapsed (:attr:`layouts.graph.Node.collapsed`).

A collapsed node is drawn as one node of its own ``width``/``height``: its children are
hidden, every edge end inside it moves to it (the outermost collapsed node, when
collapsed nodes nest), an end's port is dropped with the hidden node it belonged to,
and an edge with both ends inside one collapsed node (or between it and its own
inside) is not drawn. Edges keep their ids, so a redirected edge's route has the
collapsed node as its source or target. Engines lay out the result like any graph.

>>> from layouts.graph import Edge, Graph, Node
>>> g = Graph((Node("g", 60, 40, collapsed=True, children=(Node("a", 9, 9), Node("b", 9, 9))),
...            Node("c", 9, 9)),
...           (Edge("ab", "a", "b"), Edge("bc", "b", "c"), Edge("cg", "c", "g")))
>>> drawn = collapse(g)
>>> [n.id for n in drawn.all_nodes()], [(e.id, e.source, e.target) for e in drawn.edges]
(['g', 'c'], [('bc', 'g', 'c'), ('cg', 'c', 'g')])
>>> hidden_count(g, "g")
2
"""

from __future__ import annotations

from dataclasses import replace

from layouts.graph import Edge, Graph, Node


def _visible(node: Node) -> Node:
    if node.collapsed and node.children:
        return replace(node, children=())
    return replace(node, children=tuple(_visible(c) for c in node.children))


def collapse(graph: Graph) -> Graph:
    """``graph`` as drawn (see the module docstring); ``graph`` itself when no node with
    children is collapsed."""
    if not any(n.collapsed and n.children for n in graph.all_nodes()):
        return graph
    parents = graph.parents()
    collapsed = {n.id for n in graph.all_nodes() if n.collapsed and n.children}

    def shown(node_id: str) -> str:
        out, at = node_id, parents[node_id]
        while at is not None:
            if at in collapsed:
                out = at
            at = parents[at]
        return out

    edges: list[Edge] = []
    for e in graph.edges:
        source, target = shown(e.source), shown(e.target)
        if source == target and (source != e.source or target != e.target):
            continue   # inside one collapsed node
        edges.append(replace(
            e, source=source, target=target,
            source_port=e.source_port if source == e.source else None,
            target_port=e.target_port if target == e.target else None))
    groups = tuple(replace(g, nodes=tuple(dict.fromkeys(shown(n) for n in g.nodes)))
                   for g in graph.rank_groups)
    return replace(graph, nodes=tuple(_visible(n) for n in graph.nodes), edges=tuple(edges),
                   rank_groups=groups)


def hidden_count(graph: Graph, node_id: str) -> int:
    """How many nodes a collapsed ``node_id`` hides (its descendants, at every depth)."""
    stack = list(graph.node(node_id).children)
    count = 0
    while stack:
        n = stack.pop()
        count += 1
        stack.extend(n.children)
    return count
