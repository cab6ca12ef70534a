"""Phase 1, cycle breaking: ``run`` makes the graph acyclic, ``undo`` restores the input
direction of every reversed edge after routing.

Pre-condition of ``run``: a :class:`LayeredGraph` straight from import (no edge reversed).
Post-condition: ``edges`` form a DAG; self-loops are moved to ``self_loops``; every
declared loop-back edge is reversed, then a small feedback set found by the greedy
Eades-Lin-Smyth heuristic (see :mod:`.feedback`); the entry node (the first node in model
order without incoming forward edges) has no incoming edges, so layering puts it first.
When every node has an incoming edge the entry rule (:mod:`.entry`) picks it: the first
node, its incoming edges reversed, or the first source the greedy feedback set leaves.

Pre-condition of ``undo``: a routing whose edges correspond to the acyclic graph's edges.
Post-condition: every route runs from its input source to its input target, with its ends
swapped accordingly, and edges drawn against the flow are flagged ``loop_back``.

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.layered.graph import import_graph
>>> from layouts.options import LayoutOptions
>>> g = Graph((Node("a", 9, 9), Node("b", 9, 9)),
...           (Edge("ab", "a", "b"), Edge("ba", "b", "a", loop_back=True)))
>>> acyclic = run(import_graph(g, LayoutOptions()))
>>> [(e.id, e.source, e.target, e.reversed) for e in acyclic.edges]
[('ab', 0, 1, False), ('ba', 0, 1, True)]
"""

from __future__ import annotations

from dataclasses import replace

from layouts.layered.cycles.entry import EntryRule
from layouts.layered.cycles.feedback import feedback_edges
from layouts.layered.graph import EngineEdge, LayeredGraph
from layouts.layered.model import Routing
from layouts.result import EdgeRoute

__all__ = ["EntryRule", "entry_node", "run", "undo"]


def entry_node(node_count: int, edges: tuple[EngineEdge, ...]) -> int:
    """The first node in model order with no incoming edge (node 0 if every node has one).

    >>> entry_node(2, (EngineEdge("e", 1, 0, 0),))
    1
    """
    has_incoming = [False] * node_count
    for e in edges:
        if not e.is_self_loop:
            has_incoming[e.target] = True
    return next((v for v in range(node_count) if not has_incoming[v]), 0)


def run(graph: LayeredGraph, entry_rule: EntryRule = EntryRule.FIRST_NODE) -> LayeredGraph:
    """Reverse declared loop-backs, then a small feedback set; set self-loops aside.
    When every node has an incoming edge, ``entry_rule`` says which comes first
    (:mod:`.entry`).

    >>> from layouts.graph import Edge, Graph, Node
    >>> from layouts.layered.graph import import_graph
    >>> from layouts.options import LayoutOptions
    >>> g = import_graph(Graph(tuple(Node(v, 9, 9) for v in "abc"), (Edge("ab", "a", "b"),
    ...     Edge("bc", "b", "c"), Edge("cb", "c", "b"), Edge("ca", "c", "a"))),
    ...     LayoutOptions())
    >>> [e.id for e in run(g).edges if e.reversed]   # a first: ca turns round, then cb
    ['cb', 'ca']
    >>> greedy = run(g, EntryRule.GREEDY)             # c has the most out minus in
    >>> [e.id for e in greedy.edges if e.reversed], g.nodes[greedy.entry].id
    (['bc'], 'c')
    """
    self_loops = tuple(e for e in graph.edges if e.is_self_loop)
    edges = [_reverse(e) if e.loop_back else e for e in graph.edges if not e.is_self_loop]
    node_count = len(graph.nodes)
    if node_count == 0:
        return replace(graph, edges=(), self_loops=self_loops)
    entry = entry_node(node_count, tuple(edges))
    greedy = entry_rule is EntryRule.GREEDY and _entered(edges, entry)
    if not greedy:
        edges = [_reverse(e) if e.target == entry else e for e in edges]
    arcs = [(e.source, e.target) for e in edges]
    priority = _discovery_order(node_count, arcs, entry)
    for i in feedback_edges(node_count, arcs, priority):
        edges[i] = _reverse(edges[i])
    if greedy:
        entry = entry_node(node_count, tuple(edges))
    return replace(graph, edges=tuple(edges), self_loops=self_loops, entry=entry)


def _entered(edges: list[EngineEdge], entry: int) -> bool:
    """Whether ``entry`` (the :func:`entry_node`) has an incoming edge: then no node
    is free of them."""
    return any(e.target == entry for e in edges)


def undo(routing: Routing, graph: LayeredGraph) -> Routing:
    """Make every route run from its input source to its input target."""
    by_id = {e.id: e for e in (*graph.edges, *graph.self_loops)}
    names = graph.nodes
    routes = []
    for route in routing.edges:
        edge = by_id[route.id]
        source = names[edge.target if edge.reversed else edge.source].id
        routes.append(_orient(route, source, edge.reversed or edge.loop_back))
    return replace(routing, edges=tuple(routes))


def _orient(route: EdgeRoute, source: str, against_flow: bool) -> EdgeRoute:
    """``route`` from ``source``, flagged a loop-back when it runs ``against_flow``
    (the same route when it already is both: most are, and copying costs)."""
    loop_back = route.loop_back or against_flow
    if route.source != source:
        return replace(route, source=route.target, target=route.source,
                       points=route.points[::-1], source_end=route.target_end,
                       target_end=route.source_end, loop_back=loop_back)
    return route if loop_back == route.loop_back else replace(route, loop_back=loop_back)


def _reverse(edge: EngineEdge) -> EngineEdge:
    return replace(edge, source=edge.target, target=edge.source, reversed=not edge.reversed)


def _discovery_order(node_count: int, arcs: list[tuple[int, int]], entry: int) -> list[int]:
    """Depth-first pre-order from ``entry``, then from the other nodes in model order."""
    successors: list[list[int]] = [[] for _ in range(node_count)]
    for a, b in arcs:
        successors[a].append(b)
    order = [-1] * node_count
    counter = 0
    for root in [entry, *range(node_count)]:
        if order[root] != -1:
            continue
        stack = [root]
        while stack:
            v = stack.pop()
            if order[v] != -1:
                continue
            order[v] = counter
            counter += 1
            stack.extend(w for w in reversed(successors[v]) if order[w] == -1)
    return order
