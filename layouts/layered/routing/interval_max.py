"""Stacking intervals: each new interval takes the level one above the highest level of
the intervals already stacked that it overlaps. A segment tree over the compressed end
points (each node keeps the highest level stored anywhere below it and the highest level
laid over its whole span) answers each interval in O(log n), so stacking n intervals
costs O(n log n), however many of them overlap (Bentley's segment tree, 1977; see de Berg
et al., "Computational Geometry", ch. 10).

>>> stack = IntervalStack([0.0, 5.0, 10.0, 20.0])
>>> [stack.place(a, b) for a, b in [(0.0, 10.0), (5.0, 20.0), (10.0, 20.0), (0.0, 5.0)]]
[0, 1, 2, 1]
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable


class IntervalStack:
    """Half-open intervals ``[low, high)`` whose ends are among ``points``."""

    def __init__(self, points: Iterable[float]) -> None:
        self.points = sorted(set(points))
        size = max(1, len(self.points) - 1)   # elementary slots between neighbouring points
        self.size = size
        self.below = [-1] * (4 * size)         # highest level anywhere in the node's span
        self.over = [-1] * (4 * size)          # highest level covering the node's whole span

    def _slots(self, low: float, high: float) -> tuple[int, int]:
        return bisect.bisect_left(self.points, low), bisect.bisect_left(self.points, high) - 1

    def _highest(self, node: int, start: int, end: int, first: int, last: int) -> int:
        if last < start or end < first:
            return -1
        if first <= start and end <= last:
            return self.below[node]
        middle = (start + end) // 2
        return max(self.over[node],
                   self._highest(2 * node, start, middle, first, last),
                   self._highest(2 * node + 1, middle + 1, end, first, last))

    def _lay(self, node: int, start: int, end: int, first: int, last: int, level: int) -> None:
        if last < start or end < first:
            return
        self.below[node] = max(self.below[node], level)
        if first <= start and end <= last:
            self.over[node] = max(self.over[node], level)
            return
        middle = (start + end) // 2
        self._lay(2 * node, start, middle, first, last, level)
        self._lay(2 * node + 1, middle + 1, end, first, last, level)

    def place(self, low: float, high: float) -> int:
        """Stack ``[low, high)`` (both among the points, ``low < high``); its level."""
        first, last = self._slots(low, high)
        level = 1 + self._highest(1, 0, self.size - 1, first, last)
        self._lay(1, 0, self.size - 1, first, last, level)
        return level
