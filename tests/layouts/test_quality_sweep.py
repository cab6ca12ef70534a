"""The sweep that counts drawn crossings without a grid (:func:`swept_crossings`, what
``best``'s drawn check uses): hand-counted cases, and the same count as the grid's
:func:`crossings_of` (an independent way of finding the pairs) on random segments."""

from __future__ import annotations

import random

import pytest

from layouts.quality_geometry import Segment, route_segments
from layouts.quality_grid import Grid, crossings_of, swept_crossings
from layouts.result import Point


def route(edge: int, *points: tuple[float, float]) -> list[Segment]:
    return route_segments([Point(x, y) for x, y in points], edge, f"s{edge}", f"t{edge}")


@pytest.mark.parametrize(("routes", "expected"), [
    # a plus sign: one crossing, interior to both
    ([route(0, (0, 5), (10, 5)), route(1, (5, 0), (5, 10))], 1),
    # a T: the vertical ends on the horizontal, it touches and does not cross
    ([route(0, (0, 5), (10, 5)), route(1, (5, 0), (5, 5))], 0),
    # collinear overlap (shared run): not a crossing
    ([route(0, (0, 5), (10, 5)), route(1, (4, 5), (20, 5))], 0),
    # one route crossing itself is not counted (pairs of different edges only)
    ([route(0, (0, 5), (10, 5), (10, 10), (5, 10), (5, 0))], 0),
    # corners touching (bounds meet at one point only): no crossing
    ([route(0, (0, 0), (10, 0)), route(1, (10, 0), (10, 10))], 0),
    # through a vertex: route 1 turns on route 0's line at x = 5 and passes from
    # above (y = 0) to below (y = 10): one crossing, at no segment's interior
    ([route(0, (0, 5), (10, 5)), route(1, (5, 0), (5, 5), (8, 10))], 1),
    # the same vertex but the route goes back up: it touches, no crossing
    ([route(0, (0, 5), (10, 5)), route(1, (5, 0), (5, 5), (8, 0))], 0),
    # running along route 0 for a while and leaving on the side it came from: none
    ([route(0, (0, 5), (10, 5)), route(1, (2, 0), (2, 5), (5, 5), (5, 0))], 0),
    # a ladder: two verticals each crossing three horizontals = 6
    ([route(0, (3, 0), (3, 30)), route(1, (7, 0), (7, 30)),
      *[route(2 + k, (0, 5 + 10 * k), (10, 5 + 10 * k)) for k in range(3)]], 2 * 3),
    # far apart along x (the sweep stops before them): nothing
    ([route(0, (0, 5), (10, 5)), route(1, (50, 0), (50, 10))], 0),
])
def test_hand_counted(routes: list[list[Segment]], expected: int) -> None:
    segments = [s for mine in routes for s in mine]
    assert swept_crossings(segments) == expected
    assert crossings_of(segments, Grid.for_items((), segments)) == expected


def random_routes(seed: int, count: int, orthogonal: bool) -> list[Segment]:
    """``count`` random polylines on a coarse lattice (so ends, collinear runs and
    vertices on other routes are common), orthogonal or with slanted steps."""
    rng = random.Random(seed)
    segments: list[Segment] = []
    for edge in range(count):
        x, y = rng.randrange(0, 100, 10), rng.randrange(0, 100, 10)
        points = [(x, y)]
        for _ in range(rng.randint(1, 5)):
            if orthogonal and rng.random() < 0.5:
                x = rng.randrange(0, 100, 10)
            elif orthogonal:
                y = rng.randrange(0, 100, 10)
            else:
                x, y = rng.randrange(0, 100, 10), rng.randrange(0, 100, 10)
            points.append((x, y))
        segments += route(edge, *points)
    return segments


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("orthogonal", [True, False])
def test_same_count_as_the_grid(seed: int, orthogonal: bool) -> None:
    segments = random_routes(seed, 25, orthogonal)
    grid = crossings_of(segments, Grid.for_items((), segments))
    assert swept_crossings(segments) == grid
    assert grid > 0 or seed % 2    # most cases must have crossings to compare


def test_no_segments() -> None:
    assert swept_crossings([]) == 0
