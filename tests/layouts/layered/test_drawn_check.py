"""The drawn-crossings check of the ``best`` effort (issue 16): ``best`` never draws more
crossings than ``balanced``, keeps ``balanced``'s drawing where its own search draws more,
and the count it decides by is the one :func:`layouts.quality.measure` reports."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from layouts.api import layout
from layouts.graph import Edge, Graph, Node
from layouts.layered import pipeline
from layouts.layered.model import Deadline, Routing
from layouts.layered.ordering import drawn_check
from layouts.layered.ordering.drawn_check import drawn_crossings
from layouts.options import Effort, LayoutOptions
from layouts.quality import measure
from renderer import corpus

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"


def dense_graph(seed: int, nodes: int, edges: int) -> Graph:
    """``edges`` distinct random pairs over ``nodes`` nodes, each from the lower index
    to the higher (so acyclic): dense enough that routing adds crossings to the
    ordering's count."""
    rng = random.Random(seed)
    pairs: set[tuple[int, int]] = set()
    while len(pairs) < edges:
        a, b = sorted(rng.sample(range(nodes), 2))
        pairs.add((a, b))
    return Graph(tuple(Node(f"n{i}", 60, 30) for i in range(nodes)),
                 tuple(Edge(f"e{k}", f"n{a}", f"n{b}") for k, (a, b) in enumerate(sorted(pairs))))


DENSE = dense_graph(38, 25, 60)
"""A graph where the ``best`` search alone draws more crossings than ``balanced``
(asserted below, so the check is exercised)."""

CORPUS = [(path.stem, corpus.file_graph(path)) for path in sorted(FIXTURES.glob("*.yaml"))] + [
    (f"generated-{n}-s{seed}", corpus.generated_graph(n, seed))
    for n, seed in ((50, 1), (100, 2))]


def _options(effort: Effort) -> LayoutOptions:
    return LayoutOptions(effort=effort, time_budget=60)


def test_drawn_crossings_agrees_with_the_quality_measure() -> None:
    # quality.measure is an independent count over the exported result; the check's
    # count over the routing must be the same number, zero and non-zero alike.
    for _, graph in [*CORPUS, ("dense-38", DENSE)]:
        result = layout(graph, engine="layered", options=_options(Effort.BALANCED))
        routing = Routing(result.nodes, result.edges, result.width, result.height)
        assert drawn_crossings(routing) == measure(result).crossings


def test_the_best_search_alone_draws_more_on_the_dense_graph() -> None:
    # the premise of the check: without it, best would draw more than balanced here
    def drawn(effort: Effort) -> int:
        run = pipeline.StepRunner(Deadline(60))
        routing, _ = pipeline._drawn(DENSE, _options(effort), run, False)
        return drawn_crossings(routing)

    assert drawn(Effort.BEST) > drawn(Effort.BALANCED)


@pytest.mark.parametrize(("name", "graph"), CORPUS, ids=[name for name, _ in CORPUS])
def test_best_never_draws_more_crossings_than_balanced(name: str, graph: Graph) -> None:
    balanced = layout(graph, engine="layered", options=_options(Effort.BALANCED))
    best = layout(graph, engine="layered", options=_options(Effort.BEST))
    assert measure(best).crossings <= measure(balanced).crossings, name


def test_best_keeps_the_balanced_drawing_where_its_search_draws_more() -> None:
    balanced = layout(DENSE, engine="layered", options=_options(Effort.BALANCED))
    best = layout(DENSE, engine="layered", options=_options(Effort.BEST))
    assert (best.nodes, best.edges) == (balanced.nodes, balanced.edges)
    assert any(note.startswith("best effort: balanced's drawing kept")
               for note in best.diagnostics.notes)


def test_best_stops_at_the_balanced_drawing_when_it_has_no_crossings() -> None:
    # nothing left to win: best returns balanced's drawing without a second search
    graph = corpus.reference_graph()
    balanced = layout(graph, engine="layered", options=_options(Effort.BALANCED))
    best = layout(graph, engine="layered", options=_options(Effort.BEST))
    assert measure(balanced).crossings == 0
    assert (best.nodes, best.edges) == (balanced.nodes, balanced.edges)


def test_best_draws_fewer_crossings_where_its_search_finds_them() -> None:
    # best earns its time: on this small dense graph its plateau moves and extra
    # restarts find an order whose drawing crosses less than balanced's
    graph = dense_graph(13, 15, 27)
    balanced = layout(graph, engine="layered", options=_options(Effort.BALANCED))
    best = layout(graph, engine="layered", options=_options(Effort.BEST))
    assert measure(best).crossings < measure(balanced).crossings


def test_best_gives_balanced_drawing_above_the_search_size(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the graph where best's search wins (15 nodes + 27 edges = 42 items), with the
    # search capped at 41 items: best must give exactly balanced's drawing
    graph = dense_graph(13, 15, 27)
    monkeypatch.setattr(drawn_check, "SEARCH_ITEMS", 15 + 27 - 1)
    balanced = layout(graph, engine="layered", options=_options(Effort.BALANCED))
    best = layout(graph, engine="layered", options=_options(Effort.BEST))
    assert (best.nodes, best.edges) == (balanced.nodes, balanced.edges)


def test_best_above_the_search_size_does_not_count_the_drawing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # above SEARCH_ITEMS the balanced drawing is the answer whatever it crosses: counting
    # its crossings first cost ~40 ms of nothing at 1000 nodes
    counted: list[Routing] = []
    key = drawn_check._key

    def counting(routing: Routing) -> tuple[int, int]:
        counted.append(routing)
        return key(routing)

    monkeypatch.setattr(drawn_check, "_key", counting)
    graph = dense_graph(13, 15, 27)
    monkeypatch.setattr(drawn_check, "SEARCH_ITEMS", 15 + 27 - 1)
    layout(graph, engine="layered", options=_options(Effort.BEST))
    assert counted == []
    monkeypatch.setattr(drawn_check, "SEARCH_ITEMS", 15 + 27)   # within it: counted
    layout(graph, engine="layered", options=_options(Effort.BEST))
    assert len(counted) >= 1
