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
CorridorAnchors(rank=(0,), segments=((3, 1),), component=(0,))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from layouts.layered.graph import ProperGraph


@dataclass(frozen=True, slots=True)
class CorridorAnchors:
    """Anchor ``i`` has node index ``len(graph.nodes) + i``, rank ``rank[i]`` and belongs to
    ``component[i]``; ``segments`` are ``(upper, lower)`` pairs joining anchors to nodes."""

    rank: tuple[int, ...]
    segments: tuple[tuple[int, int], ...]
    component: tuple[int, ...]


def corridor_anchors(graph: ProperGraph) -> CorridorAnchors:
    """One anchor below the lower node (unless it is on the last layer) and one above the
    upper node (unless it is on the first) of every reversed edge that is not a self-loop."""
    ranks: list[int] = []
    segments: list[tuple[int, int]] = []
    components: list[int] = []
    base = len(graph.nodes)
    for edge in graph.chain_edges:
        if not edge.reversed or edge.upper == edge.lower:
            continue
        lower, upper = graph.index[edge.lower], graph.index[edge.upper]
        if graph.rank[lower] + 1 < graph.layer_count:
            segments.append((lower, base + len(ranks)))
            ranks.append(graph.rank[lower] + 1)
            components.append(graph.component[lower])
        if graph.rank[upper] > 0:
            segments.append((base + len(ranks), upper))
            ranks.append(graph.rank[upper] - 1)
            components.append(graph.component[upper])
    return CorridorAnchors(tuple(ranks), tuple(segments), tuple(components))


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


def run_crossings(graph: ProperGraph, layers: Sequence[Sequence[int]], lower: int, upper: int,
                  side: int) -> int:
    """Crossings of a reversed edge's two corridor runs with the segments of their
    channels when its corridor is on ``side``: the run below ``lower`` crosses every
    segment leaving that layer on the corridor's side of ``lower``; the run above
    ``upper`` every segment entering that layer on that side of ``upper``.

    >>> from layouts.layered.graph import EngineNode
    >>> g = ProperGraph(tuple(EngineNode(n, 9, 9) for n in "abcd"), (0, 0, 1, 1), 2,
    ...                 ((0, 2), (1, 3)), (), (0, 1, 0, 1))
    >>> run_crossings(g, [[0, 1], [2, 3]], 1, 0, -1), run_crossings(g, [[0, 1], [2, 3]], 1, 0, 1)
    (1, 0)
    """
    pos = {v: p for layer in layers for p, v in enumerate(layer)}
    count = 0
    for a, b in graph.segments:
        if graph.rank[a] == graph.rank[lower] and a != lower:
            count += (pos[a] - pos[lower]) * side > 0
        if graph.rank[b] == graph.rank[upper] and b != upper:
            count += (pos[b] - pos[upper]) * side > 0
    return count


def assign_sides(graph: ProperGraph, layers: Sequence[Sequence[int]],
                 planned: Sequence[int]) -> tuple[int, ...]:
    """A corridor side per chain edge (0 for edges without a corridor): shortest reversed
    edges first, each takes the side where its runs cross fewer segments plus fewer
    already placed corridors whose layer ranges overlap its own only in part (those
    would cross it); ties keep the side ``planned`` for its component."""
    sides = [0] * len(graph.chain_edges)
    spans: dict[int, list[tuple[int, int]]] = {-1: [], 1: []}
    reversed_edges = [(graph.rank[graph.index[e.lower]] - graph.rank[graph.index[e.upper]], i)
                      for i, e in enumerate(graph.chain_edges)
                      if e.reversed and e.upper != e.lower]
    for _, i in sorted(reversed_edges):
        edge = graph.chain_edges[i]
        lower, upper = graph.index[edge.lower], graph.index[edge.upper]
        span = (graph.rank[upper], graph.rank[lower] + 1)
        preferred = planned[graph.component[lower]] or 1

        def cost(side: int, lower: int = lower, upper: int = upper,
                 span: tuple[int, int] = span, preferred: int = preferred) -> tuple[int, int]:
            overlaps = sum(1 for other in spans[side] if _partial_overlap(span, other))
            return (run_crossings(graph, layers, lower, upper, side) + overlaps,
                    0 if side == preferred else 1)

        sides[i] = min((-1, 1), key=cost)
        spans[sides[i]].append(span)
    return tuple(sides)


def _partial_overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Intervals that intersect while neither holds the other."""
    intersect = a[0] <= b[1] and b[0] <= a[1]
    nested = (a[0] <= b[0] and b[1] <= a[1]) or (b[0] <= a[0] and a[1] <= b[1])
    return intersect and not nested
