"""Sub-step 2 of routing: split every edge into vertical columns joined by horizontal legs.

A forward edge runs down a sequence of columns: its source slot's x, the x of each dummy
node of its chain (one per layer it passes), its target slot's x. Between two consecutive
columns it crosses one channel; if their x differ, it needs a horizontal *leg* on a track
of that channel. A reversed edge has two legs: in the channel below its source it runs out
to its corridor, in the channel above its target it comes back in. A reversed edge with a
lane runs out to the lane below its source, up the lane's columns (a leg wherever they
differ) and back in above its target. Self-loops have no
legs (they stay beside their node). Each leg becomes a :class:`ChannelRun` for the track
assignment, keyed by its index in the returned leg list.

Two legs that swap places in one channel (one runs from x1 to x2, the other from x2 to x1)
cannot both be drawn with one horizontal each: whichever is on top, its down-vertical would
run along the other's up-vertical. :func:`split_swaps` turns one of them into a dogleg,
two legs joined by a vertical at a free x between them, the second below the first.

>>> legs = forward_legs(position=0, channels=(1, 2), columns=(10.0, 10.0, 30.0))
>>> [(leg.channel, leg.start, leg.end) for leg in legs]     # straight through channel 1
[(2, 10.0, 30.0)]
"""

from __future__ import annotations

import bisect
import itertools
from collections import defaultdict
from collections.abc import Mapping, Sequence
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
    continues: bool = False

    def run(self, key: int) -> ChannelRun:
        """The leg as a run keyed ``key``; a continuing leg must lie below leg ``key - 1``."""
        return ChannelRun(key, self.channel, self.start, self.end, self.ups, self.downs,
                          key - 1 if self.continues else None)


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


def _key(x: float) -> float:
    return round(x, 3)


def _swapped(a: Leg, b: Leg) -> bool:
    return bool({_key(x) for x in a.downs} & {_key(x) for x in b.ups}
                and {_key(x) for x in b.downs} & {_key(x) for x in a.ups})


def _free_x(low: float, high: float, taken: Sequence[float]) -> float | None:
    """The middle of the widest gap between ``taken`` verticals (sorted) inside (low, high).

    >>> _free_x(0.0, 100.0, [-5.0, 10.0, 40.0, 40.0, 120.0])   # gaps 10, 30, 60: 40 + 30
    70.0
    """
    inside = taken[bisect.bisect_right(taken, low):bisect.bisect_left(taken, high)]
    width, start = max((b - a, a) for a, b in itertools.pairwise([low, *inside, high]))
    return start + width / 2 if width >= 2.0 else None


def split_swaps(per_edge: Sequence[Sequence[Leg]], straight: Mapping[int, Sequence[float]]
                ) -> list[list[Leg]]:
    """Turn the first leg of each swapped pair of one channel into a dogleg; ``straight``
    lists, per channel, the x of edges running straight through it.

    >>> a = Leg(0, 1, 100.0, 200.0, (100.0,), (200.0,))
    >>> b = Leg(1, 1, 200.0, 100.0, (200.0,), (100.0,))
    >>> [(l.start, l.end, l.continues) for l in split_swaps([[a], [b]], {})[0]]
    [(100.0, 150.0, False), (150.0, 200.0, True)]
    """
    out = [list(legs) for legs in per_edge]
    by_channel: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for e, legs in enumerate(per_edge):
        for i, leg in enumerate(legs):
            by_channel[leg.channel].append((e, i))
    for channel in sorted(by_channel):
        refs = by_channel[channel]
        downs: dict[float, list[tuple[int, int]]] = defaultdict(list)
        for e, i in refs:
            for x in per_edge[e][i].downs:
                downs[_key(x)].append((e, i))
        taken = sorted([x for e, i in refs for x in (*per_edge[e][i].ups, *per_edge[e][i].downs)]
                       + list(straight.get(channel, ())))
        split: set[tuple[int, int]] = set()
        for e, i in refs:
            a = per_edge[e][i]
            partners = [r for x in a.ups for r in downs.get(_key(x), ())
                        if r not in split and _swapped(a, per_edge[r[0]][r[1]])]
            if not partners or (e, i) in split:
                continue
            middle = _free_x(min(a.start, a.end), max(a.start, a.end), taken)
            if middle is None:
                continue
            split.update({(e, i), partners[0]})
            bisect.insort(taken, middle)
            out[e][out[e].index(a):out[e].index(a) + 1] = [
                Leg(a.position, channel, a.start, middle, a.ups, ()),
                Leg(a.position, channel, middle, a.end, (), a.downs, continues=True)]
    return out
