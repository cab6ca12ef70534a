"""Sub-step 1 of routing: classify every edge and give each edge end a face and a slot.

Pre-condition: a valid :class:`~layouts.layered.model.Placement`. Post-condition: every
edge has a :class:`EdgePlan` whose ``source``/``target`` are the input edge's own ends
(reversed edges are already turned back), and every end has a face and a slot index out
of the number of ends on that face (:mod:`.slots` turns that into a point).

Faces, in the canonical top-to-bottom frame:

* forward edges leave their source's bottom face and enter their target's top face;
* reversed edges (declared loop-backs and the feedback set) also leave the bottom face
  and enter the top face, and run around the side of the drawing in a corridor, or up a
  lane between the columns (``ChainEdge.lane``);
* a self-loop takes two slots on its node's right face.

Ends on a face are ordered by where their edges go (the x of the next column of the
route, corridors at the far left or right), so neighbouring edges do not cross at the
face; ties keep input order. This is the port-ordering idea of ELK layered (Schulze,
Spönemann, von Hanxleden 2014, "Drawing layered graphs with port constraints").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from layouts.layered.loopbacks.corridors import Corridor, CorridorSide
from layouts.layered.loopbacks.ports import lane_key
from layouts.layered.model import ChainEdge, Placement
from layouts.layered.portmap import Role
from layouts.result import Side

FAR = 1e12


class EdgeKind(Enum):
    """How an edge is routed."""

    FORWARD = "forward"
    CORRIDOR = "corridor"
    LANE = "lane"
    SELF_LOOP = "self-loop"


@dataclass(frozen=True, slots=True)
class EndSlot:
    """One edge end: its node, face, slot index and the number of ends on that face;
    ``offset``, when set, is the end's distance from the face's start instead of the
    slot's (ends on a node with ports, :mod:`.port_ends`)."""

    node: str
    side: Side
    index: int
    count: int
    offset: float | None = None


@dataclass(frozen=True, slots=True)
class EdgePlan:
    """An edge's routing plan: its kind and both ends, in the input edge's direction."""

    position: int
    edge: ChainEdge
    kind: EdgeKind
    source: EndSlot
    target: EndSlot


def edge_kind(edge: ChainEdge) -> EdgeKind:
    """Self-loop, reversed (corridor or lane) or forward.

    >>> edge_kind(ChainEdge("e", "a", "a", "a", "a", (), False, False)).value
    'self-loop'
    """
    if edge.upper == edge.lower:
        return EdgeKind.SELF_LOOP
    if edge.reversed:
        return EdgeKind.LANE if edge.lane else EdgeKind.CORRIDOR
    return EdgeKind.FORWARD


def centre_x(placement: Placement, node_id: str) -> float:
    """The x of the centre of ``node_id``'s box in ``placement``."""
    node = placement.nodes[node_id]
    return node.x + node.width / 2


def _corridor_key(corridor: Corridor) -> float:
    # the left-most slot takes the innermost left corridor, the right-most the innermost right
    if corridor.side is CorridorSide.LEFT:
        return -FAR + corridor.index
    return FAR - corridor.index


_Request = tuple[str, Side, float, int, int, Role]  # node, side, key, tie, position, end


def requests(placement: Placement, corridors: dict[int, Corridor],
             sides: Mapping[tuple[int, Role], Side] | None = None) -> list[_Request]:
    """Every end's face request; ``sides`` moves forward edges' ends (by position and
    role) to a side face (:mod:`.elbows`)."""
    sides = sides or {}
    requests: list[_Request] = []
    loops_seen: dict[str, int] = defaultdict(int)
    loops_total: dict[str, int] = defaultdict(int)
    for edge in placement.edges:
        if edge.upper == edge.lower:
            loops_total[edge.upper] += 1
    for position, edge in enumerate(placement.edges):
        kind = edge_kind(edge)
        if kind is EdgeKind.SELF_LOOP:
            j, n = loops_seen[edge.upper], loops_total[edge.upper]
            loops_seen[edge.upper] += 1
            requests.append((edge.upper, Side.RIGHT, float(j), 0, position, Role.SOURCE))
            requests.append((edge.upper, Side.RIGHT, float(2 * n - 1 - j), 0, position,
                             Role.TARGET))
        elif kind is EdgeKind.LANE:
            # runs into a lane take the end slots on its side, inside any corridor's
            for node, side, lane_end, end in (
                    (edge.lower, Side.BOTTOM, edge.chain[-1], Role.SOURCE),
                    (edge.upper, Side.TOP, edge.chain[0], Role.TARGET)):
                key = lane_key(centre_x(placement, lane_end), centre_x(placement, node), FAR / 2)
                requests.append((node, side, key, position, position, end))
        elif kind is EdgeKind.CORRIDOR:
            key = _corridor_key(corridors[position])
            requests.append((edge.lower, Side.BOTTOM, key, position, position, Role.SOURCE))
            requests.append((edge.upper, Side.TOP, key, position, position, Role.TARGET))
        else:
            columns = (edge.upper, *edge.chain, edge.lower)
            down_key = centre_x(placement, columns[1])
            up_key = centre_x(placement, columns[-2])
            requests.append((edge.upper, sides.get((position, Role.SOURCE), Side.BOTTOM),
                             down_key, position, position, Role.SOURCE))
            requests.append((edge.lower, sides.get((position, Role.TARGET), Side.TOP),
                             up_key, position, position, Role.TARGET))
    return requests


def plan_ends(placement: Placement, corridors: dict[int, Corridor],
              sides: Mapping[tuple[int, Role], Side] | None = None) -> tuple[EdgePlan, ...]:
    """Give every edge end a face and a slot; returns one plan per edge, in input order
    (``sides``: forward edges' ends moved to a side face, see :func:`requests`).

    >>> from layouts.layered.model import PlacedNode
    >>> nodes = {"a": PlacedNode("a", 0, 0, 0, 0, 100, 40),
    ...          "b": PlacedNode("b", 1, 0, 0, 100, 100, 40)}
    >>> p = Placement(nodes, (("a",), ("b",)),
    ...               (ChainEdge("e", "a", "b", "a", "b", (), False, False),), 40, 60)
    >>> plan_ends(p, {})[0].source
    EndSlot(node='a', side=<Side.BOTTOM: 'bottom'>, index=0, count=1, offset=None)
    """
    faces: dict[tuple[str, Side], list[_Request]] = defaultdict(list)
    for request in requests(placement, corridors, sides):
        faces[(request[0], request[1])].append(request)
    slots: dict[tuple[int, Role], EndSlot] = {}
    for (node, side), items in faces.items():
        items.sort(key=lambda r: (r[2], r[3], r[5] is Role.TARGET))
        for index, item in enumerate(items):
            slots[(item[4], item[5])] = EndSlot(node, side, index, len(items))
    return tuple(
        EdgePlan(position, edge, edge_kind(edge), slots[(position, Role.SOURCE)],
                 slots[(position, Role.TARGET)])
        for position, edge in enumerate(placement.edges)
    )
