"""Dummy chains: split every edge spanning several layers into unit segments through
zero-size dummy nodes, one per intermediate layer (Gansner et al. 1993, section 3).

Pre-condition: an acyclic :class:`LayeredGraph` and a rank per node from layering.
Post-condition: a :class:`ProperGraph` in which every segment joins rank ``r`` to ``r + 1``;
dummy ids are counter-based (``<prefix>0``, ``<prefix>1``... in edge order) with a prefix
no real node id starts with, so the same input always gives the same ids; the chain edges
(the routing hand-off) keep input edge order, self-loops included. Reversed edges get no
dummies and no segments: routing draws them around the side of the drawing in their own
corridor, so they take no room inside the layers and no part in ordering. The exception
are the reversed edges named in ``lanes`` (by input position, see
:mod:`layouts.layered.loopbacks.lanes`): each gets a *lane*, a dummy chain from its upper node's
layer down to its lower node's layer inclusive, which ordering places between the
columns like any long edge; the lane joins its edge's component. The reversed edges
named in ``facing`` (:mod:`layouts.layered.loopbacks.facing`) are split like forward
edges instead, from their upper node down to their lower one, and their chain edges are
forward ones marked ``facing``: they are drawn between the two nodes' facing faces and
turned round when cycle breaking is undone.

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.layered.graph import import_graph
>>> from layouts.layered.cycles import run as break_cycles
>>> from layouts.options import LayoutOptions
>>> g = Graph(tuple(Node(n, 9, 9) for n in "ab"),
...           (Edge("e", "a", "b"), Edge("r", "b", "a", loop_back=True)))
>>> proper = run(break_cycles(import_graph(g, LayoutOptions())), (0, 1), frozenset({1}))
>>> back = proper.chain_edges[1]
>>> back.lane, back.chain, [proper.rank[proper.index[d]] for d in back.chain]
(True, ('~d0', '~d1'), [0, 1])

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.layered.graph import import_graph
>>> from layouts.options import LayoutOptions
>>> g = Graph(tuple(Node(n, 9, 9) for n in "ab"), (Edge("e", "a", "b"),))
>>> proper = run(import_graph(g, LayoutOptions()), (0, 2))
>>> proper.chain_edges[0].chain, proper.segments
(('~d0',), ((0, 2), (2, 1)))
"""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

from layouts.layered.graph import EngineEdge, EngineNode, LayeredGraph, ProperGraph
from layouts.layered.label_room import rooms
from layouts.layered.layering import components
from layouts.layered.model import ChainEdge

__all__ = ["dummy_prefix", "run"]


def dummy_prefix(node_ids: list[str]) -> str:
    """``~d``, with more ``~`` until no real node id starts with it.

    >>> dummy_prefix(["~d1", "x"])
    '~~d'
    """
    prefix = "~d"
    while any(n.startswith(prefix) for n in node_ids):
        prefix = "~" + prefix
    return prefix


def run(graph: LayeredGraph, rank: tuple[int, ...],
        lanes: frozenset[int] = frozenset(), facing: frozenset[int] = frozenset()
        ) -> ProperGraph:
    """Split long edges into dummy chains, give the reversed edges at the input
    positions in ``lanes`` a lane and split those in ``facing`` like forward edges; see
    the module docstring.

    >>> from layouts.graph import Edge, Graph, Node
    >>> from layouts.layered.graph import import_graph
    >>> from layouts.layered.cycles import run as break_cycles
    >>> from layouts.options import LayoutOptions
    >>> g = Graph(tuple(Node(n, 9, 9) for n in "ab"),
    ...           (Edge("e", "a", "b"), Edge("r", "b", "a", loop_back=True)))
    >>> proper = run(break_cycles(import_graph(g, LayoutOptions())), (0, 2),
    ...              facing=frozenset({1}))
    >>> back = proper.chain_edges[1]
    >>> back.source, back.target, back.reversed, back.facing, back.chain
    ('a', 'b', False, True, ('~d1',))
    """
    nodes = list(graph.nodes)
    ranks = list(rank)
    prefix = dummy_prefix([n.id for n in graph.nodes])
    segments: list[tuple[int, int]] = []
    links: list[tuple[int, int]] = []   # lane ends to their nodes: connectivity only
    chains: dict[int, ChainEdge] = {}

    def dummies(first: int, last: int) -> list[int]:
        for r in range(first, last + 1):
            nodes.append(EngineNode(f"{prefix}{len(nodes) - len(graph.nodes)}", 0.0, 0.0,
                                    dummy=True))
            ranks.append(r)
        return list(range(len(nodes) - (last + 1 - first), len(nodes)))

    for e in graph.edges:
        if e.reversed and e.position in facing:
            path = [e.source, *dummies(rank[e.source] + 1, rank[e.target] - 1), e.target]
            segments.extend(pairwise(path))
            chains[e.position] = replace(
                _chain_edge(graph, replace(e, reversed=False),
                            tuple(nodes[v].id for v in path[1:-1])), facing=True)
            continue
        if e.reversed and e.position not in lanes:
            chains[e.position] = _chain_edge(graph, e, ())
            continue
        if e.reversed:
            lane = dummies(rank[e.source], rank[e.target])
            segments.extend(pairwise(lane))
            links += [(e.source, lane[0]), (e.target, lane[-1])]
            chains[e.position] = _chain_edge(graph, e, tuple(nodes[v].id for v in lane))
            continue
        path = [e.source, *dummies(rank[e.source] + 1, rank[e.target] - 1), e.target]
        segments.extend(pairwise(path))
        chains[e.position] = _chain_edge(graph, e, tuple(nodes[v].id for v in path[1:-1]))
    for e in graph.self_loops:
        chains[e.position] = _chain_edge(graph, e, ())
    node_ids = {n.id: i for i, n in enumerate(nodes)}
    proper = ProperGraph(
        nodes=tuple(nodes),
        rank=tuple(ranks),
        layer_count=max(ranks, default=-1) + 1,
        segments=tuple(segments),
        chain_edges=tuple(chains[p] for p in sorted(chains)),
        component=tuple(components(len(nodes), segments + links)),
        index=node_ids,
    )
    return replace(proper, label_room=rooms(proper))


def _chain_edge(graph: LayeredGraph, e: EngineEdge, chain: tuple[str, ...]) -> ChainEdge:
    upper, lower = graph.nodes[e.source].id, graph.nodes[e.target].id
    return ChainEdge(
        id=e.id,
        source=lower if e.reversed else upper,
        target=upper if e.reversed else lower,
        upper=upper,
        lower=lower,
        chain=chain,
        reversed=e.reversed,
        loop_back=e.loop_back,
        label_width=e.label_width,
        label_height=e.label_height,
        lane=e.reversed and bool(chain),
    )
