"""The per-pass check of compaction (:mod:`layouts.layered.compaction.verify`): it fails
on a moved unit that overlaps, crosses or comes too near another, or a label that moved
away from its own edge, and on the corpus it agrees with the whole-drawing check.
Spacings are the defaults (node 40, layer 60, edge 12, clearance 12)."""

from __future__ import annotations

import random
from bisect import bisect_left
from pathlib import Path

import pytest

from layouts.graph import Graph, Node
from layouts.layered import compaction
from layouts.layered.compaction import Attempt, Compacted, attempt_compaction, solve
from layouts.layered.compaction.constraints import Spacing, apart
from layouts.layered.compaction.scene import Kind, Scene
from layouts.layered.compaction.verify import kept_order, labels_kept, line_neighbours
from layouts.layered.model import Deadline, Routing
from layouts.layered.pipeline import run_layout
from layouts.options import LayoutOptions
from layouts.result import NodeBox
from renderer.from_definition import diagram_from_definition
from renderer.readers import read_diagram_file
from workflow.generate import generate_definition

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
SPACING = Spacing(node=40, mixed=26, run=12, label=12)


def _two_nodes_and_a_run() -> Scene:
    # node 0 at x 0..100, a run at x 150, node 2 at x 300..400, all on the lines y 0..40
    scene = Scene()
    scene.add(Kind.NODE, 0, 100, 0, 40)
    scene.add(Kind.RUN, 150, 150, 0, 40, owner=0)
    scene.add(Kind.NODE, 300, 400, 0, 40)
    return scene


def test_a_pass_that_closes_gaps_to_their_spacing_passes() -> None:
    # run to 100 + 26 (mixed), node 2 to 126 + 26: every gap down to its spacing
    assert kept_order(_two_nodes_and_a_run(), [0.0, -24.0, -148.0], SPACING)


def test_a_moved_unit_that_now_overlaps_fails() -> None:
    # node 2 moved onto node 0 (x 0..100 both): an overlap the drawing did not have
    assert not kept_order(_two_nodes_and_a_run(), [0.0, 0.0, -300.0], SPACING)


def test_a_unit_moved_across_another_fails_even_with_room_beside_it() -> None:
    # the run jumps from right of node 0 to its left (x -50): 50 px from it, but on the
    # other side, so a segment ending there now crosses the node
    assert not kept_order(_two_nodes_and_a_run(), [0.0, -200.0, 0.0], SPACING)


def test_a_gap_closed_below_its_spacing_fails_and_one_already_below_may_stay() -> None:
    # run 20 px from node 0 (mixed spacing 26) fails; a scene where it was 20 px away
    # before may keep those 20 px but not close further
    assert not kept_order(_two_nodes_and_a_run(), [0.0, -30.0, 0.0], SPACING)
    near = Scene()
    near.add(Kind.NODE, 0, 100, 0, 40)
    near.add(Kind.RUN, 120, 120, 0, 40, owner=0)
    assert kept_order(near, [0.0, 0.0], SPACING)
    assert not kept_order(near, [0.0, -1.0], SPACING)


def test_elements_on_no_common_line_are_free() -> None:
    # the second node is below the first (lines 100..140): it may slide under it
    scene = Scene()
    scene.add(Kind.NODE, 0, 100, 0, 40)
    scene.add(Kind.NODE, 300, 400, 100, 140)
    assert kept_order(scene, [0.0, -300.0], SPACING)


def test_runs_closer_across_the_axis_than_the_contract_tolerance_share_a_line() -> None:
    # two point runs of two routes 0.33 px apart across the axis (under the contracts'
    # 0.5 px): sliding one onto the other would make one shared stretch of line, so they
    # are neighbours and the slide fails; 1 px apart they are free as before
    for across, free in ((100.33, False), (101.0, True)):
        scene = Scene()
        scene.add(Kind.RUN, 0, 0, 100, 100, owner=0)
        scene.add(Kind.RUN, 50, 50, across, across, owner=1)
        assert ((0, 1) in line_neighbours(scene)) is not free
        assert kept_order(scene, [0.0, -50.0], SPACING) is free


def test_a_label_that_moved_away_from_its_own_route_fails() -> None:
    # label 10..30 x 50..60 beside the vertical route x = 0 (10 px away); moved to 20 px
    scene = Scene()
    scene.add(Kind.RUN, 0, 0, 0, 100, owner=0)
    label = scene.add(Kind.LABEL, 10, 30, 40, 70, owner=0, reach=10.0)
    scene.label_of.append(label)
    points = [[[0.0, 0.0], [0.0, 100.0]]]
    assert labels_kept(scene, points, [[10.0, 50.0, 20.0, 10.0]], 0)
    assert not labels_kept(scene, points, [[20.0, 50.0, 20.0, 10.0]], 0)


def test_a_wrong_shift_is_caught_and_the_whole_check_undoes_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # two unconnected nodes of one layer, 200 apart; a solver that pushes b onto a in the
    # x pass: the pass check fails, the whole check names the overlap, the step undoes it
    graph = Graph((Node("a", 100, 40), Node("b", 100, 40)), ())
    routing = Routing((NodeBox("a", 0, 0, 100, 40), NodeBox("b", 300, 0, 100, 40)), (),
                      400, 40)
    real = solve.pulled
    calls: list[int] = []

    def wrong(order, shift, arcs, bounds, pulls, rounds):  # type: ignore[no-untyped-def]
        calls.append(1)
        out = real(order, shift, arcs, bounds, pulls, rounds)
        return {u: -300.0 if u == 1 else s for u, s in out.items()} \
            if len(calls) % 2 else out                      # every x pass goes wrong

    monkeypatch.setattr(compaction, "pulled", wrong)
    attempt = attempt_compaction(routing, LayoutOptions())
    assert attempt is not None and not attempt.verified
    out = compaction.run(routing, graph, LayoutOptions(), Deadline(5))
    assert out == Compacted(routing, "compaction undone: it broke node-overlap")


def test_an_unverified_compaction_the_whole_check_accepts_is_kept(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the pass check is stricter than the contracts: when it fails, the whole check
    # decides, and a drawing that keeps every contract is kept
    graph = Graph((Node("a", 100, 40), Node("b", 100, 40)), ())
    routing = Routing((NodeBox("a", 0, 0, 100, 40), NodeBox("b", 300, 0, 100, 40)), (),
                      400, 40)
    fine = Routing((NodeBox("a", 0, 0, 100, 40), NodeBox("b", 120, 0, 100, 40)), (),
                   220, 40)
    monkeypatch.setattr(compaction, "attempt_compaction", lambda r, o: Attempt(fine, False))
    assert compaction.run(routing, graph, LayoutOptions(), Deadline(5)) == Compacted(fine)


def _corpus() -> list[tuple[str, Graph]]:
    graphs = [(p.stem, read_diagram_file(p).graph) for p in sorted(FIXTURES.glob("*.yaml"))]
    graphs += [(f"generated-{n}-{seed}",
                diagram_from_definition(generate_definition(n, seed)).graph)
               for n, seed in ((25, 1), (40, 5), (60, 2), (120, 3))]
    return graphs


@pytest.mark.parametrize(("name", "graph"), _corpus(), ids=[n for n, _ in _corpus()])
def test_on_the_corpus_the_pass_check_agrees_with_the_whole_check(
        name: str, graph: Graph, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[Attempt, Compacted]] = []
    real = compaction.run

    def spy(r: Routing, g: Graph, o: LayoutOptions, d: Deadline) -> Compacted:
        attempt = attempt_compaction(r, o)
        assert attempt is not None
        seen.append((attempt, compaction._checked(r, attempt.routing, g, o)))
        return real(r, g, o, d)

    monkeypatch.setattr(compaction, "run", spy)
    run_layout(graph, LayoutOptions())
    assert seen
    for attempt, whole in seen:
        assert attempt.verified
        assert whole == Compacted(attempt.routing)       # the whole check finds nothing


def test_out_of_time_a_checked_compaction_is_kept_and_an_unchecked_one_skipped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the pass check costs no more time once the passes are done; the whole check does
    graph = Graph((Node("a", 100, 40), Node("b", 100, 40)), ())
    routing = Routing((NodeBox("a", 0, 0, 100, 40), NodeBox("b", 300, 0, 100, 40)), (),
                      400, 40)
    spent = Deadline(0)
    kept = compaction.run(routing, graph, LayoutOptions(), spent)
    assert kept.note is None and [n.x for n in kept.routing.nodes] == [0, 140]
    monkeypatch.setattr(compaction, "attempt_compaction",
                        lambda r, o: Attempt(kept.routing, False))
    assert compaction.run(routing, graph, LayoutOptions(), spent) == \
        Compacted(routing, "compaction skipped: no time left to check it")


def _rescanned(scene: Scene, shift: list[float], spacing: Spacing) -> bool:
    """The pass check by its definition: a fresh scan of the moved drawing, every pair
    of neighbours on every line checked (what :func:`kept_order` must agree with)."""
    table = spacing.table()
    units = scene.units()
    moved = [(lo + d, hi + d, i)
             for i, (lo, hi, d) in enumerate(zip(scene.low, scene.high, shift, strict=True))]
    active: list[tuple[float, float, int]] = []

    def holds(p: int, q: int) -> bool:
        if units[p] == units[q]:
            return True
        before = scene.low[q] - scene.high[p]
        now = moved[q][0] - moved[p][1]
        if before < -1e-6:
            return scene.low[p] - scene.high[q] <= 1e-6 and now >= before - 1e-6
        return now >= before - 1e-6 or now >= min(before, apart(scene, table, p, q)) - 1e-6

    for _, removal, i in scene.events():
        p = bisect_left(active, moved[i])
        if removal:
            del active[p]
            if 0 < p < len(active) and not holds(active[p - 1][2], active[p][2]):
                return False
            continue
        active.insert(p, moved[i])
        if (p > 0 and not holds(active[p - 1][2], i)) or \
                (p + 1 < len(active) and not holds(i, active[p + 1][2])):
            return False
    return True


@pytest.mark.parametrize(("name", "graph"), _corpus(), ids=[n for n, _ in _corpus()])
def test_on_the_corpus_the_recorded_neighbours_check_agrees_with_a_fresh_scan(
        name: str, graph: Graph, monkeypatch: pytest.MonkeyPatch) -> None:
    # the pass checks the pairs the constraint scan recorded: they must be the pairs of
    # neighbours of a scan of the unmoved drawing, and the check must give what a fresh
    # scan of the moved drawing gives, for the solver's shifts and for shifts gone wrong
    seen: list[tuple[Scene, list[float], Spacing, list[tuple[int, int]]]] = []
    real = compaction.kept_order

    def spy(scene: Scene, shift: list[float], spacing: Spacing,
            neighbours: list[tuple[int, int]]) -> bool:
        seen.append((scene, list(shift), spacing, list(neighbours)))
        return real(scene, shift, spacing, neighbours)

    monkeypatch.setattr(compaction, "kept_order", spy)
    run_layout(graph, LayoutOptions())
    assert seen
    rng = random.Random(7)
    verdicts = []
    for scene, shift, spacing, neighbours in seen:
        assert sorted(neighbours) == sorted(line_neighbours(scene))
        assert len(set(neighbours)) == len(neighbours)
        units = scene.units()
        tries = [shift]
        for _ in range(20):
            wrong = list(shift)
            unit = units[rng.randrange(len(units))]
            by = rng.choice((-200.0, -30.0, -5.0, 5.0, 30.0, 200.0))
            tries.append([s + by if u == unit else s for s, u in zip(wrong, units,
                                                                        strict=True)])
        for tried in tries:
            verdict = kept_order(scene, tried, spacing, neighbours)
            assert verdict == _rescanned(scene, tried, spacing)
            assert verdict == kept_order(scene, tried, spacing)
            verdicts.append(verdict)
    assert True in verdicts and False in verdicts
