"""Unit shifts that satisfy every :class:`~.constraints.Separation`: the least shifts
(everything pushed left, a longest path from the left edge), the greatest within the same
width (everything pushed right), and between them each unit's own place (shift 0)
clamped to that range. The clamped shifts are feasible too: difference constraints are
closed under componentwise min and max, so the median of three solutions (the least,
the greatest and the unmoved drawing) is one. A unit with room keeps its place; the
others move just as far as the narrower drawing needs. :func:`pulled` then moves units
toward the other ends of their segments.

>>> arcs = {0: [(1, -30.0)]}       # unit 1 may come 30 closer to unit 0
>>> balanced_shifts([0, 1], {0: 0.0, 1: 100.0}, {0: 10.0, 1: 110.0}, arcs)
{0: 0.0, 1: -30.0}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

MAX_PASSES = 64
EPSILON = 1e-9


def balanced_shifts(order: Sequence[int], low: Mapping[int, float], high: Mapping[int, float],
                    arcs: Mapping[int, Sequence[tuple[int, float]]]
                    ) -> dict[int, float] | None:
    """Per unit (``order``: units by their left edge), its shift 0 clamped between the
    left-packed and the right-packed shifts. ``low``/``high`` are each unit's left and
    right edge now; ``arcs[u]`` lists ``(v, w)``: shift of ``v`` minus shift of ``u`` at
    least ``w``.
    ``None`` when the passes do not settle (never for a drawing that keeps its own
    constraints, which has no positive cycle)."""
    if not order:
        return {}
    left = min(low.values())
    least = _relax(order, {u: left - low[u] for u in order}, arcs, forward=True)
    if least is None:
        return None
    right = max(high[u] + least[u] for u in order)
    greatest = _relax(order, {u: right - high[u] for u in order}, arcs, forward=False)
    if greatest is None:
        return None
    return {u: min(max(0.0, least[u]), greatest[u]) for u in order}


def _relax(order: Sequence[int], shift: dict[int, float],
           arcs: Mapping[int, Sequence[tuple[int, float]]], *, forward: bool
           ) -> dict[int, float] | None:
    """Bellman-Ford passes in ``order`` (reversed for the right pack) until nothing moves."""
    sequence = list(order) if forward else list(reversed(order))
    plan: list[tuple[int, Sequence[tuple[int, float]]]]
    if forward:
        plan = [(u, out) for u in sequence if (out := arcs.get(u))]
    else:
        incoming: dict[int, list[tuple[int, float]]] = {}
        for u in order:
            for v, w in arcs.get(u, ()):
                if v in incoming:
                    incoming[v].append((u, w))
                else:
                    incoming[v] = [(u, w)]
        plan = [(u, into) for u in sequence if (into := incoming.get(u))]
    for _ in range(MAX_PASSES):
        moved = False
        if forward:
            for u, out in plan:
                base = shift[u]
                for v, w in out:
                    if base + w > shift[v] + EPSILON:
                        shift[v] = base + w
                        moved = True
        else:
            for u, sources in plan:
                for t, w in sources:
                    if shift[u] - w < shift[t] - EPSILON:
                        shift[t] = shift[u] - w
                        moved = True
        if not moved:
            return shift
    return None


def pulled(order: Sequence[int], shift: dict[int, float],
           arcs: Mapping[int, Sequence[tuple[int, float]]],
           bounds: Mapping[int, tuple[float, float]],
           pulls: Mapping[int, Sequence[tuple[int, float]]], rounds: int) -> dict[int, float]:
    """``shift`` improved by moving one unit at a time to the median of where its
    segments to other units would have length 0 (``pulls[u]``: ``(v, offset)``, a segment
    of length ``|shift[u] - shift[v] - offset|``), as far as its separations (``arcs``)
    and ``bounds`` (the drawing's width) allow, in ``rounds`` sweeps left to right and
    back. Each move is to the nearest point where the unit's own segment length is least
    within its room, so the total length never grows and every separation still holds.

    >>> pulled([0, 1], {0: 0.0, 1: 0.0}, {0: [(1, -30.0)]}, {0: (0, 0), 1: (-50, 0)},
    ...        {1: [(0, -45.0)]}, rounds=1)         # 1 wants -45, may go to -30
    {0: 0.0, 1: -30.0}
    """
    incoming: dict[int, list[tuple[int, float]]] = {}
    for u in order:
        for v, w in arcs.get(u, ()):
            incoming.setdefault(v, []).append((u, w))
    result = dict(shift)
    # per movable unit: its segments' other ends, its bounds, and its separations
    movable = [(u, pulls[u], bounds[u], incoming.get(u, ()), arcs.get(u, ()))
               for u in order if pulls.get(u)]
    for sweep in range(2 * rounds):
        moved = False
        for u, ends, (low, high), before, after in \
                movable if sweep % 2 == 0 else reversed(movable):
            if len(ends) == 1:
                v, offset = ends[0]
                first = last = result[v] + offset
            else:
                targets = sorted([result[v] + offset for v, offset in ends])
                first, last = targets[(len(targets) - 1) // 2], targets[len(targets) // 2]
            for a, w in before:
                if result[a] + w > low:
                    low = result[a] + w
            for b, w in after:
                if result[b] - w < high:
                    high = result[b] - w
            here = result[u]
            best = min(max(here, first), last)
            best = min(max(best, low), high) if low <= high else here
            if abs(best - here) > EPSILON:
                result[u] = best
                moved = True
        if not moved:
            break
    return result
