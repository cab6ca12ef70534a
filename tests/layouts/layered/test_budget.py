"""The layered engine keeps its time budget (issue 15, item 5).

Timings themselves are measured by ``bench/layered_budget.py``; these tests check what a
short budget must never cost: a complete layout that keeps every route contract, flagged
budget-exhausted, the same bytes run to run whenever the same path is taken.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from layouts.graph import Edge, Graph, Node, Shape
from layouts.layered import (
    budget,
    compaction,
    cycles,
    frame,
    layering,
    model,
    ordering,
    pipeline,
    placement,
)
from layouts.layered.contracts import check_layout
from layouts.layered.graph import import_graph
from layouts.layered.layering import chains
from layouts.layered.layering.network_simplex import rank_component
from layouts.layered.model import Deadline, Routing
from layouts.layered.pipeline import StepRunner, export, run_layout
from layouts.layered.routing import route_edges
from layouts.layered.staircase import staircase
from layouts.mirror import BASE_DIRECTIONS
from layouts.options import Direction, LayoutOptions
from layouts.result import LayoutResult, NodeBox
from renderer import corpus

GRAPHS = [(path.stem, corpus.file_graph(path)) for path in corpus.fixture_paths()] + [
    (f"generated-{n}-seed{seed}", corpus.generated_graph(n, seed))
    for n in (12, 40, 120) for seed in (1, 2, 3)]


def awkward_graph() -> Graph:
    """Self-loops (two on one node), parallel edges, a 2-cycle, a declared loop-back
    that points forward, diamonds and circles with many ends, labels everywhere."""
    nodes = (Node("s", 40, 40, Shape.CIRCLE), Node("g", 60, 40, Shape.DIAMOND),
             Node("a", 120, 40), Node("b", 30, 60), Node("j", 60, 40, Shape.DIAMOND),
             Node("t", 40, 40, Shape.CIRCLE))
    edges = [Edge("s-g", "s", "g"), Edge("g-a", "g", "a", label_width=90, label_height=14),
             Edge("g-b", "g", "b", label_width=40, label_height=14), Edge("g-j", "g", "j"),
             Edge("a-j", "a", "j"), Edge("a-j2", "a", "j", label_width=30, label_height=14),
             Edge("b-j", "b", "j"), Edge("j-t", "j", "t"),
             Edge("j-g", "j", "g", loop_back=True, label_width=70, label_height=14),
             Edge("b-a", "b", "a"), Edge("a-b", "a", "b"),
             Edge("a-a", "a", "a", label_width=20, label_height=14), Edge("a-a2", "a", "a"),
             Edge("t-s", "t", "s", loop_back=True), Edge("s-t", "s", "t", loop_back=True)]
    return Graph(nodes, tuple(edges))


def staircase_result(graph: Graph, options: LayoutOptions) -> LayoutResult:
    drawn = frame.restore(staircase(graph, options), options.direction)
    return export(graph, drawn, options, StepRunner(Deadline(60)), None)


@pytest.mark.parametrize("direction", BASE_DIRECTIONS)  # the provider mirrors the other two
@pytest.mark.parametrize(("name", "graph"), [*GRAPHS, ("awkward", awkward_graph())],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_staircase_keeps_every_contract(name: str, graph: Graph, direction: Direction) -> None:
    options = LayoutOptions(direction=direction)
    result = staircase_result(graph, options)
    assert check_layout(graph, result, options) == [], name
    assert len(result.edges) == len(graph.edges)


def test_staircase_draws_forward_edges_down_and_cycles_up() -> None:
    """Nodes stand on a diagonal in depth-first order: a -> b -> c, and c -> a closes the
    cycle, so it leaves c's top face and enters a's right face."""
    g = Graph(tuple(Node(n, 80, 40) for n in "abc"),
              (Edge("ab", "a", "b"), Edge("bc", "b", "c"), Edge("ca", "c", "a")))
    result = staircase_result(g, LayoutOptions())
    a, b, c = (result.node(n) for n in "abc")
    assert a.x < b.x < c.x and a.y < b.y < c.y
    back = next(r for r in result.edges if r.id == "ca")
    assert back.loop_back and back.source_end.side.value == "top"
    assert back.target_end.side.value == "right"
    assert back.points[-1].x == a.x + a.width


def test_tiny_budget_gives_a_complete_flagged_layout_that_keeps_contracts() -> None:
    graph = corpus.generated_graph(300, 2)
    options = LayoutOptions(time_budget=0.001)
    result = run_layout(graph, options)
    assert result.diagnostics.budget_exhausted
    assert any("staircase" in note for note in result.diagnostics.notes)
    assert check_layout(graph, result, options) == []
    again = run_layout(graph, options)
    assert json.dumps(again.to_dict()) == json.dumps(result.to_dict())


def test_quick_placement_keeps_every_contract_after_routing() -> None:
    """The packed placement that replaces Brandes-Koepf in a compound level when time
    is short feeds routing a placement it can route within every contract."""
    for name, graph in GRAPHS:
        options = LayoutOptions()
        acyclic = cycles.run(import_graph(graph, options))
        proper = chains.run(acyclic, layering.run(acyclic))
        order = ordering.run(proper, options)
        placed = placement.run(proper, order, options, quick=True)
        routed = cycles.undo(route_edges(placed, options, Deadline(60)), acyclic)
        result = export(graph, routed, options, StepRunner(Deadline(60)), 0)
        assert check_layout(graph, result, options) == [], name


def test_pipeline_skips_every_optional_step_when_placement_and_routing_do_not_fit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A cost model in which placement, routing and every optional step never fit the
    budget but the staircase layout costs more than carrying on: the pipeline carries on with
    Brandes-Koepf (packing the layers would make routing slower than it saves), skips
    the elbows, fans and compaction, says so, flags the budget, and every contract
    holds."""
    slow = replace(budget.COSTS, front_per_item=0.0, ordering_per_item=0.0,
                   placement_per_item=1e3, routing_per_item=1e3, elbows_per_item=1e3,
                   fans_per_item=1e3, compaction_per_item=1e3, staircase_per_item=1e4)
    monkeypatch.setattr(pipeline, "COSTS", slow)
    for name, graph in GRAPHS[:4]:
        options = LayoutOptions()
        result = run_layout(graph, options)
        notes = " ".join(result.diagnostics.notes)
        assert result.diagnostics.budget_exhausted, name
        assert "packed" not in notes and "staircase" not in notes, name
        for step in budget.Extra:
            assert f"{step.value} skipped" in notes, (name, step)
        steps = [step for step, _ in result.diagnostics.phases]
        assert "placement" in steps and "fans" not in steps and "compaction" not in steps
        assert check_layout(graph, result, options) == [], name


def test_only_the_optional_step_that_does_not_fit_is_skipped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Compaction costs a thousand seconds per item in this model, every other step
    nothing: elbows and fans run, compaction is skipped with a note and the budget is
    flagged; the drawing is the uncompacted one, with every contract kept."""
    monkeypatch.setattr(pipeline, "COSTS", replace(
        budget.COSTS, front_per_item=0.0, ordering_per_item=0.0, placement_per_item=0.0,
        routing_per_item=0.0, elbows_per_item=0.0, fans_per_item=0.0,
        compaction_per_item=1e3, finish_per_item=0.0))
    graph = dict(GRAPHS)["generated-120-seed1"]
    options = LayoutOptions()
    result = run_layout(graph, options)
    notes = " ".join(result.diagnostics.notes)
    assert result.diagnostics.budget_exhausted
    assert "compaction skipped" in notes
    assert "fans skipped" not in notes and "elbows skipped" not in notes
    steps = [step for step, _ in result.diagnostics.phases]
    assert "fans" in steps and "compaction" not in steps
    assert check_layout(graph, result, options) == []


class FakeClock:
    """A ``time`` module whose clock moves only when a test says so."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


def test_a_slow_routing_step_leaves_out_the_optional_steps_after_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The clock moves only while routing runs: 0.5 s for a proper graph the model
    routes (with elbows) in under 0.5 / 8 s, so the machine is measured as 8 times
    slower (the cap) than the model. Of a 0.56 s budget, 0.06 s is left after routing:
    fans and compaction each fit in that at the model's speed, neither at 8 times it,
    so both are skipped and the budget is flagged; with routing taking no time (the
    control) both run and the budget is not flagged."""
    clock = FakeClock()
    monkeypatch.setattr(pipeline, "time", clock)
    monkeypatch.setattr(model, "time", clock)
    graph = corpus.generated_graph(300, 1)
    costs = budget.COSTS
    proper = pipeline.prepare(graph, LayoutOptions()).proper
    proper_items = len(proper.nodes) + len(proper.segments)
    routing_model = (costs.routing_per_item + costs.elbows_per_item) * proper_items
    assert budget.NOISE_SECONDS < routing_model < 0.5 / budget.MAX_SLOWDOWN
    fans = (costs.fans_per_item + costs.finish_per_item) * proper_items
    compacting = (costs.compaction_per_item + costs.finish_per_item) * proper_items
    assert max(fans, compacting) <= 0.06 < min(fans, compacting) * budget.MAX_SLOWDOWN

    def laid_out(routing_seconds: float) -> LayoutResult:
        def slow(*args: object, **kwargs: object) -> Routing:
            clock.now += routing_seconds
            return route_edges(*args, **kwargs)  # type: ignore[arg-type]
        monkeypatch.setattr(pipeline, "route_edges", slow)
        clock.now = 0.0
        return run_layout(graph, LayoutOptions(time_budget=0.56))

    control = laid_out(0.0)
    assert not control.diagnostics.budget_exhausted
    assert {"fans", "compaction"} <= {step for step, _ in control.diagnostics.phases}
    slow = laid_out(0.5)
    notes = " ".join(slow.diagnostics.notes)
    assert slow.diagnostics.budget_exhausted
    assert "fans skipped" in notes and "compaction skipped" in notes
    assert "elbows skipped" not in notes
    assert check_layout(graph, slow, LayoutOptions()) == []


def test_compaction_skips_its_whole_check_when_the_time_left_cannot_pay_for_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A compacted drawing its pass checks did not verify falls back to the whole
    contract check, before and after: with the check costing 100 s per item, the two
    nodes' checks (2 x 100 x 2 = 400 s) do not fit in a 60 s budget, so compaction is
    given up with a note instead of running past the budget; at the model's cost
    (microseconds) the check runs and keeps the compacted drawing."""
    graph = Graph((Node("a", 100, 40), Node("b", 100, 40)), ())
    routing = Routing((NodeBox("a", 0, 0, 100, 40), NodeBox("b", 300, 0, 100, 40)), (),
                      400, 40)
    compacted = compaction.run(routing, graph, LayoutOptions(), Deadline(60)).routing
    assert [n.x for n in compacted.nodes] == [0, 140]     # 100 wide, 40 apart
    monkeypatch.setattr(compaction, "attempt_compaction",
                        lambda r, o: compaction.Attempt(compacted, False))
    checked = compaction.run(routing, graph, LayoutOptions(), Deadline(60))
    assert checked == compaction.Compacted(compacted)
    monkeypatch.setattr(compaction, "COSTS", replace(budget.COSTS, check_per_item=100.0))
    skipped = compaction.run(routing, graph, LayoutOptions(), Deadline(60))
    assert skipped == compaction.Compacted(routing,
                                           "compaction skipped: no time left to check it")


def test_network_simplex_out_of_time_still_gives_feasible_ranks() -> None:
    arcs = [(0, 1, 1, 1.0), (1, 2, 1, 1.0), (0, 3, 1, 1.0), (3, 2, 2, 1.0), (0, 2, 1, 5.0)]
    spent = Deadline(0.0)
    rank = rank_component(4, arcs, spent)
    assert spent.exhausted
    assert all(rank[b] - rank[a] >= length for a, b, length, _ in arcs)
    assert min(rank) == 0


def test_deadline_reserve_stops_optimisation_early_but_not_the_clock() -> None:
    deadline = Deadline(30)
    assert not deadline.expired()
    deadline.keep(31)
    assert deadline.expired() and deadline.exhausted
    assert deadline.remaining() > 25


@pytest.mark.explicit
@pytest.mark.parametrize("budget", [0.1, 1.0, 10.0])
def test_5000_nodes_short_budget_flagged_and_contracts_hold(budget: float) -> None:
    """Flagged under the short budgets; under 10 s whether the budget ran out depends
    on the machine's speed, and the contracts hold either way."""
    graph = corpus.generated_graph(5000, 1)
    options = LayoutOptions(time_budget=budget)
    result = run_layout(graph, options)
    assert result.diagnostics.budget_exhausted or budget >= 10
    assert check_layout(graph, result, options) == []


@pytest.mark.parametrize(("drawing_seconds", "factor", "affords"), [
    (3.0, 1.0, True),     # 10 - 3 = 7 s left, one more 3 s drawing fits
    (6.0, 1.0, False),    # 4 s left < 6 s
    (3.0, 2.0, True),     # 7 s left >= 2 x 3 s
    (4.0, 2.0, False),    # 6 s left < 2 x 4 s
])
def test_redraws_afford_another_drawing_only_while_the_time_left_covers_the_latest(
        monkeypatch: pytest.MonkeyPatch, drawing_seconds: float, factor: float,
        affords: bool) -> None:
    """A 10 s budget and a drawing that takes ``drawing_seconds`` on a fake clock: another
    fits when the rest of the budget is at least ``factor`` times that."""
    clock = FakeClock()
    monkeypatch.setattr(model, "time", clock)
    monkeypatch.setattr(budget, "time", clock)
    redraws = budget.Redraws(model.Deadline(10.0))

    def drawing() -> str:
        clock.now += drawing_seconds
        return "drawn"

    assert redraws.draw(drawing) == "drawn"
    assert redraws.latest == drawing_seconds
    assert redraws.affords_another(factor) is affords
