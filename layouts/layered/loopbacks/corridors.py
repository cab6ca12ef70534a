"""Sub-step 0 of routing: corridors for reversed edges (loop-backs and the feedback set).

A reversed edge leaves its source's bottom face into the channel below, runs out to a
vertical corridor left or right of every node, up to the channel above its target and
down into the target's top face, so it never passes a node. The side is the one ordering
planned (``ChainEdge.corridor_side``), else the side nearer the edge's ends. Each corridor
is a vertical line of its own; two reversed edges share a corridor line only when the ranges of
channels they use are disjoint. Shorter edges get the inner corridors, so edges whose
layer ranges nest draw nested, without crossing each other (interval-graph colouring by
increasing length, first fit).

>>> from layouts.layered.model import ChainEdge, PlacedNode, Placement
>>> nodes = {n: PlacedNode(n, i, 0, 0, 60 * i, 50, 30) for i, n in enumerate("abc")}
>>> back = ChainEdge("r", "c", "a", "a", "c", ("d1",), True, True)
>>> assign_corridors(Placement(nodes, (("a",), ("b",), ("c",)), (back,), 40, 60))
{0: Corridor(side=<CorridorSide.LEFT: 'left'>, index=0, first_channel=0, last_channel=3)}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from layouts.layered.model import ChainEdge, Placement
from layouts.result import Side


class CorridorSide(Enum):
    LEFT = "left"
    RIGHT = "right"


@dataclass(frozen=True, slots=True)
class Corridor:
    """Which side a reversed edge goes round, its corridor number counted outwards
    from the nodes, and the channels it turns in (above its target, below its source)."""

    side: CorridorSide
    index: int
    first_channel: int
    last_channel: int


def _planned_side(side: Side | None) -> CorridorSide | None:
    """The side ordering planned for the edge (``ChainEdge.corridor_side``), if any."""
    if side is Side.LEFT:
        return CorridorSide.LEFT
    if side is Side.RIGHT:
        return CorridorSide.RIGHT
    return None


def _real_extent(placement: Placement) -> tuple[float, float]:
    real = [n for n in placement.nodes.values() if not n.dummy] or list(placement.nodes.values())
    return min(n.x for n in real), max(n.x + n.width for n in real)


def assign_corridors(placement: Placement) -> dict[int, Corridor]:
    """A corridor for every reversed, non-self-loop edge without a lane, keyed by edge
    position."""
    if not placement.nodes:
        return {}
    nodes = placement.nodes
    return plan_corridors(placement.edges, _real_extent(placement),
                          lambda n: (nodes[n].layer, nodes[n].x, nodes[n].width))


def plan_corridors(edges: Sequence[ChainEdge], extent: tuple[float, float],
                   box: Callable[[str], tuple[int, float, float]]) -> dict[int, Corridor]:
    """:func:`assign_corridors` of ``edges`` from the real nodes' ``extent`` (left-most
    and right-most box side) and each node's ``box``: ``(layer, x, width)`` by id."""
    low, high = extent
    middle = (low + high) / 2
    wanted: list[tuple[int, int, int, CorridorSide]] = []
    for position, edge in enumerate(edges):
        if not edge.reversed or edge.upper == edge.lower or edge.lane:
            continue
        (upper_layer, upper_x, upper_width) = box(edge.upper)
        (lower_layer, lower_x, lower_width) = box(edge.lower)
        mean = (upper_x + upper_width / 2 + lower_x + lower_width / 2) / 2
        side = _planned_side(edge.corridor_side) or (
            CorridorSide.LEFT if mean <= middle else CorridorSide.RIGHT)
        wanted.append((position, upper_layer, lower_layer + 1, side))
    wanted.sort(key=lambda w: (w[2] - w[1], w[1], w[0]))
    taken: dict[tuple[CorridorSide, int], list[tuple[int, int]]] = {}
    result: dict[int, Corridor] = {}
    for position, first, last, side in wanted:
        index = 0
        while any(first <= b and a <= last for a, b in taken.get((side, index), [])):
            index += 1
        taken.setdefault((side, index), []).append((first, last))
        result[position] = Corridor(side, index, first, last)
    return dict(sorted(result.items()))


def corridor_lines(corridors: Mapping[int, Corridor], extent: tuple[float, float],
                   margin: float, spacing: float) -> dict[int, float]:
    """x of each reversed edge's corridor: ``margin`` outside everything, then one
    ``spacing`` further out per corridor number."""
    left, right = extent
    lines: dict[int, float] = {}
    for position, corridor in corridors.items():
        offset = margin + spacing * corridor.index
        lines[position] = left - offset if corridor.side is CorridorSide.LEFT else right + offset
    return lines
