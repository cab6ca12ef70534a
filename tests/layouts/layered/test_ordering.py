"""Ordering: exact crossing counts (hand-worked and against a brute-force count), sweeps,
transpose and sifting, effort levels, determinism and input-order stability."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import combinations, pairwise
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from layouts.api import layout
from layouts.graph import Edge, Graph, Node
from layouts.layered import cycles, invariants, layering, ordering, placement
from layouts.layered.graph import ProperGraph, import_graph
from layouts.layered.layering import chains
from layouts.layered.ordering.crossings import bilayer_crossings, pair_crossings, total_crossings
from layouts.layered.ordering.local_search import sift, transpose
from layouts.layered.ordering.sweep import initial_layers, sort_layer, weighted_median
from layouts.options import Effort, LayoutOptions
from layouts.permute import shuffle_graph
from layouts.quality import measure
from layouts.result import Side
from renderer.from_definition import diagram_from_definition
from workflow.generate import generate_definition


def brute_force(upper: list[int], lower: list[int], arcs: list[tuple[int, int]]) -> int:
    """Two straight edges between two layers cross iff their ends are in opposite order."""
    pu = {v: i for i, v in enumerate(upper)}
    pl = {v: i for i, v in enumerate(lower)}
    return sum(1 for (a, b), (c, d) in combinations(arcs, 2)
               if (pu[a] - pu[c]) * (pl[b] - pl[d]) < 0)


def test_bilayer_count_by_hand() -> None:
    # Upper a, b, c (0, 1, 2); lower x, y, z (3, 4, 5); edges a-x, a-z, b-y, c-x.
    # a-z crosses b-y and c-x; b-y crosses c-x; a-x shares x with c-x and crosses nothing:
    # 3 crossings.
    pos = [0, 1, 2, 0, 1, 2]
    down = [[3, 5], [4], [3], [], [], []]
    assert bilayer_crossings([0, 1, 2], pos, down, 3) == 3


def test_bilayer_count_matches_brute_force_on_random_layers() -> None:
    rng = random.Random(4)
    for _ in range(50):
        n_up, n_low = rng.randint(1, 7), rng.randint(1, 7)
        upper = list(range(n_up))
        lower = list(range(n_up, n_up + n_low))
        arcs = [(rng.choice(upper), rng.choice(lower)) for _ in range(rng.randint(0, 12))]
        rng.shuffle(upper)
        rng.shuffle(lower)
        pos = [0] * (n_up + n_low)
        for layer in (upper, lower):
            for i, v in enumerate(layer):
                pos[v] = i
        down: list[list[int]] = [[] for _ in pos]
        for a, b in arcs:
            down[a].append(b)
        assert bilayer_crossings(upper, pos, down, n_low) == brute_force(upper, lower, arcs)


def test_pair_crossings_by_hand() -> None:
    # v's neighbours at positions 1 and 3, w's at 0 and 2, v left of w: pairs (1,0), (3,0),
    # (3,2) cross: 3. With w left of v: only (2,1)... pairs (0,1), (0,3), (2,1), (2,3): 1.
    pos = [1, 3, 0, 2]
    assert pair_crossings([0, 1], [2, 3], pos) == 3
    assert pair_crossings([2, 3], [0, 1], pos) == 1


def test_barycenter_sort_keeps_nodes_without_neighbours_in_place() -> None:
    # Layer [p, q, r]: q has no upper neighbour and stays in the middle; p hangs below
    # position 2 and r below position 0, so they swap.
    pos = [0, 1, 2, 0, 1, 2]
    up = [[], [], [], [2], [], [0]]
    assert sort_layer([3, 4, 5], pos, up, median=False) == [5, 4, 3]


def test_weighted_median_by_hand() -> None:
    # Positions 0, 1, 5, 6: left spread 1 - 0 = 1, right spread 6 - 5 = 1: (1*1 + 5*1)/2.
    assert weighted_median([0, 1, 2, 3], [0, 1, 5, 6]) == 3.0
    assert weighted_median([0, 1, 2], [4, 0, 9]) == 4.0


def test_transpose_and_sifting_remove_a_crossing() -> None:
    # Upper [0, 1], lower [2, 3] with edges 0-3 and 1-2: one crossing, none after a swap.
    for improve in (transpose, sift):
        layers = [[0, 1], [2, 3]]
        pos = [0, 1, 0, 1]
        up = [[], [], [1], [0]]
        down = [[3], [2], [], []]
        improve(layers, pos, up, down)
        assert total_crossings(layers, pos, down) == 0


def proper_of(graph: Graph) -> ProperGraph:
    acyclic = cycles.run(import_graph(graph, LayoutOptions()))
    return chains.run(acyclic, layering.run(acyclic))


def test_complete_bipartite_k22_keeps_its_one_unavoidable_crossing() -> None:
    # Two sources each joined to two sinks: any order of K(2,2) has exactly 1 crossing.
    g = Graph(tuple(Node(n, 40, 20) for n in "abxy"),
              tuple(Edge(a + b, a, b) for a in "ab" for b in "xy"))
    for effort in Effort:
        assert ordering.run(proper_of(g), LayoutOptions(effort=effort)).crossings == 1


def test_sweeps_untangle_a_crossing_the_initial_order_has() -> None:
    # r -> a -> p -> x, r -> b -> q -> y and b -> x (ranks 1 -> 3: one dummy d on
    # rank 2). Depth-first from r, children in edge order: rank 2 = [p, q, d] and
    # rank 3 = [x, y]; q -> y (1 -> 1) and d -> x (2 -> 0) cross once. The order
    # [r] / [a, b] / [p, d, q] / [x, y] has none.
    g = Graph(tuple(Node(n, 40, 20) for n in "rabpqxy"),
              (Edge("ra", "r", "a"), Edge("rb", "r", "b"), Edge("ap", "a", "p"),
               Edge("px", "p", "x"), Edge("bq", "b", "q"), Edge("qy", "q", "y"),
               Edge("bx", "b", "x")))
    proper = proper_of(g)
    down: list[list[int]] = [[] for _ in proper.nodes]
    for a, b in proper.segments:
        down[a].append(b)
    start = initial_layers(list(range(len(proper.nodes))), proper.rank, down, 4)
    names = [[proper.nodes[v].id for v in layer] for layer in start]
    assert names == [["r"], ["a", "b"], ["p", "q", "~d0"], ["x", "y"]]
    pos = [0] * len(proper.nodes)
    for layer in start:
        for i, v in enumerate(layer):
            pos[v] = i
    assert total_crossings(start, pos, down) == 1
    for effort in Effort:
        result = ordering.run(proper, LayoutOptions(effort=effort))
        assert result.crossings == 0
        assert invariants.after_ordering(proper, result) == []


def test_corridor_runs_are_counted_where_a_loop_back_source_is_enclosed() -> None:
    # t -> l, b, r; l -> x, b -> x, b -> y, r -> y; loop-back b -> t. Routing takes b's
    # loop-back out through the channel below b to a corridor beyond the drawing: a run
    # from b to an anchor pinned at the far end of layer 2 ([x, y, A] or [A, x, y]).
    # Layers 1-2 alone order crossing-free as [l, b, r] / [x, y]. With the anchor on the
    # right, b-A crosses r-y; moving b to the right end ([l, r, b]) makes r-y cross b-x
    # instead; [b, l, r] costs 3. By mirror symmetry the left side also costs 1. So: 0
    # crossings among the segments and 1 corridor crossing.
    g = Graph(tuple(Node(n, 40, 20) for n in "tlbrxy"),
              (Edge("tl", "t", "l"), Edge("tb", "t", "b"), Edge("tr", "t", "r"),
               Edge("lx", "l", "x"), Edge("bx", "b", "x"), Edge("by", "b", "y"),
               Edge("ry", "r", "y"), Edge("bt", "b", "t", loop_back=True)))
    for effort in Effort:
        result = ordering.run(proper_of(g), LayoutOptions(effort=effort))
        assert (result.crossings, result.corridor_crossings) == (0, 1)


def test_each_loop_back_takes_the_side_its_runs_cross_less() -> None:
    # t -> p, v, q; p -> x, v -> y, q -> z; loop-back q -> t. q's corridor run leaves
    # through the channel below layer 1 and crosses every segment leaving that layer on
    # its corridor's side of q; the run above t has nothing to cross. With q at the end
    # of its layer on the corridor's side, the run crosses nothing.
    g = Graph(tuple(Node(n, 40, 20) for n in "tpvqxyz"),
              (Edge("tp", "t", "p"), Edge("tv", "t", "v"), Edge("tq", "t", "q"),
               Edge("px", "p", "x"), Edge("vy", "v", "y"), Edge("qz", "q", "z"),
               Edge("qt", "q", "t", loop_back=True)))
    proper = proper_of(g)
    result = ordering.run(proper, LayoutOptions())
    names = [[proper.nodes[v].id for v in layer] for layer in result.layers]
    side = result.corridor_sides[-1]
    # Ordering pulls q to the end of its layer on the corridor's side: no run crossings.
    assert names[1][-1 if side > 0 else 0] == "q"
    assert result.corridor_crossings == 0


def test_partly_overlapping_loop_backs_take_opposite_sides() -> None:
    # Chain a0 -> ... -> a5 (ranks 0..5) with loop-backs a3 -> a1 (channels 1..4) and
    # a4 -> a2 (channels 2..5): the ranges overlap in part, so on one side their
    # corridors would cross once. Their runs cross nothing on either side (the only
    # segments in their channels are their own nodes' chain segments). Equal lengths:
    # a3 -> a1 (the earlier edge) goes first and takes the preferred left; a4 -> a2 then
    # costs 1 on the left and 0 on the right.
    names = [f"a{i}" for i in range(6)]
    edges = [Edge(f"{a}{b}", a, b) for a, b in pairwise(names)]
    edges += [Edge("back1", "a3", "a1", loop_back=True), Edge("back2", "a4", "a2", loop_back=True)]
    proper = proper_of(Graph(tuple(Node(n, 40, 20) for n in names), tuple(edges)))
    result = ordering.run(proper, LayoutOptions())
    assert result.corridor_sides[-2:] == (-1, 1)
    assert result.corridor_crossings == 0


def chain_with_loop_backs(length: int, backs: list[tuple[int, int]]) -> Graph:
    """Chain n0 -> n1 -> ... (rank i for n{i}) with loop-backs n{lower} -> n{upper}."""
    names = [f"n{i}" for i in range(length)]
    edges = [Edge(f"{a}{b}", a, b) for a, b in pairwise(names)]
    edges += [Edge(f"back{i}", f"n{lower}", f"n{upper}", loop_back=True)
              for i, (lower, upper) in enumerate(backs)]
    return Graph(tuple(Node(n, 40, 20) for n in names), tuple(edges))


def test_loop_backs_meeting_in_one_channel_share_a_side() -> None:
    # Loop-backs n3 -> n0, n5 -> n2, n7 -> n4 on a bare chain: channel ranges (upper
    # rank, lower rank + 1) = (0, 4), (2, 6), (4, 8). The first two overlap in part, and
    # so do the last two; the first and the last meet only in channel 4 (between ranks 3
    # and 4), where the run out of n3 can lie above the run into n4, so they do not
    # cross. Runs cross nothing (only chain segments). Sides left, right, left: 0.
    # (Were meeting ranges counted as crossing, the third would cost 1 on either side.)
    g = chain_with_loop_backs(9, [(3, 0), (5, 2), (7, 4)])
    for effort in Effort:
        result = ordering.run(proper_of(g), LayoutOptions(effort=effort))
        assert result.corridor_sides[-3:] == (-1, 1, -1)
        assert result.corridor_crossings == 0
    assert measure(layout(g, engine="layered")).crossings == 0


def test_corridor_sides_improve_on_the_greedy_choice() -> None:
    # Loop-backs with channel ranges A = (0, 3), B = (2, 6), C = (5, 9), D = (8, 11)
    # (n2 -> n0, n5 -> n2, n8 -> n5, n10 -> n8): A-B, B-C and C-D overlap in part, the
    # rest not at all. Greedy, shortest first (A and D, length 3, then B and C): A left,
    # D left (preferred), B right (A is left), C then meets D on the left and B on the
    # right: 1. Moving D to the right makes it 0: sides left, right, left, right.
    g = chain_with_loop_backs(12, [(2, 0), (5, 2), (8, 5), (10, 8)])
    result = ordering.run(proper_of(g), LayoutOptions())
    assert result.corridor_sides[-4:] == (-1, 1, -1, 1)
    assert result.corridor_crossings == 0


def test_interleaved_loop_backs_beside_a_strand_keep_one_side() -> None:
    # r -> a0 -> ... -> a7 -> z and r -> s0 -> ... -> s7 -> z (a{i}, s{i} on rank
    # i + 1), loop-backs A = a4 -> a1 (ranks 2..5) and B = a5 -> a3 (ranks 4..6): they
    # interleave, so on one side their corridors cross once (1). On opposite sides, say
    # A left and B right, A's runs cross nothing only with a1 left of s1 (rank 2) and a4
    # left of s4 (rank 5), B's only with a3 right of s3 (rank 4) and a5 right of s5
    # (rank 6). Each of the steps rank 2 -> 4, 4 -> 5 and 5 -> 6 then either swaps the
    # two strands (one crossing) or leaves one run crossing a strand segment: >= 3. The
    # optimum is 1, both on one side, with the strands uncrossed.
    a = [f"a{i}" for i in range(8)]
    s = [f"s{i}" for i in range(8)]
    edges = [Edge("ra0", "r", "a0"), Edge("rs0", "r", "s0"), Edge("a7z", "a7", "z"),
             Edge("s7z", "s7", "z")]
    edges += [Edge(f"{x}{y}", x, y) for x, y in (*pairwise(a), *pairwise(s))]
    edges += [Edge("backA", "a4", "a1", loop_back=True),
              Edge("backB", "a5", "a3", loop_back=True)]
    g = Graph(tuple(Node(n, 40, 20) for n in ["r", *a, *s, "z"]), tuple(edges))
    for effort in Effort:
        result = ordering.run(proper_of(g), LayoutOptions(effort=effort))
        sides = result.corridor_sides[-2:]
        assert sides[0] == sides[1]
        assert (result.crossings, result.corridor_crossings) == (0, 1)


def test_placement_hands_the_planned_corridor_side_to_routing() -> None:
    # a -> b -> c -> d with the loop-back c -> b: its runs turn in the channels above b
    # and below c, which hold anchors on ranks 0 and 3. One component; both sides cost
    # nothing, the left is tried first and kept on ties, and the edge keeps that side.
    g = Graph(tuple(Node(n, 40, 20) for n in "abcd"),
              (Edge("ab", "a", "b"), Edge("bc", "b", "c"), Edge("cd", "c", "d"),
               Edge("cb", "c", "b", loop_back=True)))
    proper = proper_of(g)
    order = ordering.run(proper, LayoutOptions())
    placed = placement.run(proper, order, LayoutOptions())
    back = next(e for e in placed.edges if e.id == "cb")
    assert order.corridor_sides == (0, 0, 0, -1)   # per chain edge: only cb has a corridor
    assert back.corridor_side is Side.LEFT
    assert all(e.corridor_side is None for e in placed.edges if e.id != "cb")


@pytest.mark.parametrize("effort", list(Effort))
@pytest.mark.parametrize("size", [10, 80, 200])
def test_orders_are_permutations_and_counts_exact(effort: Effort, size: int) -> None:
    proper = proper_of(diagram_from_definition(generate_definition(size, 3)).graph)
    result = ordering.run(proper, LayoutOptions(effort=effort))
    assert invariants.after_ordering(proper, result) == []
    pos = [0] * len(proper.nodes)
    for layer in result.layers:
        for i, v in enumerate(layer):
            pos[v] = i
    down: list[list[int]] = [[] for _ in proper.nodes]
    for a, b in proper.segments:
        down[a].append(b)
    assert total_crossings(result.layers, pos, down) == result.crossings


def test_more_effort_never_gives_more_crossings() -> None:
    for seed in (1, 2, 3):
        proper = proper_of(diagram_from_definition(generate_definition(120, seed)).graph)
        counts = [ordering.run(proper, LayoutOptions(effort=e)).crossings for e in Effort]
        assert counts[0] >= counts[1] >= counts[2]


def test_same_input_same_order() -> None:
    proper = proper_of(diagram_from_definition(generate_definition(150, 9)).graph)
    options = LayoutOptions(effort=Effort.BEST, seed=3)
    assert ordering.run(proper, options) == ordering.run(proper, options)


@pytest.mark.parametrize("size", [100, 200])
def test_shuffling_the_input_barely_changes_the_crossing_count(size: int) -> None:
    graph = diagram_from_definition(generate_definition(size, 1)).graph
    counts = []
    for g in [graph, *(shuffle_graph(graph, s) for s in range(1, 5))]:
        result = ordering.run(proper_of(g), LayoutOptions())
        counts.append(result.crossings + result.corridor_crossings)
    # The target: the spread stays within 10% of the count (and within one crossing
    # when the count is tiny).
    assert max(counts) - min(counts) <= max(1, 0.1 * min(counts))


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(1, 12)), max_size=40))
def test_overlap_partners_match_all_pairs(raw: list[tuple[int, int]]) -> None:
    from layouts.layered.loopbacks.costs import _overlap_partners, _partial_overlap

    spans = [(start, start + length) for start, length in raw]
    expected = [[j for j in range(len(spans)) if j != i and _partial_overlap(spans[i], spans[j])]
                for i in range(len(spans))]
    assert _overlap_partners(spans) == expected


def test_transpose_takes_equal_cost_swaps_only_when_asked() -> None:
    # K(2,2): upper 0, 1 both joined to lower 2, 3; either order of the upper pair
    # crosses once (0-3 with 1-2, or 1-3 with 0-2), so a plain transpose keeps it and
    # a plateau transpose swaps it (and the lower pair, equally tied, in the same round)
    down = [[2, 3], [2, 3], [], []]
    up = [[], [], [0, 1], [0, 1]]
    plain = [[0, 1], [2, 3]]
    assert transpose(plain, [0, 1, 0, 1], up, down, max_rounds=1) == [False, False]
    moved = [[0, 1], [2, 3]]
    assert transpose(moved, [0, 1, 0, 1], up, down, max_rounds=1, equal=True) == [True, True]
    assert moved == [[1, 0], [3, 2]]


def test_sort_layer_reverses_ties_when_asked() -> None:
    # nodes 2 and 3 both hang under node 0 (key 0), node 4 under node 1 (key 1)
    up = [[], [], [0], [0], [1]]
    pos = [0, 1, 0, 1, 2]
    assert sort_layer([2, 3, 4], pos, up, median=False) == [2, 3, 4]
    assert sort_layer([2, 3, 4], pos, up, median=False, reverse_ties=True) == [3, 2, 4]


def test_sifting_row_costs_match_the_pairwise_counts() -> None:
    # The tabulated row of sifting against pair_crossings, the plain pairwise count,
    # on random layers with repeated neighbours (parallel edges) and isolated nodes.
    from layouts.layered.ordering.local_search import _LayerCosts

    rng = random.Random(7)
    for _ in range(40):
        sizes = [rng.randint(1, 6) for _ in range(3)]
        ids = [list(range(sum(sizes[:i]), sum(sizes[:i + 1]))) for i in range(3)]
        pos = [0] * sum(sizes)
        for layer in ids:
            rng.shuffle(layer)
            for p, v in enumerate(layer):
                pos[v] = p
        up: list[list[int]] = [[] for _ in pos]
        down: list[list[int]] = [[] for _ in pos]
        for upper, lower in pairwise(ids):
            for _ in range(rng.randint(0, 10)):
                a, b = rng.choice(upper), rng.choice(lower)
                down[a].append(b)
                up[b].append(a)
        middle = ids[1]
        costs = _LayerCosts(middle, pos, up, down)
        for v in middle:
            others = [w for w in middle if w != v]
            expected = ([pair_crossings(up[v], up[w], pos) + pair_crossings(down[v], down[w], pos)
                         for w in others],
                        [pair_crossings(up[w], up[v], pos) + pair_crossings(down[w], down[v], pos)
                         for w in others])
            assert costs.row(v, others) == expected
            assert [costs.costs(v, w) for w in others] == list(zip(*expected, strict=True))


def test_breadth_first_layers_visit_siblings_before_grandchildren() -> None:
    # Edges 0 -> 2 -> 4, 0 -> 3 -> 6, 1 -> 5 -> 6; ranks {0, 1}, {2, 3, 5}, {4, 6}.
    # From the top, root 0's search meets 0, 2, 3, 4, 6 (siblings 2 and 3 before 2's
    # child 4), root 1's then 1 and 5: layers [0, 1], [2, 3, 5], [4, 6]. From the
    # bottom, sink 4's search meets 4, 2, 0, sink 6's then 6, 3, 5, 1: the same layers.
    from layouts.layered.ordering.sweep import breadth_first_layers

    down = [[2, 3], [5], [4], [6], [], [6], []]
    up: list[list[int]] = [[] for _ in down]
    for a, targets in enumerate(down):
        for b in targets:
            up[b].append(a)
    rank = [0, 0, 1, 1, 2, 1, 2]
    assert breadth_first_layers(range(7), rank, down, up, 3) == [[0, 1], [2, 3, 5], [4, 6]]
    assert breadth_first_layers(range(7), rank, down, up, 3, from_bottom=True) == \
        [[0, 1], [2, 3, 5], [4, 6]]


def _counted_sorts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Patch the sweep module's ``sort_layer`` to record the layers it sorts."""
    import sys
    module = sys.modules["layouts.layered.ordering.sweep"]
    sorted_layers: list[int] = []
    real: Callable[..., list[int]] = module.sort_layer

    def counting(layer: Sequence[int], pos: Sequence[int],
                 neighbours: Sequence[Sequence[int]], **kwargs: Any) -> list[int]:
        sorted_layers.append(layer[0])
        return real(layer, pos, neighbours, **kwargs)

    monkeypatch.setattr(module, "sort_layer", counting)
    return sorted_layers


def test_a_median_sweep_skips_layers_the_barycenter_sweep_left_as_median_would(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from layouts.layered.ordering.sweep import SweepMemo, sweep
    # top 0, 1; middle 2, 3 (2 under 1, 3 under 0); bottom 4, 5, 6, all under 2 and 3.
    # Every middle node has one upper neighbour, every bottom node two: their median is
    # their mean, so a median sweep sorts both layers as the barycenter sweep did.
    up = [[], [], [1], [0], [2, 3], [2, 3], [2, 3]]
    down = [[3], [2], [4, 5, 6], [4, 5, 6], [], [], []]
    layers = [[0, 1], [2, 3], [4, 5, 6]]
    pos = [0, 1, 0, 1, 0, 1, 2]
    memo = SweepMemo()
    sorted_layers = _counted_sorts(monkeypatch)
    assert sweep(layers, pos, up, down, downward=True, median=False, memo=memo) == \
        [False, True, False]
    assert layers == [[0, 1], [3, 2], [4, 5, 6]] and sorted_layers == [2, 4]
    assert sweep(layers, pos, up, down, downward=True, median=True, memo=memo) == \
        [False, False, False]
    assert sorted_layers == [2, 4]       # nothing sorted again


def test_a_median_sweep_sorts_again_where_a_node_has_three_neighbours(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from layouts.layered.ordering.sweep import SweepMemo, sweep
    # Top 0..4; below, 5 has neighbours at 0, 1 and 4 (barycenter 5/3, median 1) and
    # 6 one at 2 (key 2 either way): barycenter puts 5 first (5/3 < 2), and so does the
    # median (1 < 2); the sort must still run, since the keys differ.
    up = [[], [], [], [], [], [0, 1, 4], [2]]
    down = [[5], [5], [6], [], [5], [], []]
    layers = [[0, 1, 2, 3, 4], [6, 5]]
    pos = [0, 1, 2, 3, 4, 1, 0]
    memo = SweepMemo()
    sorted_layers = _counted_sorts(monkeypatch)
    sweep(layers, pos, up, down, downward=True, median=False, memo=memo)
    assert layers[1] == [5, 6]
    sweep(layers, pos, up, down, downward=True, median=True, memo=memo)
    assert sorted_layers == [6, 5]       # the second sweep sorted [5, 6] once more


def test_a_remembered_sort_is_redone_when_the_pins_changed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from layouts.layered.ordering.sweep import SweepMemo, sweep
    # Top 0, 1; below, 2 under 1 and 3 under 0. With 2 pinned at slot 0 the sort leaves
    # [2, 3] (3 alone is movable); once 2 is free the same layers must sort to [3, 2]:
    # the memo of the pinned sort must not stand in for it.
    up = [[], [], [1], [0]]
    down = [[3], [2], [], []]
    memo = SweepMemo()
    sorted_layers = _counted_sorts(monkeypatch)
    layers, pos = [[0, 1], [2, 3]], [0, 1, 0, 1]
    sweep(layers, pos, up, down, downward=True, median=False, pinned=[0, 0, -1, 0], memo=memo)
    assert layers[1] == [2, 3] and sorted_layers == [2]
    sweep(layers, pos, up, down, downward=True, median=False, pinned=[0, 0, -1, 0], memo=memo)
    assert sorted_layers == [2]          # same layers, same pins: remembered
    sweep(layers, pos, up, down, downward=True, median=False, pinned=[0, 0, 0, 0], memo=memo)
    assert layers[1] == [3, 2] and sorted_layers == [2, 2]
