"""Corridor and lane run counts (:class:`layouts.layered.loopbacks.costs.CorridorCosts`)
against a count by definition: a run below a node crosses each segment that leaves its
layer strictly between the node and the run's far end (the side of the drawing, or the
lane's bottom dummy); a run above a node each segment entering its layer there. The
positions are the ordering's and shuffled ones, so every slot arrangement is met."""

from __future__ import annotations

import math
import random

import pytest

from layouts.layered.graph import ProperGraph, layer_positions
from layouts.layered.loopbacks.costs import CorridorCosts
from layouts.layered.pipeline import prepare
from layouts.options import LayoutOptions, LoopBackRoute
from renderer.corpus import generated_graph

OUTSIDE = LayoutOptions(loop_back_route=LoopBackRoute.OUTSIDE)


def crossed(graph: ProperGraph, pos: list[int], node: int, reach: float, below: bool) -> int:
    """Segments of ``node``'s channel below (or above) strictly between it and ``reach``."""
    low, high = sorted((pos[node], reach))
    layer, component = graph.rank[node], graph.component[node]
    return sum(1 for a, b in graph.segments
               if graph.component[a] == component
               and graph.rank[a if below else b] == layer
               and low < pos[a if below else b] < high)


def shuffled(layers: tuple[tuple[int, ...], ...], count: int, seed: int) -> list[int]:
    rng = random.Random(seed)
    mixed = [rng.sample(layer, len(layer)) for layer in layers]
    return layer_positions(mixed, count)


def partial(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Ranges that share more than one channel, neither holding the other."""
    share = min(a[1], b[1]) - max(a[0], b[0])
    return share > 0 and not (a[0] <= b[0] and b[1] <= a[1]) \
        and not (b[0] <= a[0] and a[1] <= b[1])


@pytest.mark.parametrize("options", [OUTSIDE, LayoutOptions()], ids=["outside", "lanes"])
@pytest.mark.parametrize("size,seed", [(60, 1), (120, 2), (200, 3)])
def test_run_counts_match_the_definition(size: int, seed: int, options: LayoutOptions) -> None:
    stages = prepare(generated_graph(size, seed), options)
    graph = stages.proper
    costs = CorridorCosts(graph)
    reversed_edges = [e for e in graph.chain_edges if e.reversed and e.upper != e.lower]
    assert reversed_edges
    for trial in range(4):
        pos = layer_positions(stages.order.layers, len(graph.nodes)) if trial == 0 else \
            shuffled(stages.order.layers, len(graph.nodes), trial)
        lanes = 0
        for edge in reversed_edges:
            lower, upper = graph.index[edge.lower], graph.index[edge.upper]
            if edge.lane:
                bottom, top = graph.index[edge.chain[-1]], graph.index[edge.chain[0]]
                lanes += crossed(graph, pos, lower, pos[bottom], True) \
                    + crossed(graph, pos, upper, pos[top], False)
                continue
            for side in (-1, 1):
                reach = math.inf * side
                expected = crossed(graph, pos, lower, reach, True) \
                    + crossed(graph, pos, upper, reach, False)
                assert costs.runs(pos, lower, upper, side) == expected
        assert costs.lane_runs(pos) == lanes
        chosen, total = costs.assign(pos, lambda component: 1)
        sides = dict(chosen)
        corridors = [e for e in costs.edges if e[1] in sides]
        expected_total = lanes + sum(costs.runs(pos, lower, upper, sides[i])
                                     for _, i, lower, upper, _ in corridors)
        expected_total += sum(1 for k, a in enumerate(corridors) for b in corridors[:k]
                              if sides[a[1]] == sides[b[1]] and partial(a[4], b[4]))
        assert total == expected_total
