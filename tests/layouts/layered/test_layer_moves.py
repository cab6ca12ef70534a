"""The layer moves search (:mod:`layouts.layered.layering.moves`): which layerings it
tries, that each is valid, that it keeps a move only when the drawing crosses less, that
it runs once per layout and never on graphs without ports.

The crossing counts are worked out from the drawings' topology (closed curves that a
path must cross), the spans from the edges' least lengths."""

from __future__ import annotations

from itertools import pairwise

import pytest

from layouts.api import layout
from layouts.graph import Edge, Graph, Node, Port, PortConstraints, PortSide, RankKind
from layouts.layered import cycles, invariants, layering
from layouts.layered.graph import EngineEdge, EngineNode, LayeredGraph, import_graph
from layouts.layered.layering import moves
from layouts.layered.model import Deadline
from layouts.layered.pipeline import run_layout
from layouts.options import Direction, Effort, LayoutOptions
from layouts.port_corpus import every_side, mixed_constraints
from layouts.quality import measure


def _fork() -> Graph:
    """``s`` has three south ports at fixed positions, l, m, r from west to east; l and
    r lead to ``t``, m to ``x``."""
    s = Node("s", 100, 40, ports=(Port("l", PortSide.SOUTH, x=10, y=40),
                                  Port("m", PortSide.SOUTH, x=50, y=40),
                                  Port("r", PortSide.SOUTH, x=90, y=40)),
             port_constraints=PortConstraints.FIXED_POS)
    return Graph((s, Node("t", 100, 40), Node("x", 40, 40)),
                 (Edge("lt", "s", "t", source_port="l"), Edge("mx", "s", "x", source_port="m"),
                  Edge("rt", "s", "t", source_port="r")))


def _off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(moves, "MAX_ITEMS", 0)


def test_network_simplex_layers_force_the_fork_to_cross_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # t and x on layer 1 (each one edge below s). lt, rt and the boxes of s and t close
    # a curve C; m lies between l and r on s's south face, so mx leaves s into C. On
    # t's layer C closes at t's top face, so x, beside t, is outside C: mx crosses lt
    # or rt. Once is enough (x beside t, mx over the nearer of the two)
    _off(monkeypatch)
    result = layout(_fork(), engine="layered")
    assert result.node("t").y == result.node("x").y
    assert measure(result).crossings == 1


def test_one_move_puts_t_below_x_and_removes_the_crossing() -> None:
    # the first move tried: s is the entry, so t (next in model order) first; t is a
    # sink, its span from s's rank + 1 = 1 to one below the deepest rank, 1 + 1 = 2.
    # On rank 2, lt and rt pass layer 1 as dummies and x sits between them, inside C
    result = layout(_fork(), engine="layered")
    s, x, t = (result.node(n) for n in "sxt")
    assert s.y < x.y < t.y
    assert measure(result).crossings == 0
    assert "layer moves: 1 drawn crossings -> 0" in result.diagnostics.notes


def test_draft_effort_keeps_network_simplex_layers() -> None:
    result = layout(_fork(), engine="layered", effort=Effort.DRAFT)
    assert result.node("t").y == result.node("x").y
    assert measure(result).crossings == 1


def _chain() -> LayeredGraph:
    """``a -> b`` at least 2 long, ``a -> c -> d``, ``b -> d``; b and e in one rank group."""
    edges = (EngineEdge("ab", 0, 1, 0, min_length=2), EngineEdge("ac", 0, 2, 1),
             EngineEdge("cd", 2, 3, 2), EngineEdge("bd", 1, 3, 3), EngineEdge("ae", 0, 4, 4))
    return LayeredGraph(tuple(EngineNode(n, 9, 9) for n in "abcde"), edges,
                        rank_groups=((RankKind.SAME, (1, 4)),))


def test_the_span_of_a_node_keeps_every_least_length() -> None:
    graph = _chain()
    rank = (0, 2, 1, 3, 2)
    # c: from a's 0 + 1 to d's 3 - 1; d: from max(b 2, c 1) + 1 = 3 to the deepest 3 + 1
    assert list(moves.span(graph, rank, 2)) == [1, 2]
    assert list(moves.span(graph, rank, 3)) == [3, 4]
    assert moves.movable(graph) == [2, 3]   # a the entry, b and e grouped


def test_every_candidate_is_a_valid_layering_one_move_away() -> None:
    graph = _chain()
    rank = (0, 2, 1, 3, 2)
    found = list(moves.candidates(graph, rank))
    # c: 2; d: 4 (nearest first)
    assert found == [(0, 2, 2, 3, 2), (0, 2, 1, 4, 2)]
    for moved in found:
        assert invariants.after_layering(graph, moved) == []
        assert sum(a != b for a, b in zip(moved, rank, strict=True)) == 1


def test_the_candidates_can_be_limited_to_the_nodes_of_crossing_routes() -> None:
    # only d's move is left when the crossing routes end at a (the entry) and d
    assert list(moves.candidates(_chain(), (0, 2, 1, 3, 2), frozenset({0, 3}))) == \
        [(0, 2, 1, 4, 2)]


def test_the_candidates_of_the_port_graphs_are_valid_layerings() -> None:
    for graph in (mixed_constraints(), every_side(), _fork()):
        acyclic = cycles.run(import_graph(graph, LayoutOptions()))
        rank = layering.run(acyclic)
        found = list(moves.candidates(acyclic, rank))
        assert found
        for moved in found:
            assert invariants.after_layering(acyclic, moved) == [], (graph, moved)


def test_a_first_rank_class_keeps_the_others_off_the_first_and_last_rank() -> None:
    edges = (EngineEdge("ab", 0, 1, 0), EngineEdge("bc", 1, 2, 1), EngineEdge("ad", 0, 3, 2))
    nodes = tuple(EngineNode(n, 9, 9) for n in "abcd")
    rank = (0, 1, 2, 1)
    free = LayeredGraph(nodes, edges)
    pinned = LayeredGraph(nodes, edges, rank_groups=((RankKind.MIN, (0,)),))
    # the sink d: from a's 0 + 1 to one below the deepest, 2 + 1; c, on the deepest:
    # from b's 1 + 1 to 3
    assert [list(moves.span(free, rank, v)) for v in (3, 2)] == [[1, 2, 3], [2, 3]]
    # with a first rank class, d only strictly between ranks 0 and 2, and c stays
    assert [list(moves.span(pinned, rank, v)) for v in (3, 2)] == [[1], [2]]


def test_the_search_keeps_only_better_drawings_and_stops_at_no_crossing() -> None:
    graph = _chain()
    drawn: list[tuple[int, ...]] = []

    def draw(rank: tuple[int, ...]) -> moves.Trial[None]:
        # crosses unless d is on rank 4; moving c costs a label astray
        drawn.append(rank)
        return moves.Trial(rank, 0 if rank[3] == 4 else 1, int(rank[2] != 1),
                           moves.length(graph, rank), None)

    start = moves.Trial((0, 2, 1, 3, 2), 1, 0, 2 + 1 + 2 + 1 + 2, None)
    kept = moves.search(graph, start, draw, Deadline(60))
    # c to 2 first: one crossing still and a label astray, not kept; then d to 4: kept,
    # and no crossing left, so no second round
    assert drawn == [(0, 2, 2, 3, 2), (0, 2, 1, 4, 2)]
    assert kept.rank == (0, 2, 1, 4, 2)


def test_the_search_stops_at_its_draw_limit() -> None:
    graph = _chain()
    drawn: list[tuple[int, ...]] = []

    def draw(rank: tuple[int, ...]) -> moves.Trial[None]:
        drawn.append(rank)
        return moves.Trial(rank, 1, 0, 99, None)   # never better

    moves.search(graph, moves.Trial((0, 2, 1, 3, 2), 1, 0, 8, None), draw, Deadline(60),
                 max_draws=1)
    assert len(drawn) == 1


def test_the_layering_is_searched_once_per_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    # mixed-constraints has a free node: the free port sides run 6 trial layouts after
    # the first, each with both entry rules (no node is a source, and the first-node
    # drawing crosses); the search runs once, on the kept one, and may draw as many
    # layerings as those 7 layouts drew, 7 * 2 = 14, capped at MAX_DRAWS = 8
    limits: list[object] = []
    search = moves.search

    def counted(*args: object, **kwargs: object) -> object:
        limits.append(args[4])
        return search(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(moves, "search", counted)
    result = layout(mixed_constraints(), engine="layered")
    assert "free port sides: 6 trial layouts, 0 ports moved off the flow face" in \
        result.diagnostics.notes
    assert limits == [min(moves.MAX_DRAWS, 7 * 2)] == [8]


def test_the_search_is_deterministic() -> None:
    first = layout(mixed_constraints(), engine="layered", direction=Direction.BOTTOM_TO_TOP)
    again = layout(mixed_constraints(), engine="layered", direction=Direction.BOTTOM_TO_TOP)
    assert first.to_json() == again.to_json()


def test_a_graph_without_ports_is_drawn_byte_identical() -> None:
    # K(2,3) from two sources: crossings on any two layers, and no port to search for
    nodes = tuple(Node(n, 60, 30) for n in "abxyz")
    graph = Graph(nodes, tuple(Edge(f"{s}{t}", s, t) for s in "ab" for t in "xyz"))
    plain = run_layout(graph, LayoutOptions())
    searched = run_layout(graph, LayoutOptions(), layer_moves=1)
    assert measure(plain).crossings > 0
    assert plain.to_json() == searched.to_json()
    assert "layer moves" not in dict(searched.diagnostics.phases)


def test_every_side_moves_feed_below_the_drawing_and_crosses_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On network simplex's layers port roles puts feed beside top (the emptier layer,
    tests/layouts/layered/test_port_roles.py) and the drawing crosses once. The search
    moves feed (a sink, model order last) from rank 2 to one below the deepest, 3: no
    longer one layer from the hub, port roles leaves it there, and both its edges leave
    the hub downward (n_out by a stub round the west face and round ``left``, s_in
    from the south port between down and right): nothing crosses. (Only with the area
    cap lifted: see the next test.)"""
    monkeypatch.setattr(moves, "MAX_AREA_GROWTH", float("inf"))
    result = layout(every_side(), engine="layered")
    ys = [result.node(n).y for n in ("top", "hub", "down", "feed")]
    assert all(a < b for a, b in pairwise(ys))
    assert result.node("left").y == result.node("down").y == result.node("right").y
    assert measure(result).crossings == 0
    # layers 40, 60, 40, 40 and four channels of 60: routing keeps a 12 px strip above
    # the hub for n_out's stub round, but compaction closes that channel to the layer
    # spacing, since its three tracks (t_n, f_e, the stub) 12 px apart and 12 px above
    # the hub need 3 x 12 + 12 = 48 <= 60 px
    assert result.height == 40 + 60 + 60 + 60 + 40 + 60 + 40


def test_every_side_keeps_its_crossing_where_the_move_would_grow_the_drawing_half_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The move above adds a layer: height 360 (previous test) against 260 on network
    simplex's layers (40 + 60 + 60 + 60 + 40, tests/layouts/layered/test_port_roles.py),
    more than MAX_AREA_GROWTH = 1.2 times the area even before any width change, so the
    search keeps the drawing it started from: the same as with the search off."""
    kept = layout(every_side(), engine="layered")
    assert measure(kept).crossings == 1 and kept.height == 40 + 60 + 60 + 60 + 40
    _off(monkeypatch)
    assert layout(every_side(), engine="layered").to_json() == kept.to_json()


def test_the_search_layout_gets_only_the_time_the_trials_left(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every layout the provider makes takes 1 s on a fake clock; the layout with the
    layer moves search comes after the others and is given the 10 s budget less the
    seconds they took, so the whole call stays inside the caller's budget."""
    from layouts.layered import provider

    class Clock:
        now = 0.0

        def perf_counter(self) -> float:
            return self.now

    clock = Clock()
    calls: list[tuple[int, float]] = []
    real = provider.run_layout

    def timed(graph: Graph, options: LayoutOptions, *, layer_moves: int = 0) -> object:
        calls.append((layer_moves, options.time_budget))
        clock.now += 1.0
        return real(graph, options, layer_moves=layer_moves)

    monkeypatch.setattr(provider, "time", clock)
    monkeypatch.setattr(provider, "run_layout", timed)
    layout(mixed_constraints(), engine="layered", options=LayoutOptions(time_budget=10.0))
    searched = [i for i, (moves_allowed, _) in enumerate(calls) if moves_allowed]
    assert len(searched) == 1
    index = searched[0]
    assert index > 0 and calls[index][1] == 10.0 - index   # index layouts of 1 s came first
    assert all(budget == 10.0 for allowed, budget in calls if not allowed)
