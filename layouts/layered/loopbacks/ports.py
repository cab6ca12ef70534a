"""Where a reversed edge's runs attach to its nodes' faces, for placement's port offsets
(:mod:`layouts.layered.placement.ports`).

The run out of a reversed edge leaves its lower node's bottom face, the run back in enters
its upper node's top face. Corridor runs sort to the end of the face on their corridor's
side (:data:`CORRIDOR_LEFT`, :data:`CORRIDOR_RIGHT`: beyond every slot), runs into a lane
(``ChainEdge.lane``) to the end on their lane's side, inside any corridor run there
(:data:`LANE_LEFT`, :data:`LANE_RIGHT`).

>>> from layouts.layered.graph import EngineNode
>>> from layouts.layered.model import ChainEdge
>>> g = ProperGraph(tuple(EngineNode(n, 9, 9) for n in "abc"), (0, 1, 2), 3,
...                 ((0, 1), (1, 2)), (ChainEdge("r", "c", "a", "a", "c", (), True, True),),
...                 (0, 0, 0), {"a": 0, "b": 1, "c": 2})
>>> loop_back_ends(g, [0, 0, 0], [-1])      # c's bottom and a's top, left-most slots
([(2, -1000000000.0)], [(0, -1000000000.0)])
"""

from __future__ import annotations

from collections.abc import Sequence

from layouts.layered.graph import ProperGraph

CORRIDOR_LEFT = -1.0e9
CORRIDOR_RIGHT = 1.0e9
LANE_LEFT = CORRIDOR_LEFT / 2
LANE_RIGHT = CORRIDOR_RIGHT / 2


def lane_key(lane: float, node: float, far: float) -> float:
    """Sort key on a face of the run from the node at ``node`` into the lane at ``lane``
    (x, or slot in the layer): the end slots on the lane's side (``-far`` or ``far``),
    a nearer lane's run outside a farther one's, so runs of lanes nested beside a node
    nest too (the farther lane's run takes the track farther from the node).

    >>> [lane_key(lane, 0, 100) for lane in (5, 9, -5, -9)]
    [95, 91, -95, -91]
    """
    return -far + (node - lane) if lane < node else far - (lane - node)


def loop_back_ends(graph: ProperGraph, pos: Sequence[int], corridor_sides: Sequence[int]
                   ) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    """``(node, sort key)`` of the run of every reversed, non-self-loop edge on a bottom
    face, and of the run on a top face, in chain edge order; ``corridor_sides`` gives the
    corridor side (``-1``/``+1``) per chain edge (empty: every corridor on the right)."""
    bottoms: list[tuple[int, float]] = []
    tops: list[tuple[int, float]] = []
    for i, edge in enumerate(graph.chain_edges):
        if edge.reversed and edge.upper != edge.lower:
            lower, upper = graph.index[edge.lower], graph.index[edge.upper]
            if edge.lane:
                bottom_lane, top_lane = graph.index[edge.chain[-1]], graph.index[edge.chain[0]]
                bottoms.append((lower, lane_key(pos[bottom_lane], pos[lower], LANE_RIGHT)))
                tops.append((upper, lane_key(pos[top_lane], pos[upper], LANE_RIGHT)))
                continue
            side = corridor_sides[i] if corridor_sides else 1
            key = CORRIDOR_LEFT if side < 0 else CORRIDOR_RIGHT
            bottoms.append((lower, key))
            tops.append((upper, key))
    return bottoms, tops
