"""The drawing's polylines: :func:`orthogonal_path` simplifies plain coordinate pairs
before it builds points, and must keep exactly the points :func:`simplify` keeps of the
full polyline (repeats dropped, middle points of straight runs dropped)."""

from __future__ import annotations

import random

from layouts.layered.routing.polylines import orthogonal_path, simplify
from layouts.result import Point


def test_orthogonal_path_keeps_what_simplify_keeps() -> None:
    rng = random.Random(3)
    values = [0.0, 10.0, 10.0, 25.5, 40.0, -0.0]
    for _ in range(2000):
        start = Point(rng.choice(values), 0.0)
        legs = [(rng.choice(values), rng.choice(values), rng.choice([20.0, 20.0, 35.0]))
                for _ in range(rng.randrange(0, 4))]
        end = Point(rng.choice(values), 60.0)
        full = [start, *(p for x0, x1, y in legs for p in (Point(x0, y), Point(x1, y))), end]
        assert orthogonal_path(start, legs, end) == simplify(full)


def test_a_straight_drop_through_a_leg_of_no_length_is_two_points() -> None:
    # (10, 0) -> (10, 20) -> (10, 20) -> (10, 60): one vertical, repeats and middles gone
    assert orthogonal_path(Point(10, 0), [(10.0, 10.0, 20.0)], Point(10, 60)) == (
        Point(10, 0), Point(10, 60))
