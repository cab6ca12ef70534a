"""The whole layered pipeline: named timed steps, invariants after every phase over the
fixtures and the generator corpus, both directions, determinism, the provider and typed
errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from layouts.api import layout
from layouts.errors import InvalidGraphError
from layouts.graph import Edge, Graph, Node
from layouts.layered.pipeline import prepare, run_layout
from layouts.layered.provider import LayeredProvider
from layouts.mirror import BASE_DIRECTIONS
from layouts.options import Direction, Effort, LayoutOptions
from layouts.registry import LayoutProvider, get_provider
from layouts.result import LayoutResult
from renderer.from_definition import diagram_from_definition
from workflow.dsl import load_definition
from workflow.generate import generate_definition

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
FIXTURE_NAMES = ["document-processing.yaml", "repository-assessment.yaml"]
STEPS = ["import", "cycle breaking", "label ranks", "layering", "dummy chains", "ordering",
         "loop-back lanes", "placement", "routing", "undo cycle breaking", "fans", "compaction",
         "label check", "frame restore"]


def fixture_graph(name: str) -> Graph:
    return diagram_from_definition(load_definition(FIXTURES / name)).graph


def generated_graph(size: int, seed: int) -> Graph:
    return diagram_from_definition(generate_definition(size, seed)).graph


def assert_flow(graph: Graph, result: LayoutResult, direction: Direction) -> None:
    """Every edge that is not a loop-back goes from an earlier to a later layer."""
    reversed_ids = {e.id for e in result.edges if e.loop_back}
    for e in graph.edges:
        if e.id in reversed_ids or e.source == e.target:
            continue
        a, b = result.node(e.source), result.node(e.target)
        if direction is Direction.TOP_TO_BOTTOM:
            assert a.y + a.height <= b.y, e.id
        else:
            assert a.x + a.width <= b.x, e.id


def test_steps_are_named_and_timed_in_order() -> None:
    result = run_layout(fixture_graph(FIXTURE_NAMES[0]), LayoutOptions())
    assert [name for name, _ in result.diagnostics.phases] == STEPS
    assert all(seconds >= 0 for _, seconds in result.diagnostics.phases)
    assert result.diagnostics.engine == "layered"


@pytest.mark.parametrize("name", FIXTURE_NAMES)
@pytest.mark.parametrize("direction", list(BASE_DIRECTIONS))
@pytest.mark.parametrize("effort", list(Effort))
def test_fixtures_keep_every_invariant(name: str, direction: Direction, effort: Effort) -> None:
    graph = fixture_graph(name)
    result = run_layout(graph, LayoutOptions(direction=direction, effort=effort),
                        check_invariants=True)
    assert [n.id for n in result.nodes] == [n.id for n in graph.nodes]
    assert [e.id for e in result.edges] == [e.id for e in graph.edges]
    for route, edge in zip(result.edges, graph.edges, strict=True):
        assert (route.source, route.target) == (edge.source, edge.target)
    assert_flow(graph, result, direction)


def test_reference_fixture_draws_only_the_declared_loop_back_against_the_flow() -> None:
    graph = fixture_graph("document-processing.yaml")
    result = run_layout(graph, LayoutOptions(effort=Effort.BEST))
    assert [e.id for e in result.edges if e.loop_back] == ["request-changes->classify"]
    assert prepare(graph, LayoutOptions(effort=Effort.BEST)).order.crossings == 0


@pytest.mark.parametrize("size", [10, 50, 200])
@pytest.mark.parametrize("direction", list(BASE_DIRECTIONS))
@pytest.mark.parametrize("effort", list(Effort))
def test_generator_corpus_keeps_every_invariant(size: int, direction: Direction,
                                                effort: Effort) -> None:
    graph = generated_graph(size, size)
    prepare(graph, LayoutOptions(direction=direction, effort=effort), check_invariants=True)


@pytest.mark.explicit
@pytest.mark.parametrize("direction", list(BASE_DIRECTIONS))
@pytest.mark.parametrize("effort", list(Effort))
def test_generator_corpus_at_500_nodes(direction: Direction, effort: Effort) -> None:
    graph = generated_graph(500, 5)
    result = run_layout(graph, LayoutOptions(direction=direction, effort=effort),
                        check_invariants=True)
    assert_flow(graph, result, direction)


def test_left_to_right_is_the_transpose_of_top_to_bottom() -> None:
    # Sizes are swapped on the way in and back on the way out, so a LeftToRight layout
    # of g is the TopToBottom layout of g with every width/height swapped, transposed.
    graph = fixture_graph("document-processing.yaml")
    swapped = Graph(tuple(Node(n.id, n.height, n.width, n.shape, n.label) for n in graph.nodes),
                    tuple(Edge(e.id, e.source, e.target, e.label, e.loop_back,
                               e.label_height, e.label_width) for e in graph.edges))
    lr = run_layout(graph, LayoutOptions(direction=Direction.LEFT_TO_RIGHT))
    tb = run_layout(swapped, LayoutOptions())
    for a, b in zip(lr.nodes, tb.nodes, strict=True):
        assert (a.x, a.y, a.width, a.height) == (b.y, b.x, b.height, b.width)
    for ea, eb in zip(lr.edges, tb.edges, strict=True):
        assert [(p.x, p.y) for p in ea.points] == [(p.y, p.x) for p in eb.points]
    assert (lr.width, lr.height) == (tb.height, tb.width)


def test_same_input_gives_identical_json() -> None:
    graph = generated_graph(120, 4)
    options = LayoutOptions(effort=Effort.BEST, seed=5)
    assert run_layout(graph, options).to_json() == run_layout(graph, options).to_json()


def test_callers_graph_is_not_changed() -> None:
    graph = fixture_graph("document-processing.yaml")
    before = graph.to_dict()
    run_layout(graph, LayoutOptions(direction=Direction.LEFT_TO_RIGHT))
    assert graph.to_dict() == before


def test_self_loops_and_isolated_nodes_are_laid_out() -> None:
    graph = Graph((Node("a", 80, 40), Node("b", 80, 40), Node("lonely", 50, 30)),
                  (Edge("ab", "a", "b"), Edge("bb", "b", "b")))
    result = run_layout(graph, LayoutOptions(), check_invariants=True)
    assert [e.id for e in result.edges] == ["ab", "bb"]
    # lonely is its own component, packed beside the first (one row: the two are far
    # narrower than tall), top-aligned in the row and a component gap to the right of
    # everything the first one draws (its self-loop included).
    lonely = result.node("lonely")
    first_right = max([result.node("b").box.right,
                       *(p.x for e in result.edges for p in e.points)])
    assert lonely.y == 0
    assert lonely.x >= first_right + LayoutOptions().node_spacing


def test_parallel_edges_cycles_and_self_loops_together() -> None:
    # Five parallel a -> b, three b -> c, two c -> a (a cycle, no loop-back declared) and
    # two self-loops on b: the cycle loses the c -> a edges (a is the entry), every edge
    # comes back once, source to target.
    nodes = tuple(Node(n, 80, 40) for n in "abc")
    arcs = [("a", "b")] * 5 + [("b", "c")] * 3 + [("c", "a")] * 2 + [("b", "b")] * 2
    graph = Graph(nodes, tuple(Edge(f"e{i}", s, t) for i, (s, t) in enumerate(arcs)))
    result = run_layout(graph, LayoutOptions(), check_invariants=True)
    assert [(e.source, e.target) for e in result.edges] == arcs
    assert [e.id for e in result.edges if e.loop_back] == ["e8", "e9"]


def test_a_long_cycle_without_declared_loop_backs() -> None:
    graph = Graph(tuple(Node(f"n{i}", 60, 30) for i in range(60)),
                  tuple(Edge(f"e{i}", f"n{i}", f"n{(i + 1) % 60}") for i in range(60)))
    result = run_layout(graph, LayoutOptions(direction=Direction.LEFT_TO_RIGHT),
                        check_invariants=True)
    # n0 is the entry (every node has an incoming edge; n0 is first): only n59 -> n0 turns.
    assert [e.id for e in result.edges if e.loop_back] == ["e59"]
    assert result.node("n0").x < result.node("n59").x


def test_empty_graph() -> None:
    result = run_layout(Graph(()), LayoutOptions())
    assert result.nodes == () and result.edges == ()


def test_tiny_budget_returns_a_layout_and_says_so() -> None:
    graph = generated_graph(200, 2)
    result = run_layout(graph, LayoutOptions(effort=Effort.BEST, time_budget=0.001))
    assert result.diagnostics.budget_exhausted
    assert len(result.nodes) == len(graph.nodes)


def test_provider_is_registered_and_always_available() -> None:
    provider = get_provider("layered")
    assert isinstance(provider, LayeredProvider)
    assert isinstance(provider, LayoutProvider)
    assert provider.availability().available
    result = layout(fixture_graph("document-processing.yaml"), engine="layered")
    assert result.diagnostics.engine == "layered"


def test_bad_input_gets_a_typed_error_naming_the_problem() -> None:
    graph = Graph((Node("a", 80, 40),), (Edge("e", "a", "ghost"),))
    with pytest.raises(InvalidGraphError, match="ghost"):
        LayeredProvider().layout(graph, LayoutOptions())
