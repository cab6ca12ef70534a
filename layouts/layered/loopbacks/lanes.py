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
ordering refines the order in hand with the new lanes put beside their loops' columns
(:mod:`.lane_start`, :func:`layouts.layered.ordering.refine`: a change this local does
not pay for the whole search again), and the order with fewer crossings in total wins,
the all-outside one on ties. The first try moves one corridor of each
crossing pair (the shorter), the second both. Up to :data:`ROUNDS` rounds, each adding
lanes for the corridors still costing crossings.

Then the *short loop-backs*: a corridor runs out beyond every node of the drawing, a lane
beside the column of its loop, so the last try gives every loop-back still in a corridor
a lane and keeps that when its ordering crosses no more, and placement of it (corridors
included, spaced as routing spaces them) is no wider and makes the loop-backs' runs
shorter. Loops nested in one column then nest in lanes beside it. Corridors stay where
the lanes would widen the drawing: a loop whose column is already outermost, or lanes
that must squeeze between columns. A try whose lanes cannot be shorter whatever the order
(:func:`.lane_drawing.loop_bound`) is skipped, and the placement the try made of the
drawing it keeps is handed on (:class:`LaneChoice`), so the placement step does not
place it again; the trial compares the placements' centres
(:func:`.lane_drawing.measure_centres`) and builds only the kept one.

With the option ``loop_back_route=outside`` (or once the time budget has run out) the step
does nothing; at ``draft`` effort it skips the short loop-backs (:data:`SHORT_LANES`).

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

from collections.abc import Iterable
from dataclasses import dataclass

from layouts.layered import ordering, placement
from layouts.layered.graph import LayeredGraph, ProperGraph, layer_positions
from layouts.layered.layering import chains
from layouts.layered.loopbacks.costs import CorridorCosts
from layouts.layered.loopbacks.facing import costlier_than_corridors, facing_start
from layouts.layered.loopbacks.lane_drawing import Drawn, loop_bound, measure_centres
from layouts.layered.loopbacks.lane_start import lane_start
from layouts.layered.model import Deadline, Placement
from layouts.layered.ordering import OrderingResult
from layouts.options import Effort, LayoutOptions, LoopBackRoute

__all__ = ["ROUNDS", "SHORT_LANES", "LaneChoice", "choose", "run"]

ROUNDS = 2
"""Orderings with lanes tried at most, each after the previous one improved."""

WIDTH_SLACK = 0.01
"""How much wider (a fraction) the drawing with short loop-back lanes may be: placement
moves columns by a few pixels either way, which is noise beside the loop-backs' length."""

SHORT_SPAN = 8
"""Layers a loop spans at most to take part in the second, local try of short lanes."""

FULL_ORDER_NODES = 1_000
"""Proper graph nodes (real and dummy) up to which a try whose refined order still
crosses also orders from scratch (:func:`layouts.layered.ordering.run`) and keeps that
when it crosses less: a whole new search can find what refining the order in hand
misses, and on graphs this small it is cheap beside placement."""

SHORT_LANES: dict[Effort, bool] = {Effort.DRAFT: False, Effort.BALANCED: True,
                                   Effort.BEST: True}
"""Whether the effort runs the trial of short loop-back lanes (:func:`_shorter`). It
orders and places a second drawing and keeps one of the two, the costliest optional
step of a small graph's layout; ``draft`` skips it as it skips compaction, keeping
the lanes that save corridor crossings."""

SHORT_ROOM = 64
"""Lane dummies the short loop-backs may take however small the graph (on a small graph
the bound of :func:`_lane_room` would leave nested loops half in corridors)."""


@dataclass(frozen=True, slots=True)
class LaneChoice:
    """The proper graph and ordering chosen, and the placement the trial of short lanes
    made of them, if it made one: Brandes-Koepf's, as :func:`placement.run` makes it
    (without ``quick``), so the placement step can take it instead of placing again."""

    proper: ProperGraph
    order: OrderingResult
    placement: Placement | None = None

    def place(self, options: LayoutOptions, *, quick: bool = False) -> Placement:
        """The placement kept from the trial, else :func:`placement.run`'s."""
        if self.placement is not None:
            return self.placement
        return placement.run(self.proper, self.order, options, quick=quick)


def run(graph: LayeredGraph, rank: tuple[int, ...], proper: ProperGraph,
        order: OrderingResult, options: LayoutOptions, deadline: Deadline | None = None
        ) -> tuple[ProperGraph, OrderingResult]:
    """The proper graph and ordering with the fewest crossings; see the module docstring."""
    choice = choose(graph, rank, proper, order, options, deadline)
    return choice.proper, choice.order


def choose(graph: LayeredGraph, rank: tuple[int, ...], proper: ProperGraph,
           order: OrderingResult, options: LayoutOptions, deadline: Deadline | None = None
           ) -> LaneChoice:
    """:func:`run`, with the placement the trial made of its choice, if any."""
    if options.loop_back_route is LoopBackRoute.OUTSIDE:
        return LaneChoice(proper, order)
    proper, order = _facing_check(graph, rank, proper, order, options, deadline)
    lanes: frozenset[int] = frozenset()
    for _ in range(ROUNDS):
        improved = False
        for cover in (True, False):
            if not order.corridor_crossings or _expired(deadline):
                break
            more = _costly_corridors(proper, order, _lane_room(proper, lanes), cover)
            if not more:
                continue
            candidate = chains.run(graph, rank, lanes | more, _facing(proper))
            reordered = _reorder(proper, order, candidate, options, deadline,
                                 inside_first=False)
            if _total(reordered) < _total(order):
                lanes, proper, order, improved = lanes | more, candidate, reordered, True
                break
        if not improved:
            break
    if not SHORT_LANES[options.effort]:
        return LaneChoice(proper, order)
    return _shorter(graph, rank, proper, order, lanes, options, deadline)


def _facing_check(graph: LayeredGraph, rank: tuple[int, ...], proper: ProperGraph,
                  order: OrderingResult, options: LayoutOptions, deadline: Deadline | None
                  ) -> tuple[ProperGraph, OrderingResult]:
    """The drawing with the facing edges whose chains cross more than corridors would
    (:func:`.facing.costlier_than_corridors`) back in corridors, when the order refined
    from the one in hand crosses less in total; else the one given."""
    costly = costlier_than_corridors(proper, order) - _flipped(graph)
    if not costly or _expired(deadline):
        return proper, order
    candidate = chains.run(graph, rank, facing=_facing(proper) - costly)
    reordered = _refined(candidate, facing_start(proper, order, candidate), options, deadline)
    return (candidate, reordered) if _total(reordered) < _total(order) else (proper, order)


def _shorter(graph: LayeredGraph, rank: tuple[int, ...], proper: ProperGraph,
             order: OrderingResult, lanes: frozenset[int], options: LayoutOptions,
             deadline: Deadline | None) -> LaneChoice:
    """The drawing with a lane for every loop-back still in a corridor as well, when its
    ordering crosses no more, its placement (corridors included) is no wider, its
    loop-backs are shorter and its edges no longer in all; failing that, the same with
    lanes for the loops of at most :data:`SHORT_SPAN` layers only; else the one given.
    A set of lanes whose :func:`.lane_drawing.loop_bound` is no shorter than the given
    drawing's loop-backs is not tried."""
    corridors = _corridors(proper, max(_lane_room(proper, lanes), SHORT_ROOM))
    short = frozenset(i for i in corridors if _span(proper, i) <= SHORT_SPAN)
    given: list[float] | None = None      # centres of the given drawing, once placed
    drawn = Drawn(0.0, 0.0, 0.0)
    for more in dict.fromkeys((corridors, short)):
        if not more or _expired(deadline):
            break
        if given is None:
            given = placement.centres(proper, order, options)
            drawn = measure_centres(proper, order, given, options)
        if loop_bound(proper, lanes | more, options) >= drawn.loops:
            continue
        candidate = chains.run(graph, rank, lanes | more, _facing(proper))
        reordered = _reorder(proper, order, candidate, options, deadline, inside_first=True)
        if _total(reordered) > _total(order) or _expired(deadline):
            continue
        centre = placement.centres(candidate, reordered, options)
        lane = measure_centres(candidate, reordered, centre, options)
        if lane.width <= drawn.width * (1 + WIDTH_SLACK) and lane.loops < drawn.loops \
                and lane.every <= drawn.every:
            return LaneChoice(candidate, reordered,
                              placement.placed(candidate, reordered, options, centre))
    if given is None:
        return LaneChoice(proper, order)
    return LaneChoice(proper, order, placement.placed(proper, order, options, given))


def _reorder(proper: ProperGraph, order: OrderingResult, candidate: ProperGraph,
             options: LayoutOptions, deadline: Deadline | None, *, inside_first: bool
             ) -> OrderingResult:
    """The ordering of ``candidate`` (``proper`` with more lanes), from ``order`` with its
    new lanes beside their columns (:func:`.lane_start.lane_start`; ``inside_first`` for
    the tries of short lanes, where a lane outermost is no shorter than its corridor).
    On a graph of at most :data:`FULL_ORDER_NODES` nodes where that still crosses, the
    ordering from scratch too, if it crosses less."""
    start = lane_start(proper, order, candidate, inside_first=inside_first)
    return _refined(candidate, start, options, deadline)


def _refined(candidate: ProperGraph, start: list[list[int]], options: LayoutOptions,
             deadline: Deadline | None) -> OrderingResult:
    """:func:`ordering.refine` of ``candidate`` from ``start``; on a graph of at most
    :data:`FULL_ORDER_NODES` nodes where that still crosses, the ordering from scratch
    too, if it crosses less."""
    refined = ordering.refine(candidate, start, options, deadline)
    if not _total(refined) or len(candidate.nodes) > FULL_ORDER_NODES or _expired(deadline):
        return refined
    full = ordering.run(candidate, options, deadline)
    return full if _total(full) < _total(refined) else refined


def _flipped(graph: LayeredGraph) -> frozenset[int]:
    """Input positions of the facing edges whose ports have the roles of facing
    (:mod:`layouts.layered.cycles.port_roles`): they stay facing."""
    flipped = frozenset() if graph.ports is None else graph.ports.flipped
    return frozenset(e.position for e in graph.edges if e.id in flipped)


def _facing(proper: ProperGraph) -> frozenset[int]:
    """Input positions of the reversed edges ``proper`` draws between facing faces."""
    return frozenset(i for i, e in enumerate(proper.chain_edges) if e.facing)


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


def _span(proper: ProperGraph, i: int) -> int:
    """Layers a lane for chain edge ``i`` passes: from its upper node's to its lower's."""
    edge = proper.chain_edges[i]
    return proper.rank[proper.index[edge.lower]] - proper.rank[proper.index[edge.upper]] + 1
