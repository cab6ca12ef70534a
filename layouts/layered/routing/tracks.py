"""Sub-step 3 of routing: put the horizontal segments of each channel on tracks.

A channel is the free band between two layers. Each horizontal segment in it runs
between two x positions and has vertical segments leaving it upwards (``ups``: towards
the layer above) or downwards (``downs``). Two segments *conflict* when their x ranges
come closer than ``spacing``; conflicting segments need different tracks. For a
conflicting pair, placing ``a`` above ``b`` costs one crossing for every up-vertical of
``b`` inside ``a``'s range and every down-vertical of ``a`` inside ``b``'s range; a
down-vertical of ``a`` on the same x as an up-vertical of ``b`` would overlap it, so
that order is forbidden (a very large cost). The cheaper order of each pair becomes a
weighted dependency; cycles are broken by the greedy Eades-Lin-Smyth ordering (1993);
each segment then takes the lowest track below every conflicting segment placed before
it (longest path). This is the orthogonal routing generator of ELK layered, after
Sander, "Layout of directed hypergraphs with orthogonal hyperedges" (GD 2003).

>>> a = ChannelRun(key=0, channel=1, start=0, end=100, ups=(0,), downs=(100,))
>>> b = ChannelRun(key=1, channel=1, start=50, end=150, ups=(50,), downs=(150,))
>>> assign_tracks([a, b], spacing=12)   # b above a: a's down at 100 would cross b
({0: 1, 1: 0}, {1: 2})
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from layouts.layered.model import Deadline
from layouts.layered.routing.feedback import greedy_order
from layouts.layered.routing.interval_max import IntervalStack

FORBIDDEN = 10_000
SAME_X = 0.5


@dataclass(frozen=True, slots=True)
class ChannelRun:
    """A horizontal segment waiting for a track: ``key`` identifies it to the caller;
    ``follows`` is the key of the run of the same edge that must lie above it (a dogleg)."""

    key: int
    channel: int
    start: float
    end: float
    ups: tuple[float, ...]
    downs: tuple[float, ...]
    follows: int | None = None

    @property
    def low(self) -> float:
        return min(self.start, self.end)

    @property
    def high(self) -> float:
        return max(self.start, self.end)


def _inside(x: float, run: ChannelRun) -> bool:
    return run.low + SAME_X < x < run.high - SAME_X


def cost_above(a: ChannelRun, b: ChannelRun) -> int:
    """Crossings (or :data:`FORBIDDEN` overlaps) caused by putting ``a`` above ``b``.

    >>> cost_above(ChannelRun(0, 0, 0, 10, (0,), (10,)), ChannelRun(1, 0, 10, 20, (10,), (20,)))
    10000
    """
    cost = sum(1 for x in b.ups if _inside(x, a)) + sum(1 for x in a.downs if _inside(x, b))
    if any(abs(x - y) <= SAME_X for x in a.downs for y in b.ups) or a.follows == b.key:
        cost += FORBIDDEN
    return cost


def _conflicts(runs: Sequence[ChannelRun], spacing: float) -> list[tuple[int, int]]:
    """Every pair of runs whose x ranges come closer than ``spacing``, by a sweep in
    order of their left ends; the work is the number of runs plus the number of pairs."""
    order = sorted(range(len(runs)), key=lambda i: (runs[i].low, i))
    reach = [run.high + spacing for run in runs]
    active: list[int] = []
    pairs: list[tuple[int, int]] = []
    for i in order:
        low = runs[i].low
        if active and min(reach[j] for j in active) <= low:
            active = [j for j in active if reach[j] > low]
        pairs.extend((j, i) if j < i else (i, j) for j in active)
        active.append(i)
    return pairs


def _only(xs: tuple[float, ...]) -> float:
    return xs[0] if xs else math.nan


def _pair_weights(runs: Sequence[ChannelRun], pairs: Sequence[tuple[int, int]]
                  ) -> dict[tuple[int, int], int]:
    """For each conflicting pair, the cheaper order as an arc ``(above, below)`` weighted by
    how much cheaper it is (:func:`cost_above` of both orders). This loop runs once per
    pair, hundreds of thousands of times on a dense channel, so the usual leg (at most one
    vertical up and one down; a missing one is NaN, which compares false) takes an inlined
    path."""
    inner = [(run.low + SAME_X, run.high - SAME_X) for run in runs]
    simple = [(_only(run.ups), _only(run.downs)) if len(run.ups) < 2 and len(run.downs) < 2
              else None for run in runs]
    index = {run.key: i for i, run in enumerate(runs)}
    forced = {(i, index[run.follows]) for i, run in enumerate(runs) if run.follows in index}
    weights: dict[tuple[int, int], int] = {}
    for a, b in pairs:
        a_ends, b_ends = simple[a], simple[b]
        if a_ends is None or b_ends is None:
            above, below = cost_above(runs[a], runs[b]), cost_above(runs[b], runs[a])
        else:
            (a_low, a_high), (b_low, b_high) = inner[a], inner[b]
            (a_up, a_down), (b_up, b_down) = a_ends, b_ends
            above = (a_low < b_up < a_high) + (b_low < a_down < b_high)
            below = (b_low < a_up < b_high) + (a_low < b_down < a_high)
            if -SAME_X <= a_down - b_up <= SAME_X or (forced and (a, b) in forced):
                above += FORBIDDEN
            if -SAME_X <= b_down - a_up <= SAME_X or (forced and (b, a) in forced):
                below += FORBIDDEN
        if above < below:
            weights[(a, b)] = below - above
        elif below < above:
            weights[(b, a)] = above - below
    return weights


def forced_arcs(runs: Sequence[ChannelRun]) -> dict[tuple[int, int], int]:
    """Only the orders a channel must keep, as arcs ``(above, below)``: a run whose up-vertical
    shares an x with another's down-vertical goes above it, and a dogleg's second run below
    its first. Found by filing up-verticals under whole-pixel cells, so the cost is the
    number of verticals, not of pairs.

    >>> a = ChannelRun(key=0, channel=1, start=0, end=100, ups=(0,), downs=(100,))
    >>> b = ChannelRun(key=1, channel=1, start=100, end=150, ups=(100,), downs=(150,))
    >>> forced_arcs([a, b])          # b's up at 100 meets a's down: b above a
    {(1, 0): 10000}
    """
    cells: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for i, run in enumerate(runs):
        for y in run.ups:
            cells[math.floor(y)].append((y, i))
    index = {run.key: i for i, run in enumerate(runs)}
    arcs: dict[tuple[int, int], int] = {}
    for a, run in enumerate(runs):
        if run.follows in index:
            arcs[(index[run.follows], a)] = FORBIDDEN
        for x in run.downs:
            for cell in (math.floor(x) - 1, math.floor(x), math.floor(x) + 1):
                for y, b in cells.get(cell, ()):
                    if b != a and -SAME_X <= x - y <= SAME_X:
                        arcs[(b, a)] = FORBIDDEN
    return arcs


def _channel_levels(runs: Sequence[ChannelRun], spacing: float, deadline: Deadline | None
                    ) -> list[int]:
    """Track of every run. Once ``deadline`` has expired (checked before and after the pair
    costs of the channel), the runs are ordered by :func:`forced_arcs` alone: no pair costs
    and no pairs at all, so more crossings but the same overlap guarantees. In the order
    each run takes the track below every conflicting run placed before it."""
    weights = None
    if deadline is None or not deadline.expired():
        weights = _pair_weights(runs, _conflicts(runs, spacing))
    if weights is None or (deadline is not None and deadline.expired()):
        weights = forced_arcs(runs)
    reach = [run.high + spacing for run in runs]
    stack = IntervalStack([*(run.low for run in runs), *reach])
    levels = [-1] * len(runs)
    for v in greedy_order(len(runs), weights):
        levels[v] = stack.place(runs[v].low, reach[v])
    return levels


def assign_tracks(runs: Sequence[ChannelRun], spacing: float,
                  deadline: Deadline | None = None) -> tuple[dict[int, int], dict[int, int]]:
    """Track number (0 = top) of every run by key, and the track count of every channel;
    see :func:`_channel_levels` for what an expired ``deadline`` changes."""
    by_channel: dict[int, list[ChannelRun]] = defaultdict(list)
    for run in runs:
        by_channel[run.channel].append(run)
    tracks: dict[int, int] = {}
    counts: dict[int, int] = {}
    for channel in sorted(by_channel):
        group = by_channel[channel]
        levels = _channel_levels(group, spacing, deadline)
        for run, level in zip(group, levels, strict=True):
            tracks[run.key] = level
        counts[channel] = max(levels) + 1
    return tracks, counts
