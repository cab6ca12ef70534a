"""Room for edge labels in node placement, the way dot's label nodes make it: the first
dummy of a labelled forward edge keeps its label's width free on its right in its layer,
so the label can sit in a label zone beside the dummy's vertical
(:mod:`layouts.layered.routing.label_zones`) where no other edge's vertical comes near.

Without it, a hub's long labelled edges leave their dummies ``edge_spacing`` apart, closer
than a label is wide, and every label of the hub sits nearer a neighbour's route than
its own. Placement takes the room as a least centre distance from the dummy to its right
neighbour (:func:`layouts.layered.placement.separation_for`); the routing's label zones
then find the space free.

A label ``width`` wide beside its vertical stands :data:`~layouts.layered.labels.LABEL_GAP`
off it, and no other vertical may come within ``LABEL_GAP + 0.5`` of the box
(:meth:`~layouts.layered.routing.label_zones.Zones.free`): the room is
``width + 2 * LABEL_GAP + 1``.

>>> from layouts.layered.graph import EngineNode, ProperGraph
>>> from layouts.layered.model import ChainEdge
>>> nodes = (EngineNode("a", 40, 20), EngineNode("b", 40, 20),
...          EngineNode("~d0", 0, 0, dummy=True), EngineNode("~d1", 0, 0, dummy=True))
>>> labelled = ChainEdge("e", "a", "b", "a", "b", ("~d0", "~d1"), False, False, 30, 12)
>>> g = ProperGraph(nodes, (0, 3, 1, 2), 4, (), (labelled,), (0, 0, 0, 0),
...                 {n.id: i for i, n in enumerate(nodes)})
>>> label_room(g)          # only the first dummy: 30 + 2 * 4 + 1
{2: 39.0}
"""

from __future__ import annotations

from layouts.layered.graph import ProperGraph
from layouts.layered.labels import LABEL_GAP

__all__ = ["label_room"]


def label_room(graph: ProperGraph) -> dict[int, float]:
    """Per node index, the least distance from its centre to the next node's left side
    in its layer that its edge's label needs (see the module docstring): only the first
    dummy of every labelled forward edge (not of a loop-back's lane)."""
    room: dict[int, float] = {}
    for edge in graph.chain_edges:
        if edge.reversed or edge.lane or not edge.chain or edge.label_width <= 0:
            continue
        room[graph.index[edge.chain[0]]] = edge.label_width + 2 * LABEL_GAP + 1
    return room
