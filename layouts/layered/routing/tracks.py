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

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

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
    order = sorted(range(len(runs)), key=lambda i: (runs[i].low, i))
    active: list[int] = []
    pairs: list[tuple[int, int]] = []
    for i in order:
        active = [j for j in active if runs[j].high + spacing > runs[i].low]
        pairs.extend((min(i, j), max(i, j)) for j in active)
        active.append(i)
    return sorted(pairs)


def _greedy_order(count: int, weights: dict[tuple[int, int], int]) -> list[int]:
    """Eades-Lin-Smyth: sinks to the back, sources to the front, else the node with the
    largest out-weight minus in-weight; ties by lowest index (deterministic)."""
    outs: dict[int, set[int]] = defaultdict(set)
    ins: dict[int, set[int]] = defaultdict(set)
    for a, b in weights:
        outs[a].add(b)
        ins[b].add(a)
    left: list[int] = []
    right: list[int] = []
    remaining = set(range(count))

    def remove(v: int) -> None:
        remaining.discard(v)
        for w in outs[v]:
            ins[w].discard(v)
        for w in ins[v]:
            outs[w].discard(v)

    while remaining:
        sinks = sorted(v for v in remaining if not outs[v])
        for v in reversed(sinks):
            right.append(v)
            remove(v)
        sources = sorted(v for v in remaining if not ins[v])
        for v in sources:
            left.append(v)
            remove(v)
        if remaining and not sinks and not sources:
            def delta(v: int) -> int:
                return (sum(weights[(v, w)] for w in outs[v])
                        - sum(weights[(w, v)] for w in ins[v]))
            best = min(remaining, key=lambda v: (-delta(v), v))
            left.append(best)
            remove(best)
    return left + right[::-1]


def _channel_levels(runs: Sequence[ChannelRun], spacing: float) -> list[int]:
    pairs = _conflicts(runs, spacing)
    weights: dict[tuple[int, int], int] = {}
    for a, b in pairs:
        above, below = cost_above(runs[a], runs[b]), cost_above(runs[b], runs[a])
        if above <= below:
            weights[(a, b)] = below - above
        else:
            weights[(b, a)] = above - below
    order = _greedy_order(len(runs), weights)
    neighbours: dict[int, list[int]] = defaultdict(list)
    for a, b in pairs:
        neighbours[a].append(b)
        neighbours[b].append(a)
    levels = [-1] * len(runs)
    for v in order:
        levels[v] = 1 + max((levels[w] for w in neighbours[v] if levels[w] >= 0), default=-1)
    return levels


def assign_tracks(
    runs: Sequence[ChannelRun], spacing: float
) -> tuple[dict[int, int], dict[int, int]]:
    """Track number (0 = top) of every run by key, and the track count of every channel."""
    by_channel: dict[int, list[ChannelRun]] = defaultdict(list)
    for run in runs:
        by_channel[run.channel].append(run)
    tracks: dict[int, int] = {}
    counts: dict[int, int] = {}
    for channel in sorted(by_channel):
        group = by_channel[channel]
        levels = _channel_levels(group, spacing)
        for run, level in zip(group, levels, strict=True):
            tracks[run.key] = level
        counts[channel] = max(levels) + 1
    return tracks, counts
