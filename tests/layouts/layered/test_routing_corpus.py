"""The route contracts over real graphs: both fixtures and the workflow-like generator,
both directions, every effort level, through the whole layered pipeline. Zero
violations is the only acceptable answer. Up to 200 nodes by default; the 500-node
sweep is marked explicit (nightly lane).
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from layouts.graph import Edge, Graph, Node, Shape
from layouts.layered.contracts import check_layout
from layouts.layered.pipeline import run_layout
from layouts.mirror import BASE_DIRECTIONS
from layouts.options import Effort, LayoutOptions, LoopBackRoute
from renderer.from_definition import diagram_from_definition
from renderer.readers import read_diagram_file
from workflow.generate import generate_definition

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
OPTIONS = [LayoutOptions(direction=d, effort=e) for d in BASE_DIRECTIONS for e in Effort]
OPTION_IDS = [f"{o.direction.value}-{o.effort.value}" for o in OPTIONS]


def assert_contracts_hold(graph: Graph, options: LayoutOptions) -> None:
    result = run_layout(graph, options)
    violations = check_layout(graph, result, options)
    assert violations == [], "\n".join(v.message for v in violations[:10])


@pytest.mark.parametrize("options", OPTIONS, ids=OPTION_IDS)
@pytest.mark.parametrize("name", ["document-processing.yaml", "repository-assessment.yaml"])
def test_fixtures_keep_every_route_contract(name: str, options: LayoutOptions) -> None:
    assert_contracts_hold(read_diagram_file(FIXTURES / name).graph, options)


@pytest.mark.parametrize("options", OPTIONS, ids=OPTION_IDS)
@pytest.mark.parametrize(("nodes", "seed"), [(10, 0), (10, 1), (25, 2), (50, 3), (100, 4),
                                             (200, 5)])
def test_generated_workflows_keep_every_route_contract(nodes: int, seed: int,
                                                       options: LayoutOptions) -> None:
    graph = diagram_from_definition(generate_definition(nodes, seed)).graph
    assert_contracts_hold(graph, options)


@pytest.mark.explicit
@pytest.mark.parametrize("options", OPTIONS, ids=OPTION_IDS)
@pytest.mark.parametrize(("nodes", "seed"), [(300, 6), (400, 7), (500, 8), (500, 9)])
def test_large_generated_workflows_keep_every_route_contract(nodes: int, seed: int,
                                                             options: LayoutOptions) -> None:
    graph = diagram_from_definition(generate_definition(nodes, seed)).graph
    assert_contracts_hold(graph, options)


def awkward_graph() -> Graph:
    """Self-loops (two on one node), parallel edges, labels, a loop-back, a diamond and a
    circle, and a second component with a two-node cycle."""
    nodes = (Node("a", 100, 40), Node("b", 60, 40, Shape.DIAMOND), Node("c", 40, 40, Shape.CIRCLE),
             Node("d", 80, 30), Node("x", 50, 50), Node("y", 50, 50))
    edges = (Edge("aa", "a", "a", label="again", label_width=40, label_height=12),
             Edge("ab", "a", "b"), Edge("ab2", "a", "b", label="twice", label_width=50,
                                            label_height=12),
             Edge("bc", "b", "c"), Edge("bd", "b", "d", label="no", label_width=20,
                                            label_height=12),
             Edge("cd", "c", "d"), Edge("da", "d", "a", loop_back=True), Edge("ad", "a", "d"),
             Edge("cc", "c", "c"), Edge("cc2", "c", "c"), Edge("xy", "x", "y"),
             Edge("yx", "y", "x"), Edge("bb", "b", "b"))
    return Graph(nodes, edges)


@pytest.mark.parametrize("options", OPTIONS, ids=OPTION_IDS)
def test_self_loops_parallel_edges_and_cycles_keep_every_route_contract(
        options: LayoutOptions) -> None:
    assert_contracts_hold(awkward_graph(), options)


def test_the_document_fixture_draws_only_its_declared_loop_back_against_the_flow() -> None:
    graph = read_diagram_file(FIXTURES / "document-processing.yaml").graph
    result = run_layout(graph, LayoutOptions(effort=Effort.BEST))
    assert [e.id for e in result.edges if e.loop_back] == [
        e.id for e in graph.edges if e.loop_back]
    assert len([e for e in graph.edges if e.loop_back]) == 1


def random_graph(rng: random.Random, max_nodes: int) -> Graph:
    """Any shape mix, parallel edges, self-loops, cycles, declared loop-backs, labels."""
    count = rng.randint(2, max_nodes)
    nodes = tuple(Node(f"n{i}", rng.choice([20, 40, 60, 100, 160]), rng.choice([20, 30, 40, 80]),
                       rng.choice(list(Shape))) for i in range(count))
    edges = []
    for j in range(rng.randint(1, 2 * count)):
        labelled = rng.random() < 0.3
        edges.append(Edge(f"e{j}", f"n{rng.randrange(count)}", f"n{rng.randrange(count)}",
                          label="x" if labelled else None, loop_back=rng.random() < 0.1,
                          label_width=rng.choice([10, 40, 90]) if labelled else 0,
                          label_height=12 if labelled else 0))
    return Graph(nodes, tuple(edges))


def random_options(rng: random.Random) -> LayoutOptions:
    return LayoutOptions(
        effort=rng.choice(list(Effort)), direction=rng.choice(list(BASE_DIRECTIONS)),
        node_spacing=rng.choice([30, 40, 60, 100]), layer_spacing=rng.choice([20, 40, 60, 100]),
        edge_spacing=rng.choice([5, 12, 20]), clearance=rng.choice([0, 12, 20]),
        loop_back_route=rng.choice(list(LoopBackRoute)))


@pytest.mark.parametrize("seed", range(12))
def test_random_graphs_and_options_keep_every_route_contract(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(3):
        assert_contracts_hold(random_graph(rng, 25), random_options(rng))


@pytest.mark.explicit
@pytest.mark.parametrize("seed", range(100, 140))
def test_larger_random_graphs_and_options_keep_every_route_contract(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(5):
        assert_contracts_hold(random_graph(rng, 120), random_options(rng))


def complete_bipartite(size: int) -> Graph:
    """K(size, size): every one of the first ``size`` nodes links to each of the others."""
    nodes = tuple(Node(f"n{i}", 80, 40) for i in range(2 * size))
    return Graph(nodes, tuple(Edge(f"e{a}-{b}", f"n{a}", f"n{b}")
                              for a in range(size) for b in range(size, 2 * size)))


def next_layers_graph(count: int, reach: int) -> Graph:
    """Node ``i`` links to nodes ``i + 1 .. i + reach``: long edges over up to ``reach``
    layers, mixed shapes, every third edge labelled."""
    shapes = list(Shape)
    nodes = tuple(Node(f"n{i}", 80, 40, shapes[i % 3]) for i in range(count))
    edges = [Edge(f"e{a}-{b}", f"n{a}", f"n{b}") for a in range(count)
             for b in range(a + 1, min(count, a + reach + 1))]
    return Graph(nodes, tuple(
        Edge(e.id, e.source, e.target, "if", label_width=24, label_height=12) if i % 3 == 0
        else e for i, e in enumerate(edges)))


def bundles_and_loop_backs() -> Graph:
    """A chain of 12 with 6 parallel edges per link and declared loop-backs from every node
    to each of the three before it (nested and overlapping corridors)."""
    nodes = tuple(Node(f"n{i}", 80, 40) for i in range(12))
    edges = [Edge(f"p{i}-{c}", f"n{i}", f"n{i + 1}") for i in range(11) for c in range(6)]
    edges += [Edge(f"b{i}-{j}", f"n{i}", f"n{j}", loop_back=True)
              for i in range(12) for j in range(max(0, i - 3), i)]
    return Graph(nodes, tuple(edges))


DENSE = {"K(8,8)": lambda: complete_bipartite(8),
         "next-5-layers-30": lambda: next_layers_graph(30, 5),
         "bundles-and-loop-backs": bundles_and_loop_backs}


@pytest.mark.parametrize("options", OPTIONS, ids=OPTION_IDS)
@pytest.mark.parametrize("name", sorted(DENSE))
def test_dense_graphs_keep_every_route_contract(name: str, options: LayoutOptions) -> None:
    assert_contracts_hold(DENSE[name](), options)


def test_a_dense_graph_with_a_tiny_budget_stops_early_and_keeps_the_contracts() -> None:
    # K(30,30): 900 edges in one channel. Before the routing fixes it took ~120 s whatever
    # the budget; here the budget (1 ms, the smallest allowed) runs out at once and the
    # layout must still come back whole. The time bound is loose on purpose: it catches a
    # hang, not a slowdown (speed is measured in bench/).
    graph = complete_bipartite(30)
    options = LayoutOptions(effort=Effort.BEST, time_budget=0.001)
    started = time.perf_counter()
    result = run_layout(graph, options)
    assert time.perf_counter() - started < 30
    assert result.diagnostics.budget_exhausted
    assert sorted(n.id for n in result.nodes) == sorted(n.id for n in graph.nodes)
    assert len(result.edges) == 900
    assert check_layout(graph, result, options) == []
