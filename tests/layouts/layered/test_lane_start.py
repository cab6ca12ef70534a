"""The lane trial's start order (:mod:`layouts.layered.loopbacks.lane_start`) and the
ordering refinement that runs from it (:func:`layouts.layered.ordering.refine`).

Crossings are counted independently of the ordering search: segments by the
Barth-Juenger-Mutzel count, runs into lanes by :class:`CorridorCosts`, on the layers as
given.
"""

from __future__ import annotations

import pytest

from layouts.graph import Edge, Graph, Node
from layouts.layered import ordering
from layouts.layered.graph import ProperGraph, layer_positions
from layouts.layered.layering import chains
from layouts.layered.loopbacks.costs import CorridorCosts
from layouts.layered.loopbacks.lane_start import lane_start
from layouts.layered.ordering.crossings import total_crossings
from layouts.layered.pipeline import Stages, prepare
from layouts.options import Effort, LayoutOptions, LoopBackRoute
from renderer.corpus import generated_graph

OUTSIDE = LayoutOptions(loop_back_route=LoopBackRoute.OUTSIDE)


def with_every_lane(stages: Stages) -> ProperGraph:
    lanes = frozenset(i for i, e in enumerate(stages.proper.chain_edges)
                      if e.reversed and e.upper != e.lower)
    assert lanes
    return chains.run(stages.acyclic, stages.rank, lanes)


def crossings(graph: ProperGraph, layers: list[list[int]] | tuple[tuple[int, ...], ...]) -> int:
    """Segment crossings plus those of the runs into lanes (no corridors left)."""
    pos = layer_positions(layers, len(graph.nodes))
    down: list[list[int]] = [[] for _ in graph.nodes]
    for a, b in graph.segments:
        down[a].append(b)
    return total_crossings(layers, pos, down) + CorridorCosts(graph).lane_runs(pos)


def assert_layers_hold_their_nodes(graph: ProperGraph, layers: list[list[int]]) -> None:
    for r, layer in enumerate(layers):
        assert sorted(layer) == [v for v in range(len(graph.nodes)) if graph.rank[v] == r]


def two_branches_crossed() -> Graph:
    """s -> a1 -> a2 -> a3 -> t and s -> b1 -> b2 -> b3 -> t, and the loop-back a3 -> b1
    from one branch to the other: no path joins its ends the forward way."""
    names = ["s", "t", "a1", "a2", "a3", "b1", "b2", "b3"]
    edges = [Edge(f"{c}{i}", f"{c}{i}", f"{c}{i + 1}") for c in "ab" for i in (1, 2)]
    edges += [Edge(f"s{c}", "s", f"{c}1") for c in "ab"] + [Edge(f"{c}t", f"{c}3", "t")
                                                           for c in "ab"]
    edges.append(Edge("across", "a3", "b1", loop_back=True))
    return Graph(tuple(Node(n, 60, 30) for n in names), tuple(edges))


def test_a_lane_between_branches_with_no_path_starts_between_them() -> None:
    # a3 -> b1 spans layers 1-3 and no path joins b1 down to a3, so no column lies
    # between its ends (this raised ValueError once). Between the branches (a left of b,
    # as ordered) the lane crosses nothing: above b1 its run passes no other node, below
    # a3 neither, and it stands between a_i and b_i in every layer; on either outer side
    # it would cross a branch.
    stages = prepare(two_branches_crossed(), OUTSIDE)
    assert [[stages.proper.nodes[v].id for v in layer] for layer in stages.order.layers[1:4]] \
        == [["a1", "b1"], ["a2", "b2"], ["a3", "b3"]]
    after = with_every_lane(stages)
    start = lane_start(stages.proper, stages.order, after)
    assert_layers_hold_their_nodes(after, start)
    lane = next(e for e in after.chain_edges if e.lane)
    for r, dummy in enumerate(lane.chain, start=1):
        assert [after.nodes[v].id for v in start[r]] == [f"a{r}", dummy, f"b{r}"]
    assert crossings(after, start) == 0


def test_nested_loops_start_nested_beside_their_column() -> None:
    # s -> a -> b -> c -> d -> t, loops c -> a (inner) and d -> a (outer): the inner lane
    # goes next to the column, the outer one beyond it, on the same side.
    sizes = {"s": 400, "a": 60, "b": 60, "c": 60, "d": 60, "t": 400}
    nodes = tuple(Node(n, w, 30) for n, w in sizes.items())
    edges = (Edge("sa", "s", "a"), Edge("ab", "a", "b"), Edge("bc", "b", "c"),
             Edge("cd", "c", "d"), Edge("dt", "d", "t"),
             Edge("inner", "c", "a", loop_back=True), Edge("outer", "d", "a", loop_back=True))
    stages = prepare(Graph(nodes, edges), OUTSIDE)
    after = with_every_lane(stages)
    start = lane_start(stages.proper, stages.order, after)
    assert_layers_hold_their_nodes(after, start)
    inner, outer = (next(e for e in after.chain_edges if e.id == name)
                    for name in ("inner", "outer"))
    for layer_index, (a, b, c) in enumerate(zip(["a", "b", "c"], inner.chain,
                                                outer.chain[:3], strict=True), start=1):
        layer = start[layer_index]
        column, in_lane, out_lane = (layer.index(after.index[x]) for x in (a, b, c))
        assert column < in_lane < out_lane or column > in_lane > out_lane
    assert crossings(after, start) == 0


@pytest.mark.parametrize("effort", list(Effort))
@pytest.mark.parametrize("size,seed", [(100, 1), (200, 2), (200, 3)])
def test_refine_crosses_no_more_than_its_start(size: int, seed: int, effort: Effort) -> None:
    options = LayoutOptions(effort=effort)
    stages = prepare(generated_graph(size, seed), OUTSIDE)
    after = with_every_lane(stages)
    start = lane_start(stages.proper, stages.order, after)
    assert_layers_hold_their_nodes(after, start)
    result = ordering.refine(after, start, options)
    assert_layers_hold_their_nodes(after, [list(layer) for layer in result.layers])
    assert result.crossings + result.corridor_crossings == crossings(after, result.layers)
    assert crossings(after, result.layers) <= crossings(after, start)
