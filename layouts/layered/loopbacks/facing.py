"""Facing routes: a reversed edge whose two nodes are also joined by a forward edge (a
*mutual pair*, ``a -> b`` and ``b -> a``) is drawn beside that partner, between the two
nodes' facing faces, as Graphviz dot draws back edges: out of its source's top face, up
through the layers between, into its target's bottom face.

Around the side in a corridor, or up a lane beside the column, the same edge leaves its
lower node's bottom face and enters its upper node's top face, so it runs past both
nodes' full height and crosses the channels below and above them; beside its partner it
spans only the layers between the two nodes and crosses what its partner crosses. On
graphs with many mutual pairs (state machines, trust and citation graphs) the corridors
and lanes of the pairs made most of the drawing's crossings.

The dummy chains step splits these edges as forward chains (:func:`pairs` names them;
:func:`layouts.layered.layering.chains.run` marks their chain edges ``facing``), so
ordering orders them with their partners from the start. The lane step
(:mod:`.lanes`) then checks each one: a facing edge whose chain crosses more segments
than its corridor runs would in the same order goes back to a corridor when the order
refined from there (:func:`facing_start`) crosses less in total.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from layouts.layered.graph import LayeredGraph, ProperGraph, layer_positions
from layouts.layered.loopbacks.costs import CorridorCosts
from layouts.layered.ordering import OrderingResult
from layouts.options import LayoutOptions, LoopBackRoute

__all__ = ["costlier_than_corridors", "facing_start", "mutual_pairs", "pairs"]


def pairs(graph: LayeredGraph, options: LayoutOptions) -> frozenset[int]:
    """The reversed edges the dummy chains step draws facing: :func:`mutual_pairs`
    without an end at a port, and those with one that the port table has the roles of
    facing for (its ``flipped`` edges, :mod:`layouts.layered.cycles.port_roles`: port
    placement and routing pair an edge's ends with its ports by the table's
    directions); none under ``loop_back_route=outside`` (every loop-back around the
    side)."""
    if options.loop_back_route is LoopBackRoute.OUTSIDE:
        return frozenset()
    found = mutual_pairs(graph)
    if graph.ports is None:
        return found
    table = graph.ports
    return frozenset(e.position for e in graph.edges if e.position in found and (
        e.id in table.flipped or table.edge_ports.get(e.id, (None, None)) == (None, None)))


def mutual_pairs(graph: LayeredGraph) -> frozenset[int]:
    """Input positions of the reversed edges of the acyclic ``graph`` whose ends are
    also joined by a forward edge (their *partner*, which now runs the same way).

    >>> from layouts.layered.graph import EngineEdge, EngineNode
    >>> g = LayeredGraph(tuple(EngineNode(n, 9, 9) for n in "abc"),
    ...                  (EngineEdge("ab", 0, 1, 0), EngineEdge("ba", 0, 1, 1, reversed=True),
    ...                   EngineEdge("ca", 0, 2, 2, reversed=True)))
    >>> sorted(mutual_pairs(g))
    [1]
    """
    forward = {(e.source, e.target) for e in graph.edges if not e.reversed}
    return frozenset(e.position for e in graph.edges
                     if e.reversed and (e.source, e.target) in forward)


def facing_start(before: ProperGraph, order: OrderingResult, after: ProperGraph
                 ) -> list[list[int]]:
    """``order``'s layers (of ``before``) in ``after``'s node indices, where ``after`` is
    ``before``'s acyclic graph split again with more edges facing: every node keeps its
    slot, and each new facing edge's dummy in a layer goes right after its partner's
    (the first forward edge between the same two nodes). Dummies of chains that
    ``after`` splits differently are left out (only those of new facing edges are new).

    Layers [a], [b], [c]: a -> c (dummy 3) and c -> a, now facing (dummy 4):

    >>> from layouts.graph import Edge, Graph, Node
    >>> from layouts.layered.cycles import run as break_cycles
    >>> from layouts.layered.graph import import_graph
    >>> from layouts.layered.layering import chains
    >>> from layouts.options import LayoutOptions
    >>> g = Graph(tuple(Node(n, 9, 9) for n in "abc"),
    ...           (Edge("ab", "a", "b"), Edge("ac", "a", "c"), Edge("ca", "c", "a")))
    >>> acyclic = break_cycles(import_graph(g, LayoutOptions()))
    >>> before = chains.run(acyclic, (0, 1, 2))
    >>> after = chains.run(acyclic, (0, 1, 2), facing=mutual_pairs(acyclic))
    >>> facing_start(before, OrderingResult(((0,), (3, 1), (2,)), 0), after)
    [[0], [3, 4, 1], [2]]
    """
    mapping = _index_map(before, after)
    layers = [[mapping[v] for v in layer if v in mapping] for layer in order.layers]
    placed = set(mapping.values())
    partners = _partner_chains(after)
    for edge in after.chain_edges:
        own = [after.index[d] for d in edge.chain]
        mates = partners.get((edge.upper, edge.lower), ())
        if not edge.facing or not own or not mates or own[0] in placed:
            continue
        for mate, dummy in zip(mates, own, strict=True):
            layer = layers[after.rank[dummy]]
            layer.insert(layer.index(after.index[mate]) + 1, dummy)
            placed.add(dummy)
    for v in range(len(after.nodes)):     # anything else new: at the end of its layer
        if v not in placed:
            layers[after.rank[v]].append(v)
    return layers


def _index_map(before: ProperGraph, after: ProperGraph) -> dict[int, int]:
    """``after``'s index of each node of ``before`` that ``after`` still has: real nodes
    keep theirs, dummies are matched along chain edges split the same way in both."""
    mapping = {v: v for v, node in enumerate(before.nodes) if not node.dummy}
    for old, new in zip(before.chain_edges, after.chain_edges, strict=True):
        if (old.lane, old.facing, len(old.chain)) == (new.lane, new.facing, len(new.chain)):
            mapping.update((before.index[a], after.index[b])
                           for a, b in zip(old.chain, new.chain, strict=True))
    return mapping


def _partner_chains(graph: ProperGraph) -> dict[tuple[str, str], tuple[str, ...]]:
    """The dummies of the first forward, non-facing edge from each upper node to each
    lower node, by ``(upper, lower)``."""
    partners: dict[tuple[str, str], tuple[str, ...]] = {}
    for edge in graph.chain_edges:
        if not edge.reversed and not edge.facing and edge.upper != edge.lower:
            partners.setdefault((edge.upper, edge.lower), edge.chain)
    return partners


def costlier_than_corridors(graph: ProperGraph, order: OrderingResult) -> frozenset[int]:
    """Input positions of the facing edges of ``graph`` whose chain crosses more
    segments in ``order`` than the two runs of a corridor would on the cheaper side
    (:meth:`CorridorCosts.runs`: the channel below the lower node and the channel above
    the upper one, which the facing chain does not enter, so the count holds with the
    chain still there).

    Layers [a, c], [b, d]: a -> b, b -> a (facing) and c -> d. In the order [a, c],
    [d, b] each segment of the pair crosses c -> d, while a corridor would run below b
    and above a, where nothing is:

    >>> from layouts.graph import Edge, Graph, Node
    >>> from layouts.layered.cycles import run as break_cycles
    >>> from layouts.layered.graph import import_graph
    >>> from layouts.layered.layering import chains
    >>> from layouts.options import LayoutOptions
    >>> g = Graph(tuple(Node(n, 9, 9) for n in "abcd"),
    ...           (Edge("ab", "a", "b"), Edge("ba", "b", "a"), Edge("cd", "c", "d")))
    >>> acyclic = break_cycles(import_graph(g, LayoutOptions()))
    >>> proper = chains.run(acyclic, (0, 1, 0, 1), facing=mutual_pairs(acyclic))
    >>> sorted(costlier_than_corridors(proper, OrderingResult(((0, 2), (3, 1)), 2)))
    [1]
    >>> sorted(costlier_than_corridors(proper, OrderingResult(((0, 2), (1, 3)), 0)))
    []
    """
    if not any(edge.facing for edge in graph.chain_edges):
        return frozenset()
    pos = layer_positions(order.layers, len(graph.nodes))
    channels: dict[int, list[tuple[int, int]]] = {}
    for a, b in graph.segments:
        channels.setdefault(graph.rank[a], []).append((pos[a], pos[b]))
    costs = CorridorCosts(graph)
    costly: set[int] = set()
    for i, edge in enumerate(graph.chain_edges):
        if not edge.facing:
            continue
        path = [graph.index[v] for v in (edge.upper, *edge.chain, edge.lower)]
        own = sum(_crossed(channels[graph.rank[a]], pos[a], pos[b])
                  for a, b in itertools.pairwise(path))
        upper, lower = path[0], path[-1]
        if min(costs.runs(pos, lower, upper, side) for side in (-1, 1)) < own:
            costly.add(i)
    return frozenset(costly)


def _crossed(channel: Sequence[tuple[int, int]], top: int, bottom: int) -> int:
    """Segments of ``channel`` (slot pairs) that cross the one from ``top`` to ``bottom``."""
    return sum(1 for a, b in channel if (a - top) * (b - bottom) < 0)
