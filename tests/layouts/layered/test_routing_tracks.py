"""Track assignment on dense channels: the fast Eades-Lin-Smyth ordering, the interval
stacking, the forced arcs of the budget path, and the segment index of the repairs, each
against a plain reference written here from the definitions (not from the code)."""

from __future__ import annotations

import random

import pytest

from layouts.layered.model import Deadline
from layouts.layered.routing.feedback import greedy_order
from layouts.layered.routing.interval_max import IntervalStack
from layouts.layered.routing.repair import crossings, indexed_crossings
from layouts.layered.routing.segment_index import SegmentIndex, polyline_segments
from layouts.layered.routing.tracks import FORBIDDEN, ChannelRun, assign_tracks, forced_arcs
from layouts.quality_geometry import segment_relation
from layouts.result import EdgeRoute, Point


def reference_order(count: int, weights: dict[tuple[int, int], int]) -> list[int]:
    """Eades, Lin and Smyth (1993) as the paper states it, rescanning everything per step:
    all sinks to the back (reverse index order), then all sources to the front (index
    order); when neither exists, the node of largest out-weight minus in-weight (lowest
    index on ties) to the front."""
    remaining = set(range(count))
    arcs = dict(weights)
    left: list[int] = []
    right: list[int] = []
    while remaining:
        sinks = sorted(v for v in remaining if not any(a == v for a, _ in arcs))
        for v in reversed(sinks):
            right.append(v)
            remaining.discard(v)
            arcs = {k: w for k, w in arcs.items() if v not in k}
        sources = sorted(v for v in remaining if not any(b == v for _, b in arcs))
        for v in sources:
            left.append(v)
            remaining.discard(v)
            arcs = {k: w for k, w in arcs.items() if v not in k}
        if remaining and not sinks and not sources:
            balance = {v: sum(w for (a, _), w in arcs.items() if a == v)
                       - sum(w for (_, b), w in arcs.items() if b == v) for v in remaining}
            best = min(remaining, key=lambda v: (-balance[v], v))
            left.append(best)
            remaining.discard(best)
            arcs = {k: w for k, w in arcs.items() if best not in k}
    return left + right[::-1]


def test_greedy_order_on_a_weighted_triangle_by_hand() -> None:
    # Cycle 0->1 (3), 1->2 (1), 2->0 (1): no sink, no source. Balances: 0: 3 - 1 = 2,
    # 1: 1 - 3 = -2, 2: 1 - 1 = 0, so 0 goes first; then 1 is a source, 2 a sink.
    assert greedy_order(3, {(0, 1): 3, (1, 2): 1, (2, 0): 1}) == [0, 1, 2]
    # Reweighted so 2 has the best balance (2->0 weighs 5: 5 - 1 = 4): 2 first, then 0, 1.
    assert greedy_order(3, {(0, 1): 1, (1, 2): 1, (2, 0): 5}) == [2, 0, 1]


@pytest.mark.parametrize("seed", range(30))
def test_greedy_order_matches_the_reference_on_random_digraphs(seed: int) -> None:
    rng = random.Random(seed)
    count = rng.randint(1, 25)
    weights: dict[tuple[int, int], int] = {}
    for _ in range(rng.randint(0, 3 * count)):
        a, b = rng.randrange(count), rng.randrange(count)
        if a != b and (b, a) not in weights:
            weights[(a, b)] = rng.choice([0, 1, 1, 2, 3, FORBIDDEN])
    assert greedy_order(count, weights) == reference_order(count, weights)


@pytest.mark.parametrize("seed", range(20))
def test_interval_stack_matches_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    intervals = []
    for _ in range(rng.randint(1, 40)):
        low = float(rng.randint(0, 50))
        intervals.append((low, low + rng.randint(1, 20)))
    stack = IntervalStack([x for pair in intervals for x in pair])
    placed: list[tuple[float, float, int]] = []
    for low, high in intervals:
        expected = 1 + max((level for a, b, level in placed if a < high and low < b),
                           default=-1)
        assert stack.place(low, high) == expected
        placed.append((low, high, expected))


def test_forced_arcs_find_coincident_verticals_across_pixel_cells() -> None:
    # a's down-vertical at 9.8 and b's up-vertical at 10.2 are 0.4 apart (<= 0.5): they
    # would overlap with a above b, so b must go above a, though they sit in different
    # whole-pixel cells (9 and 10). c's up at 30.6 is 0.8 from a's... nothing: no arc.
    a = ChannelRun(0, 1, 0.0, 9.8, (0.0,), (9.8,))
    b = ChannelRun(1, 1, 10.2, 40.0, (10.2,), (40.0,))
    c = ChannelRun(2, 1, 30.6, 60.0, (30.6,), (60.0,))
    # a dogleg: run 4 continues run 3 and must lie below it
    d1 = ChannelRun(3, 1, 100.0, 120.0, (100.0,), ())
    d2 = ChannelRun(4, 1, 120.0, 140.0, (), (140.0,), follows=3)
    assert forced_arcs([a, b, c, d1, d2]) == {(1, 0): FORBIDDEN, (3, 4): FORBIDDEN}


def test_tracks_after_the_deadline_keep_the_forced_order_and_separate_conflicts() -> None:
    expired = Deadline(0.0)
    assert expired.expired()
    # key order would put a first (track 0); the forced arc puts b above a instead.
    a = ChannelRun(0, 1, 0.0, 100.0, (0.0,), (100.0,))
    b = ChannelRun(1, 1, 100.0, 150.0, (100.0,), (150.0,))
    far = ChannelRun(2, 1, 400.0, 500.0, (400.0,), (500.0,))   # 250 px from b: no conflict
    tracks, counts = assign_tracks([a, b, far], spacing=12, deadline=expired)
    assert tracks[1] < tracks[0]
    assert tracks[2] == 0
    assert counts == {1: 2}


def test_a_staircase_of_short_jogs_stacks_without_crossings() -> None:
    # Three parallel edges jog right by about 4 px in one channel (b94.dot: 46 parallel
    # labelled edges). In each overlapping pair the right leg's up-vertical lies inside
    # the left leg's range and the left leg's down-vertical inside the right one's: with
    # the left leg above, both cross (2 crossings); with the right leg above, neither.
    # So c above b above a, no crossing. a and c do not overlap (46.3 < 49.7) but lie
    # within 12 px, so they need different tracks, and either order crosses nothing: read
    # as "a above c", that tie closed the cycle a-c-b-a, and the feedback ordering broke
    # a real arc.
    a = ChannelRun(0, 1, 42.1, 46.3, (42.1,), (46.3,))
    b = ChannelRun(1, 1, 45.9, 50.5, (45.9,), (50.5,))
    c = ChannelRun(2, 1, 49.7, 54.8, (49.7,), (54.8,))
    tracks, counts = assign_tracks([a, b, c], spacing=12)
    assert tracks[2] < tracks[1] < tracks[0]
    assert counts == {1: 3}


def brute_crossings(points: tuple[Point, ...], others: list[tuple[Point, ...]]
                    ) -> tuple[int, int]:
    relations = [segment_relation(s, t) for other in others
                 for t in polyline_segments(other) for s in polyline_segments(points)]
    return relations.count("cross"), relations.count("shared")


def random_polyline(rng: random.Random) -> tuple[Point, ...]:
    points = [Point(float(rng.randint(0, 30) * 10), float(rng.randint(0, 30) * 10))]
    for step in range(rng.randint(1, 5)):
        last = points[-1]
        move = float(rng.randint(-10, 10) * 10)
        points.append(Point(last.x + move, last.y) if step % 2 else Point(last.x, last.y + move))
    return tuple(points)


@pytest.mark.parametrize("seed", range(10))
def test_indexed_crossings_match_brute_force_and_follow_replacements(seed: int) -> None:
    rng = random.Random(seed)
    routes = [random_polyline(rng) for _ in range(30)]
    index = SegmentIndex.of_routes(routes)
    for key in range(0, 30, 3):
        others = routes[:key] + routes[key + 1:]
        assert indexed_crossings(routes[key], index, key) == brute_crossings(routes[key], others)
        routes[key] = random_polyline(rng)        # a repair changed this route
        index.replace(key, routes[key])
    probe = random_polyline(rng)
    edge_routes = [EdgeRoute(f"e{i}", "a", "b", r) for i, r in enumerate(routes)]
    assert indexed_crossings(probe, index, None) == brute_crossings(probe, routes)
    assert crossings(probe, edge_routes) == brute_crossings(probe, routes)


def test_segment_index_finds_a_touching_collinear_stretch() -> None:
    # two horizontal pieces on y = 50 sharing 20..40 (a shared stretch), filed in cells of 10
    index = SegmentIndex.of_routes([(Point(0, 50), Point(40, 50))], cell=10.0)
    assert indexed_crossings((Point(20, 50), Point(90, 50)), index, None) == (0, 1)
    assert indexed_crossings((Point(20, 50), Point(90, 50)), index, 0) == (0, 0)
