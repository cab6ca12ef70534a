"""The top-down half of the compound ordering: a compound's border dummies in the order
its parent's routes reach its faces, and the interior re-ordered around them.

Laid out bottom-up alone (:mod:`.level`), a compound orders its entering and leaving
dummies knowing nothing of the outside; the parent's router then ends the pieces on the
compound's faces in the order of their other ends, and where the two orders disagree the
jogs in the border strip cross (:mod:`.jogs`). ELK's hierarchical sweep carries each
level's order into the next; here the same knowledge goes down one level at a time:

1. :func:`border_orders`: for every compound, its entering crossings sorted by the column
   where the parent's piece meets the top face, its leaving ones by the column where the
   parent's piece leaves the bottom face (ties in plan order);
2. :func:`pin_border_order`: the level's layer 0 (its entering dummies, alone there) and
   last layer (the leaving ones) put in those orders, within each weakly connected
   component's block, held fixed, and the layers between re-swept (barycenter, then
   median, alternately down and up, with transpose above draft effort), keeping the
   order of fewest crossings. Those layers' order then agrees with the parent's slots,
   so jogs that meet the border in one order reach the dummies in the same one;
3. :func:`jog_inversions`: how many pairs of jogs still swap order between a border
   and the dummies (the crossings the strip would draw), the measure the hierarchical
   layout uses to keep the better of its passes.

>>> jog_inversions_of([(0, 10), (5, 20), (9, 1)])   # third jog swaps with both
2
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from layouts.layered.graph import ProperGraph, layer_positions
from layouts.layered.hierarchy.plan import Crossing, Level, Plan
from layouts.layered.model import Deadline, Routing
from layouts.layered.ordering import OrderingResult
from layouts.layered.ordering.crossings import total_crossings
from layouts.layered.ordering.local_search import transpose
from layouts.layered.ordering.sweep import sweep
from layouts.options import Effort

__all__ = ["BorderOrder", "border_orders", "jog_inversions", "jog_inversions_of",
           "own_border", "parent_border", "pin_border_order"]

SWEEPS = {Effort.DRAFT: 4, Effort.BALANCED: 8, Effort.BEST: 12}
"""Sweeps of the interior after pinning its borders, per effort."""


@dataclass(frozen=True, slots=True)
class BorderOrder:
    """A compound's border dummies, left to right: ``entering`` on its top layer and
    ``leaving`` on its bottom one."""

    entering: tuple[str, ...]
    leaving: tuple[str, ...]


def _ends(crossings: Sequence[Crossing], parent: Routing, entering: bool
          ) -> tuple[str, ...]:
    """The dummies of ``crossings`` sorted by where the parent's pieces meet the face."""
    routes = {route.id: route for route in parent.edges}

    def column(item: tuple[int, Crossing]) -> tuple[float, int]:
        index, crossing = item
        route = routes.get(crossing.edge)
        if route is None:
            return (0.0, index)
        return (route.points[-1].x if entering else route.points[0].x, index)

    return tuple(c.dummy for _, c in sorted(enumerate(crossings), key=column))


def parent_border(plan: Plan, level: Level, routings: Mapping[str | None, Routing]
                  ) -> BorderOrder | None:
    """The border order of the compound that owns ``level`` from its parent level's
    routing (see the module docstring, step 1); ``None`` for the root, or when the
    parent has no routing in ``routings``."""
    if level.owner is None:
        return None
    parent = routings.get(plan.parents[level.owner])
    if parent is None:
        return None
    return BorderOrder(_ends(level.entering, parent, True),
                       _ends(level.leaving, parent, False))


def own_border(level: Level, routing: Routing) -> BorderOrder:
    """The order ``level``'s own routing draws its border dummies in (by the columns
    where their pieces start or end inside)."""
    routes = {route.id: route for route in routing.edges}

    def ordered(crossings: Sequence[Crossing], entering: bool) -> tuple[str, ...]:
        def column(item: tuple[int, Crossing]) -> tuple[float, int]:
            index, crossing = item
            route = routes.get(crossing.edge)
            if route is None:
                return (0.0, index)
            return (route.points[0].x if entering else route.points[-1].x, index)

        return tuple(c.dummy for _, c in sorted(enumerate(crossings), key=column))

    return BorderOrder(ordered(level.entering, True), ordered(level.leaving, False))


def border_orders(plan: Plan, routings: Mapping[str | None, Routing]
                  ) -> dict[str, BorderOrder]:
    """Every compound's border order whose parent has a routing in ``routings``."""
    out: dict[str, BorderOrder] = {}
    for level in plan.levels:
        border = parent_border(plan, level, routings)
        if border is not None and level.owner is not None:
            out[level.owner] = border
    return out


def _pinned_layer(layer: Sequence[int], wanted: Sequence[int],
                  component: Sequence[int]) -> list[int]:
    """``layer`` with the ``wanted`` nodes in that order within each component's slots.

    >>> _pinned_layer([0, 1, 2, 3], [3, 1, 2, 0], [0, 0, 1, 1])
    [1, 0, 3, 2]
    """
    rank = {v: i for i, v in enumerate(wanted)}
    slots: dict[int, list[int]] = {}
    for index, v in enumerate(layer):
        if v in rank:
            slots.setdefault(component[v], []).append(index)
    out = list(layer)
    for indices in slots.values():
        members = sorted((layer[i] for i in indices), key=lambda v: rank[v])
        for i, v in zip(indices, members, strict=True):
            out[i] = v
    return out


def pin_border_order(graph: ProperGraph, order: OrderingResult, wanted: BorderOrder,
                     effort: Effort, deadline: Deadline | None = None) -> OrderingResult:
    """``order`` with the border layers in ``wanted`` order and the layers between
    re-swept around them (see the module docstring, step 2); the fewest crossings found
    from the re-ordered start, which is the first candidate."""
    index = graph.index
    layers = [list(layer) for layer in order.layers]
    fixed = [0] * len(graph.nodes)
    for at, ids in ((0, wanted.entering), (len(layers) - 1, wanted.leaving)):
        nodes = [index[i] for i in ids if i in index]
        if not nodes or not layers or at < 0:
            continue
        layers[at] = _pinned_layer(layers[at], nodes, [0] * len(graph.nodes))
        for v in nodes:
            fixed[v] = 1
    if layers == [list(layer) for layer in order.layers]:
        return order
    up: list[list[int]] = [[] for _ in graph.nodes]
    down: list[list[int]] = [[] for _ in graph.nodes]
    for a, b in graph.segments:
        down[a].append(b)
        up[b].append(a)
    pos = layer_positions(layers, len(graph.nodes))
    best, best_count = [list(layer) for layer in layers], total_crossings(layers, pos, down)
    for iteration in range(SWEEPS[effort]):
        if best_count == 0 or (deadline is not None and deadline.expired()):
            break
        sweep(layers, pos, up, down, downward=iteration % 2 == 0,
              median=(iteration // 2) % 2 == 1, pinned=fixed)
        if effort is not Effort.DRAFT:
            transpose(layers, pos, up, down, pinned=fixed)
        count = total_crossings(layers, pos, down)
        if count < best_count:
            best, best_count = [list(layer) for layer in layers], count
    return replace(order, layers=tuple(tuple(layer) for layer in best), crossings=best_count)


def jog_inversions_of(jogs: Sequence[tuple[float, float]]) -> int:
    """Pairs of ``(upper, lower)`` columns in opposite orders at the two ends."""
    return sum(1 for i, (a_up, a_low) in enumerate(jogs) for b_up, b_low in jogs[i + 1:]
               if (a_up - b_up) * (a_low - b_low) < 0)


def jog_inversions(plan: Plan, routings: Mapping[str | None, Routing]) -> int:
    """Jog pairs that swap order in some compound's border strip, over the whole plan:
    the parent's face columns against the dummies' columns inside."""
    total = 0
    for level in plan.levels:
        if level.owner is None:
            continue
        parent, inside = routings[plan.parents[level.owner]], routings[level.owner]
        outer = {route.id: route for route in parent.edges}
        inner = {route.id: route for route in inside.edges}
        for crossings, entering in ((level.entering, True), (level.leaving, False)):
            jogs = [(outer[c.edge].points[-1 if entering else 0].x,
                     inner[c.edge].points[0 if entering else -1].x)
                    for c in crossings if c.edge in outer and c.edge in inner]
            total += jog_inversions_of(jogs)
    return total
