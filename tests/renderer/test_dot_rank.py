"""DOT ``rank=same/min/max/source/sink`` subgraphs: read into the graph's rank groups,
honoured by layered and graphviz, mapped for elkjs where ELK can, and never dropped
silently. Expected layers are reasoned from each DOT text in the comments."""

from __future__ import annotations

import shutil

import pytest

from layouts.api import layout
from layouts.graph import Edge, Graph, Node, RankGroup, RankKind
from layouts.layered.pipeline import prepare
from layouts.options import LayoutOptions
from layouts.providers.elkjs_options import to_elk_graph
from layouts.result import LayoutResult
from layouts.schemas import graph_json_schema
from renderer.dot_reader import read_dot

NEEDS = {"graphviz": "dot", "elkjs": "node"}


def _skip_without(engine: str) -> None:
    if engine in NEEDS and shutil.which(NEEDS[engine]) is None:
        pytest.skip(f"{engine} needs {NEEDS[engine]}")


def _layers(result: LayoutResult) -> dict[str, int]:
    """Each node's layer: the index of its centre among the distinct centres along the
    flow (top to bottom)."""
    centres = {n.id: round(n.y + n.height / 2, 1) for n in result.nodes}
    distinct = sorted(set(centres.values()))
    return {node: distinct.index(c) for node, c in centres.items()}


def _laid(text: str, engine: str) -> LayoutResult:
    _skip_without(engine)
    return layout(read_dot(text).graph, engine=engine)


# a -> b -> c and a -> d: d would sit on layer 1 under a; rank=same pulls it to c's layer 2.
SAME = "digraph { a -> b -> c; a -> d; {rank=same; c; d} }"
# m -> c only: network simplex keeps m tight above c (layer 1); rank=min lifts it to 0.
MIN = "digraph { a -> b -> c; m -> c; {rank=min; m} }"
# z hangs off a (layer 1 without the constraint); rank=max drops it to c's layer 2.
MAX = "digraph { a -> b -> c; a -> z; subgraph s { rank=max; z } }"
# rank=sink: z alone on the last layer, so below c: layer 3.
SINK = "digraph { a -> b -> c; a -> z; {rank=sink; z} }"
# rank=source: s alone on layer 0, so a (another source) goes to layer 1, b to 2.
SOURCE = "digraph { a -> b; s -> b; {rank=source; s} }"

EXPECTED = {
    SAME: {"a": 0, "b": 1, "c": 2, "d": 2},
    MIN: {"a": 0, "m": 0, "b": 1, "c": 2},
    MAX: {"a": 0, "b": 1, "c": 2, "z": 2},
    SINK: {"a": 0, "b": 1, "c": 2, "z": 3},
    SOURCE: {"s": 0, "a": 1, "b": 2},
}


def test_the_reader_keeps_every_rank_subgraph_as_a_group() -> None:
    graph = read_dot("digraph { a -> b; {rank=same; a; x} subgraph cluster_c { rank=sink; "
                     "b } subgraph { rank=source; s } }").graph
    assert [(g.kind, g.nodes) for g in graph.rank_groups] == [
        (RankKind.SAME, ("a", "x")), (RankKind.SINK, ("b",)), (RankKind.SOURCE, ("s",))]


@pytest.mark.parametrize("engine", ["layered", "graphviz"])
@pytest.mark.parametrize("text", list(EXPECTED), ids=["same", "min", "max", "sink", "source"])
def test_layers_follow_the_rank_subgraphs(engine: str, text: str) -> None:
    result = _laid(text, engine)
    assert _layers(result) == EXPECTED[text]
    assert not result.diagnostics.warnings


def test_layered_without_the_constraint_differs() -> None:
    """The expected layers above are not what the graph gives anyway."""
    for text in EXPECTED:
        plain = read_dot(text).graph
        unconstrained = layout(Graph(plain.nodes, plain.edges), engine="layered")
        assert _layers(unconstrained) != EXPECTED[text]


def test_layered_groups_pass_the_layering_invariants() -> None:
    for text in EXPECTED:
        prepare(read_dot(text).graph, LayoutOptions(), check_invariants=True)


def test_a_group_joined_by_an_edge_is_a_warning_for_layered_not_for_dot() -> None:
    text = "digraph { a -> b; {rank=same; a; b} }"
    (warning,) = _laid(text, "layered").diagnostics.warnings
    assert "rank=same group (a, b): b not on a's layer" in warning
    assert "no edge inside a layer" in warning
    dot = _laid(text, "graphviz")   # dot draws the edge flat, inside the layer
    assert _layers(dot) == {"a": 0, "b": 0}
    assert not dot.diagnostics.warnings


def test_a_same_group_across_components_shares_a_layer() -> None:
    # two chains a -> b -> c and x -> y: {rank=same; c; x} puts x on layer 2, y on 3
    result = _laid("digraph { a -> b -> c; x -> y; {rank=same; c; x} }", "layered")
    assert _layers(result) == {"a": 0, "b": 1, "c": 2, "x": 2, "y": 3}


def test_a_group_inside_a_cluster() -> None:
    # inside the cluster p -> q -> r and p -> s: s joins r's layer, two below p
    result = _laid("digraph { subgraph cluster_k { p -> q -> r; p -> s; "
                   "{rank=same; r; s} } }", "layered")
    boxes = {n.id: n for n in result.nodes}
    assert boxes["s"].y + boxes["s"].height / 2 == pytest.approx(
        boxes["r"].y + boxes["r"].height / 2)
    assert boxes["s"].y > boxes["q"].y


def test_grandalf_says_it_takes_no_rank_constraints() -> None:
    result = layout(read_dot(SAME).graph, engine="grandalf")
    assert any("grandalf takes no rank constraints" in w for w in result.diagnostics.warnings)


def test_elkjs_gets_layer_constraints_for_min_max_source_sink() -> None:
    elk = to_elk_graph(read_dot(SINK).graph, LayoutOptions())
    z = next(c for c in elk["children"] if c["id"] == "z")
    assert z["layoutOptions"]["elk.layered.layering.layerConstraint"] == "LAST_SEPARATE"
    result = _laid(SINK, "elkjs")
    assert _layers(result)["z"] == max(_layers(result).values())


def test_elkjs_same_group_is_kept_or_named_as_its_limit() -> None:
    result = _laid(SAME, "elkjs")
    layers = _layers(result)
    if layers["c"] != layers["d"]:
        assert any("ELK has no same-layer constraint" in w for w in result.diagnostics.warnings)


def test_rank_groups_round_trip_through_graph_json_and_the_schema() -> None:
    graph = Graph((Node("a", 9, 9), Node("b", 9, 9)), (Edge("e", "a", "b"),),
                  rank_groups=(RankGroup(("a",), RankKind.MIN), RankGroup(("a", "b"))))
    data = graph.to_dict()
    assert data["rankGroups"] == [{"rank": "min", "nodes": ["a"]},
                                  {"rank": "same", "nodes": ["a", "b"]}]
    assert Graph.from_dict(data) == graph
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(data, graph_json_schema())


@pytest.mark.parametrize(("groups", "problem"), [
    ([{"rank": "same", "nodes": ["a", "nope"]}], "names 'nope', which is not a node"),
    ([{"rank": "middle", "nodes": ["a"]}], "expected one of same, min"),
    ([{"nodes": []}], "names no node"),
    ({"nodes": ["a"]}, "'rankGroups' must be a list"),
])
def test_bad_rank_groups_are_refused(groups: object, problem: str) -> None:
    from layouts.errors import InvalidGraphError
    with pytest.raises(InvalidGraphError, match=problem):
        Graph.from_dict({"nodes": [{"id": "a", "width": 9, "height": 9}],
                         "rankGroups": groups})


def test_past_the_step_cap_members_are_left_out_and_named(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    from layouts.layered.layering import rank_groups
    monkeypatch.setattr(rank_groups, "MAX_STEPS", -1)   # no path check may run
    (warning,) = _laid(SAME, "layered").diagnostics.warnings
    assert "rank=same group (c, d): d not on c's layer" in warning
