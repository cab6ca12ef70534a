"""Corridor anchors: how ordering sees the reversed edges that routing draws around the
side of the drawing.

Routing (:mod:`layouts.layered.routing.corridors`) takes a reversed edge out of the bottom
of its lower node into the channel below, sideways to a corridor beyond every node, up,
and back in through the channel above its upper node. Inside the drawing only those two
horizontal runs can cross anything, and they cross exactly the segments of their channel
that lie between the node and the corridor's side. So ordering models each as a segment
to an *anchor*: an extra node pinned to the far end of the neighbouring layer (left or
right, one side per component). The crossing count then includes the corridor runs, and
barycenters pull loop-back ends towards their corridor.

>>> from layouts.layered.graph import EngineNode
>>> from layouts.layered.model import ChainEdge
>>> g = ProperGraph(tuple(EngineNode(n, 9, 9) for n in "abc"), (0, 1, 2), 3,
...                 ((0, 1), (1, 2)), (ChainEdge("r", "c", "b", "b", "c", (), True, True),),
...                 (0, 0, 0), {"a": 0, "b": 1, "c": 2})
>>> corridor_anchors(g)
CorridorAnchors(rank=(0,), segments=((3, 1),), component=(0,), edge=(0,))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from layouts.layered.graph import ProperGraph


@dataclass(frozen=True, slots=True)
class CorridorAnchors:
    """Anchor ``i`` has node index ``len(graph.nodes) + i``, rank ``rank[i]``, belongs to
    ``component[i]`` and stands for a run of chain edge ``edge[i]``; ``segments`` are
    ``(upper, lower)`` pairs joining anchors to nodes."""

    rank: tuple[int, ...]
    segments: tuple[tuple[int, int], ...]
    component: tuple[int, ...]
    edge: tuple[int, ...]


def corridor_anchors(graph: ProperGraph) -> CorridorAnchors:
    """One anchor below the lower node (unless it is on the last layer) and one above the
    upper node (unless it is on the first) of every reversed edge that is not a self-loop."""
    ranks: list[int] = []
    segments: list[tuple[int, int]] = []
    components: list[int] = []
    edges: list[int] = []
    base = len(graph.nodes)
    for i, edge in enumerate(graph.chain_edges):
        if not edge.reversed or edge.upper == edge.lower:
            continue
        lower, upper = graph.index[edge.lower], graph.index[edge.upper]
        if graph.rank[lower] + 1 < graph.layer_count:
            segments.append((lower, base + len(ranks)))
            ranks.append(graph.rank[lower] + 1)
            components.append(graph.component[lower])
            edges.append(i)
        if graph.rank[upper] > 0:
            segments.append((base + len(ranks), upper))
            ranks.append(graph.rank[upper] - 1)
            components.append(graph.component[upper])
            edges.append(i)
    return CorridorAnchors(tuple(ranks), tuple(segments), tuple(components), tuple(edges))


def pin(layers: list[list[int]], pinned: list[int]) -> None:
    """Move pinned nodes to their end of every layer (``-1`` left, ``+1`` right), keeping
    the order of the rest.

    >>> layers = [[0, 5, 1]]
    >>> pin(layers, [0, 0, 0, 0, 0, 1])
    >>> layers
    [[0, 1, 5]]
    """
    for i, layer in enumerate(layers):
        if any(pinned[v] for v in layer):
            layers[i] = ([v for v in layer if pinned[v] < 0] + [v for v in layer if not pinned[v]]
                         + [v for v in layer if pinned[v] > 0])


class CorridorCosts:
    """Crossings of corridor runs, cheap enough to score every sweep.

    The run below a reversed edge's ``lower`` node crosses every segment leaving that
    layer on the corridor's side of ``lower``; the run above its ``upper`` node every
    segment entering that layer on that side of ``upper``. :meth:`assign` picks a side
    per edge, shortest edges first: the side where its runs cross fewer segments plus
    fewer corridors already on that side whose layer ranges overlap its own only in part
    (those would cross it); ties keep the preferred side.

    >>> from layouts.layered.graph import EngineNode
    >>> from layouts.layered.model import ChainEdge

    Layers [a, b], [c, d], [e]; segments a -> c, b -> d, d -> e; the loop-back c -> a.
    Its run below c crosses d -> e when it goes right, nothing when it goes left:

    >>> back = ChainEdge("r", "c", "a", "a", "c", (), True, True)
    >>> g = ProperGraph(tuple(EngineNode(n, 9, 9) for n in "abcde"), (0, 0, 1, 1, 2), 3,
    ...                 ((0, 2), (1, 3), (3, 4)), (back,), (0,) * 5,
    ...                 {n: i for i, n in enumerate("abcde")})
    >>> costs = CorridorCosts(g)
    >>> pos = [0, 1, 0, 1, 0]
    >>> costs.runs(pos, 2, 0, -1), costs.runs(pos, 2, 0, 1)
    (0, 1)
    >>> costs.assign(pos, lambda component: 1)
    ([(0, -1)], 0)
    """

    def __init__(self, graph: ProperGraph) -> None:
        self.graph = graph
        self.channels: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for a, b in graph.segments:
            self.channels.setdefault((graph.component[a], graph.rank[a]), []).append((a, b))
        edges = []
        for i, e in enumerate(graph.chain_edges):
            if e.reversed and e.upper != e.lower:
                lower, upper = graph.index[e.lower], graph.index[e.upper]
                span = (graph.rank[upper], graph.rank[lower] + 1)
                edges.append((span[1] - span[0], i, lower, upper, span))
        self.edges = sorted(edges)

    def runs(self, pos: Sequence[int], lower: int, upper: int, side: int) -> int:
        """Crossings of the two runs of the edge from ``lower`` up to ``upper``."""
        rank, component = self.graph.rank, self.graph.component
        below = self.channels.get((component[lower], rank[lower]), ())
        above = self.channels.get((component[upper], rank[upper] - 1), ())
        return (sum(1 for a, _ in below if a != lower and (pos[a] - pos[lower]) * side > 0)
                + sum(1 for _, b in above if b != upper and (pos[b] - pos[upper]) * side > 0))

    def assign(self, pos: Sequence[int], preferred: Callable[[int], int],
               component: int | None = None) -> tuple[list[tuple[int, int]], int]:
        """``(edge index, side)`` for every reversed edge (of ``component``, if given,
        by its lower node) and the total crossings of their runs and corridors."""
        spans: dict[int, list[tuple[int, int]]] = {-1: [], 1: []}
        chosen: list[tuple[int, int]] = []
        total = 0
        for _, i, lower, upper, span in self.edges:
            c = self.graph.component[lower]
            if component is not None and c != component:
                continue
            options = []
            for side in (-1, 1):
                overlaps = sum(1 for other in spans[side] if _partial_overlap(span, other))
                cost = self.runs(pos, lower, upper, side) + overlaps
                options.append((cost, 0 if side == (preferred(c) or 1) else 1, side))
            cost, _, side = min(options)
            spans[side].append(span)
            chosen.append((i, side))
            total += cost
        return chosen, total


def _partial_overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Intervals that intersect while neither holds the other."""
    intersect = a[0] <= b[1] and b[0] <= a[1]
    nested = (a[0] <= b[0] and b[1] <= a[1]) or (b[0] <= a[0] and a[1] <= b[1])
    return intersect and not nested
