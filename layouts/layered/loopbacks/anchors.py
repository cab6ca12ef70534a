"""Corridor anchors: how ordering sees the reversed edges that routing draws around the
side of the drawing.

Routing (:mod:`.corridors`) takes a reversed edge out of the bottom
of its lower node into the channel below, sideways to a corridor beyond every node, up,
and back in through the channel above its upper node. Inside the drawing only those two
horizontal runs can cross anything, and they cross exactly the segments of their channel
that lie between the node and the corridor's side. So ordering models each as a segment
to an *anchor*: an extra node pinned to the far end of the neighbouring layer (left or
right, one side per component). The crossing count then includes the corridor runs, and
barycenters pull loop-back ends towards their corridor.

A reversed edge with a lane (``ChainEdge.lane``, see :mod:`.lanes`) turns
into its lane instead: the run below its lower node ends at the lane's bottom dummy, the
run above its upper node starts at the lane's top dummy. Its anchors are not pinned: each
joins the node and the lane end (a V of two segments), so sweeps pull the lane towards
its nodes, and the runs cross the segments of their channel that start (below) or end
(above) between the node and the lane.

>>> from layouts.layered.graph import EngineNode
>>> from layouts.layered.model import ChainEdge
>>> g = ProperGraph(tuple(EngineNode(n, 9, 9) for n in "abc"), (0, 1, 2), 3,
...                 ((0, 1), (1, 2)), (ChainEdge("r", "c", "b", "b", "c", (), True, True),),
...                 (0, 0, 0), {"a": 0, "b": 1, "c": 2})
>>> corridor_anchors(g)
CorridorAnchors(rank=(0,), segments=((3, 1),), component=(0,), edge=(0,), lane=(False,))
"""

from __future__ import annotations

from dataclasses import dataclass

from layouts.layered.graph import ProperGraph


@dataclass(frozen=True, slots=True)
class CorridorAnchors:
    """Anchor ``i`` has node index ``len(graph.nodes) + i``, rank ``rank[i]``, belongs to
    ``component[i]`` and stands for a run of chain edge ``edge[i]``; ``segments`` are
    ``(upper, lower)`` pairs joining anchors to nodes; ``lane[i]`` says anchor ``i``
    belongs to a lane edge (never pinned)."""

    rank: tuple[int, ...]
    segments: tuple[tuple[int, int], ...]
    component: tuple[int, ...]
    edge: tuple[int, ...]
    lane: tuple[bool, ...] = ()


def corridor_anchors(graph: ProperGraph) -> CorridorAnchors:
    """One anchor below the lower node (unless it is on the last layer) and one above the
    upper node (unless it is on the first) of every reversed edge that is not a self-loop;
    a lane edge's anchors also join its lane's ends."""
    ranks: list[int] = []
    segments: list[tuple[int, int]] = []
    components: list[int] = []
    edges: list[int] = []
    lanes: list[bool] = []
    base = len(graph.nodes)
    for i, edge in enumerate(graph.chain_edges):
        if not edge.reversed or edge.upper == edge.lower:
            continue
        lower, upper = graph.index[edge.lower], graph.index[edge.upper]
        if graph.rank[lower] + 1 < graph.layer_count:
            segments.append((lower, base + len(ranks)))
            if edge.lane:
                segments.append((graph.index[edge.chain[-1]], base + len(ranks)))
            ranks.append(graph.rank[lower] + 1)
            components.append(graph.component[lower])
            edges.append(i)
            lanes.append(edge.lane)
        if graph.rank[upper] > 0:
            segments.append((base + len(ranks), upper))
            if edge.lane:
                segments.append((base + len(ranks), graph.index[edge.chain[0]]))
            ranks.append(graph.rank[upper] - 1)
            components.append(graph.component[upper])
            edges.append(i)
            lanes.append(edge.lane)
    return CorridorAnchors(tuple(ranks), tuple(segments), tuple(components), tuple(edges),
                           tuple(lanes))


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
