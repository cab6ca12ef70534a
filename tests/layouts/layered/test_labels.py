"""Label rows: labels keep their x next to their edge and take the first free row."""

from __future__ import annotations

import random
from itertools import combinations, pairwise
from pathlib import Path

import pytest

from layouts.graph import Graph
from layouts.layered.contracts import check_labels_nearest
from layouts.layered.labels import LabelRequest, LabelRows, arrange_labels, label_box
from layouts.layered.pipeline import run_layout
from layouts.mirror import BASE_DIRECTIONS
from layouts.options import Direction, Effort, LayoutOptions
from layouts.quality_geometry import Segment, segment_box_distance
from layouts.result import Box, Diagnostics, EdgeRoute, LayoutResult, Point
from renderer import corpus


def boxes_overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]
                  ) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def test_labels_far_apart_share_the_first_row() -> None:
    rows = arrange_labels([LabelRequest(0, 1, 0, 40, 10), LabelRequest(1, 1, 100, 40, 10)],
                          gap=4)
    # 0 + 40 + 4 <= 100: same row, 4 px below the channel top; channel needs 4 + 10 + 4
    assert rows == LabelRows({0: 4.0, 1: 4.0}, {1: 18.0})


def test_overlapping_labels_stack_and_reuse_freed_rows() -> None:
    reqs = [LabelRequest(0, 2, 0, 50, 10), LabelRequest(1, 2, 20, 50, 10),
            LabelRequest(2, 2, 60, 50, 10)]
    rows = arrange_labels(reqs, gap=4)
    # 20 < 0 + 50 + 4: row 2 (y 4 + 14 = 18); 60 >= 54: back to row 1 (y 4)
    assert rows.offsets == {0: 4.0, 1: 18.0, 2: 4.0}
    assert rows.heights == {2: 4 + 2 * (10 + 4)}


def test_channels_are_arranged_independently() -> None:
    rows = arrange_labels([LabelRequest(0, 1, 0, 50, 10), LabelRequest(1, 3, 0, 50, 12)],
                          gap=4)
    assert rows.offsets == {0: 4.0, 1: 4.0}
    assert rows.heights == {1: 18.0, 3: 20.0}


def test_placed_label_boxes_never_overlap() -> None:
    reqs = [LabelRequest(k, 1, x, 45, 12) for k, x in enumerate([0, 10, 20, 30, 55, 70, 200])]
    rows = arrange_labels(reqs)
    placed = [label_box(r, 100.0, rows) for r in reqs]
    for a, b in combinations(placed, 2):
        assert not boxes_overlap((a.x, a.y, a.width, a.height), (b.x, b.y, b.width, b.height))
    assert all(box.x == r.x for box, r in zip(placed, reqs, strict=True))
    assert min(box.y for box in placed) == 100 + 4


def first_fit_rows(requests: list[LabelRequest], gap: float) -> dict[int, int]:
    """First fit by hand: in x order (key on ties), each label takes the lowest row whose
    last label ends at least ``gap`` before it, else a new row."""
    ends: list[float] = []
    rows: dict[int, int] = {}
    for r in sorted(requests, key=lambda r: (r.x, r.key)):
        row = next((k for k, end in enumerate(ends) if end + gap <= r.x), len(ends))
        if row == len(ends):
            ends.append(r.x + r.width)
        else:
            ends[row] = r.x + r.width
        rows[r.key] = row
    return rows


def test_many_labels_take_the_same_rows_as_plain_first_fit() -> None:
    rng = random.Random(7)
    for count, spread in ((300, 20.0), (300, 3000.0), (50, 200.0)):
        reqs = [LabelRequest(i, 1, round(rng.uniform(0, spread), 1), rng.choice([10, 30, 80]),
                             12) for i in range(count)]
        rows = arrange_labels(reqs, gap=4)
        expected = first_fit_rows(reqs, 4)
        assert rows.offsets == {k: 4.0 + row * (12 + 4) for k, row in expected.items()}
        assert rows.heights == {1: 4 + (max(expected.values()) + 1) * (12 + 4)}


def route_box_distance(points: tuple[Point, ...], box: Box) -> float:
    return min(segment_box_distance(Segment(a.x, a.y, b.x, b.y, 0, "", ""), box.x, box.y,
                                    box.right, box.bottom)
               for a, b in pairwise(points))


def misplaced_labels(result: LayoutResult) -> list[str]:
    """Labelled edges whose label box is not strictly nearer to their own route than to
    every other route: a reader would take the label for the other edge's."""
    wrong = []
    for edge in result.edges:
        if edge.label_box is None:
            continue
        own = route_box_distance(edge.points, edge.label_box)
        nearest = min((route_box_distance(other.points, edge.label_box), other.id)
                      for other in result.edges if other.id != edge.id)
        if nearest[0] <= own:
            wrong.append(f"{edge.id}: own route {own:.1f} px, '{nearest[1]}' {nearest[0]:.1f} px")
    return wrong


FIXTURE_GRAPHS = [(path.stem, corpus.file_graph(path)) for path in corpus.fixture_paths()]
LABEL_GRAPHS = [(path.stem, corpus.file_graph(path))
                for path in sorted((Path(__file__).parent / "label_graphs").glob("*.gv"))]
"""Small labelled graphs in the shapes that put labels astray in real graphs
(``label_graphs/README.md`` beside this module)."""
SIZES, SEEDS = (20, 60, 150, 200), (1, 2, 3, 4, 5)
EFFORTS = list(Effort)


KNOWN_ASTRAY: dict[tuple[int, int, Direction], str] = {}
"""Drawings where a label is known to sit on another edge (a defect of label placement,
not of the check): strict expected failures, so a fix shows up. Generated-200 seed 3
(TopToBottom), whose middle guard label of ``decide-100`` crossed a neighbour's branch, was
one until alignment priority straightened that gateway's fan."""


KNOWN_ASTRAY_LABELLED: dict[tuple[str, Direction, Effort], str] = {}
"""Labelled graphs where a label is known to sit nearer another route than its own:
strict expected failures, so a fix shows up. ``long-hub`` (TopToBottom, draft and
balanced) and ``parallel`` (LeftToRight, every effort) were, their labelled edges of
one layer leaving crowded faces, until those edges got label ranks
(:mod:`layouts.layered.label_ranks`)."""


def _generated(n: int, seed: int, direction: Direction, request: pytest.FixtureRequest
               ) -> Graph:
    reason = KNOWN_ASTRAY.get((n, seed, direction))
    if reason is not None:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))
    return corpus.generated_graph(n, seed)


def assert_labels_on_their_own_edges(graph: Graph, options: LayoutOptions) -> None:
    """The brute-force reading above and the defect model's ``label-astray`` check both
    find no label nearer another route than its own."""
    result = run_layout(graph, options)
    assert misplaced_labels(result) == []
    assert check_labels_nearest(result.edges) == []


@pytest.mark.parametrize("effort", EFFORTS)
@pytest.mark.parametrize("direction", BASE_DIRECTIONS)  # the provider mirrors the other two
@pytest.mark.parametrize(("name", "graph"), FIXTURE_GRAPHS, ids=[n for n, _ in FIXTURE_GRAPHS])
def test_every_fixture_label_is_nearer_its_own_route_than_any_other(
        name: str, graph: Graph, direction: Direction, effort: Effort) -> None:
    assert_labels_on_their_own_edges(graph, LayoutOptions(direction=direction, effort=effort))


@pytest.mark.parametrize("effort", EFFORTS)
@pytest.mark.parametrize("direction", BASE_DIRECTIONS)
@pytest.mark.parametrize(("name", "graph"), LABEL_GRAPHS, ids=[n for n, _ in LABEL_GRAPHS])
def test_every_label_of_the_real_shaped_graphs_is_nearer_its_own_route(
        name: str, graph: Graph, direction: Direction, effort: Effort,
        request: pytest.FixtureRequest) -> None:
    reason = KNOWN_ASTRAY_LABELLED.get((name, direction, effort))
    if reason is not None:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))
    assert_labels_on_their_own_edges(graph, LayoutOptions(direction=direction, effort=effort))


def test_the_real_shaped_graphs_are_there() -> None:
    assert {name for name, _ in LABEL_GRAPHS} >= {"point-hub", "point-pairs", "long-hub",
                                                 "skip-hub", "state-machine", "parallel"}
    assert all(any(e.label for e in graph.edges) for _, graph in LABEL_GRAPHS)


@pytest.mark.parametrize("direction", BASE_DIRECTIONS)
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", SIZES)
def test_every_generated_label_is_nearer_its_own_route_than_any_other(
        n: int, seed: int, direction: Direction, request: pytest.FixtureRequest) -> None:
    # each size at every effort, the effort turning with the seed (the explicit sweep
    # below runs every combination)
    effort = EFFORTS[seed % len(EFFORTS)]
    assert_labels_on_their_own_edges(_generated(n, seed, direction, request),
                                     LayoutOptions(direction=direction, effort=effort))


@pytest.mark.explicit
@pytest.mark.parametrize("effort", EFFORTS)
@pytest.mark.parametrize("direction", BASE_DIRECTIONS)
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", SIZES)
def test_every_generated_label_at_every_effort(n: int, seed: int, direction: Direction,
                                               effort: Effort,
                                               request: pytest.FixtureRequest) -> None:
    assert_labels_on_their_own_edges(_generated(n, seed, direction, request),
                                     LayoutOptions(direction=direction, effort=effort))


@pytest.mark.parametrize("seed", range(20))
def test_the_indexed_check_finds_what_brute_force_finds(seed: int) -> None:
    # random orthogonal routes on a 5 px lattice, a label beside each third one: the
    # checker (which measures only routes near a label) and the all-pairs reading agree
    rng = random.Random(seed)
    routes = []
    for i in range(30):
        points = [Point(rng.randrange(0, 400, 5), rng.randrange(0, 400, 5))]
        for _ in range(rng.randint(1, 4)):
            last = points[-1]
            points.append(Point(last.x, rng.randrange(0, 400, 5)) if len(points) % 2
                          else Point(rng.randrange(0, 400, 5), last.y))
        box = Box(points[0].x + rng.choice((-30, 3)), points[0].y + rng.choice((-15, 3)),
                  rng.choice((10, 25)), 12) if i % 3 == 0 else None
        routes.append(EdgeRoute(f"e{i}", "s", "t", tuple(points), label_box=box))
    result = LayoutResult((), tuple(routes), 400, 400, Diagnostics("test", "draft", "TopToBottom"))
    expected = {line.split(":")[0] for line in misplaced_labels(result)}
    assert {v.edge for v in check_labels_nearest(routes)} == expected
