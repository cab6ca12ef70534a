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
then find the space free.

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
>>> label_room(ProperGraph(nodes, (0, 3, 1, 2), 4, (), loops, (0, 0, 0, 0),
...                        {n.id: i for i, n in enumerate(nodes)}), 12)  # 20 + 2*12 + 50 + 9
{0: 103.0}
"""

from __future__ import annotations

from collections import defaultdict

from layouts.layered.graph import ProperGraph
from layouts.layered.labels import LABEL_GAP
from layouts.layered.model import ChainEdge

__all__ = ["label_room"]


def label_room(graph: ProperGraph, loop_step: float) -> dict[int, float]:
    """Per node index, the least distance from its centre to the next node's left side
    in its layer that labels need (see the module docstring): the larger of
    :func:`_beside_edges` and :func:`_beside_loops`."""
    room = _beside_edges(graph)
    for node, loop in _beside_loops(graph, loop_step).items():
        room[node] = max(room.get(node, 0.0), loop)
    return room


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


def _beside_loops(graph: ProperGraph, loop_step: float) -> dict[int, float]:
    """Room right of a node for its self-loops and the widest of their labels that is
    no taller than the node (a taller one goes to the channel below anyway)."""
    loops: dict[int, list[ChainEdge]] = defaultdict(list)
    for edge in graph.chain_edges:
        if edge.upper == edge.lower:
            loops[graph.index[edge.upper]].append(edge)
    room: dict[int, float] = {}
    for node, edges in loops.items():
        n = graph.nodes[node]
        widths = [e.label_width for e in edges if e.label_width > 0 and e.label_height <= n.height]
        if widths:
            room[node] = n.width / 2 + len(edges) * loop_step + max(widths) + 2 * LABEL_GAP + 1
    return room
