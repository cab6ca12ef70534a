"""Loop-back lanes: loop-backs whose corridors beside the drawing would cross each other
go up a lane between the columns instead, and only those.

Expected counts come from the geometry of corridors: two corridors on one side whose
layer ranges interleave (neither holds the other) are interleaved chords, so one's run
into the drawing must cross the other's vertical; nested or disjoint ranges never cross.
Crossings are counted on the final routes by :func:`layouts.quality.measure`, which knows
nothing of lanes.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest

from layouts.graph import Edge, Graph, Node
from layouts.layered import ordering, placement
from layouts.layered.contracts import check_layout
from layouts.layered.layering import chains
from layouts.layered.loopbacks import lane_drawing
from layouts.layered.loopbacks import lanes as lane_step
from layouts.layered.loopbacks.anchors import corridor_anchors
from layouts.layered.pipeline import prepare, run_layout
from layouts.mirror import BASE_DIRECTIONS
from layouts.options import Direction, Effort, LayoutOptions, LoopBackRoute
from layouts.quality import measure
from layouts.result import LayoutResult, Point
from renderer.corpus import generated_graph
from renderer.readers import read_diagram_file

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"


@pytest.fixture(autouse=True)
def short_lanes_at_draft(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read the routing's own coordinates at ``draft`` (no compaction), so
    they run the trial of short lanes there too, which ``draft`` itself skips
    (:data:`~layouts.layered.loopbacks.lanes.SHORT_LANES`; tested in
    tests/layouts/layered/test_lanes_draft.py)."""
    monkeypatch.setitem(lane_step.SHORT_LANES, Effort.DRAFT, True)
OUTSIDE = LoopBackRoute.OUTSIDE


def two_branches(loop_backs: list[tuple[str, str]]) -> Graph:
    """s -> a1..a7 -> t and s -> b1..b7 -> t, plus the given loop-backs (node ids)."""
    names = ["s", "t", *(f"{c}{i}" for c in "ab" for i in range(1, 8))]
    edges = [Edge(f"{c}{i}", f"{c}{i}", f"{c}{i + 1}") for c in "ab" for i in range(1, 7)]
    edges += [Edge(f"s{c}", "s", f"{c}1") for c in "ab"]
    edges += [Edge(f"{c}t", f"{c}7", "t") for c in "ab"]
    edges += [Edge(f"back-{s}-{t}", s, t, loop_back=True) for s, t in loop_backs]
    return Graph(tuple(Node(n, 60, 30) for n in names), tuple(edges))


INTERLEAVED = [("a5", "a1"), ("a6", "a3")]   # layers 1-5 and 3-6 on one branch
NESTED = [("a6", "a1"), ("a5", "a3")]        # layers 1-6 hold 3-5


def lanes_of(graph: Graph, options: LayoutOptions) -> list[str]:
    return [e.id for e in prepare(graph, options).proper.chain_edges if e.lane]


@pytest.mark.parametrize("direction", list(BASE_DIRECTIONS))
@pytest.mark.parametrize("effort", list(Effort))
def test_interleaved_loop_backs_cross_around_the_side_but_not_with_a_lane(
        direction: Direction, effort: Effort) -> None:
    graph = two_branches(INTERLEAVED)
    auto = LayoutOptions(direction=direction, effort=effort)
    outside = LayoutOptions(direction=direction, effort=effort, loop_back_route=OUTSIDE)
    auto_result, outside_result = run_layout(graph, auto), run_layout(graph, outside)
    assert measure(outside_result).crossings >= 1
    assert measure(auto_result).crossings == 0
    assert check_layout(graph, auto_result, auto) == []
    assert check_layout(graph, outside_result, outside) == []
    assert lanes_of(graph, auto) == ["back-a6-a3"]      # one of the pair: the shorter
    assert lanes_of(graph, outside) == []


def test_nested_loop_backs_stay_around_the_side() -> None:
    graph = two_branches(NESTED)
    result = run_layout(graph, LayoutOptions())
    assert lanes_of(graph, LayoutOptions()) == []
    assert measure(result).crossings == 0
    left = min(n.x for n in result.nodes)
    right = max(n.x + n.width for n in result.nodes)
    for route in (r for r in result.edges if r.loop_back):
        xs = [p.x for p in route.points]
        assert min(xs) < left or max(xs) > right, route.id   # its corridor is outside


def test_a_lane_runs_between_the_columns_and_is_drawn_against_the_flow() -> None:
    graph = two_branches(INTERLEAVED)
    result = run_layout(graph, LayoutOptions())
    route = next(r for r in result.edges if r.id == "back-a6-a3")
    assert route.loop_back and (route.source, route.target) == ("a6", "a3")
    boxes = {n.id: n for n in result.nodes}
    a_column = (min(boxes[f"a{i}"].x for i in range(1, 8)),
                max(boxes[f"a{i}"].x + boxes[f"a{i}"].width for i in range(1, 8)))
    b_column = (min(boxes[f"b{i}"].x for i in range(1, 8)),
                max(boxes[f"b{i}"].x + boxes[f"b{i}"].width for i in range(1, 8)))
    gap = (min(a_column[1], b_column[1]), max(a_column[0], b_column[0]))
    verticals = [p.x for p, q in zip(route.points, route.points[1:], strict=False)
                 if p.x == q.x and q.y < p.y]                       # the way up
    assert verticals and all(gap[0] < x < gap[1] for x in verticals)


def loop_length(result: LayoutResult) -> float:
    return sum(abs(p.x - q.x) + abs(p.y - q.y) for r in result.edges if r.loop_back
               for p, q in zip(r.points, r.points[1:], strict=False))


def test_the_reference_graph_is_drawn_no_longer_or_wider_than_all_outside() -> None:
    # request-changes -> classify takes a lane only if that makes the loop-back shorter
    # and every edge no longer in all, without widening the drawing or crossing more.
    graph = read_diagram_file(FIXTURES / "document-processing.yaml").graph
    options = LayoutOptions(effort=Effort.BEST)
    auto = run_layout(graph, options)
    outside = run_layout(graph, replace(options, loop_back_route=OUTSIDE))
    assert lanes_of(graph, replace(options, loop_back_route=OUTSIDE)) == []
    assert loop_length(auto) <= loop_length(outside)
    assert measure(auto).total_edge_length <= measure(outside).total_edge_length
    assert auto.width <= outside.width
    assert measure(auto).crossings <= measure(outside).crossings
    assert check_layout(graph, auto, options) == []


ROUTED = LayoutOptions(effort=Effort.DRAFT)
"""Draft effort has no compaction step, so the coordinates below are the routing's own, as
the lane step leaves them (what compaction does afterwards is tests/layouts/layered/
test_compaction.py's)."""


def one_column_loop() -> Graph:
    """s -> a -> b -> c -> t in one column, s and t 300 wide, and the loop c -> a."""
    sizes = {"s": 300, "a": 60, "b": 60, "c": 60, "t": 300}
    nodes = tuple(Node(n, w, 40 if w == 300 else 30) for n, w in sizes.items())
    edges = (Edge("sa", "s", "a"), Edge("ab", "a", "b"), Edge("bc", "b", "c"),
             Edge("ct", "c", "t"), Edge("back", "c", "a", loop_back=True))
    return Graph(nodes, edges)


def test_a_short_loop_runs_up_a_lane_beside_its_column() -> None:
    graph = one_column_loop()
    result = run_layout(graph, ROUTED)
    boxes = {n.id: n for n in result.nodes}
    a, c = boxes["a"], boxes["c"]
    centre = a.x + 30
    route = next(r for r in result.edges if r.id == "back")
    side = 1 if route.points[1].x > centre else -1
    # The lane's dummies sit one dummy-to-node separation from the column's centre:
    # 60 / 2 + max(clearance 12, (node spacing 40 + edge spacing 12) / 2) = 30 + 26 = 56,
    # which leaves 56 - 30 = 26 >= clearance 12 beside c and a: the loop leaves c's side
    # face facing its lane straight across to it, climbs, and turns straight into a's
    # side face (elbows, two bends instead of four). A side face with one end uses its
    # centre slot, half the nodes' height 30 down.
    lane_x = centre + side * 56
    face = c.x + 60 if side > 0 else c.x
    assert route.points == (Point(face, c.y + 15), Point(lane_x, c.y + 15),
                            Point(lane_x, a.y + 15), Point(face, a.y + 15))
    assert (route.source, route.target, route.loop_back) == ("c", "a", True)
    assert result.width == 300                       # s's width: nothing beyond it
    assert check_layout(graph, result, ROUTED) == []


def test_nested_loops_nest_in_lanes_beside_their_column_without_crossing() -> None:
    # s -> a -> b -> c -> d -> t, s and t 400 wide; loops c -> a (inner) and d -> a (outer).
    sizes = {"s": 400, "a": 60, "b": 60, "c": 60, "d": 60, "t": 400}
    nodes = tuple(Node(n, w, 40 if w == 400 else 30) for n, w in sizes.items())
    edges = (Edge("sa", "s", "a"), Edge("ab", "a", "b"), Edge("bc", "b", "c"),
             Edge("cd", "c", "d"), Edge("dt", "d", "t"),
             Edge("inner", "c", "a", loop_back=True), Edge("outer", "d", "a", loop_back=True))
    graph = Graph(nodes, edges)
    result = run_layout(graph, ROUTED)
    assert sorted(lanes_of(graph, ROUTED)) == ["inner", "outer"]
    boxes = {n.id: n for n in result.nodes}
    a, c, d = boxes["a"], boxes["c"], boxes["d"]
    routes = {r.id: r for r in result.edges}
    inner, outer = routes["inner"].points, routes["outer"].points
    side = 1 if inner[1].x > a.x + 30 else -1
    # inner lane: one dummy-to-node separation from the column's centre, 30 + 26 = 56;
    # the outer lane one dummy-to-dummy separation (edge spacing 12) further out
    inner_x = a.x + 30 + side * 56
    outer_x = inner_x + side * 12
    # Each lane's dummy next to a node in its end layers leaves 56 - 30 = 26 >= clearance
    # 12 beside it: the inner loop leaves c's side face straight across to its lane and
    # turns straight into a's (one end per side face: the centre slot, 30 / 2 down);
    # the outer one leaves d's side face the same way, but beside a the inner lane lies
    # between, so it still enters a's top face.
    face = {1: 60, -1: 0}[side]
    assert inner == (Point(c.x + face, c.y + 15), Point(inner_x, c.y + 15),
                     Point(inner_x, a.y + 15), Point(a.x + face, a.y + 15))
    assert outer[:2] == (Point(d.x + face, d.y + 15), Point(outer_x, d.y + 15))
    # a's top face was planned with s -> a and both runs (slots at 15, 30, 45; the inner
    # run at the end slot on its side, the outer at the next) and keeps that lattice: the
    # outer run enters at 30. The channel above a holds its one track, centred: 60 / 2.
    assert outer[2:] == (Point(outer_x, a.y - 30), Point(a.x + 30, a.y - 30),
                         Point(a.x + 30, a.y))
    assert measure(result).crossings == 0
    assert check_layout(graph, result, ROUTED) == []


def test_loop_back_route_outside_takes_the_corridor_beside_the_drawing() -> None:
    graph = one_column_loop()
    options = LayoutOptions(effort=Effort.DRAFT, loop_back_route=OUTSIDE)
    result = run_layout(graph, options)
    boxes = {n.id: n for n in result.nodes}
    route = next(r for r in result.edges if r.id == "back")
    # The corridor is 12 px (max(clearance, edge spacing)) beyond s and t, the widest
    # nodes, on one side; the drawing grows by those 12 px.
    corridor_x = route.points[1].x
    assert result.width == 300 + 12
    assert corridor_x in (boxes["s"].x - 12, boxes["s"].x + 300 + 12)
    # c and a are alone in their layers, so nothing lies between them and the corridor:
    # the loop leaves c's side face facing it straight out to it and turns straight into
    # a's (two bends, not four); one end per side face: the centre slot, 30 / 2 down.
    a, c = boxes["a"], boxes["c"]
    right = corridor_x > a.x
    assert route.points == (Point(c.x + 60 if right else c.x, c.y + 15),
                            Point(corridor_x, c.y + 15), Point(corridor_x, a.y + 15),
                            Point(a.x + 60 if right else a.x, a.y + 15))
    assert lanes_of(graph, options) == []
    assert check_layout(graph, result, options) == []


@pytest.mark.parametrize("seed", [1, 3])
@pytest.mark.parametrize("direction", list(BASE_DIRECTIONS))
def test_generated_workflows_with_interleaved_loop_backs_cross_less_with_lanes(
        seed: int, direction: Direction) -> None:
    # At 200 nodes, seeds 1 and 3 of the generator each have a pair of interleaved
    # loop-backs (e.g. decide-79 -> decide-72 over layers 32-38 and decide-81 -> human-78
    # over 37-40 for seed 1), so around the side they cost a crossing.
    graph = generated_graph(200, seed)
    auto = LayoutOptions(direction=direction)
    outside = LayoutOptions(direction=direction, loop_back_route=OUTSIDE)
    auto_result = run_layout(graph, auto)
    assert measure(auto_result).crossings < measure(run_layout(graph, outside)).crossings
    assert lanes_of(graph, auto)
    assert check_layout(graph, auto_result, auto) == []


def test_a_lane_edges_anchors_join_both_the_node_and_the_lane() -> None:
    graph = two_branches(INTERLEAVED)
    proper = prepare(graph, LayoutOptions()).proper
    lane_index = next(i for i, e in enumerate(proper.chain_edges) if e.lane)
    lane = proper.chain_edges[lane_index]
    anchors = corridor_anchors(proper)
    first = len(proper.nodes) + anchors.edge.index(lane_index)
    lower, upper = proper.index["a6"], proper.index["a3"]
    top, bottom = proper.index[lane.chain[0]], proper.index[lane.chain[-1]]
    # below a6 (layer 6 -> anchor on layer 7): a V from a6 and from the lane's bottom;
    # above a3 (anchor on layer 2 -> layer 3): a V to a3 and to the lane's top
    assert {(lower, first), (bottom, first), (first + 1, upper), (first + 1, top)} <= set(
        anchors.segments)
    assert anchors.lane[first - len(proper.nodes)] and anchors.lane[first + 1 - len(proper.nodes)]
    assert [proper.rank[proper.index[d]] for d in lane.chain] == [3, 4, 5, 6]


def test_the_lanes_step_keeps_to_the_time_budget() -> None:
    # A 100-step chain with a loop-back from every step to each of the 8 before it:
    # hundreds of interleaved corridors. Before the lanes step watched the deadline it
    # spent ~40 s here whatever the budget. The bound is loose on purpose: it catches a
    # step that ignores the budget, not a slowdown (speed is measured in bench/).
    nodes = tuple(Node(f"n{i}", 80, 40) for i in range(100))
    edges = [Edge(f"f{i}", f"n{i}", f"n{i + 1}") for i in range(99)]
    edges += [Edge(f"b{i}-{j}", f"n{i}", f"n{j}", loop_back=True)
              for i in range(100) for j in range(max(0, i - 8), i)]
    graph = Graph(nodes, tuple(edges))
    started = time.perf_counter()
    result = run_layout(graph, LayoutOptions(effort=Effort.DRAFT, time_budget=0.2))
    assert time.perf_counter() - started < 10
    assert result.diagnostics.budget_exhausted
    assert check_layout(graph, result, LayoutOptions(effort=Effort.DRAFT)) == []


def count_orderings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Patch ordering's entry points (``run`` for the pipeline's ordering, ``refine`` for
    the lane trial's) to count their calls, returning the list of the names called."""
    calls: list[str] = []
    for name in ("run", "refine"):
        real = getattr(ordering, name)

        def counted(*args: Any, real: Any = real, name: str = name,
                    **kwargs: Any) -> ordering.OrderingResult:
            calls.append(name)
            return cast(ordering.OrderingResult, real(*args, **kwargs))

        monkeypatch.setattr(ordering, name, counted)
    return calls


def outermost_loop() -> Graph:
    """a -> b -> c in one column of equal widths, and the loop c -> a: the column is the
    whole drawing, so its corridor runs just beside it."""
    nodes = tuple(Node(n, 60, 30) for n in "abc")
    edges = (Edge("ab", "a", "b"), Edge("bc", "b", "c"), Edge("back", "c", "a", loop_back=True))
    return Graph(nodes, edges)


def test_a_loop_whose_column_is_outermost_skips_the_lane_trial(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The corridor is 12 px (the corridor margin) beyond the column: its two runs are
    # 2 * (60 / 2 + 12) = 84 long. A lane's end dummies stand one dummy-to-node
    # separation from its nodes' centres, 2 * (30 + 26) = 112 > 84: the lane cannot be
    # shorter, so the trial neither orders nor places it.
    calls = count_orderings(monkeypatch)
    stages = prepare(outermost_loop(), ROUTED)
    assert calls == ["run"]                              # the ordering step's own
    assert [e.id for e in stages.proper.chain_edges if e.lane] == []


def test_a_loop_beside_wider_nodes_tries_its_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    # one_column_loop: the corridor runs beyond s and t, 300 wide: 2 * (150 + 12) = 324
    # is longer than the lane's bound of 112, so the trial orders the lane (and keeps it).
    calls = count_orderings(monkeypatch)
    stages = prepare(one_column_loop(), ROUTED)
    assert calls == ["run", "refine"]
    assert [e.id for e in stages.proper.chain_edges if e.lane] == ["back"]


@pytest.mark.parametrize("graph", [one_column_loop(), outermost_loop(), two_branches(NESTED),
                                   generated_graph(50, 1), generated_graph(100, 2)],
                         ids=["one-column", "outermost", "nested", "generated-50",
                              "generated-100"])
def test_the_loop_bound_is_below_every_placement_with_those_lanes(graph: Graph) -> None:
    # Give every loop-back a lane, order and place that: the loop-backs it draws are no
    # shorter than loop_bound, and with no lanes neither are the corridors'.
    options = LayoutOptions()
    stages = prepare(graph, replace(options, loop_back_route=OUTSIDE))
    every = frozenset(i for i, e in enumerate(stages.proper.chain_edges)
                      if e.reversed and e.upper != e.lower)
    assert every
    for lanes in (frozenset(), every):
        proper = chains.run(stages.acyclic, stages.rank, lanes)
        placed = placement.run(proper, ordering.run(proper, options), options)
        drawn = lane_drawing.measure(proper, placed, options)
        assert drawn.loops >= lane_drawing.loop_bound(proper, lanes, options)


@pytest.mark.parametrize("graph", [one_column_loop(), read_diagram_file(
    FIXTURES / "document-processing.yaml").graph], ids=["lane-kept", "lane-rejected"])
def test_the_placement_step_takes_the_trials_placement_unchanged(graph: Graph) -> None:
    # The trial places the drawing it keeps; the placement step hands that on rather
    # than placing again, and it is what placing the final ordering gives.
    options = LayoutOptions()
    stages = prepare(graph, options)
    assert stages.placement == placement.run(stages.proper, stages.order, options)


@pytest.mark.parametrize("limit,expected", [(10_000, ["refine", "run"]), (1, ["refine"])])
def test_a_try_still_crossing_after_refining_orders_from_scratch_on_small_graphs(
        monkeypatch: pytest.MonkeyPatch, limit: int, expected: list[str]) -> None:
    # Refining is made to report 5 crossings: on a graph within FULL_ORDER_NODES the try
    # then orders from scratch as well and keeps that order (it crosses 0 times here,
    # fewer); above the limit it keeps the refined order.
    from layouts.layered.loopbacks import lanes
    graph = two_branches(INTERLEAVED)
    stages = prepare(graph, LayoutOptions(loop_back_route=OUTSIDE))
    candidate = chains.run(stages.acyclic, stages.rank, frozenset(
        i for i, e in enumerate(stages.proper.chain_edges) if e.reversed))
    calls = count_orderings(monkeypatch)
    real_refine = ordering.refine

    def crossing_refine(*args: Any, **kwargs: Any) -> ordering.OrderingResult:
        return replace(real_refine(*args, **kwargs), crossings=5)

    monkeypatch.setattr(ordering, "refine", crossing_refine)
    monkeypatch.setattr(lanes, "FULL_ORDER_NODES", limit)
    result = lanes._reorder(stages.proper, stages.order, candidate, LayoutOptions(), None,
                            inside_first=True)
    assert [c for c in calls if c == "run"] == expected[1:]
    assert result.crossings == (0 if len(expected) == 2 else 5)
