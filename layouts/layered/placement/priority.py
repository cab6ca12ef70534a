"""Alignment priority for Brandes-Koepf: the segments that all four alignments keep
straight, so the chains a reader follows down the drawing are single columns.

Plain Brandes-Koepf aligns each node with a median neighbour on the alignment's own side.
In the two upward alignments the left-most (or right-most) child of a node takes the
node's block, not its middle child, and the downward ones mirror that for parents. So a
chain through the middle of a fan-out and its fan-in (``a -> b2 -> c`` in
``a -> {b1, b2, b3} -> c``) is bent in every one of the four alignments, and their
balance drifts sideways by a branch per fan.

Each node *picks* a neighbour below and one above: its median ones (one or two, by layer
position), except on a *heaviest path*, a path from a source to a sink through the most
real nodes (the drawing's main chain; dummies do not count), where it picks the median
ones among its neighbours on such a path. A segment ``u -> v`` is *mutual* when ``u``
picks ``v`` below and ``v`` picks ``u`` above: each end would align with the other
whichever way the alignment runs. A mutual segment weighs, first, the real nodes of the
heaviest path through it, then as the x-coordinate edges of dot's network simplex
(Gansner et al. 1993, "A technique for drawing directed graphs", section 4.2): 1 between
two real nodes, 2 with one long-edge dummy, 8 between two dummies. Where a node has two
mutual segments on one side, the heavier wins and an equal pair stays unforced (the four
alignments and their balance centre the node, as in plain Brandes-Koepf). The segments
kept, per pair of layers, are chosen heaviest first (then left to right) so that no two
cross or share an end: a non-crossing matching. They are the *priority segments*.

Every alignment then aligns each priority segment's ends first, whatever its medians,
and treats every segment that crosses a priority segment or shares an end with one as a
conflict (as it treats the type-1 conflicts with inner segments).

>>> layers = ((0,), (1, 2, 3), (4,))
>>> up = [[], [0], [0], [0], [1, 2, 3]]
>>> down = [[1, 2, 3], [4], [4], [4], []]
>>> sorted(priority_segments(layers, up, down, [False] * 5))  # the middle branch
[(0, 2), (2, 4)]
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from layouts.layered.graph import layer_positions

Segment = tuple[int, int]
"""``(upper, lower)`` node indices of a segment between two consecutive layers."""

Weighted = tuple[tuple[int, int], Segment]
"""A mutual segment with its weight: (real nodes of its heaviest path, dot's weight)."""


@dataclass(frozen=True, slots=True)
class _Graph:
    """What picking needs: neighbours, layer positions and path weights per node."""

    up: Sequence[Sequence[int]]
    down: Sequence[Sequence[int]]
    is_dummy: Sequence[bool]
    pos: Sequence[int]
    above: Sequence[int]
    below: Sequence[int]
    heaviest: int


def _medians(neighbours: Sequence[int], pos: Sequence[int]) -> list[int]:
    """The one or two median neighbours by layer position.

    >>> _medians([5, 3, 4], [0, 0, 0, 2, 0, 1])
    [5]
    """
    ordered = sorted(neighbours, key=lambda w: pos[w])
    count = len(ordered)
    return ordered[(count - 1) // 2:count // 2 + 1] if count else []


def path_weights(layers: Sequence[Sequence[int]], up: Sequence[Sequence[int]],
                 down: Sequence[Sequence[int]], is_dummy: Sequence[bool]
                 ) -> tuple[list[int], list[int]]:
    """Per node, the most real nodes on a path from a source down to it (``above``) and
    from it down to a sink (``below``), both counting the node itself.

    >>> path_weights(((0,), (1, 2), (3,)), [[], [0], [0], [1, 2]], [[1, 2], [3], [3], []],
    ...              [False, False, True, False])
    ([1, 2, 1, 3], [3, 2, 1, 1])
    """
    above = [0] * len(is_dummy)
    below = [0] * len(is_dummy)
    for layer in layers:          # plain loops: this runs for every node of every placement
        for v in layer:
            best = 0
            for u in up[v]:
                if above[u] > best:
                    best = above[u]
            above[v] = best if is_dummy[v] else best + 1
    for layer in reversed(layers):
        for v in layer:
            best = 0
            for w in down[v]:
                if below[w] > best:
                    best = below[w]
            below[v] = best if is_dummy[v] else best + 1
    return above, below


def _picks(own: int, neighbours: Sequence[int], weight: Sequence[int], g: _Graph
           ) -> list[int]:
    """The neighbours a node picks on one side (see the module docstring): ``own`` is the
    node's path weight on the other side, ``weight`` the neighbours' on theirs."""
    if len(neighbours) < 2:
        return list(neighbours)
    heaviest = max(weight[w] for w in neighbours)
    if own + heaviest == g.heaviest:
        return _medians([w for w in neighbours if weight[w] == heaviest], g.pos)
    return _medians(neighbours, g.pos)


def _best(candidates: list[Weighted]) -> Weighted | None:
    """The heaviest candidate; ``None`` for none or for a tie between two."""
    if len(candidates) < 2:
        return candidates[0] if candidates else None
    ranked = sorted(candidates, key=lambda c: c[0], reverse=True)
    if len(ranked) > 1 and ranked[1][0] == ranked[0][0] and ranked[1][1] != ranked[0][1]:
        return None
    return ranked[0]


def _mutual(layer: Sequence[int], g: _Graph, picked_up: Sequence[Sequence[int]]
            ) -> list[Weighted]:
    """Weighted mutual segments below ``layer``, at most one per upper and lower end
    (``picked_up``: the upper picks of every node)."""
    per_lower: dict[int, list[Weighted]] = {}
    above, below, down, is_dummy = g.above, g.below, g.down, g.is_dummy
    for u in layer:
        below_u = down[u]
        picks = below_u if len(below_u) < 2 else _picks(above[u], below_u, below, g)
        candidates = [((above[u] + below[v], (1, 2, 8)[is_dummy[u] + is_dummy[v]]), (u, v))
                      for v in picks if u in picked_up[v]]
        if not candidates:
            continue
        chosen = candidates[0] if len(candidates) == 1 else _best(candidates)
        if chosen is not None:
            lower = chosen[1][1]
            if lower in per_lower:
                per_lower[lower].append(chosen)
            else:
                per_lower[lower] = [chosen]
    return [best for v in sorted(per_lower)
            if (best := (per_lower[v][0] if len(per_lower[v]) == 1 else _best(per_lower[v])))
            is not None]


def priority_segments(layers: Sequence[Sequence[int]], up: Sequence[Sequence[int]],
                      down: Sequence[Sequence[int]], is_dummy: Sequence[bool]
                      ) -> set[Segment]:
    """The priority segments; see the module docstring."""
    pos = layer_positions(layers, len(is_dummy))
    above, below = path_weights(layers, up, down, is_dummy)
    heaviest = max((a + b - (not d) for a, b, d in zip(above, below, is_dummy, strict=True)),
                   default=0)
    g = _Graph(up, down, is_dummy, pos, above, below, heaviest)
    picked_up = [ws if len(ws) < 2 else _picks(below[v], ws, above, g)
                 for v, ws in enumerate(up)]
    chosen: set[Segment] = set()
    for layer in layers:
        uppers: list[int] = []
        lowers: list[int] = []
        for _, (u, v) in sorted(_mutual(layer, g, picked_up),
                                key=lambda c: (-c[0][0], -c[0][1], pos[c[1][0]])):
            k = bisect_left(uppers, pos[u])
            if not _clashes(uppers, lowers, k, pos[u], pos[v]):
                uppers.insert(k, pos[u])
                lowers.insert(k, pos[v])
                chosen.add((u, v))
    return chosen


def _clashes(uppers: Sequence[int], lowers: Sequence[int], k: int, upper: int, lower: int
             ) -> bool:
    """Whether a segment from position ``upper`` to position ``lower`` crosses or shares
    an end with one of the chosen segments of its pair of layers, given as their upper
    and lower positions, both increasing, with ``k`` the insertion point of ``upper``
    among the upper ones (so only the nearest one on each side needs a look)."""
    if k < len(uppers) and (uppers[k] == upper or lowers[k] <= lower):
        return True
    return k > 0 and lowers[k - 1] >= lower


def blocked_segments(layers: Sequence[Sequence[int]], up: Sequence[Sequence[int]],
                     priority: set[Segment], pos: Sequence[int]) -> set[Segment]:
    """Segments that cross a priority segment or share an end with one (and are not
    one). The priority segments of a pair of layers are ordered left to right at both
    ends, so checking the nearest one on each side of the upper end suffices.

    >>> sorted(blocked_segments(((0, 1), (2, 3)), [[], [], [0, 1], [0]], {(1, 2)},
    ...                         [0, 1, 0, 1]))
    [(0, 2), (0, 3)]
    """
    by_layer: dict[int, list[Segment]] = {}
    rank = {v: r for r, layer in enumerate(layers) for v in layer}
    for u, v in priority:
        by_layer.setdefault(rank[v], []).append((u, v))
    blocked: set[Segment] = set()
    for r, forced in by_layer.items():
        forced.sort(key=lambda s: pos[s[0]])
        uppers = [pos[u] for u, _ in forced]
        lowers = [pos[v] for _, v in forced]
        for v in layers[r]:
            for u in up[v]:
                if (u, v) not in priority and \
                        _clashes(uppers, lowers, bisect_left(uppers, pos[u]), pos[u], pos[v]):
                    blocked.add((u, v))
    return blocked
