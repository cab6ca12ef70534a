"""Phase 3, crossing minimisation: layer sweeps with barycenter and median, transpose,
seeded restarts and sifting, counting crossings exactly (Barth-Juenger-Mutzel); each
weakly connected component is ordered on its own and components stand side by side in
model order.

Pre-condition: a :class:`ProperGraph` (every segment spans one layer).
Post-condition: per layer, a permutation of that layer's nodes; the crossing count of
the best order found. The effort level fixes the amount of work (:data:`EFFORT_PLANS`);
the deadline only cuts it short, keeping the best order so far.

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.layered.graph import import_graph
>>> from layouts.layered.layering import chains
>>> from layouts.options import LayoutOptions
>>> g = Graph(tuple(Node(n, 9, 9) for n in "abcd"),
...           (Edge("1", "a", "d"), Edge("2", "b", "c")))
>>> result = run(chains.run(import_graph(g, LayoutOptions()), (0, 0, 1, 1)), LayoutOptions())
>>> result.layers, result.crossings
(((0, 1), (3, 2)), 0)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from layouts.layered.graph import ProperGraph
from layouts.layered.model import Deadline
from layouts.layered.ordering.crossings import total_crossings
from layouts.layered.ordering.local_search import sift, transpose
from layouts.layered.ordering.sweep import initial_layers, sweep
from layouts.options import Effort, LayoutOptions

__all__ = ["EFFORT_PLANS", "OrderingPlan", "OrderingResult", "run"]


@dataclass(frozen=True, slots=True)
class OrderingPlan:
    """How much work one effort level does: restarts (the first from model order, the
    rest seeded-random), sweeps per restart (alternately down and up; barycenter for two
    sweeps, then median for two), transpose after each sweep, sifting rounds at the end."""

    restarts: int
    sweeps: int
    transpose: bool
    sifting_rounds: int


EFFORT_PLANS: dict[Effort, OrderingPlan] = {
    Effort.DRAFT: OrderingPlan(restarts=1, sweeps=2, transpose=False, sifting_rounds=0),
    Effort.BALANCED: OrderingPlan(restarts=4, sweeps=8, transpose=True, sifting_rounds=0),
    Effort.BEST: OrderingPlan(restarts=12, sweeps=16, transpose=True, sifting_rounds=2),
}


@dataclass(frozen=True, slots=True)
class OrderingResult:
    """Node indices per layer, left to right, and their crossing count."""

    layers: tuple[tuple[int, ...], ...]
    crossings: int


def run(graph: ProperGraph, options: LayoutOptions,
        deadline: Deadline | None = None) -> OrderingResult:
    """Order every layer of ``graph``; see the module docstring."""
    plan = EFFORT_PLANS[options.effort]
    node_count = len(graph.nodes)
    up: list[list[int]] = [[] for _ in range(node_count)]
    down: list[list[int]] = [[] for _ in range(node_count)]
    for a, b in graph.segments:
        down[a].append(b)
        up[b].append(a)
    members: dict[int, list[int]] = {}
    for v in range(node_count):
        members.setdefault(graph.component[v], []).append(v)
    layers: list[list[int]] = [[] for _ in range(graph.layer_count)]
    crossings = 0
    pos = [0] * node_count
    for c, nodes in members.items():
        rng = random.Random(options.seed * 1_000_003 + c)
        best, count = _order_component(nodes, graph, up, down, pos, plan, rng, deadline)
        crossings += count
        for i, layer in enumerate(best):
            layers[i].extend(layer)
    return OrderingResult(tuple(tuple(layer) for layer in layers), crossings)


def _order_component(nodes: list[int], graph: ProperGraph, up: Sequence[Sequence[int]],
                     down: Sequence[Sequence[int]], pos: list[int], plan: OrderingPlan,
                     rng: random.Random, deadline: Deadline | None
                     ) -> tuple[list[list[int]], int]:
    best: list[list[int]] = []
    best_count = -1
    for restart in range(plan.restarts):
        layers = initial_layers(nodes, graph.rank, down, graph.layer_count,
                                rng if restart else None)
        _set_positions(layers, pos)
        count = total_crossings(layers, pos, down)
        for iteration in range(plan.sweeps + 1):
            if best_count == -1 or count < best_count:
                best, best_count = [list(layer) for layer in layers], count
            if best_count == 0 or iteration == plan.sweeps or _expired(deadline):
                break
            sweep(layers, pos, up, down, downward=iteration % 2 == 0,
                  median=(iteration // 2) % 2 == 1)
            if plan.transpose:
                transpose(layers, pos, up, down)
            count = total_crossings(layers, pos, down)
        if best_count == 0 or _expired(deadline):
            break
    for _ in range(plan.sifting_rounds):
        if best_count == 0 or _expired(deadline):
            break
        layers = [list(layer) for layer in best]
        _set_positions(layers, pos)
        sift(layers, pos, up, down, deadline)
        transpose(layers, pos, up, down)
        count = total_crossings(layers, pos, down)
        if count >= best_count:
            break
        best, best_count = layers, count
    return best, best_count


def _set_positions(layers: Sequence[Sequence[int]], pos: list[int]) -> None:
    for layer in layers:
        for p, v in enumerate(layer):
            pos[v] = p


def _expired(deadline: Deadline | None) -> bool:
    return deadline is not None and deadline.expired()
