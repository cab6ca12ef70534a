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

Reversed edges, which routing draws around the side, take part through corridor
anchors (:mod:`layouts.layered.loopbacks.anchors`): the count of their corridor runs'
crossings is reported apart, with the side planned per component. Reversed edges with a
lane take part through their lane's dummies like any long edge, and the runs into the
lane count with the corridor runs; a last step shifts each lane sideways as a whole
(:mod:`layouts.layered.loopbacks.lane_shift`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from layouts.layered.graph import ProperGraph
from layouts.layered.loopbacks.anchors import CorridorAnchors, corridor_anchors, pin
from layouts.layered.loopbacks.costs import CorridorCosts
from layouts.layered.loopbacks.lane_shift import shift_lanes
from layouts.layered.model import Deadline
from layouts.layered.ordering.crossings import bilayer_crossings, total_crossings
from layouts.layered.ordering.local_search import sift, transpose, widen
from layouts.layered.ordering.sweep import SweepMemo, breadth_first_layers, initial_layers, sweep
from layouts.options import Effort, LayoutOptions

__all__ = ["EFFORT_PLANS", "EFFORT_STAGES", "OrderingPlan", "OrderingResult", "run"]


@dataclass(frozen=True, slots=True)
class OrderingPlan:
    """The search one effort level adds to the one below it (:data:`EFFORT_STAGES`).

    ``restarts`` layer-sweep runs, the first from the depth-first model order unless
    ``continue_best`` (then from the best order so far), with ``breadth_first`` the
    second and third from dot's breadth-first orders from the top and from the bottom
    (:func:`.sweep.breadth_first_layers`), the rest seeded-random; up to
    ``restarts`` only while the per-restart work (nodes times sweeps) stays within
    ``work`` node-sweeps, at least ``min_restarts``. Each run does up to ``sweeps``
    sweeps (alternately down and up; barycenter for two sweeps, then median for two),
    with transpose after each when ``transpose``, stopping after :data:`PATIENCE` sweeps
    in a row that did not beat its own best; ``sift_restarts`` sifts each run's result
    once. Restarts stop after ``restart_patience`` in a row that did not improve the
    best order (0: never). Then up to ``sifting_rounds`` rounds of sifting and transpose
    on the best order, while they improve it. With ``plateau``, every other pair of
    sweeps reverses ties in the sort and its transpose also swaps pairs that cross as
    much either way (Gansner et al.'s alternation), to leave a plateau of equal counts;
    only strict improvements are kept, so the model order survives wherever no fewer
    crossings are found. (``best`` runs its search only where its drawing may beat
    ``balanced``'s: :mod:`.drawn_check`.)"""

    restarts: int
    sweeps: int
    transpose: bool
    sifting_rounds: int
    min_restarts: int = 1
    work: int = 0
    restart_patience: int = 0
    sift_restarts: bool = False
    continue_best: bool = False
    plateau: bool = False
    breadth_first: bool = False

    def restart_count(self, nodes: int) -> int:
        """Restarts for a component of ``nodes`` (proper graph nodes and anchors).

        >>> EFFORT_PLANS[Effort.BALANCED].restart_count(50)
        12
        >>> EFFORT_PLANS[Effort.BALANCED].restart_count(2_000)
        4
        """
        if not self.work:
            return self.restarts
        affordable = self.work // max(1, nodes * self.sweeps)
        return max(self.min_restarts, min(self.restarts, affordable))


EFFORT_PLANS: dict[Effort, OrderingPlan] = {
    Effort.DRAFT: OrderingPlan(restarts=1, sweeps=2, transpose=False, sifting_rounds=0),
    Effort.BALANCED: OrderingPlan(restarts=12, sweeps=8, transpose=True, sifting_rounds=2,
                                  min_restarts=4, work=64_000, breadth_first=True),
    Effort.BEST: OrderingPlan(restarts=24, sweeps=16, transpose=True, sifting_rounds=4,
                              min_restarts=4, work=400_000, restart_patience=4,
                              sift_restarts=True, continue_best=True, plateau=True),
}

EFFORT_STAGES: dict[Effort, tuple[Effort, ...]] = {
    Effort.DRAFT: (Effort.DRAFT,),
    Effort.BALANCED: (Effort.DRAFT, Effort.BALANCED),
    Effort.BEST: (Effort.DRAFT, Effort.BALANCED, Effort.BEST),
}
"""The plans each effort runs, in turn, each starting from the best order the ones before
it found: so a higher effort never ends with more crossings than a lower one (unless the
time budget cuts it short)."""


PATIENCE = 3
"""A restart stops after this many sweeps in a row that did not beat its own best."""


@dataclass(frozen=True, slots=True)
class OrderingResult:
    """Node indices per layer, left to right; the crossings among the graph's segments;
    the crossings of loop-back corridor runs with them (see
    :mod:`layouts.layered.loopbacks.costs`)."""

    layers: tuple[tuple[int, ...], ...]
    crossings: int
    corridor_crossings: int = 0
    corridor_sides: tuple[int, ...] = ()
    """Per chain edge (in ``graph.chain_edges`` order): ``-1``/``+1`` the side of its
    corridor, ``0`` for edges without one."""


@dataclass(frozen=True, slots=True)
class _Work:
    """The graph ordering works on: the proper graph's nodes followed by corridor
    anchors, with neighbour lists, ranks and pins (``-1``/``+1`` pinned left/right);
    ``side_anchor`` marks the anchors that go to their corridor's side (not a lane's)."""

    up: list[list[int]]
    down: list[list[int]]
    real_down: list[list[int]]
    rank: list[int]
    pinned: list[int]
    layer_count: int
    costs: CorridorCosts
    anchors_of_edge: dict[int, list[int]]
    side_anchor: list[bool]
    lanes: dict[int, list[list[int]]]
    """Per component, the dummies of each lane, top to bottom."""
    memos: dict[int, SweepMemo]
    """Per component, the sorts of its sweeps so far (:class:`.sweep.SweepMemo`)."""

    def pin_all(self, nodes: Sequence[int], side: int) -> None:
        """Pin the side anchors among ``nodes`` to ``side``, free everything else."""
        for v in nodes:
            self.pinned[v] = side if self.side_anchor[v] else 0


def run(graph: ProperGraph, options: LayoutOptions,
        deadline: Deadline | None = None) -> OrderingResult:
    """Order every layer of ``graph``; see the module docstring."""
    anchors = corridor_anchors(graph)
    work = _work_graph(graph, anchors)
    members: dict[int, list[int]] = {}
    for v, c in enumerate((*graph.component, *anchors.component)):
        members.setdefault(c, []).append(v)
    layers: list[list[int]] = [[] for _ in range(graph.layer_count)]
    sides: dict[int, int] = {}
    pos = [0] * len(work.rank)
    for c, nodes in members.items():
        searches = [_Search(nodes, c, side, work, pos,
                            random.Random(options.seed * 1_000_003 + c), deadline)
                    for side in _sides(c, len(members), any(work.side_anchor[v] for v in nodes))]
        search = _order_component(searches, options.effort)
        sides[c] = search.side
        for i, layer in enumerate(search.best):
            layers[i].extend(v for v in layer if v < len(graph.nodes))
    return _result(graph, work, layers, pos, sides)


def _sides(component: int, component_count: int, has_anchors: bool) -> tuple[int, ...]:
    """Corridor sides to try: the left for the first component, the right for the last,
    both when there is one component; components without reversed edges need none."""
    if not has_anchors:
        return (0,)
    sides = tuple(side for side, ok in ((-1, component == 0),
                                        (1, component == component_count - 1)) if ok)
    return sides or (1,)


def _work_graph(graph: ProperGraph, anchors: CorridorAnchors) -> _Work:
    count = len(graph.nodes) + len(anchors.rank)
    up: list[list[int]] = [[] for _ in range(count)]
    down: list[list[int]] = [[] for _ in range(count)]
    real_down: list[list[int]] = [[] for _ in range(count)]
    for a, b in (*graph.segments, *anchors.segments):
        down[a].append(b)
        up[b].append(a)
    for a, b in graph.segments:
        real_down[a].append(b)
    anchors_of_edge: dict[int, list[int]] = {}
    for i, edge in enumerate(anchors.edge):
        anchors_of_edge.setdefault(edge, []).append(len(graph.nodes) + i)
    side_anchor = [False] * len(graph.nodes) + [not lane for lane in anchors.lane]
    lanes: dict[int, list[list[int]]] = {}
    for chain_edge in graph.chain_edges:
        if chain_edge.lane:
            dummies = [graph.index[d] for d in chain_edge.chain]
            lanes.setdefault(graph.component[dummies[0]], []).append(dummies)
    return _Work(up, down, real_down, [*graph.rank, *anchors.rank], [0] * count,
                 graph.layer_count, CorridorCosts(graph), anchors_of_edge, side_anchor,
                 lanes, {})


def _order_component(searches: list[_Search], effort: Effort) -> _Search:
    """The search of one component, one per corridor side to try: each runs the first
    stage of ``effort`` (:data:`EFFORT_STAGES`), the side with fewer crossings then (the
    first on ties) runs the later stages, and shifts its lanes; scored by crossings plus
    those of the loop-back corridors (:class:`CorridorCosts`, its side preferred). Only
    the first stage is paid twice, so trying both sides costs little."""
    stages = EFFORT_STAGES[effort]
    for search in searches:
        search.start_plan(EFFORT_PLANS[stages[0]])
    chosen = min(searches, key=lambda search: search.best_count)
    for stage in stages[1:]:
        if chosen.done():
            break
        chosen.start_plan(EFFORT_PLANS[stage])
    chosen.shift_lanes()
    return chosen


class _Search:
    """The state of one component's search: the current layers and the best seen."""

    def __init__(self, nodes: list[int], component: int, side: int, work: _Work,
                 pos: list[int], rng: random.Random, deadline: Deadline | None) -> None:
        self.nodes, self.component, self.side, self.work = nodes, component, side, work
        self.pos, self.rng, self.deadline = pos, rng, deadline
        self.layers: list[list[int]] = []
        self.best: list[list[int]] = []
        self.best_count = -1
        # shared by the restarts and sides of a component: their sweeps often meet
        self.memo = work.memos.setdefault(component, SweepMemo())

    def done(self) -> bool:
        """No crossings left to remove, or no time left (never before the first order:
        an expired budget still gets the depth-first order and its first sweeps)."""
        return self.best_count == 0 or (self.best_count > 0 and _expired(self.deadline))

    def offer(self, count: int) -> bool:
        """Keep the current layers if they beat the best seen; whether they did."""
        if self.best_count != -1 and count >= self.best_count:
            return False
        self.best, self.best_count = [list(layer) for layer in self.layers], count
        return True

    def corridor(self) -> int:
        """Corridor crossings of the current order; each edge's anchors move to the end
        of their layer on the side it would take (order-neutral: the real nodes keep
        their relative order), so later sweeps pull its ends that way."""
        work, pos, layers = self.work, self.pos, self.layers
        if not self.side and not work.costs.lanes:
            return 0
        chosen, cost = work.costs.assign(pos, lambda _: self.side, self.component)
        for edge, edge_side in chosen:
            for anchor in work.anchors_of_edge.get(edge, ()):
                layer = layers[work.rank[anchor]]
                if work.pinned[anchor] != edge_side and anchor in layer:
                    work.pinned[anchor] = edge_side
                    layer.remove(anchor)
                    layer.insert(0 if edge_side < 0 else len(layer), anchor)
                    _set_positions([layer], pos)
        return cost

    def count(self) -> int:
        """Crossings of the current layers, corridor runs included."""
        return total_crossings(self.layers, self.pos, self.work.real_down) + self.corridor()

    def start(self, layers: list[list[int]]) -> None:
        """Make ``layers`` current (anchors re-pinned to the component's side)."""
        self.work.pin_all(self.nodes, self.side)
        self.layers = layers
        pin(self.layers, self.work.pinned)
        _set_positions(self.layers, self.pos)

    def start_plan(self, plan: OrderingPlan) -> None:
        """:meth:`run_plan` for this component's size, unless nothing is left to do."""
        if not self.done():
            self.run_plan(plan, len(self.nodes))

    def run_plan(self, plan: OrderingPlan, size: int) -> None:
        """Restarts, each a layer-sweep run, then sifting of the best (see
        :class:`OrderingPlan`)."""
        stale = 0
        for restart in range(plan.restart_count(size)):
            if self.done() or (plan.restart_patience and stale >= plan.restart_patience):
                break
            if restart == 0 and plan.continue_best and self.best:
                self.start([list(layer) for layer in self.best])
            elif restart in (1, 2) and plan.breadth_first:
                work = self.work
                self.start(breadth_first_layers(self.nodes, work.rank, work.down, work.up,
                                                work.layer_count, from_bottom=restart == 2))
            else:
                work = self.work
                self.start(initial_layers(self.nodes, work.rank, work.down, work.layer_count,
                                          self.rng if restart else None))
            improved = self.sweeps(plan, first=restart == 0)
            if plan.sift_restarts and not self.done():
                improved |= self.sift_round()
            stale = 0 if improved else stale + 1
        for _ in range(plan.sifting_rounds):
            if self.done():
                break
            self.start([list(layer) for layer in self.best])
            if not self.sift_round():
                break

    def sweeps(self, plan: OrderingPlan, *, first: bool) -> bool:
        """One restart's sweeps from the current layers; whether it beat the best."""
        work, pos, layers = self.work, self.pos, self.layers
        pairs = [bilayer_crossings(layers[i], pos, work.real_down, len(layers[i + 1]))
                 for i in range(len(layers) - 1)]
        count = sum(pairs) + self.corridor()
        restart_best, stale, improved = count + 1, 0, False
        memo = self.memo
        for iteration in range(plan.sweeps + 1):
            improved |= self.offer(count)
            stale = 0 if count < restart_best else stale + 1
            restart_best = min(restart_best, count)
            if self.done() or iteration == plan.sweeps or stale > PATIENCE:
                break
            plateau = plan.plateau and iteration % 4 >= 2
            changed = sweep(layers, pos, work.up, work.down, downward=iteration % 2 == 0,
                            median=(iteration // 2) % 2 == 1, pinned=work.pinned, memo=memo,
                            reverse_ties=plateau)
            if plan.transpose:
                moved = transpose(layers, pos, work.up, work.down, pinned=work.pinned,
                                  dirty=widen(changed) if not first or iteration else None,
                                  expired=lambda: _expired(self.deadline),
                                  equal=plateau)
                changed = [a or b for a, b in zip(changed, moved, strict=True)]
            count = _recount(layers, pos, work.real_down, pairs, changed) + self.corridor()
        return improved

    def sift_round(self) -> bool:
        """Sifting then transpose on the current layers; whether that beat the best."""
        work = self.work
        sift(self.layers, self.pos, work.up, work.down, self.deadline, pinned=work.pinned)
        transpose(self.layers, self.pos, work.up, work.down, pinned=work.pinned,
                  expired=lambda: _expired(self.deadline))
        return self.offer(self.count())

    def shift_lanes(self) -> None:
        """Shift each lane of the component sideways as a whole where that lowers the
        crossings (:mod:`.lane_shift`), keeping the result if it beats the best."""
        work, pos = self.work, self.pos
        lanes = work.lanes.get(self.component)
        if not self.best_count or not lanes or _expired(self.deadline):
            return
        self.layers = [list(layer) for layer in self.best]
        _set_positions(self.layers, pos)
        self.corridor()
        sides = dict(work.costs.assign(pos, lambda _: self.side, self.component)[0])

        def cost(candidate: list[list[int]], first: int, last: int) -> int:
            _set_positions(candidate[first:last + 2], pos)
            return (sum(bilayer_crossings(candidate[i], pos, work.real_down,
                                          len(candidate[i + 1]))
                        for i in range(first, last + 1))
                    + work.costs.local_runs(pos, sides, first, last))

        self.layers = shift_lanes(self.layers, lanes, cost, work.pinned, work.rank,
                                  lambda: _expired(self.deadline))
        _set_positions(self.layers, pos)
        self.offer(self.count())


def _recount(layers: Sequence[Sequence[int]], pos: Sequence[int],
             down: Sequence[Sequence[int]], pairs: list[int], changed: list[bool]) -> int:
    """Update the per-layer-pair crossing counts next to changed layers; the total."""
    for i in range(len(pairs)):
        if changed[i] or changed[i + 1]:
            pairs[i] = bilayer_crossings(layers[i], pos, down, len(layers[i + 1]))
    return sum(pairs)


def _result(graph: ProperGraph, work: _Work, layers: list[list[int]], pos: list[int],
            sides: dict[int, int]) -> OrderingResult:
    """The ordering of ``layers`` with its exact crossing count and each chain edge's
    corridor side (``sides``: the side chosen per component)."""
    _set_positions(layers, pos)
    exact = total_crossings(layers, pos, work.real_down)
    chosen, corridor = work.costs.assign(pos, lambda c: sides.get(c, 0))
    edge_sides = [0] * len(graph.chain_edges)
    for i, side in chosen:
        edge_sides[i] = side
    return OrderingResult(tuple(tuple(layer) for layer in layers), exact, corridor,
                          tuple(edge_sides))


def _set_positions(layers: Sequence[Sequence[int]], pos: list[int]) -> None:
    for layer in layers:
        for p, v in enumerate(layer):
            pos[v] = p


def _expired(deadline: Deadline | None) -> bool:
    return deadline is not None and deadline.expired()


REFINE_PLANS: dict[Effort, OrderingPlan] = {
    Effort.DRAFT: OrderingPlan(restarts=1, sweeps=2, transpose=False, sifting_rounds=0),
    Effort.BALANCED: OrderingPlan(restarts=1, sweeps=4, transpose=True, sifting_rounds=0),
    Effort.BEST: OrderingPlan(restarts=1, sweeps=4, transpose=True, sifting_rounds=0),
}
"""The sweeps :func:`refine` runs from the order it is given, per effort."""


def refine(graph: ProperGraph, start: Sequence[Sequence[int]], options: LayoutOptions,
           deadline: Deadline | None = None) -> OrderingResult:
    """Order ``graph`` from ``start`` (every node of ``graph``, per layer) instead of the
    effort's searches from scratch: per component, for each corridor side to try, one run
    of :data:`REFINE_PLANS` sweeps from ``start`` (anchors pinned, lane anchors at their
    nodes' slot), the side with fewer crossings kept, then lane shifts. For the lane step
    (:mod:`layouts.layered.loopbacks.lanes`), whose tries change an ordered graph in a few
    places; the result crosses no more than ``start`` does with its component's side.

    >>> from layouts.graph import Edge, Graph, Node
    >>> from layouts.layered.graph import import_graph
    >>> from layouts.layered.layering import chains
    >>> g = Graph(tuple(Node(n, 9, 9) for n in "abcd"),
    ...           (Edge("1", "a", "d"), Edge("2", "b", "c")))
    >>> proper = chains.run(import_graph(g, LayoutOptions()), (0, 0, 1, 1))
    >>> result = refine(proper, [[0, 1], [2, 3]], LayoutOptions())
    >>> result.layers, result.crossings
    (((0, 1), (3, 2)), 0)
    """
    anchors = corridor_anchors(graph)
    work = _work_graph(graph, anchors)
    slot = layer_positions_of(start, len(work.rank))
    for a in range(len(graph.nodes), len(work.rank)):    # an anchor: at its node's slot
        slot[a] = slot[(work.up[a] or work.down[a])[0]]
    plan = REFINE_PLANS[options.effort]
    layers: list[list[int]] = [[] for _ in range(graph.layer_count)]
    sides: dict[int, int] = {}
    pos = [0] * len(work.rank)
    members: dict[int, list[int]] = {}
    for v, c in enumerate((*graph.component, *anchors.component)):
        members.setdefault(c, []).append(v)
    for c, nodes in members.items():
        ordered: list[list[int]] = [[] for _ in range(graph.layer_count)]
        for v in sorted(nodes, key=lambda v: (slot[v], v >= len(graph.nodes), v)):
            ordered[work.rank[v]].append(v)
        searches = [_Search(nodes, c, side, work, pos, random.Random(0), deadline)
                    for side in _sides(c, len(members), any(work.side_anchor[v] for v in nodes))]
        for search in searches:
            search.start([list(layer) for layer in ordered])
            search.sweeps(plan, first=False)
        chosen = min(searches, key=lambda search: search.best_count)
        chosen.shift_lanes()
        sides[c] = chosen.side
        for i, layer in enumerate(chosen.best):
            layers[i].extend(v for v in layer if v < len(graph.nodes))
    return _result(graph, work, layers, pos, sides)


def layer_positions_of(layers: Sequence[Sequence[int]], count: int) -> list[float]:
    """Slot of every node in ``layers`` (as a float, so others can sit between)."""
    slot = [0.0] * count
    for layer in layers:
        for p, v in enumerate(layer):
            slot[v] = float(p)
    return slot
