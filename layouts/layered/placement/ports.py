"""Port offsets: where routing will attach each segment to its nodes, relative to the
node's centre x, so placement can make edges straight at their real end points.

Routing puts the ends on a face on the boundary-slot lattice
(:mod:`layouts.layered.routing.slots`): ``k`` ends on a face of length ``L`` sit at
``L * (i + 1) / (k + 1)`` from its left end, ordered by where their edges go. A node's
bottom face holds its segments to the layer below and the runs of reversed edges leaving
it for their corridors; its top face its segments from the layer above and the runs of
reversed edges entering it (where on the face: :mod:`layouts.layered.loopbacks.ports`).
Circles' faces span their diameter; dummies have a single point.

>>> from layouts.layered.graph import EngineNode
>>> g = ProperGraph((EngineNode("a", 90, 9), EngineNode("b", 9, 9), EngineNode("c", 9, 9)),
...                 (0, 1, 1), 2, ((0, 1), (0, 2)), (), (0, 0, 0))
>>> ports = port_offsets(g, ((0,), (1, 2)), ())
>>> ports.bottom[(0, 1)], ports.bottom[(0, 2)], ports.top[(0, 1)]   # 90/3 - 45, 60 - 45
(-15.0, 15.0, 0.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from layouts.graph import Shape
from layouts.layered.graph import EngineNode, ProperGraph, layer_positions
from layouts.layered.loopbacks.corridors import assign_corridors
from layouts.layered.loopbacks.ports import loop_back_ends
from layouts.layered.model import Placement
from layouts.layered.portmap import PortTable
from layouts.layered.routing.geometry import end_x, placed_boxes
from layouts.layered.routing.port_ends import plan_port_ends
from layouts.result import Side


@dataclass(frozen=True, slots=True)
class Ports:
    """``bottom[(u, v)]``: offset of segment ``u -> v`` on ``u``'s bottom face;
    ``top[(u, v)]``: its offset on ``v``'s top face (for parallel segments, the first)."""

    bottom: dict[tuple[int, int], float]
    top: dict[tuple[int, int], float]


def face_length(node: EngineNode) -> float:
    """Length of a top or bottom face: the box width, a circle's diameter.

    >>> face_length(EngineNode("c", 80, 40, Shape.CIRCLE))
    40
    """
    if node.shape is Shape.CIRCLE:
        return min(node.width, node.height)
    return node.width


def port_offsets(graph: ProperGraph, layers: Sequence[Sequence[int]],
                 corridor_sides: Sequence[int]) -> Ports:
    """Offsets of every segment's two ends; ``corridor_sides`` gives the corridor side
    (``-1``/``+1``) per chain edge; see the module docstring."""
    pos = layer_positions(layers, len(graph.nodes))
    below: list[list[tuple[float, int]]] = [[] for _ in graph.nodes]
    above: list[list[tuple[float, int]]] = [[] for _ in graph.nodes]
    for a, b in graph.segments:
        below[a].append((pos[b], b))
        above[b].append((pos[a], a))
    bottoms, tops = loop_back_ends(graph, pos, corridor_sides)
    for v, key in bottoms:
        below[v].append((key, -1))
    for v, key in tops:
        above[v].append((key, -1))
    bottom: dict[tuple[int, int], float] = {}
    top: dict[tuple[int, int], float] = {}
    for v, node in enumerate(graph.nodes):
        ends = below[v]
        if len(ends) == 1:        # a face's one end sits at its centre: offset 0
            other = ends[0][1]
            if other != -1 and (v, other) not in bottom:
                bottom[(v, other)] = 0.0
        elif ends:
            for other, offset in _face(node, ends):
                bottom.setdefault((v, other), offset)
        ends = above[v]
        if len(ends) == 1:
            other = ends[0][1]
            if other != -1 and (other, v) not in top:
                top[(other, v)] = 0.0
        elif ends:
            for other, offset in _face(node, ends):
                top.setdefault((other, v), offset)
    return Ports(bottom, top)


def _face(node: EngineNode, ends: list[tuple[float, int]]) -> list[tuple[int, float]]:
    """``(other end, offset from the centre)`` of every end on one face, in slot order."""
    length = face_length(node)
    count = len(ends)
    ordered = sorted(ends, key=lambda end: end[0])
    return [(other, length * (i + 1) / (count + 1) - length / 2)
            for i, (_, other) in enumerate(ordered) if other != -1]


def declared_port_offsets(graph: ProperGraph, placement: Placement,
                          corridor_sides: Sequence[int], ports: PortTable) -> Ports:
    """:func:`port_offsets`, with the ends on nodes that have ports where routing will
    put them on ``placement`` (:func:`layouts.layered.routing.port_ends.plan_port_ends`:
    a port's own point on the lattice of its face, or its stub's column in a side
    strip). A second Brandes-Koepf run with these offsets lines each port up with its
    edge's other end, so the edge runs straight instead of with a dogleg.

    The routing's order of a face's points depends on the columns of the edges' other
    ends, which the second run moves only a little, so the ends it aligns to are nearly
    always where routing then puts them.
    """
    layers = [[graph.index[i] for i in layer] for layer in placement.layers]
    base = port_offsets(graph, layers, corridor_sides)
    plans, _ = plan_port_ends(placement, assign_corridors(placement), ports)
    boxes = placed_boxes(placement)
    bottom, top = dict(base.bottom), dict(base.top)
    for plan in plans:
        edge = plan.edge
        if edge.reversed or edge.upper == edge.lower:
            continue
        columns = [graph.index[c] for c in (edge.upper, *edge.chain, edge.lower)]
        for end, pair, table in ((plan.source, (columns[0], columns[1]), bottom),
                                 (plan.target, (columns[-2], columns[-1]), top)):
            if end.node not in ports.nodes or end.side not in (Side.TOP, Side.BOTTOM):
                continue
            box = boxes[end.node]
            table[pair] = end_x(boxes, end) - (box.x + box.width / 2)
    return Ports(bottom, top)
