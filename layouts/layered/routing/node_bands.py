"""Node boxes filed for "which boxes come near this segment?", the question the
repair screen (:mod:`.defect_screen`) and the fans (:mod:`layouts.layered.fans`) ask
of every segment they check.

Boxes are filed twice: in horizontal bands (rows, one box in every row its height
spans) and in vertical bands (columns), each band sorted along its length. A segment
wider than tall is looked up in the rows its line (grown by the reach) crosses, a
taller one in the columns; within a band, bisection finds the boxes along its extent.
This is the uniform grid technique of Akman, Franklin, Kankanhalli and Narayanaswami
(Computer-Aided Design 21(7), 1989) with cells unbounded along one axis, so a long
track segment costs a bisection, not one lookup per cell it covers.

>>> from layouts.result import NodeBox
>>> bands = NodeBands([NodeBox("a", 0, 0, 100, 40), NodeBox("m", 60, 100, 80, 40),
...                    NodeBox("far", 400, 100, 80, 40)])
>>> sorted(e[ID] for e in bands.near(20, 40, 20, 200, reach=12))   # its column band's
['a', 'm']
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from typing import Final

from layouts.quality_geometry import INTERIOR_MARGIN
from layouts.result import NodeBox

SLACK = 1e-7
"""Pixels an entry's interior box is grown by, so rounding never rules an intrusion out."""


Entry = tuple[float, float, float, float, str, float, float, float, float]
"""A node's box (x0, y0, x1, y1), its id, and its interior box (ix0, iy0, ix1, iy1:
:data:`~layouts.quality_geometry.INTERIOR_MARGIN` in, grown by :data:`SLACK`), which
holds the interior of every outline (rect, diamond, circle, ellipse): a segment apart
from it does not pass through the node. (A plain tuple: a named one costs three times
as much to build, and every layout files every node.)"""

ID: Final = 4
"""Where an :data:`Entry` holds its node's id."""

_Span = tuple[tuple[float, float, float, float], Entry]
"""An entry with its (low, high) across a band and (start, end) along it."""


def _along(span: _Span) -> tuple[float, str]:
    return span[0][2], span[1][ID]


_Band = tuple[list[float], list[Entry], float]
"""A band's entries' starts along it (sorted), the entries, and the longest's length."""


class _Bands:
    """Entries filed in bands of ``size`` of y (``rows``) or of x, each under the band of
    its low coordinate across the band and sorted by its low coordinate along it."""

    def __init__(self, entries: Sequence[Entry], size: float, *, rows: bool) -> None:
        self.size = size
        spans: list[_Span] = [((e[1], e[3], e[0], e[2]) if rows else (e[0], e[2], e[1], e[3]),
                               e) for e in entries]
        spans.sort(key=_along)
        self.tallest = max((high - low for (low, high, _, _), _ in spans), default=0.0)
        floor = math.floor
        filed: dict[int, list[_Span]] = {}
        for span in spans:
            band = floor(span[0][0] / size)
            members = filed.get(band)
            if members is None:
                filed[band] = [span]
            else:
                members.append(span)
        self.bands: dict[int, _Band] = {
            band: ([m[0][2] for m in members], [m[1] for m in members],
                   max(m[0][3] - m[0][2] for m in members))
            for band, members in filed.items()}

    def near(self, low: float, high: float, across_low: float, across_high: float,
             reach: float, found: list[Entry]) -> None:
        """Append to ``found`` the entries whose band may hold a box within ``reach`` of
        [across_low, across_high] and that start at most ``reach`` after ``high`` and
        may end within ``reach`` of ``low``."""
        size = self.size
        for number in range(math.floor((across_low - reach - self.tallest) / size),
                            math.floor((across_high + reach) / size) + 1):
            band = self.bands.get(number)
            if band is None:
                continue
            starts, entries, longest = band
            first = low - reach - longest
            for i in range(bisect_right(starts, high + reach) - 1, -1, -1):
                if starts[i] < first:
                    break
                found.append(entries[i])


class NodeBands:
    """``boxes`` filed in rows and columns (see the module)."""

    def __init__(self, boxes: Sequence[NodeBox]) -> None:
        m = INTERIOR_MARGIN - SLACK
        entries: list[Entry] = [
            (b.x, b.y, b.x + b.width, b.y + b.height, b.id,
             b.x + m, b.y + m, b.x + b.width - m, b.y + b.height - m) for b in boxes]
        height = sum(b.height for b in boxes) / len(boxes) if boxes else 1.0
        width = sum(b.width for b in boxes) / len(boxes) if boxes else 1.0
        self.rows = _Bands(entries, max(1.0, height), rows=True)
        self.columns = _Bands(entries, max(1.0, width), rows=False)

    def near(self, x0: float, y0: float, x1: float, y1: float, reach: float) -> list[Entry]:
        """The entries whose boxes come within ``reach`` of [x0, x1] x [y0, y1] along
        each axis (a superset of the boxes nearer than ``reach``: each box comes at
        least once, in no particular order)."""
        found: list[Entry] = []
        if x1 - x0 >= y1 - y0:
            self.rows.near(x0, x1, y0, y1, reach, found)
        else:
            self.columns.near(y0, y1, x0, x1, reach, found)
        return found
