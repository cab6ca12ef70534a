"""Sub-step 2 of routing: split every edge into vertical columns joined by horizontal legs.

A forward edge runs down a sequence of columns: its source slot's x, the x of each dummy
node of its chain (one per layer it passes), its target slot's x. Between two consecutive
columns it crosses one channel; if their x differ, it needs a horizontal *leg* on a track
of that channel. A reversed edge has two legs: in the channel below its source it runs out
to its corridor, in the channel above its target it comes back in. Self-loops have no
legs (they stay beside their node). Each leg becomes a :class:`ChannelRun` for the track
assignment, keyed by its index in the returned leg list.

>>> legs = forward_legs(position=0, channels=(1, 2), columns=(10.0, 10.0, 30.0))
>>> [(leg.channel, leg.start, leg.end) for leg in legs]     # straight through channel 1
[(2, 10.0, 30.0)]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from layouts.layered.routing.tracks import ChannelRun

SNAP = 1e-6


@dataclass(frozen=True, slots=True)
class Leg:
    """A horizontal piece of an edge in ``channel``, from x ``start`` to x ``end``;
    ``ups``/``downs`` are the x of the edge's vertical segments leaving it up or down."""

    position: int
    channel: int
    start: float
    end: float
    ups: tuple[float, ...]
    downs: tuple[float, ...]

    def run(self, key: int) -> ChannelRun:
        return ChannelRun(key, self.channel, self.start, self.end, self.ups, self.downs)


def snap_columns(columns: Sequence[float]) -> tuple[float, ...]:
    """Columns closer than a micro-pixel to the previous one reuse its x, so float noise
    never produces a zero-length jog.

    >>> snap_columns([5.0, 5.0 + 1e-9, 8.0])
    (5.0, 5.0, 8.0)
    """
    snapped: list[float] = []
    for x in columns:
        snapped.append(snapped[-1] if snapped and abs(x - snapped[-1]) < SNAP else x)
    return tuple(snapped)


def forward_legs(position: int, channels: Sequence[int], columns: Sequence[float]) -> list[Leg]:
    """Legs of a forward edge; ``channels[i]`` lies between ``columns[i]`` and
    ``columns[i + 1]``."""
    legs: list[Leg] = []
    for channel, (x0, x1) in zip(channels, itertools.pairwise(columns), strict=True):
        if x0 != x1:
            legs.append(Leg(position, channel, x0, x1, (x0,), (x1,)))
    return legs


def corridor_legs(position: int, below: int, above: int, source_x: float, corridor_x: float,
                  target_x: float) -> list[Leg]:
    """The two legs of a reversed edge: out to the corridor below its source, back in
    above its target.

    >>> [(l.channel, l.start, l.end, l.ups, l.downs) for l in corridor_legs(3, 4, 1, 50, -20, 80)]
    [(4, 50, -20, (50, -20), ()), (1, -20, 80, (), (-20, 80))]
    """
    return [
        Leg(position, below, source_x, corridor_x, (source_x, corridor_x), ()),
        Leg(position, above, corridor_x, target_x, (), (corridor_x, target_x)),
    ]
