"""A uniform grid of the routes' segments, so a repair compares a changed route only with
the segments near it instead of every segment of every other route (which made each
accepted-check linear in the drawing, and the repair pass quadratic on dense graphs).

Segments are filed under every cell their bounding box (grown by a hair, so touching
counts) covers: the uniform grid technique of Akman, Franklin, Kankanhalli and
Narayanaswami (Computer-Aided Design 21(7), 1989). A segment that meets another shares a
cell with it, so the lookup finds every crossing and shared stretch. Routes can be
replaced as repairs change them.

>>> from layouts.result import Point
>>> index = SegmentIndex.of_routes([(Point(0, 50), Point(100, 50)),
...                                 (Point(500, 0), Point(500, 90))], cell=40.0)
>>> [key for key, _ in index.near(Segment(50, 0, 50, 90, 0, "", ""), skip=None)]
[0]
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from itertools import pairwise

from layouts.quality_geometry import Segment
from layouts.result import Point

HAIR = 1e-6
_Cell = tuple[int, int]


def polyline_segments(points: Sequence[Point]) -> list[Segment]:
    """The non-degenerate segments of a polyline."""
    return [Segment(a.x, a.y, b.x, b.y, 0, "", "") for a, b in pairwise(points) if a != b]


class SegmentIndex:
    """Segments of keyed routes filed under uniform cells of side ``cell``."""

    def __init__(self, cell: float) -> None:
        self.cell = cell
        self.cells: dict[_Cell, list[tuple[int, int]]] = {}
        self.segments: dict[int, list[Segment]] = {}

    @classmethod
    def of_routes(cls, routes: Sequence[Sequence[Point]], cell: float | None = None
                  ) -> SegmentIndex:
        """An index of ``routes`` keyed by position; by default a cell is about the
        square root of the drawing's area per segment, as in :mod:`layouts.quality_grid`."""
        pieces = [polyline_segments(points) for points in routes]
        if cell is None:
            bounds = [s.bounds() for piece in pieces for s in piece]
            width = max((b[2] for b in bounds), default=1.0) - min((b[0] for b in bounds),
                                                                   default=0.0)
            height = max((b[3] for b in bounds), default=1.0) - min((b[1] for b in bounds),
                                                                    default=0.0)
            area = max(width, 1.0) * max(height, 1.0)
            cell = max(1.0, math.sqrt(area / max(len(bounds), 1)) * 1.5)
        index = cls(cell)
        for key, piece in enumerate(pieces):
            index._file(key, piece)
        return index

    def _cells(self, segment: Segment) -> Iterator[_Cell]:
        x0, y0, x1, y1 = segment.bounds()
        size = self.cell
        for i in range(math.floor((x0 - HAIR) / size), math.floor((x1 + HAIR) / size) + 1):
            for j in range(math.floor((y0 - HAIR) / size), math.floor((y1 + HAIR) / size) + 1):
                yield i, j

    def _file(self, key: int, piece: list[Segment]) -> None:
        self.segments[key] = piece
        for number, segment in enumerate(piece):
            for cell in self._cells(segment):
                self.cells.setdefault(cell, []).append((key, number))

    def replace(self, key: int, points: Sequence[Point]) -> None:
        """Re-file route ``key`` with its new ``points``."""
        for segment in self.segments.pop(key, []):
            for cell in self._cells(segment):
                self.cells[cell] = [item for item in self.cells[cell] if item[0] != key]
        self._file(key, polyline_segments(points))

    def near(self, segment: Segment, skip: int | None) -> list[tuple[int, Segment]]:
        """Every filed segment (with its route's key) sharing a cell with ``segment``,
        once each, in filing order, leaving out route ``skip``."""
        found: set[tuple[int, int]] = set()
        for cell in self._cells(segment):
            found.update(item for item in self.cells.get(cell, ()) if item[0] != skip)
        return [(key, self.segments[key][number]) for key, number in sorted(found)]
