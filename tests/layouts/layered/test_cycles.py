"""Cycle breaking: run and undo as a pair, the feedback heuristic on hand-worked cycles,
the reference fixture's single loop-back, and acyclicity over the generator corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from layouts.graph import Edge, Graph, Node
from layouts.layered import cycles, invariants
from layouts.layered.cycles.feedback import feedback_edges, strongly_connected_components
from layouts.layered.graph import import_graph
from layouts.layered.model import Routing
from layouts.options import LayoutOptions
from layouts.result import EdgeEnd, EdgeRoute, Point, Side
from renderer.from_definition import diagram_from_definition
from workflow.dsl import load_definition
from workflow.generate import generate_definition

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"


def graph_of(names: str, arcs: list[tuple[str, str]], loop_backs: frozenset[str] = frozenset()
             ) -> Graph:
    nodes = tuple(Node(n, 40, 20) for n in names)
    edges = tuple(Edge(f"{a}{b}", a, b, loop_back=f"{a}{b}" in loop_backs) for a, b in arcs)
    return Graph(nodes, edges)


def reversed_ids(graph: Graph) -> list[str]:
    acyclic = cycles.run(import_graph(graph, LayoutOptions()))
    return [e.id for e in acyclic.edges if e.reversed]


def test_declared_loop_back_is_reversed_and_nothing_else() -> None:
    g = graph_of("abc", [("a", "b"), ("b", "c"), ("c", "a")], frozenset({"ca"}))
    assert reversed_ids(g) == ["ca"]


def test_cycle_entered_from_outside_breaks_at_its_entry_point() -> None:
    # s -> a -> b -> c -> a. Depth-first discovery from the entry s: s=0, a=1, b=2, c=3.
    # Inside {a, b, c} every node has in = out = 1, so the lowest discovery number (a) goes
    # first; then b becomes a source and c a sink: sequence a, b, c; c -> a points back.
    g = graph_of("sabc", [("s", "a"), ("a", "b"), ("b", "c"), ("c", "a")])
    assert reversed_ids(g) == ["ca"]


def test_without_any_source_the_first_node_becomes_the_entry() -> None:
    # Every node has an incoming edge, so a (first in model order) is the entry: its
    # incoming edge c -> a is reversed and a ends on top.
    g = graph_of("abc", [("b", "c"), ("a", "b"), ("c", "a")])
    acyclic = cycles.run(import_graph(g, LayoutOptions()))
    assert [e.id for e in acyclic.edges if e.reversed] == ["ca"]
    assert acyclic.entry == 0


def test_two_independent_cycles_each_lose_one_edge() -> None:
    g = graph_of("abcd", [("a", "b"), ("b", "a"), ("c", "d"), ("d", "c")])
    assert len(reversed_ids(g)) == 2


def test_self_loops_are_set_aside_with_their_flags() -> None:
    g = graph_of("ab", [("a", "a"), ("a", "b")])
    acyclic = cycles.run(import_graph(g, LayoutOptions()))
    assert [e.id for e in acyclic.self_loops] == ["aa"]
    assert [e.id for e in acyclic.edges] == ["ab"]


def test_feedback_set_avoids_arcs_outside_cycles() -> None:
    # 0 -> 1 -> 2 -> 1 and 2 -> 3: only {1, 2} is a strongly connected component.
    arcs = [(0, 1), (1, 2), (2, 1), (2, 3)]
    assert strongly_connected_components(4, arcs)[1] == strongly_connected_components(4, arcs)[2]
    assert feedback_edges(4, arcs, [0, 1, 2, 3]) == [2]


def test_reference_fixture_reverses_only_the_declared_loop_back() -> None:
    diagram = diagram_from_definition(load_definition(FIXTURES / "document-processing.yaml"))
    assert reversed_ids(diagram.graph) == ["request-changes->classify"]


@pytest.mark.parametrize("size", [10, 40, 120])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_graphs_are_acyclic_after_cycle_breaking(size: int, seed: int) -> None:
    graph = diagram_from_definition(generate_definition(size, seed)).graph
    acyclic = cycles.run(import_graph(graph, LayoutOptions()))
    assert invariants.after_cycle_breaking(acyclic) == []
    declared = {e.id for e in graph.edges if e.loop_back}
    assert declared <= {e.id for e in acyclic.edges if e.reversed}


def test_run_does_not_touch_the_callers_graph() -> None:
    g = graph_of("ab", [("a", "b"), ("b", "a")], frozenset({"ba"}))
    before = g.to_dict()
    cycles.run(import_graph(g, LayoutOptions()))
    assert g.to_dict() == before


def test_undo_orients_routes_from_input_source_to_input_target() -> None:
    g = graph_of("ab", [("a", "b"), ("b", "a")], frozenset({"ba"}))
    acyclic = cycles.run(import_graph(g, LayoutOptions()))
    forward = EdgeRoute("ab", "a", "b", (Point(0, 0), Point(0, 10)),
                        EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0))
    # A route handed back in flow orientation (a on top, so a -> b) for the reversed edge:
    flow_oriented = EdgeRoute("ba", "a", "b", (Point(5, 0), Point(5, 10)),
                              EdgeEnd(Side.BOTTOM, 1), EdgeEnd(Side.TOP, 1))
    restored = cycles.undo(Routing((), (forward, flow_oriented), 10, 10), acyclic)
    assert restored.edges[0] == forward
    back = restored.edges[1]
    assert (back.source, back.target) == ("b", "a")
    assert back.points == (Point(5, 10), Point(5, 0))
    assert (back.source_end, back.target_end) == (EdgeEnd(Side.TOP, 1), EdgeEnd(Side.BOTTOM, 1))
    assert back.loop_back


def test_undo_keeps_routes_that_already_run_source_to_target() -> None:
    g = graph_of("ab", [("a", "b"), ("b", "a")], frozenset({"ba"}))
    acyclic = cycles.run(import_graph(g, LayoutOptions()))
    route = EdgeRoute("ba", "b", "a", (Point(5, 10), Point(5, 0)), loop_back=True)
    ab = EdgeRoute("ab", "a", "b", (Point(0, 0), Point(0, 10)))
    assert cycles.undo(Routing((), (ab, route), 1, 1), acyclic).edges == (ab, route)
