"""Label ranks: a labelled edge of one layer whose label finds no room beside its own
verticals is drawn again two layers long, with a dummy to keep room beside
(:mod:`layouts.layered.label_ranks`); and the label room placement keeps is worked out
once per proper graph (:mod:`layouts.layered.label_room`)."""

from __future__ import annotations

import pytest

from layouts.graph import Edge, Graph, Node
from layouts.layered import label_room, placement
from layouts.layered.contracts import check_labels_nearest
from layouts.layered.graph import EngineEdge, EngineNode, LayeredGraph, ProperGraph
from layouts.layered.label_ranks import ASTRAY_COST, Labelled, cost, crowded, lengthen, roomiest
from layouts.layered.labels import LABEL_GAP
from layouts.layered.model import ChainEdge, Deadline, Routing
from layouts.layered.pipeline import StepRunner, _drawn_once, prepare, run_layout
from layouts.options import LayoutOptions
from layouts.result import Box, EdgeRoute, Point

# three labelled edges from a to b: a's bottom face (60 wide) holds their ends at
# x = 15, 30 and 45 (60 * k / 4), 15 px apart; a label 40 wide beside the middle one,
# on either side ([34, 74] or [-14, 26]) or centred ([10, 50]), covers a neighbour's
# vertical, so only the outer two labels fit (left of 15, right of 45)
PARALLEL = Graph((Node("a", 60, 30), Node("b", 60, 30)),
                 tuple(Edge(name, "a", "b", label=name, label_width=40, label_height=12)
                       for name in ("l", "m", "r")))


def test_the_middle_label_of_three_parallel_edges_of_one_layer_is_astray() -> None:
    first = _drawn_once(PARALLEL, LayoutOptions(), StepRunner(Deadline(10)), False, frozenset())
    assert first.astray == {"m"}
    assert first.crowded == {1}          # the input position of 'm', an edge of one layer


def test_label_ranks_give_the_crowded_edge_two_layers_and_its_label_room() -> None:
    stages = prepare(PARALLEL, LayoutOptions(), two_layers=frozenset({1}))
    a, b = stages.proper.index["a"], stages.proper.index["b"]
    # 'm' needs two layers, so b drops a layer and all three edges get a dummy
    assert stages.proper.rank[b] - stages.proper.rank[a] == 2
    assert all(len(e.chain) == 1 for e in stages.proper.chain_edges)
    # drawn so, each label sits beside its own dummy's vertical
    drawn = _drawn_once(PARALLEL, LayoutOptions(), StepRunner(Deadline(10)), False,
                        frozenset({1}))
    assert drawn.astray == set()
    assert check_labels_nearest(drawn.routing.edges) == []


def test_room_that_costs_more_bends_than_the_label_is_worth_is_not_taken() -> None:
    # one layer: three straight edges, 0 bends, one label astray: 0 + ASTRAY_COST = 5;
    # two layers: the outer edges fan out to the dummies' room, 6 bends and no label
    # astray (no crossings either way): the first drawing is the cheaper
    first = _drawn_once(PARALLEL, LayoutOptions(), StepRunner(Deadline(10)), False, frozenset())
    roomy = _drawn_once(PARALLEL, LayoutOptions(), StepRunner(Deadline(10)), False,
                        frozenset({1}))
    assert cost(first) == ASTRAY_COST == 5.0 and cost(roomy) == 6.0
    result = run_layout(PARALLEL, LayoutOptions())
    assert {v.edge for v in check_labels_nearest(result.edges)} == {"m"}


def test_labels_with_room_keep_their_edges_one_layer_long() -> None:
    # one labelled edge leaves a's bottom face from its centre: room on both sides
    graph = Graph(PARALLEL.nodes, PARALLEL.edges[:1])
    result = run_layout(graph, LayoutOptions())
    assert check_labels_nearest(result.edges) == []
    # one layer: b's top is a's bottom plus the layer spacing and the label's row
    # (4 + 12 + 4 px, :mod:`layouts.layered.labels`), at most
    assert result.node("b").y <= 30 + LayoutOptions().layer_spacing + 4 + 12 + 4
    assert not any(note.startswith("label ranks") for note in result.diagnostics.notes)


def test_lengthen_copies_the_graph_and_lengthens_only_the_named_edges() -> None:
    graph = LayeredGraph((EngineNode("a", 9, 9), EngineNode("b", 9, 9)),
                         (EngineEdge("e", 0, 1, 0, label_width=30),
                          EngineEdge("f", 0, 1, 1, label_width=30, min_length=3)))
    longer = lengthen(graph, frozenset({0, 1}))
    assert [e.min_length for e in longer.edges] == [2, 3]     # never shortened
    assert [e.min_length for e in graph.edges] == [1, 3]      # the input is unchanged
    assert lengthen(graph, frozenset()) is graph


def _proper(edges: tuple[ChainEdge, ...]) -> ProperGraph:
    nodes = (EngineNode("s", 40, 20), EngineNode("t", 40, 20),
             EngineNode("~d0", 0, 0, dummy=True))
    return ProperGraph(nodes, (0, 2, 1), 3, (), edges, (0, 0, 0),
                       {n.id: i for i, n in enumerate(nodes)})


def test_crowded_names_only_astray_labels_of_edges_of_one_layer() -> None:
    short = ChainEdge("e", "s", "t", "s", "t", (), False, False, 20, 10)
    long = ChainEdge("f", "s", "t", "s", "t", ("~d0",), False, False, 20, 10)
    # each label 4 px right of its own vertical (x = 0, 26) but 2 px left of the next
    # route's (x = 26, 52)
    routes = [EdgeRoute("e", "s", "t", (Point(0, 0), Point(0, 100)),
                        label_box=Box(4, 40, 20, 10)),
              EdgeRoute("f", "s", "t", (Point(26, 0), Point(26, 100)),
                        label_box=Box(30, 40, 20, 10)),
              EdgeRoute("g", "s", "t", (Point(52, 0), Point(52, 100)))]
    astray, lengthened = crowded(_proper((short, long)), routes)
    assert astray == {"e", "f"}
    assert lengthened == {0}             # f already has a dummy


def test_roomiest_stops_when_the_budget_is_spent() -> None:
    calls: list[frozenset[int]] = []

    def draw(lengthened: frozenset[int]) -> Labelled:
        calls.append(lengthened)
        return Labelled(Routing((), (), 0, 0), frozenset({"x"}), frozenset({len(calls)}))

    spent = Deadline(10)
    spent.exhausted = True
    roomiest(draw, spent)
    assert calls == [frozenset()]
    calls.clear()
    roomiest(draw, Deadline(10))         # each round crowds one more edge, as many astray
    assert calls == [frozenset(), frozenset({1}), frozenset({1, 2})]       # ROUNDS = 2


def test_label_room_is_worked_out_once_per_proper_graph(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    stages = prepare(PARALLEL, LayoutOptions(), two_layers=frozenset({1}))
    proper = stages.proper
    dummies = [proper.index[e.chain[0]] for e in proper.chain_edges]
    assert proper.label_room == {d: label_room.Room(40 + 2 * LABEL_GAP + 1) for d in dummies}

    def recomputed(graph: ProperGraph) -> None:
        raise AssertionError("label room worked out again")

    monkeypatch.setattr(label_room, "rooms", recomputed)
    again = placement.run(proper, stages.order, LayoutOptions())
    assert again == stages.placement
    with pytest.raises(AssertionError, match="again"):
        placement.separation_for(ProperGraph(proper.nodes, proper.rank, proper.layer_count,
                                             proper.segments, proper.chain_edges,
                                             proper.component, proper.index),
                                 LayoutOptions())
