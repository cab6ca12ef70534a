"""Where a try of the lane step (:mod:`.lanes`) starts ordering from: the order in hand,
with each new lane put beside the column of its loop.

A try adds lanes to a drawing whose order is already the result of the ordering phase.
Ordering the graph with lanes from scratch would pay the whole search again (restarts,
sifting) for a change local to a few loops; instead the try starts from the order in
hand (:func:`layouts.layered.ordering.refine` then sweeps it once and shifts lanes).
Every node keeps its slot; each new lane, shortest first, goes into every layer it passes
next to its loop's *column*: the nodes of that layer on a path from the loop's upper node
down to its lower node, and the lanes of loops nested inside it (so nested loops nest).
It stands right of the column or left of it, whichever crosses fewer segments in those
layers and runs into it, then whichever leaves it outermost in fewer layers (there it
widens the drawing as its corridor did, and is no shorter), then the side of its old
corridor. A layer without a
column node (a declared loop-back with no path back) takes the lane at the slot its
neighbours' layers give it in proportion.

Two layers, a -> b and c -> d side by side, and the loop b -> a: the lane's dummies go
beside a and b, on the right (nothing there to cross; the corridor was on the right):

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.layered.graph import import_graph
>>> from layouts.layered.cycles import run as break_cycles
>>> from layouts.layered.layering import chains
>>> from layouts.layered.ordering import OrderingResult
>>> from layouts.options import LayoutOptions
>>> g = Graph(tuple(Node(n, 9, 9) for n in "abcd"),
...           (Edge("ab", "a", "b"), Edge("cd", "c", "d"), Edge("back", "b", "a", loop_back=True)))
>>> acyclic = break_cycles(import_graph(g, LayoutOptions()))
>>> before = chains.run(acyclic, (0, 1, 0, 1))
>>> after = chains.run(acyclic, (0, 1, 0, 1), frozenset({2}))
>>> lane_start(before, OrderingResult(((0, 2), (1, 3)), 0, 0, (0, 0, 1)), after)
[[0, 4, 2], [1, 5, 3]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from layouts.layered.graph import ProperGraph
from layouts.layered.ordering import OrderingResult

__all__ = ["lane_start"]


@dataclass(frozen=True, slots=True)
class _Lane:
    """A lane of the graph with lanes: its chain edge, upper and lower node, dummies."""

    edge: int
    upper: int
    lower: int
    dummies: tuple[int, ...]


REACH = 3
"""Slots beyond the outermost node of its column a lane may stand at, per layer."""

OUTERMOST = 1_000
"""The weight of what comes first in :func:`lane_start`'s choice of slots, crossings or
layers in which the lane is outermost (what comes second weighs 1): more than either
can count on a lane the size of :data:`layouts.layered.loopbacks.lanes.SHORT_ROOM`."""


def lane_start(before: ProperGraph, order: OrderingResult, after: ProperGraph, *,
               inside_first: bool = False) -> list[list[int]]:
    """``order``'s layers (of ``before``) in ``after``'s node indices, with every lane
    ``after`` has and ``before`` has not put beside its loop's column; ``after`` is
    ``before``'s acyclic graph split again with more lanes
    (:func:`layouts.layered.layering.chains.run`). ``inside_first``: each lane's side
    is the one where it is outermost in fewer layers, then the one crossing less."""
    mapping = _index_map(before, after)
    layers = [[mapping[v] for v in layer] for layer in order.layers]
    down: list[list[int]] = [[] for _ in after.nodes]
    up: list[list[int]] = [[] for _ in after.nodes]
    for a, b in after.segments:
        down[a].append(b)
        up[b].append(a)
    lanes = _lanes(after)
    placed = [lane for lane in lanes if before.chain_edges[lane.edge].lane]
    for lane in sorted((lane for lane in lanes if not before.chain_edges[lane.edge].lane),
                       key=lambda lane: (len(lane.dummies), lane.edge)):
        column, connected = _column(after, lane, down, up, placed)
        preferred = 1 if order.corridor_sides[lane.edge] >= 0 else -1
        weights = (1, OUTERMOST) if inside_first else (OUTERMOST, 1)
        tries = [_best_slots(layers, after, lane, (column, connected), side, down, up,
                             weights) for side in (preferred, -preferred)]
        slots = min(tries, key=lambda tried: tried[0])[1]
        layers = _inserted(layers, after, lane, slots)
        placed.append(lane)
    return layers


def _index_map(before: ProperGraph, after: ProperGraph) -> list[int]:
    """``after``'s index of each node of ``before``: real nodes keep theirs, dummies are
    matched along their chain edge (dummy ids shift when lanes come in before them).
    :func:`layouts.layered.layering.chains.run` gives the dummies of one chain
    consecutive indices, top to bottom, so a chain maps as one slice."""
    mapping = list(range(len(before.nodes)))
    for old, new in zip(before.chain_edges, after.chain_edges, strict=True):
        count = len(old.chain)
        if count and count == len(new.chain):
            first, start = before.index[old.chain[0]], after.index[new.chain[0]]
            mapping[first:first + count] = range(start, start + count)
    return mapping


def _lanes(graph: ProperGraph) -> list[_Lane]:
    return [_Lane(i, graph.index[e.upper], graph.index[e.lower],
                  tuple(graph.index[d] for d in e.chain))
            for i, e in enumerate(graph.chain_edges) if e.lane]


def _reach(start: int, neighbours: Sequence[Sequence[int]], rank: Sequence[int],
           low: int, high: int) -> set[int]:
    """Nodes reachable from ``start`` through ``neighbours`` within ranks low..high."""
    seen = {start}
    stack = [start]
    while stack:
        for w in neighbours[stack.pop()]:
            if w not in seen and low <= rank[w] <= high:
                seen.add(w)
                stack.append(w)
    return seen


def _column(graph: ProperGraph, lane: _Lane, down: Sequence[Sequence[int]],
            up: Sequence[Sequence[int]], placed: Sequence[_Lane]) -> tuple[set[int], bool]:
    """The loop's column: its upper and lower node, the nodes on a path from one to the
    other, and the dummies of the lanes placed so far whose loops lie on such paths
    (nested loops); and whether such a path exists."""
    first, last = graph.rank[lane.upper], graph.rank[lane.lower]
    below = _reach(lane.upper, down, graph.rank, first, last)
    column = below & _reach(lane.lower, up, graph.rank, first, last) | {lane.upper, lane.lower}
    nested = [other.dummies for other in placed
              if other.upper in column and other.lower in column]
    return column.union(*nested), lane.lower in below


def _best_slots(layers: Sequence[Sequence[int]], graph: ProperGraph, lane: _Lane,
                loop: tuple[set[int], bool], side: int, down: Sequence[Sequence[int]],
                up: Sequence[Sequence[int]], weights: tuple[int, int]
                ) -> tuple[int, list[int]]:
    """The lowest cost of the lane on ``side`` (``+1`` right, ``-1`` left) of the
    column, and the slot in each layer it passes (top to bottom) that gives it, of the
    slots :func:`_choices` allows (``loop``: the column and whether a path joins the
    loop's ends). The cost is the crossings of its segments and of its two runs, and the
    layers where it is outermost, ``weights`` apart; by dynamic programming over the
    layers."""
    crossing, outermost = weights
    column, connected = loop
    ranks = [graph.rank[d] for d in lane.dummies]
    pos = _positions(layers, ranks[0] - 1, ranks[-1] + 1, len(graph.nodes))
    choices = _choices(layers, ranks, column, side, connected)
    outer = [[outermost * (s in (0, len(layers[r]))) for s in slots]
             for r, slots in zip(ranks, choices, strict=True)]
    cost = [crossing * _run_cost(layers[ranks[0]], up, pos, lane.upper, s) + o
            for s, o in zip(choices[0], outer[0], strict=True)]
    back: list[list[int]] = []
    for k in range(1, len(ranks)):
        pairs = [(pos[a], pos[b]) for a in layers[ranks[k - 1]] for b in down[a]]
        totals = [[cost[i] + o + crossing * sum(1 for pa, pb in pairs
                                                if (pa < s) != (pb < t))
                   for i, s in enumerate(choices[k - 1])]
                  for t, o in zip(choices[k], outer[k], strict=True)]
        step = [row.index(min(row)) for row in totals]
        cost = [min(row) for row in totals]
        back.append(step)
    cost = [c + crossing * _run_cost(layers[ranks[-1]], down, pos, lane.lower, s)
            for c, s in zip(cost, choices[-1], strict=True)]
    best = min(range(len(cost)), key=lambda i: cost[i])
    picked = [best]
    for step in reversed(back):
        picked.append(step[picked[-1]])
    picked.reverse()
    return cost[best], [choices[k][i] for k, i in enumerate(picked)]


def _choices(layers: Sequence[Sequence[int]], ranks: Sequence[int], column: set[int],
             side: int, connected: bool) -> list[list[int]]:
    """Insertion slots (index of the node the lane goes before) per lane layer. When a
    path joins the loop's ends (``connected``): just outside the column on ``side`` and
    up to :data:`REACH` further out (in a layer without a column node, the slot its
    neighbours' layers give it). When none does, the lane must cross from one end's
    side to the other's: up to :data:`REACH` either way of the slot beside each end,
    and of the proportional slot in the layers between."""
    edges: dict[int, int] = {}
    for r in ranks:
        at = [i for i, v in enumerate(layers[r]) if v in column]
        if at:
            edges[r] = max(at) + 1 if side > 0 else min(at)
    choices: list[list[int]] = []
    for r in ranks:
        size = len(layers[r])
        if not connected:
            centre = edges[r] if r in edges else _between(edges, r, layers)
            choices.append(list(range(max(0, centre - REACH), min(size, centre + REACH) + 1)))
        elif r not in edges:
            choices.append([_between(edges, r, layers)])
        elif side > 0:
            choices.append(list(range(edges[r], min(edges[r] + REACH, size) + 1)))
        else:
            choices.append(list(range(edges[r], max(edges[r] - REACH, 0) - 1, -1)))
    return choices


def _run_cost(layer: Sequence[int], across: Sequence[Sequence[int]], pos: Sequence[int],
              node: int, slot: int) -> int:
    """Crossings of the run between ``node`` and a lane at insertion ``slot`` of its
    layer: the segments into (above) or out of (below, ``across`` the down lists) the
    layer at nodes strictly between the two."""
    low, high = (pos[node] + 1, slot) if slot > pos[node] else (slot, pos[node])
    return sum(len(across[v]) for v in layer[low:high])


def _positions(layers: Sequence[Sequence[int]], first: int, last: int, count: int
               ) -> list[int]:
    pos = [0] * count
    for r in range(max(0, first), min(len(layers), last + 1)):
        for p, v in enumerate(layers[r]):
            pos[v] = p
    return pos


def _inserted(layers: list[list[int]], graph: ProperGraph, lane: _Lane, slots: Sequence[int]
              ) -> list[list[int]]:
    """A copy of ``layers`` with the lane's dummies inserted at ``slots``."""
    out = list(layers)
    for d, slot in zip(lane.dummies, slots, strict=True):
        layer = list(out[graph.rank[d]])
        layer.insert(slot, d)
        out[graph.rank[d]] = layer
    return out


def _between(edges: dict[int, int], r: int, layers: Sequence[Sequence[int]]) -> int:
    """The slot in layer ``r`` at the fraction of its width that the nearest layers with
    a slot have (both ends of a lane have one: its upper and lower nodes)."""
    above = max(k for k in edges if k < r)
    below = min(k for k in edges if k > r)
    share = (r - above) / (below - above)
    fraction = ((1 - share) * edges[above] / max(1, len(layers[above]))
                + share * edges[below] / max(1, len(layers[below])))
    return round(fraction * len(layers[r]))
