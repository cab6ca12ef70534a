"""Phase 5b, loop-back lanes: draw inside the loop-backs that cost crossings around the side
of the drawing, or that are shorter inside.

Routing draws a reversed edge (a declared loop-back or an edge of the feedback set) in a
corridor beside the drawing. Corridors whose layer ranges nest or are disjoint never
cross, but two whose ranges *interleave* (neither holds the other) are interleaved chords:
on one side of the drawing one's run into the drawing crosses the other's corridor, and
putting them on opposite sides usually costs more where their ends must swap sides with a
parallel branch. Graphviz dot and ELK layered avoid that by drawing every back edge through
the inside, between the columns.

This step moves the costly corridors inside first: when ordering reports corridor
crossings, the corridors behind them
(:meth:`~layouts.layered.loopbacks.costs.CorridorCosts.crossing_edges`) get a *lane*, a
dummy chain from the upper node's layer to the lower node's (:mod:`.layering.chains`);
ordering runs again with the lanes among the columns, and the order with fewer crossings
in total wins, the all-outside one on ties. The first try moves one corridor of each
crossing pair (the shorter), the second both. Up to :data:`ROUNDS` rounds, each adding
lanes for the corridors still costing crossings.

Then the *short loop-backs*: a corridor runs out beyond every node of the drawing, a lane
beside the column of its loop, so the last try gives every loop-back still in a corridor
a lane and keeps that when its ordering crosses no more, and placement of it (corridors
included, spaced as routing spaces them) is no wider and makes the loop-backs' runs
shorter. Loops nested in one column then nest in lanes beside it. Corridors stay where
the lanes would widen the drawing: a loop whose column is already outermost, or lanes
that must squeeze between columns.

With the option ``loop_back_route=outside`` (or once the time budget has run out) the step
does nothing.

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

import itertools
from collections.abc import Iterable

from layouts.layered import ordering, placement
from layouts.layered.graph import LayeredGraph, ProperGraph, layer_positions
from layouts.layered.layering import chains
from layouts.layered.loopbacks.corridors import assign_corridors, corridor_lines
from layouts.layered.loopbacks.costs import CorridorCosts
from layouts.layered.model import Deadline, PlacedNode
from layouts.layered.ordering import OrderingResult
from layouts.options import LayoutOptions, LoopBackRoute

__all__ = ["ROUNDS", "run"]

ROUNDS = 2
"""Orderings with lanes tried at most, each after the previous one improved."""

WIDTH_SLACK = 0.01
"""How much wider (a fraction) the drawing with short loop-back lanes may be: placement
moves columns by a few pixels either way, which is noise beside the loop-backs' length."""

SHORT_SPAN = 8
"""Layers a loop spans at most to take part in the second, local try of short lanes."""

SHORT_ROOM = 64
"""Lane dummies the short loop-backs may take however small the graph (on a small graph
the bound of :func:`_lane_room` would leave nested loops half in corridors)."""


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
            if not order.corridor_crossings or _expired(deadline):
                break
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
    return _shorter(graph, rank, proper, order, lanes, options, deadline)


def _shorter(graph: LayeredGraph, rank: tuple[int, ...], proper: ProperGraph,
             order: OrderingResult, lanes: frozenset[int], options: LayoutOptions,
             deadline: Deadline | None) -> tuple[ProperGraph, OrderingResult]:
    """The drawing with a lane for every loop-back still in a corridor as well, when its
    ordering crosses no more, its placement (corridors included) is no wider, its
    loop-backs are shorter and its edges no longer in all; failing that, the same with
    lanes for the loops of at most :data:`SHORT_SPAN` layers only; else the one given."""
    corridors = _corridors(proper, max(_lane_room(proper, lanes), SHORT_ROOM))
    short = frozenset(i for i in corridors if _span(proper, i) <= SHORT_SPAN)
    drawn: tuple[float, float, float] | None = None
    for more in dict.fromkeys((corridors, short)):
        if not more or _expired(deadline):
            break
        candidate = chains.run(graph, rank, lanes | more)
        reordered = ordering.run(candidate, options, deadline)
        if _total(reordered) > _total(order) or _expired(deadline):
            continue
        width, loops, every = drawn = drawn or _drawn(proper, order, options)
        lane_width, lane_loops, lane_every = _drawn(candidate, reordered, options)
        if lane_width <= width * (1 + WIDTH_SLACK) and lane_loops < loops \
                and lane_every <= every:
            return candidate, reordered
    return proper, order


def _expired(deadline: Deadline | None) -> bool:
    return deadline is not None and deadline.expired()


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
    costly = CorridorCosts(proper).crossing_edges(pos, order.corridor_sides, cover=cover)
    return _shortest_within(proper, costly, room)


def _corridors(proper: ProperGraph, room: int) -> frozenset[int]:
    """Input positions of the reversed edges still drawn in corridors (self-loops aside),
    shortest first, as many as ``room`` lane dummies allow."""
    corridors = [i for i, e in enumerate(proper.chain_edges)
                 if e.reversed and e.upper != e.lower and not e.lane]
    return _shortest_within(proper, corridors, room)


def _shortest_within(proper: ProperGraph, candidates: Iterable[int], room: int
                     ) -> frozenset[int]:
    """Of the chain edges ``candidates``, the shortest first (ties by position), as many
    as ``room`` lane dummies allow: the first that does not fit ends the choice."""
    chosen: set[int] = set()
    for i in sorted(candidates, key=lambda i: (_span(proper, i), i)):
        room -= _span(proper, i)
        if room < 0:
            break
        chosen.add(i)
    return frozenset(chosen)


def _drawn(proper: ProperGraph, order: OrderingResult, options: LayoutOptions
           ) -> tuple[float, float, float]:
    """Of the drawing placement makes of ``order``: its width, corridors included; the
    horizontal length of its loop-backs (out of the lower node to the corridor or lane,
    along the lane's columns, back into the upper node; the vertical length is the same
    either way); and that of every edge (node centre to node centre per segment)."""
    placed = placement.run(proper, order, options)
    nodes = placed.nodes
    low = min(n.x for n in nodes.values())
    high = max(n.x + n.width for n in nodes.values())
    margin = max(options.clearance, options.edge_spacing)   # as routing spaces corridors
    lines = corridor_lines(assign_corridors(placed), (low, high), margin, options.edge_spacing)
    centre = [_centre(nodes[n.id]) for n in proper.nodes]
    every = sum(abs(centre[a] - centre[b]) for a, b in proper.segments)
    loops = 0.0
    for i, edge in enumerate(placed.edges):
        if not edge.reversed or edge.upper == edge.lower:
            continue
        lower, upper = _centre(nodes[edge.lower]), _centre(nodes[edge.upper])
        if edge.lane:
            columns = [_centre(nodes[d]) for d in edge.chain]
            runs = abs(columns[-1] - lower) + abs(columns[0] - upper)
            loops += runs + sum(abs(b - a) for a, b in itertools.pairwise(columns))
        else:
            runs = abs(lines[i] - lower) + abs(lines[i] - upper)
            loops += runs
        every += runs
    width = max([high, *lines.values()]) - min([low, *lines.values()])
    return width, loops, every


def _centre(node: PlacedNode) -> float:
    return node.x + node.width / 2


def _span(proper: ProperGraph, i: int) -> int:
    """Layers a lane for chain edge ``i`` passes: from its upper node's to its lower's."""
    edge = proper.chain_edges[i]
    return proper.rank[proper.index[edge.lower]] - proper.rank[proper.index[edge.upper]] + 1
