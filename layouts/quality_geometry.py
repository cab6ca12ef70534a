"""Segment geometry for :mod:`layouts.quality`: simplified routes, crossings and
touches, distances to boxes, and intrusion into a node's true outline.

>>> s = Segment(0, 0, 10, 0, 0, "a", "b")
>>> t = Segment(5, -5, 5, 5, 1, "c", "d")
>>> segment_relation(s, t), segment_relation(s, Segment(5, 0, 5, 5, 1, "c", "d"))
('cross', 'none')
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise

from layouts.graph import Shape
from layouts.result import NodeBox, Point

TOUCH_TOLERANCE = 1e-6
"""Distance (px) under which a point counts as lying on a line (touching, not crossing)."""

ORTHOGONAL_TOLERANCE = 1e-3
"""A segment whose x or y extent is at most this (px) is axis-parallel."""

INTERIOR_MARGIN = 0.5
"""A node's interior for intrusion tests is its outline shrunk by this many px."""


@dataclass(frozen=True, slots=True)
class Segment:
    """One non-degenerate segment of edge number ``edge`` (index in the result)."""


    x1: float
    y1: float
    x2: float
    y2: float
    edge: int
    source: str
    target: str
    before: tuple[float, float] | None = None
    """Start of the previous segment of the same route (None for the first)."""

    @property
    def length(self) -> float:
        return math.hypot(self.x2 - self.x1, self.y2 - self.y1)

    def bounds(self) -> tuple[float, float, float, float]:
        return (min(self.x1, self.x2), min(self.y1, self.y2),
                max(self.x1, self.x2), max(self.y1, self.y2))


def is_orthogonal(s: Segment) -> bool:
    """Whether ``s`` is horizontal or vertical within :data:`ORTHOGONAL_TOLERANCE`."""
    return abs(s.x2 - s.x1) <= ORTHOGONAL_TOLERANCE or abs(s.y2 - s.y1) <= ORTHOGONAL_TOLERANCE


def simplified(points: Iterable[Point]) -> list[Point]:
    """The polyline without repeated points and straight pass-through vertices (kept:
    the ends, vertices where the direction turns, and reversals).

    >>> simplified([Point(0, 0), Point(0, 10), Point(0, 10), Point(0, 20), Point(5, 20)])
    [Point(x=0, y=0), Point(x=0, y=20), Point(x=5, y=20)]
    """
    kept: list[Point] = []
    for p in points:
        if kept and (p.x, p.y) == (kept[-1].x, kept[-1].y):
            continue
        if len(kept) >= 2 and not _turns(kept[-2], kept[-1], p):
            kept[-1] = p
        else:
            kept.append(p)
    return kept


def _turns(p0: Point, p1: Point, p2: Point) -> bool:
    ax, ay, bx, by = p1.x - p0.x, p1.y - p0.y, p2.x - p1.x, p2.y - p1.y
    scale = math.hypot(ax, ay) * math.hypot(bx, by)
    return abs(ax * by - ay * bx) > 1e-9 * scale or ax * bx + ay * by < 0


def bend_count(points: Iterable[Point]) -> int:
    """Interior vertices of a polyline where the direction changes (repeated points
    are skipped; a straight pass-through vertex is no bend, a reversal is one).

    >>> bend_count([Point(0, 0), Point(0, 10), Point(0, 20), Point(10, 20)])
    1
    """
    return max(0, len(simplified(points)) - 2)


def route_segments(points: Iterable[Point], edge: int, source: str, target: str
                   ) -> list[Segment]:
    """The segments of a :func:`simplified` route; each remembers the start of the
    segment before it, so a crossing through a vertex can be recognised."""
    pts = simplified(points)
    return [
        Segment(a.x, a.y, b.x, b.y, edge, source, target,
                None if i == 0 else (pts[i - 1].x, pts[i - 1].y))
        for i, (a, b) in enumerate(pairwise(pts))
    ]


def _signed_distance(s: Segment, x: float, y: float) -> float:
    """Signed distance of (x, y) from the line through ``s``."""
    dx, dy = s.x2 - s.x1, s.y2 - s.y1
    return (dx * (y - s.y1) - dy * (x - s.x1)) / math.hypot(dx, dy)


def segment_relation(a: Segment, b: Segment) -> str:
    """``cross`` when the segments cross at a point interior to both; ``shared`` when
    they are collinear and overlap along a positive length; otherwise ``none``
    (touching at an end point, a T junction, or apart)."""
    d1, d2 = _signed_distance(a, b.x1, b.y1), _signed_distance(a, b.x2, b.y2)
    if abs(d1) <= TOUCH_TOLERANCE and abs(d2) <= TOUCH_TOLERANCE:
        length = a.length
        ux, uy = (a.x2 - a.x1) / length, (a.y2 - a.y1) / length
        t1 = (b.x1 - a.x1) * ux + (b.y1 - a.y1) * uy
        t2 = (b.x2 - a.x1) * ux + (b.y2 - a.y1) * uy
        overlap = min(length, max(t1, t2)) - max(0.0, min(t1, t2))
        return "shared" if overlap > TOUCH_TOLERANCE else "none"
    d3, d4 = _signed_distance(b, a.x1, a.y1), _signed_distance(b, a.x2, a.y2)
    return "cross" if _opposite(d1, d2) and _opposite(d3, d4) else "none"


def crosses_at_vertex(a: Segment, b: Segment) -> bool:
    """Whether the route of ``b`` crosses ``a`` at ``b``'s start vertex: that vertex lies
    inside ``a`` (not at its ends) and the routes's neighbouring points lie strictly on
    opposite sides of ``a``. Counting only at the start vertex counts each vertex once.

    >>> a = Segment(0, 50, 100, 50, 0, "c", "d")
    >>> crosses_at_vertex(a, Segment(50, 50, 70, 90, 1, "s", "t", before=(40, 10)))
    True
    >>> crosses_at_vertex(a, Segment(50, 50, 70, 10, 1, "s", "t", before=(40, 10)))
    False
    """
    if b.before is None or abs(_signed_distance(a, b.x1, b.y1)) > TOUCH_TOLERANCE:
        return False
    length = a.length
    t = ((b.x1 - a.x1) * (a.x2 - a.x1) + (b.y1 - a.y1) * (a.y2 - a.y1)) / length
    if not TOUCH_TOLERANCE < t < length - TOUCH_TOLERANCE:
        return False
    return _opposite(_signed_distance(a, *b.before), _signed_distance(a, b.x2, b.y2))


def crosses_at_shared_vertex(a: Segment, b: Segment) -> bool:
    """Whether two routes that both turn at the same point (the start of ``a`` and of
    ``b``) cross there: their rays out of that point interleave around it.

    >>> crosses_at_shared_vertex(Segment(50, 50, 90, 70, 0, "s", "t", before=(10, 10)),
    ...                          Segment(50, 50, 10, 70, 1, "u", "v", before=(90, 30)))
    True
    """
    if a.before is None or b.before is None \
            or math.hypot(a.x1 - b.x1, a.y1 - b.y1) > TOUCH_TOLERANCE:
        return False
    low, high = _angle(a, a.before), _angle(a, (a.x2, a.y2))
    rays = (_angle(a, b.before), _angle(a, (b.x2, b.y2)))
    if any(min(abs(r - q), 2 * math.pi - abs(r - q)) < 1e-9 for r in rays for q in (low, high)):
        return False  # a ray is shared: the routes overlap there (see ``shared``)
    span = (high - low) % (2 * math.pi)
    inside = [(r - low) % (2 * math.pi) < span for r in rays]
    return inside[0] != inside[1]


def _angle(s: Segment, towards: tuple[float, float]) -> float:
    return math.atan2(towards[1] - s.y1, towards[0] - s.x1)


def vertex_crossings(a: Segment, b: Segment) -> int:
    """Crossings of two routes at a vertex of either (see :func:`crosses_at_vertex` and
    :func:`crosses_at_shared_vertex`); each crossing is found through one pair only."""
    return (crosses_at_vertex(a, b) + crosses_at_vertex(b, a)
            + crosses_at_shared_vertex(a, b))


def _opposite(u: float, v: float) -> bool:
    return (u > TOUCH_TOLERANCE and v < -TOUCH_TOLERANCE) or (
        u < -TOUCH_TOLERANCE and v > TOUCH_TOLERANCE)


def _clip(s: Segment, x0: float, y0: float, x1: float, y1: float) -> tuple[float, float] | None:
    """Liang-Barsky: the parameter interval of ``s`` inside the closed box, or None."""
    lo, hi = 0.0, 1.0
    dx, dy = s.x2 - s.x1, s.y2 - s.y1
    for p, q in ((-dx, s.x1 - x0), (dx, x1 - s.x1), (-dy, s.y1 - y0), (dy, y1 - s.y1)):
        if p == 0:
            if q < 0:
                return None
            continue
        t = q / p
        if p < 0:
            lo = max(lo, t)
        else:
            hi = min(hi, t)
        if lo > hi:
            return None
    return lo, hi


def _point_segment_distance(x: float, y: float, s: Segment) -> float:
    dx, dy = s.x2 - s.x1, s.y2 - s.y1
    t = max(0.0, min(1.0, ((x - s.x1) * dx + (y - s.y1) * dy) / (dx * dx + dy * dy)))
    return math.hypot(x - (s.x1 + t * dx), y - (s.y1 + t * dy))


def segment_box_distance(s: Segment, x0: float, y0: float, x1: float, y1: float) -> float:
    """Euclidean distance between ``s`` and the closed box [x0, x1] x [y0, y1]."""
    if s.x1 == s.x2 or s.y1 == s.y2:  # axis-parallel: the gap per axis, combined
        sx0, sy0, sx1, sy1 = s.bounds()
        return math.hypot(max(x0 - sx1, 0.0, sx0 - x1), max(y0 - sy1, 0.0, sy0 - y1))
    if _clip(s, x0, y0, x1, y1) is not None:
        return 0.0
    ends = (math.hypot(max(x0 - x, 0.0, x - x1), max(y0 - y, 0.0, y - y1))
            for x, y in ((s.x1, s.y1), (s.x2, s.y2)))
    corners = (_point_segment_distance(x, y, s) for x in (x0, x1) for y in (y0, y1))
    return min(*ends, *corners)


def intrudes(s: Segment, node: NodeBox) -> bool:
    """Whether ``s`` passes through the node's interior: its true outline (rect, diamond
    circle or ellipse) shrunk by :data:`INTERIOR_MARGIN`."""
    m = INTERIOR_MARGIN
    cx, cy = node.x + node.width / 2, node.y + node.height / 2
    if node.shape is Shape.CIRCLE:
        r = min(node.width, node.height) / 2 - m
        return r > 0 and _point_segment_distance(cx, cy, s) < r
    if node.shape is Shape.ELLIPSE:
        hw, hh = node.width / 2 - m, node.height / 2 - m
        if hw <= 0 or hh <= 0:
            return False
        unit = Segment((s.x1 - cx) / hw, (s.y1 - cy) / hh, (s.x2 - cx) / hw, (s.y2 - cy) / hh,
                       s.edge, s.source, s.target)
        return _point_segment_distance(0.0, 0.0, unit) < 1
    if node.shape is Shape.DIAMOND:
        hw, hh = node.width / 2, node.height / 2
        return _min_diamond_level(s, cx, cy, hw, hh) < 1 - m * math.hypot(1 / hw, 1 / hh)
    x0, y0, x1, y1 = node.x + m, node.y + m, node.x + node.width - m, node.y + node.height - m
    if x0 >= x1 or y0 >= y1:
        return False
    span = _clip(s, x0, y0, x1, y1)
    return span is not None and (span[1] - span[0]) * s.length > 1e-9


def _min_diamond_level(s: Segment, cx: float, cy: float, hw: float, hh: float) -> float:
    """Minimum of |x - cx|/hw + |y - cy|/hh along ``s`` (convex and piecewise linear,
    so the minimum is at an end or where x = cx or y = cy)."""
    dx, dy = s.x2 - s.x1, s.y2 - s.y1
    ts = [0.0, 1.0]
    if dx:
        ts.append((cx - s.x1) / dx)
    if dy:
        ts.append((cy - s.y1) / dy)
    return min(abs(s.x1 + t * dx - cx) / hw + abs(s.y1 + t * dy - cy) / hh
               for t in ts if 0.0 <= t <= 1.0)
