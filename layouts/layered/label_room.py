"""Room for edge labels in node placement, the way dot's label nodes make it: the first
dummy of a labelled forward edge keeps its label's width free on its right in its layer,
so the label can sit in a label zone beside the dummy's vertical
(:mod:`layouts.layered.routing.label_zones`) where no other edge's vertical comes near
(a labelled edge of one layer that is its source's only edge down does the same beside
its source, whose bottom face it leaves from the centre);
and a node with a labelled self-loop keeps room on its right for its loops and the
widest of their labels, so that label can sit beside the outer loop in the node's layer
(:func:`~layouts.layered.routing.label_zones.fits_beside_loop`) instead of in the
channel below, nearer the node's other edges than its own loop.

Without it, a hub's long labelled edges leave their dummies ``edge_spacing`` apart, closer
than a label is wide, and every label of the hub sits nearer a neighbour's route than
its own. Placement takes the room as a least centre distance from the dummy to its right
neighbour (:func:`layouts.layered.placement.separation_for`); the routing's label zones
then find the space free. The room depends on the graph alone but for the step between
nested self-loops (an option), so :func:`rooms` works it out once per proper graph
(:func:`layouts.layered.layering.chains.run` stores it as ``ProperGraph.label_room``) and
:func:`label_room` only adds the loop steps.

A label ``width`` wide beside its vertical stands :data:`~layouts.layered.labels.LABEL_GAP`
off it, and no other vertical may come within ``LABEL_GAP + 0.5`` of the box
(:meth:`~layouts.layered.routing.label_zones.Zones.free`): the room is
``width + 2 * LABEL_GAP + 1``. Beside self-loops it is counted from the node's centre:
half the node, one ``loop_step`` per loop (routing nests them that far apart,
:func:`layouts.layered.routing.geometry.loop_steps`), then the same.

>>> from layouts.layered.graph import EngineNode, ProperGraph
>>> from layouts.layered.model import ChainEdge
>>> nodes = (EngineNode("a", 40, 20), EngineNode("b", 40, 20),
...          EngineNode("~d0", 0, 0, dummy=True), EngineNode("~d1", 0, 0, dummy=True))
>>> labelled = ChainEdge("e", "a", "b", "a", "b", ("~d0", "~d1"), False, False, 30, 12)
>>> g = ProperGraph(nodes, (0, 3, 1, 2), 4, (), (labelled,), (0, 0, 0, 0),
...                 {n.id: i for i, n in enumerate(nodes)})
>>> label_room(g, 12)      # only the first dummy: 30 + 2 * 4 + 1
{2: 39.0}
>>> short = ChainEdge("f", "a", "b", "a", "b", (), False, False, 30, 12)
>>> label_room(ProperGraph(nodes, (0, 1, 1, 1), 2, ((0, 1),), (short,), (0, 0, 0, 0),
...                        {n.id: i for i, n in enumerate(nodes)}), 12)   # beside a
{0: 39.0}
>>> loops = (ChainEdge("s", "a", "a", "a", "a", (), False, False, 50, 12),
...          ChainEdge("t", "a", "a", "a", "a", (), False, False))
>>> looped = ProperGraph(nodes, (0, 3, 1, 2), 4, (), loops, (0, 0, 0, 0),
...                      {n.id: i for i, n in enumerate(nodes)})
>>> rooms(looped), label_room(looped, 12)   # 20 + 50 + 9, then 2 loops of 12
({0: Room(beside_edge=0.0, beside_loops=79.0, loops=2)}, {0: 103.0})
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from layouts.layered.graph import ProperGraph
from layouts.layered.labels import LABEL_GAP
from layouts.layered.model import ChainEdge

__all__ = ["Room", "label_room", "rooms"]


@dataclass(frozen=True, slots=True)
class Room:
    """What a node's labels need right of its centre: ``beside_edge`` for the label of
    an edge beside its vertical, ``beside_loops`` plus one loop step per each of its
    ``loops`` self-loops for a label beside them (see the module docstring).

    >>> Room(39.0).need(12), Room(0.0, 79.0, 2).need(12), Room(90.0, 79.0, 2).need(5)
    (39.0, 103.0, 90.0)
    """

    beside_edge: float = 0.0
    beside_loops: float = 0.0
    loops: int = 0

    def need(self, loop_step: float) -> float:
        """The least distance from the node's centre to the next node's left side."""
        loops = self.beside_loops + self.loops * loop_step if self.loops else 0.0
        return max(self.beside_edge, loops)


def label_room(graph: ProperGraph, loop_step: float) -> dict[int, float]:
    """Per node index, the least distance from its centre to the next node's left side
    in its layer that labels need (see the module docstring), nested self-loops
    ``loop_step`` apart: from ``graph.label_room`` when :func:`rooms` is stored there."""
    stored = graph.label_room if graph.label_room is not None else rooms(graph)
    return {node: room.need(loop_step) for node, room in stored.items()}


def rooms(graph: ProperGraph) -> Mapping[int, Room]:
    """Per node index with labels to keep room for, its :class:`Room`: the labels
    beside edges (:func:`_beside_edges`) and beside self-loops (:func:`_beside_loops`)."""
    edges = _beside_edges(graph)
    loops = _beside_loops(graph)
    return {node: Room(edges.get(node, 0.0), *loops.get(node, (0.0, 0)))
            for node in sorted(edges.keys() | loops.keys())}


def _beside_edges(graph: ProperGraph) -> dict[int, float]:
    """Room for the label of a forward edge beside its first dummy's vertical, or, for an
    edge of one layer that is its source's only edge down (so it leaves from the centre
    slot of the source's bottom face), beside its first vertical."""
    down = [0] * len(graph.nodes)
    for upper, _ in graph.segments:
        down[upper] += 1
    room: dict[int, float] = {}
    for edge in graph.chain_edges:
        if edge.upper == edge.lower or edge.reversed or edge.lane or edge.label_width <= 0:
            continue
        need = edge.label_width + 2 * LABEL_GAP + 1
        if edge.chain:
            room[graph.index[edge.chain[0]]] = need
        elif down[source := graph.index[edge.upper]] == 1:
            room[source] = need
    return room


def _beside_loops(graph: ProperGraph) -> dict[int, tuple[float, int]]:
    """Room right of a node for its self-loops and the widest of their labels that is
    no taller than the node's layer (a taller one goes to the channel below anyway): the
    room without the loop steps, and the number of loops."""
    loops: dict[int, list[ChainEdge]] = defaultdict(list)
    for edge in graph.chain_edges:
        if edge.upper == edge.lower:
            loops[graph.index[edge.upper]].append(edge)
    if not loops:
        return {}
    tallest = [0.0] * graph.layer_count
    for rank, n in zip(graph.rank, graph.nodes, strict=True):
        tallest[rank] = max(tallest[rank], n.height)
    room: dict[int, tuple[float, int]] = {}
    for node, edges in loops.items():
        n = graph.nodes[node]
        high = tallest[graph.rank[node]]
        widths = [e.label_width for e in edges if e.label_width > 0 and e.label_height <= high]
        if widths:
            room[node] = (n.width / 2 + max(widths) + 2 * LABEL_GAP + 1, len(edges))
    return room
