"""Where a label can sit beside its own edge without another edge running through it.

A channel's *top zone* (its label rows above the tracks) is crossed by a vertical at
every edge end on a bottom face of the layer above and at every dummy of that layer; its
*bottom zone* (below the tracks) by a vertical at every end on a top face of the layer
below and at every dummy there. A label box beside its own vertical in a zone is *free*
when no other edge's vertical in that zone lies closer than ``LABEL_GAP + 0.5`` to the
box, so the label (``LABEL_GAP`` from its own vertical) is nearer its own edge than any
other.

A forward edge has an :class:`Anchor` (one of its verticals) in both zones of every
channel it passes, from its source to its target (:func:`anchors_of`). :func:`choose`
tries them in that order, each on the preferred side and then the other, so a label
stays as near its source as it can: beside the first vertical, else below the tracks
of the same channel, else farther along the edge (where a crowded source face, a hub
of many edges, leaves no room), and keeps the preferred first position when none is
free.

>>> zones = Zones({(1, False): ([10.0, 30.0], [0, 1])})
>>> zones.free(1, False, 14.0, 60.0, own=0)      # edge 1's vertical at x = 30 runs through
False
>>> zones.free(1, False, -46.0, 6.0, own=0)      # left of edge 0's vertical: clear
True
>>> busy = Zones({(1, False): ([6.0, 10.0, 14.0], [1, 0, 1]), (1, True): ([10.0], [0])})
>>> choose(busy, 0, 20.0, [Anchor(1, False, 10.0), Anchor(1, True, 10.0)], left_first=False)
(Anchor(channel=1, bottom=True, x=10.0), 14.0)
"""

from __future__ import annotations

import bisect
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from layouts.layered.labels import LABEL_GAP
from layouts.layered.model import Placement
from layouts.layered.routing.ends import EdgeKind, EdgePlan
from layouts.result import Side

CENTRED_MARGIN = 0.5
"""A label centred on its own vertical (distance 0) needs every other vertical at least
this far from its box."""

__all__ = ["Anchor", "Zones", "anchors_of", "choose", "fits_beside_loop", "side_faced",
           "zones_of"]


@dataclass(frozen=True, slots=True)
class Zones:
    """Per ``(channel, bottom zone?)``: the x of every vertical crossing it, sorted, and
    the position of the edge each belongs to."""

    verticals: Mapping[tuple[int, bool], tuple[list[float], list[int]]]

    def free(self, channel: int, bottom: bool, left: float, right: float, own: int,
             margin: float = LABEL_GAP + 0.5) -> bool:
        """No other edge's vertical closer than ``margin`` to ``[left, right]``."""
        xs, owners = self.verticals.get((channel, bottom), ([], []))
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


@dataclass(frozen=True, slots=True)
class Anchor:
    """One of an edge's verticals, at ``x``, crossing one zone of ``channel``: a label
    can sit beside it."""

    channel: int
    bottom: bool
    x: float


def anchors_of(plan: EdgePlan, placement: Placement, ends: tuple[float, float]
               ) -> list[Anchor]:
    """A forward edge's verticals zone by zone from its source to its target: the first
    (at ``ends[0]``, its source slot) in the top zone of the channel below the source, then
    in every channel it passes the vertical entering the next layer (the dummy's x, or
    target's slot ``ends[1]`` on its top face) in the bottom zone and, below a dummy,
    the vertical leaving it in the next channel's top zone.

    >>> from layouts.layered.model import ChainEdge, PlacedNode
    >>> from layouts.layered.routing.ends import EdgeKind, EndSlot
    >>> nodes = {"a": PlacedNode("a", 0, 0, 0, 0, 40, 20),
    ...          "d": PlacedNode("d", 1, 0, 60, 0, 0, 0, dummy=True),
    ...          "b": PlacedNode("b", 2, 0, 0, 0, 40, 20)}
    >>> edge = ChainEdge("e", "a", "b", "a", "b", ("d",), False, False)
    >>> plan = EdgePlan(0, edge, EdgeKind.FORWARD, EndSlot("a", Side.BOTTOM, 0, 1),
    ...                 EndSlot("b", Side.TOP, 0, 1))
    >>> placement = Placement(nodes, (("a",), ("d",), ("b",)), (edge,), 40, 60)
    >>> [(a.channel, a.bottom, a.x) for a in anchors_of(plan, placement, (20.0, 10.0))]
    [(1, False, 20.0), (1, True, 60.0), (2, False, 60.0), (2, True, 10.0)]
    """
    anchors = [Anchor(placement.nodes[plan.source.node].layer + 1, False, ends[0])]
    for dummy in plan.edge.chain:
        node = placement.nodes[dummy]
        x = node.x + node.width / 2
        anchors += [Anchor(node.layer, True, x), Anchor(node.layer + 1, False, x)]
    if plan.target.side is Side.TOP:
        anchors.append(Anchor(placement.nodes[plan.target.node].layer, True, ends[1]))
    return anchors


def choose(zones: Zones, own: int, width: float, anchors: Sequence[Anchor],
           left_first: bool) -> tuple[Anchor, float]:
    """The anchor and left x of a label ``width`` wide for edge ``own``: the first
    anchor, on the preferred side and then the other, where the box is free, else the
    first anchor on the preferred side (see the module example)."""
    sides = (True, False) if left_first else (False, True)
    for anchor in anchors:
        for left in sides:
            x = anchor.x - LABEL_GAP - width if left else anchor.x + LABEL_GAP
            if zones.free(anchor.channel, anchor.bottom, x, x + width, own):
                return anchor, x
    for anchor in anchors:
        x = anchor.x - width / 2
        if zones.free(anchor.channel, anchor.bottom, x, x + width, own, CENTRED_MARGIN):
            return anchor, x
    anchor = anchors[0]
    return anchor, (anchor.x - LABEL_GAP - width if left_first else anchor.x + LABEL_GAP)


def side_faced(plans: Sequence[EdgePlan]) -> frozenset[tuple[str, Side]]:
    """``(node, face)`` of every end on a left or right face other than a self-loop's:
    such an end's route runs through the gap beside that face."""
    return frozenset((end.node, end.side) for plan in plans if plan.kind is not EdgeKind.SELF_LOOP
                     for end in (plan.source, plan.target)
                     if end.side in (Side.LEFT, Side.RIGHT))


def fits_beside_loop(plan: EdgePlan, placement: Placement, reach: float, width: float,
                     height: float, faced: frozenset[tuple[str, Side]],
                     first_end: Mapping[str, float]) -> bool:
    """Whether a label ``width`` x ``height`` fits beside the outer vertical (at
    ``reach``) of self-loop ``plan``, in the node's layer and centred on its height, its
    left side at ``reach + LABEL_GAP`` (the x the channel below would give it too): only
    the outermost loop of a node, a label no taller than the layer (its tallest node:
    the box stays between the channels' tracks, and the node's own ends on its top and
    bottom faces lie left of the loop, farther from the box than the loop), no other end on
    the node's right face (``faced``: :func:`side_faced`), no dummy of the layer up to
    ``LABEL_GAP + 0.5`` past the box, and the next node clear of the box, with no end on
    its left face and its left-most end on a top or bottom face (``first_end``, by node)
    at least ``LABEL_GAP + 0.5`` past the box.

    >>> from layouts.layered.model import ChainEdge, PlacedNode
    >>> from layouts.layered.routing.ends import EndSlot
    >>> nodes = {"a": PlacedNode("a", 0, 0, 0, 0, 40, 30),
    ...          "b": PlacedNode("b", 0, 1, 100, 0, 40, 30)}
    >>> loop = ChainEdge("s", "a", "a", "a", "a", (), False, False)
    >>> plan = EdgePlan(0, loop, EdgeKind.SELF_LOOP, EndSlot("a", Side.RIGHT, 0, 2),
    ...                 EndSlot("a", Side.RIGHT, 1, 2))
    >>> p = Placement(nodes, (("a", "b"),), (loop,), 30, 60)
    >>> fits_beside_loop(plan, p, 52.0, 40, 14, frozenset(), {"b": 120.0})  # 96 + 4.5 <= 120
    True
    >>> fits_beside_loop(plan, p, 52.0, 50, 14, frozenset(), {"b": 120.0})  # 56 + 50 > 100
    False
    >>> fits_beside_loop(plan, p, 52.0, 40, 31, frozenset(), {"b": 120.0})  # taller than 30
    False
    """
    node = placement.nodes[plan.source.node]
    layer = placement.layers[node.layer]
    tallest = max(placement.nodes[v].height for v in layer)
    if plan.source.index != 0 or height > tallest or (node.id, Side.RIGHT) in faced:
        return False
    x = reach + LABEL_GAP
    clear = x + width + LABEL_GAP + 0.5
    for other_id in placement.layers[node.layer][node.order + 1:]:
        other = placement.nodes[other_id]
        if not other.dummy:
            fits = other.x >= x + width + 0.5 and first_end.get(other_id, math.inf) >= clear
            return fits and (other_id, Side.LEFT) not in faced
        if other.x + other.width / 2 <= clear:
            return False
    return True
