"""Phase 5b, loop-back lanes: draw inside the loop-backs that cost crossings around the side.

Routing draws a reversed edge (a declared loop-back or an edge of the feedback set) in a
corridor beside the drawing. Corridors whose layer ranges nest or are disjoint never
cross, but two whose ranges *interleave* (neither holds the other) are interleaved chords:
on one side of the drawing one's run into the drawing crosses the other's corridor, and
putting them on opposite sides usually costs more where their ends must swap sides with a
parallel branch. Graphviz dot and ELK layered avoid that by drawing every back edge through
the inside, between the columns.

This step keeps the corridors wherever they are free and moves only the costly ones
inside: when ordering reports corridor crossings, the corridors behind them
(:meth:`~layouts.layered.loopbacks.costs.CorridorCosts.crossing_edges`) get a *lane*, a
dummy chain from the upper node's layer to the lower node's (:mod:`.layering.chains`);
ordering runs again with the lanes among the columns, and the order with fewer crossings
in total wins, the all-outside one on ties. The first try moves one corridor of each
crossing pair (the shorter), the second both. Up to :data:`ROUNDS` rounds, each adding
lanes for the corridors still costing crossings. With the option
``loop_back_route=outside`` (or once the time budget has run out) the step does nothing.

Pre-condition: the acyclic graph, its ranks, and the proper graph and ordering built from
them without lanes. Post-condition: a proper graph and an ordering of it whose crossing
count (segments plus corridor and lane runs) is at most the given one.

Two parallel branches a1..a7 and b1..b7; in branch a, loop-backs a5 -> a1 and a6 -> a3
interleave. Around the left side they cross; the right side means crossing branch b.
A lane between the branches for the shorter one crosses nothing:

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.layered.pipeline import prepare
>>> names = ["s", "t", *(f"{c}{i}" for c in "ab" for i in range(1, 8))]
>>> edges = [Edge(f"{c}{i}", f"{c}{i}", f"{c}{i + 1}") for c in "ab" for i in range(1, 7)]
>>> edges += [Edge(f"s{c}", "s", f"{c}1") for c in "ab"] + [Edge(f"{c}t", f"{c}7", "t")
...                                                        for c in "ab"]
>>> edges += [Edge("back1", "a5", "a1", loop_back=True),
...           Edge("back2", "a6", "a3", loop_back=True)]
>>> g = Graph(tuple(Node(n, 60, 30) for n in names), tuple(edges))
>>> def crossings(stages):
...     return stages.order.crossings + stages.order.corridor_crossings
>>> outside = prepare(g, LayoutOptions(loop_back_route=LoopBackRoute.OUTSIDE))
>>> auto = prepare(g, LayoutOptions())
>>> crossings(outside), crossings(auto), [e.id for e in auto.proper.chain_edges if e.lane]
(1, 0, ['back2'])
"""

from __future__ import annotations

from layouts.layered import ordering
from layouts.layered.graph import LayeredGraph, ProperGraph, layer_positions
from layouts.layered.layering import chains
from layouts.layered.loopbacks.costs import CorridorCosts
from layouts.layered.model import Deadline
from layouts.layered.ordering import OrderingResult
from layouts.options import LayoutOptions, LoopBackRoute

__all__ = ["ROUNDS", "run"]

ROUNDS = 2
"""Orderings with lanes tried at most, each after the previous one improved."""


def run(graph: LayeredGraph, rank: tuple[int, ...], proper: ProperGraph,
        order: OrderingResult, options: LayoutOptions, deadline: Deadline | None = None
        ) -> tuple[ProperGraph, OrderingResult]:
    """The proper graph and ordering with the fewest crossings; see the module docstring."""
    if options.loop_back_route is LoopBackRoute.OUTSIDE:
        return proper, order
    lanes: frozenset[int] = frozenset()
    for _ in range(ROUNDS):
        improved = False
        for cover in (True, False):
            if not order.corridor_crossings or (deadline is not None and deadline.expired()):
                return proper, order
            more = _costly_corridors(proper, order, _lane_room(proper, lanes), cover)
            if not more:
                continue
            candidate = chains.run(graph, rank, lanes | more)
            reordered = ordering.run(candidate, options, deadline)
            if _total(reordered) < _total(order):
                lanes, proper, order, improved = lanes | more, candidate, reordered, True
                break
        if not improved:
            break
    return proper, order


def _total(order: OrderingResult) -> int:
    return order.crossings + order.corridor_crossings


def _lane_room(proper: ProperGraph, lanes: frozenset[int]) -> int:
    """Lane dummies still allowed: as many as the graph has nodes without lanes, so the
    ordering with lanes does at most about twice the work."""
    used = sum(len(proper.chain_edges[i].chain) for i in lanes)
    return len(proper.nodes) - 2 * used


def _costly_corridors(proper: ProperGraph, order: OrderingResult, room: int,
                      cover: bool) -> frozenset[int]:
    """Input positions of the corridors that cost crossings (``cover``: see
    :meth:`CorridorCosts.crossing_edges`), shortest first, as many as ``room`` lane
    dummies allow (chain edges are in input order, so index is position)."""
    pos = layer_positions(order.layers, len(proper.nodes))
    chosen: set[int] = set()
    costly = CorridorCosts(proper).crossing_edges(pos, order.corridor_sides, cover=cover)
    for i in sorted(costly, key=lambda i: (_span(proper, i), i)):
        room -= _span(proper, i)
        if room < 0:
            break
        chosen.add(i)
    return frozenset(chosen)


def _span(proper: ProperGraph, i: int) -> int:
    """Layers a lane for chain edge ``i`` passes: from its upper node's to its lower's."""
    edge = proper.chain_edges[i]
    return proper.rank[proper.index[edge.lower]] - proper.rank[proper.index[edge.upper]] + 1
