"""Typed data handed between the phases of the layered engine.

The pipeline works in one canonical frame: layers run top to bottom (TopToBottom).
For LeftToRight the pipeline swaps every width and height on the way in and transposes
the routed result on the way out (``x`` <-> ``y``, top <-> left, bottom <-> right), so no
phase needs to know the direction.

Hand-off from placement to routing is a :class:`Placement`; routing returns a
:class:`Routing` in the same canonical frame.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

from layouts.graph import Shape
from layouts.result import EdgeRoute, NodeBox, PortBox, Side


@dataclass(frozen=True, slots=True)
class PlacedNode:
    """A node (real or dummy) after placement, in the canonical frame.

    ``x``/``y`` are the top-left corner; ``layer`` counts from 0 at the top; ``order`` is
    the 0-based position in its layer, left to right. Dummy nodes have zero width and
    height and stand for the points where a long edge crosses a layer.
    """

    id: str
    layer: int
    order: int
    x: float
    y: float
    width: float
    height: float
    shape: Shape = Shape.RECT
    dummy: bool = False


@dataclass(frozen=True, slots=True)
class ChainEdge:
    """An input edge after layering, in flow orientation.

    ``upper``/``lower`` are the real node ids on the lower-numbered and higher-numbered
    layer; ``chain`` lists the dummy node ids between them, top to bottom. ``reversed``
    is true when the input edge points from ``lower`` to ``upper`` (a declared loop-back
    or an edge of the feedback set); the routed polyline must still run from the input
    edge's source to its target. ``loop_back`` is the input's declared flag. A
    self-loop has ``upper == lower`` and an empty chain. ``corridor_side`` is, for a
    reversed edge, the side (``Side.LEFT``/``Side.RIGHT``) ordering planned its corridor
    on, having counted the crossings of its corridor runs there; ``None`` lets routing
    choose.

    ``lane`` marks a reversed edge drawn through a *lane* between the columns instead of
    a corridor beside the drawing (see :mod:`layouts.layered.loopbacks.lanes`): its ``chain`` then
    lists the lane's dummies, one per layer from ``upper``'s to ``lower``'s inclusive,
    top to bottom, and the edge turns into the lane in the channels below ``lower`` and
    above ``upper``.

    ``facing`` marks a reversed input edge drawn between its nodes' facing faces (see
    :mod:`layouts.layered.loopbacks.facing`): the chain edge is then a forward one
    (``reversed`` false, ``chain`` the dummies between the two layers) from ``upper``'s
    bottom to ``lower``'s top, and undoing cycle breaking turns the route round.
    """

    id: str
    source: str
    target: str
    upper: str
    lower: str
    chain: tuple[str, ...]
    reversed: bool
    loop_back: bool
    label_width: float = 0.0
    label_height: float = 0.0
    corridor_side: Side | None = None
    lane: bool = False
    facing: bool = False


@dataclass(frozen=True, slots=True)
class Placement:
    """Everything routing needs: every node (real and dummy) with its box, the layers
    as ordered id tuples, the edges with their dummy chains, and the spacings used."""

    nodes: Mapping[str, PlacedNode]
    layers: tuple[tuple[str, ...], ...]
    edges: tuple[ChainEdge, ...]
    node_spacing: float
    layer_spacing: float


@dataclass(frozen=True, slots=True)
class Routing:
    """Routing's output in the canonical frame: final node boxes (routing may move whole
    layers apart to make room for channels), routed edges in input order, drawing size,
    and the placed ports (:mod:`.portmap`)."""

    nodes: tuple[NodeBox, ...]
    edges: tuple[EdgeRoute, ...]
    width: float
    height: float
    ports: tuple[PortBox, ...] = ()


class Deadline:
    """A time budget shared by the phases: phases that iterate check :meth:`expired`
    between iterations and stop early, keeping their best result so far.

    :meth:`keep` holds back a *reserve* for the steps still to come: optimisation loops
    then stop that long before the budget's end (:meth:`expired`), while the steps a
    layout cannot do without look at :meth:`remaining`, the time to the end itself.

    >>> Deadline(60).expired()
    False
    >>> d = Deadline(60)
    >>> d.keep(61)
    >>> d.expired(), d.remaining() > 59
    (True, True)
    """

    def __init__(self, seconds: float) -> None:
        self._clock = time.perf_counter
        self.started = self._clock()
        self._end = self.started + seconds
        self._soft_end = self._end
        self.exhausted = False

    def keep(self, reserve: float) -> None:
        """From now on :meth:`expired` is true ``reserve`` seconds before the end."""
        self._soft_end = self._end - max(0.0, reserve)

    def expired(self) -> bool:
        """True once the budget less the reserve has run out (and remembers that it did)."""
        if not self.exhausted and self._clock() >= self._soft_end:
            self.exhausted = True
        return self.exhausted

    def remaining(self) -> float:
        """Seconds to the budget's end, reserve included (never negative)."""
        return max(0.0, self._end - self._clock())

    def elapsed(self) -> float:
        return self._clock() - self.started
