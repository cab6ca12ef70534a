"""Sub-step 6 of routing: turn slots, legs and tracks into orthogonal polylines.

An edge's polyline starts on its source slot point, drops (or, in a corridor, climbs) to
the track of each leg, runs along it and continues from the leg's end; it ends on its
target slot point. Consecutive points share an x or a y, so every segment is vertical or
horizontal by construction. Self-loops leave their right-face slot, run out, down and
back into the second slot.

>>> from layouts.result import Point
>>> orthogonal_path(Point(10, 40), [(10.0, 30.0, 70.0)], Point(30, 100))
(Point(x=10, y=40), Point(x=10.0, y=70.0), Point(x=30.0, y=70.0), Point(x=30, y=100))
"""

from __future__ import annotations

from collections.abc import Sequence

from layouts.result import Point


def orthogonal_path(start: Point, legs: Sequence[tuple[float, float, float]],
                    end: Point) -> tuple[Point, ...]:
    """Points from ``start`` through each ``(x_from, x_to, y)`` leg to ``end``, as
    :func:`simplify` leaves them (simplified as plain pairs, so only the points kept
    are built)."""
    xy = [(start.x, start.y)]
    for x_from, x_to, y in legs:
        xy.append((x_from, y))
        xy.append((x_to, y))
    xy.append((end.x, end.y))
    out: list[tuple[float, float]] = []
    for p in xy:
        if out and out[-1] == p:
            continue
        if len(out) >= 2:
            (ax, ay), (bx, by) = out[-2], out[-1]
            if (ax == bx == p[0]) or (ay == by == p[1]):
                out[-1] = p
                continue
        out.append(p)
    return tuple(Point(x, y) for x, y in out)


def simplify(points: Sequence[Point]) -> tuple[Point, ...]:
    """Drop repeated points and the middle one of three collinear points.

    >>> simplify([Point(0, 0), Point(0, 5), Point(0, 9), Point(0, 9), Point(4, 9)])
    (Point(x=0, y=0), Point(x=0, y=9), Point(x=4, y=9))
    """
    out: list[Point] = []
    for p in points:
        if out and out[-1] == p:
            continue
        if len(out) >= 2:
            a, b = out[-2], out[-1]
            if (a.x == b.x == p.x) or (a.y == b.y == p.y):
                out[-1] = p
                continue
        out.append(p)
    return tuple(out)


def self_loop_path(source: Point, target: Point, reach: float) -> tuple[Point, ...]:
    """A loop out of the right face: right to x ``reach``, down, back left.

    >>> self_loop_path(Point(100, 10), Point(100, 30), 112.0)
    (Point(x=100, y=10), Point(x=112.0, y=10), Point(x=112.0, y=30), Point(x=100, y=30))
    """
    return (source, Point(reach, source.y), Point(reach, target.y), target)
