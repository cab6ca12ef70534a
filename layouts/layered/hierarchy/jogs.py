"""Step 4 of the hierarchical layout: the short *jogs* that join an edge's pieces at a
compound border, each on a track of its own in the strip between the border and the
compound's interior.

A jog runs down from its upper column ``upper`` to its track, across to its lower column
``lower``, and down again. Entering a compound the upper column is the parent's slot on
the top face and the lower one the entering dummy's; leaving it, the upper column is the
leaving dummy's and the lower one the slot on the bottom face. Tracks are numbered from
the top. Two rules fix their order:

* a jog's upper column must not run down over another jog's lower column on the same
  line (that would be a shared stretch): when ``upper[j] == lower[k]``, ``j``'s track is
  above ``k``'s;
* jogs to the right take tracks in order of falling ``upper`` and jogs to the left in
  order of rising ``upper``, which draws two jogs whose spans overlap without crossing
  unless one span holds the other.

>>> tracks([(0, 50), (20, 80), (60, 60)])     # right, right, straight
[1, 0, 2]
>>> tracks([(10, 50), (50, 90)])             # upper of 1 on lower of 0: 1 goes first
[1, 0]
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

SAME = 0.5
"""Columns closer than this count as one line (the contract checkers' tolerance)."""


def tracks(jogs: Sequence[tuple[float, float]]) -> list[int]:
    """The track (0 = top) of each ``(upper, lower)`` jog; see the module docstring."""
    def preference(i: int) -> tuple[int, float, int]:
        upper, lower = jogs[i]
        if lower > upper + SAME:
            return (0, -upper, i)
        if lower < upper - SAME:
            return (1, upper, i)
        return (2, upper, i)

    count = len(jogs)
    after: list[list[int]] = [[] for _ in range(count)]
    waiting = [0] * count
    for j, (upper, _) in enumerate(jogs):
        for k, (_, lower) in enumerate(jogs):
            if j != k and abs(upper - lower) <= SAME:
                after[j].append(k)
                waiting[k] += 1
    ready = [preference(i) for i in range(count) if waiting[i] == 0]
    heapq.heapify(ready)
    order: list[int] = []
    placed = [False] * count
    while len(order) < count:
        if not ready:   # a cycle of coinciding columns: take the most preferred one
            ready = [min(preference(i) for i in range(count) if not placed[i])]
        _, _, i = heapq.heappop(ready)
        if placed[i]:
            continue
        placed[i] = True
        order.append(i)
        for k in after[i]:
            waiting[k] -= 1
            if waiting[k] == 0 and not placed[k]:
                heapq.heappush(ready, preference(k))
    out = [0] * count
    for track, i in enumerate(order):
        out[i] = track
    return out
