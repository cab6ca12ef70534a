"""Ports under the staircase fallback (:mod:`.staircase`): the one-pass layout attaches
edges to their nodes, not their ports; the ports are still placed, on their faces, and the
result's notes name the degradation.

>>> from layouts.graph import Edge, Graph, Node, Port, PortSide
>>> from layouts.layered.staircase import staircase
>>> g = Graph((Node("a", 80, 40, ports=(Port("p", PortSide.SOUTH),)), Node("b", 80, 40)),
...           (Edge("e", "a", "b", source_port="p"),))
>>> notes: list[str] = []
>>> drawn = staircase_ports(g, staircase(g, LayoutOptions()), LayoutOptions(), notes)
>>> drawn.ports[0].x, drawn.ports[0].y, notes == [STAIRCASE_NOTE]
(40.0, 40.0, True)
"""

from __future__ import annotations

from dataclasses import replace

from layouts.graph import Graph
from layouts.layered.model import Routing
from layouts.layered.portmap import port_table
from layouts.layered.routing.slots import outline_depth, slot_coordinate
from layouts.options import LayoutOptions
from layouts.result import PortBox, Side

STAIRCASE_NOTE = ("ports not kept: the staircase layout attaches edges to their nodes, and "
                  "puts each port on its face's slot lattice without edges")


def staircase_ports(graph: Graph, routing: Routing, options: LayoutOptions,
                    notes: list[str]) -> Routing:
    """The staircase layout (canonical frame) with its nodes' ports placed: each port on
    its face's lattice in face order (``fixed_pos`` ports at their position); its edges
    still end where the staircase put them, and :data:`STAIRCASE_NOTE` says so."""
    table = port_table(graph, options)
    if table is None:
        return routing
    notes.append(STAIRCASE_NOTE)
    boxes = {b.id: b for b in routing.nodes}
    placed: list[PortBox] = []
    for node_id, own in table.nodes.items():
        box = boxes[node_id]
        for side in (Side.TOP, Side.RIGHT, Side.BOTTOM, Side.LEFT):
            mine = sorted((p for p in own.ports if p.side is side),
                          key=lambda p: (p.rank if p.rank is not None else 0.0, p.declared))
            for index, p in enumerate(mine):
                along = slot_coordinate(box, side, len(mine), index)
                if p.fixed is not None:
                    along = (box.x if side in (Side.TOP, Side.BOTTOM) else box.y) + p.fixed
                across = outline_depth(box, side, along)
                x, y = (along, across) if side in (Side.TOP, Side.BOTTOM) else (across, along)
                if p.corner is not None:
                    corner = (box.x + p.corner[0], box.y + p.corner[1])
                else:
                    corner = (x - p.width / 2, y - p.height / 2)
                placed.append(PortBox(p.id, node_id, corner[0], corner[1], p.width, p.height,
                                      side))  # no slot: the lattice is the staircase's
    return replace(routing, ports=tuple(placed))
