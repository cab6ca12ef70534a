"""A uniform grid that prunes the pair tests of :mod:`layouts.quality`.

The standard technique (Akman, Franklin, Kankanhalli, Narayanaswami, "Geometric
computing and uniform grid technique", Computer-Aided Design 21(7), 1989): items are
filed under every cell their bounding box covers, and a pair is reported only in the one
cell that holds the low corner of the two boxes' intersection, so each pair is tested
once without a set of seen pairs.

>>> from layouts.quality_geometry import Segment, segment_relation, vertex_crossings
>>> from layouts.result import NodeBox
>>> segments = [Segment(0, 5, 100, 5, 0, "a", "b"), Segment(50, 0, 50, 90, 1, "c", "d"),
...             Segment(0, 80, 10, 80, 2, "e", "f")]
>>> grid = Grid.for_items([NodeBox("n", 40, 40, 20, 20)], segments)
>>> list(grid.segment_pairs(segments)), sorted(grid.nodes_near(segments[1], 0.0))
([(0, 1)], ['n'])
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from layouts.quality_geometry import Segment, segment_relation, vertex_crossings
from layouts.result import NodeBox

_Cell = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Grid:
    """Node boxes and segments filed under the uniform cells their bounds cover."""

    origin_x: float
    origin_y: float
    cell: float
    diagonal: float
    node_bounds: dict[str, tuple[float, float, float, float]]
    node_cells: dict[_Cell, list[str]] = field(default_factory=dict)

    @classmethod
    def for_items(cls, nodes: Iterable[NodeBox], segments: list[Segment]) -> Grid:
        """A grid over the extent of ``nodes`` and ``segments``, with about two items
        per cell, and the nodes filed in it."""
        bounds = {n.id: (n.x, n.y, n.x + n.width, n.y + n.height) for n in nodes}
        boxes = [*bounds.values(), *(s.bounds() for s in segments)]
        if not boxes:
            return cls(0.0, 0.0, 1.0, 0.0, bounds)
        x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
        w, h = max(x1 - x0, 1.0), max(y1 - y0, 1.0)
        cell = max(1.0, math.sqrt(w * h / len(boxes)) * 1.5)
        grid = cls(x0, y0, cell, math.hypot(w, h), bounds)
        for node_id, b in bounds.items():
            for key in grid._cells(*b):
                grid.node_cells.setdefault(key, []).append(node_id)
        return grid

    def _key(self, x: float, y: float) -> _Cell:
        return (math.floor((x - self.origin_x) / self.cell),
                math.floor((y - self.origin_y) / self.cell))

    def _cells(self, x0: float, y0: float, x1: float, y1: float) -> Iterator[_Cell]:
        (i0, j0), (i1, j1) = self._key(x0, y0), self._key(x1, y1)
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                yield i, j

    def _pairs(self, cells: dict[_Cell, list[int]],
               bounds: list[tuple[float, float, float, float]]) -> Iterator[tuple[int, int]]:
        for key, members in cells.items():
            for position, i in enumerate(members):
                a = bounds[i]
                for j in members[position + 1:]:
                    b = bounds[j]
                    lx, ly = max(a[0], b[0]), max(a[1], b[1])
                    if lx <= min(a[2], b[2]) and ly <= min(a[3], b[3]) \
                            and self._key(lx, ly) == key:
                        yield i, j

    def _filed(self, bounds: list[tuple[float, float, float, float]]
               ) -> dict[_Cell, list[int]]:
        cells: dict[_Cell, list[int]] = {}
        for index, b in enumerate(bounds):
            for key in self._cells(*b):
                cells.setdefault(key, []).append(index)
        return cells

    def segment_pairs(self, segments: list[Segment]) -> Iterator[tuple[int, int]]:
        """Index pairs of segments whose closed bounds meet, each pair once."""
        bounds = [s.bounds() for s in segments]
        return self._pairs(self._filed(bounds), bounds)

    def node_pairs(self, nodes: list[NodeBox]) -> Iterator[tuple[int, int]]:
        """Index pairs of nodes (positions in ``nodes``) whose closed boxes meet."""
        bounds = [self.node_bounds[n.id] for n in nodes]
        return self._pairs(self._filed(bounds), bounds)

    def nodes_near(self, s: Segment, radius: float) -> set[str]:
        """Ids of nodes filed in the cells within ``radius`` of the segment's bounds
        (a superset of the nodes closer than ``radius``)."""
        x0, y0, x1, y1 = s.bounds()
        (i0, j0) = self._key(x0 - radius, y0 - radius)
        (i1, j1) = self._key(x1 + radius, y1 + radius)
        found: set[str] = set()
        if (i1 - i0 + 1) * (j1 - j0 + 1) > len(self.node_cells):
            for (i, j), ids in self.node_cells.items():
                if i0 <= i <= i1 and j0 <= j <= j1:
                    found.update(ids)
            return found
        for key in self._cells(x0 - radius, y0 - radius, x1 + radius, y1 + radius):
            found.update(self.node_cells.get(key, ()))
        return found


def crossings_of(segments: list[Segment], grid: Grid) -> int:
    """Crossings over pairs of segments of different edges: a point interior to both
    segments, or a vertex of one route inside the other's segment where the route passes
    from one side to the other."""
    return _counted(segments, grid.segment_pairs(segments))


def swept_crossings(segments: list[Segment]) -> int:
    """:func:`crossings_of` without a grid: the pairs whose closed bounds meet come from
    a sweep along x (segments sorted by their left end; each meets the later ones that
    start at most at its right end and overlap it along y). The same pairs, so the same
    count; cheaper for the few dozen segments of one small drawing, where filing nodes
    and segments in cells costs more than the pair tests it saves.

    Two routes crossing at (5, 5), and one far away:

    >>> segments = [Segment(0, 5, 10, 5, 0, "a", "b"), Segment(5, 0, 5, 10, 1, "c", "d"),
    ...             Segment(50, 0, 50, 10, 2, "e", "f")]
    >>> swept_crossings(segments)
    1
    """
    return _counted(segments, _swept_pairs(segments))


def crossed_edges(segments: list[Segment]) -> frozenset[int]:
    """The ``edge`` numbers of the segments in the crossings :func:`swept_crossings`
    counts.

    >>> crossed_edges([Segment(0, 5, 10, 5, 0, "a", "b"), Segment(5, 0, 5, 10, 1, "c", "d"),
    ...                Segment(50, 0, 50, 10, 2, "e", "f")])
    frozenset({0, 1})
    """
    found: set[int] = set()
    for i, j in _swept_pairs(segments):
        if _counted(segments, ((i, j),)):
            found |= {segments[i].edge, segments[j].edge}
    return frozenset(found)


def _swept_pairs(segments: list[Segment]) -> list[tuple[int, int]]:
    """Index pairs (lower first) of segments whose closed bounds meet, each pair once."""
    bounds = [(min(s.x1, s.x2), min(s.y1, s.y2), max(s.x1, s.x2), max(s.y1, s.y2), i)
              for i, s in enumerate(segments)]
    bounds.sort(key=lambda b: b[0])
    pairs: list[tuple[int, int]] = []
    for k, (_, ay0, ax1, ay1, i) in enumerate(bounds):
        for bx0, by0, _, by1, j in bounds[k + 1:]:
            if bx0 > ax1:
                break
            if by0 <= ay1 and ay0 <= by1:    # both y ranges hold the larger start
                pairs.append((i, j) if i < j else (j, i))
    return pairs


def _counted(segments: list[Segment], pairs: Iterable[tuple[int, int]]) -> int:
    crossings = 0
    for i, j in pairs:
        a, b = segments[i], segments[j]
        if a.edge == b.edge:
            continue
        relation = segment_relation(a, b)
        if relation == "none":
            crossings += vertex_crossings(a, b)
        crossings += relation == "cross"
    return crossings
