"""Where a label can sit beside its own edge without another edge running through it.

A channel's *top zone* (its label rows above the tracks) is crossed by a vertical at
every edge end on a bottom face of the layer above and at every dummy of that layer; its
*bottom zone* (below the tracks) by a vertical at every end on a top face of the layer
below and at every dummy there. A label box beside its own vertical in a zone is *free*
when no other edge's vertical in that zone lies closer than ``LABEL_GAP + 0.5`` to the
box, so the label (``LABEL_GAP`` from its own vertical) is nearer its own edge than any
other. :func:`choose` tries the top zone on the
preferred side, then the other side, then the bottom zone beside the vertical that enters
the next layer, and keeps the preferred top position when none is free.

>>> zones = Zones({(1, False): ([10.0, 30.0], [0, 1])})
>>> zones.free(1, False, 14.0, 60.0, own=0)      # edge 1's vertical at x = 30 runs through
False
>>> zones.free(1, False, -46.0, 6.0, own=0)      # left of edge 0's vertical: clear
True
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from layouts.layered.labels import LABEL_GAP
from layouts.layered.model import Placement
from layouts.layered.routing.ends import EdgePlan
from layouts.result import Side

__all__ = ["Zones", "choose", "zones_of"]


@dataclass(frozen=True, slots=True)
class Zones:
    """Per ``(channel, bottom zone?)``: the x of every vertical crossing it, sorted, and
    the position of the edge each belongs to."""

    verticals: Mapping[tuple[int, bool], tuple[list[float], list[int]]]

    def free(self, channel: int, bottom: bool, left: float, right: float, own: int) -> bool:
        """No other edge's vertical closer than ``LABEL_GAP + 0.5`` to ``[left, right]``."""
        xs, owners = self.verticals.get((channel, bottom), ([], []))
        margin = LABEL_GAP + 0.5
        low = bisect.bisect_right(xs, left - margin)
        high = bisect.bisect_left(xs, right + margin)
        return all(owners[i] == own for i in range(low, high))


def zones_of(plans: Sequence[EdgePlan], along: Sequence[tuple[float, float]],
             placement: Placement) -> Zones:
    """The verticals of every channel's two zones (see the module docstring); ``along``
    holds each plan's source and target slot x (by position)."""
    found: dict[tuple[int, bool], list[tuple[float, int]]] = defaultdict(list)
    for plan in plans:
        for end, x in zip((plan.source, plan.target), along[plan.position], strict=True):
            layer = placement.nodes[end.node].layer
            if end.side is Side.BOTTOM:
                found[(layer + 1, False)].append((x, plan.position))
            elif end.side is Side.TOP:
                found[(layer, True)].append((x, plan.position))
        for dummy in plan.edge.chain:
            node = placement.nodes[dummy]
            x = node.x + node.width / 2
            found[(node.layer, True)].append((x, plan.position))
            found[(node.layer + 1, False)].append((x, plan.position))
    verticals = {}
    for zone, entries in found.items():
        entries.sort()
        verticals[zone] = ([x for x, _ in entries], [p for _, p in entries])
    return Zones(verticals)


def choose(zones: Zones, channel: int, own: int, width: float, first: float,
           entering: float | None, left_first: bool) -> tuple[float, bool]:
    """``(x, bottom zone?)`` of a label ``width`` wide for edge ``own``: beside its first
    vertical at ``first`` in the top zone, else beside the vertical ``entering`` the next
    layer in the bottom zone (``None``: the edge has none in this channel)."""
    sides = (True, False) if left_first else (False, True)
    candidates = [(first, False, side) for side in sides]
    if entering is not None:
        candidates += [(entering, True, side) for side in sides]
    for anchor, bottom, left in candidates:
        x = anchor - LABEL_GAP - width if left else anchor + LABEL_GAP
        if zones.free(channel, bottom, x, x + width, own):
            return x, bottom
    anchor, bottom, left = candidates[0]
    return (anchor - LABEL_GAP - width if left else anchor + LABEL_GAP), bottom
