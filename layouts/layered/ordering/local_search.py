"""Local improvements of a layer order: transpose (greedy switch of neighbours, Gansner
et al. 1993, section 3) and sifting (Matuszewski, Schoenfeld and Molitor 1999, "Using
sifting for k-layer straightline crossing minimization", GD'99: each node in turn tries
every slot of its layer and takes the best).

Both count only the crossings the move changes (the pairwise count of
:func:`.crossings.pair_crossings` against the layers above and below, from neighbour
positions sorted once per layer), take only strict improvements, and so never undo a free
model order.

>>> layers = [[0, 1], [2, 3]]
>>> pos = [0, 1, 0, 1]
>>> up = [[], [], [1], [0]]
>>> down = [[3], [2], [], []]
>>> transpose(layers, pos, up, down)   # edges 0-3 and 1-2 cross; the top layer swaps first
[True, False]
>>> layers
[[1, 0], [2, 3]]
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence

from layouts.layered.model import Deadline
from layouts.layered.ordering.crossings import bilayer_crossings


def _sorted_positions(layer: Sequence[int], pos: Sequence[int],
                      neighbours: Sequence[Sequence[int]]) -> dict[int, list[int]]:
    return {v: [pos[around[0]]] if len(around := neighbours[v]) == 1
            else sorted([pos[u] for u in around]) for v in layer}


def _side_costs(left: list[int], right: list[int]) -> tuple[int, int]:
    """Crossings among two nodes' edges to one layer, from their sorted neighbour
    positions ``left`` and ``right``: with the first node left of the second (pairs
    ``a > b``, ``a`` from ``left``), and the other way round (pairs ``a < b``). Equal
    positions (a shared neighbour) cross neither way, so the second is ``|left| |right|``
    less the first and the ties.

    >>> _side_costs([0, 2], [1]), _side_costs([1], [1, 3]), _side_costs([], [4])
    ((1, 1), (0, 1), (0, 0))
    """
    if not left or not right:
        return 0, 0
    if len(right) == 1:
        b = right[0]
        if len(left) == 1:
            a = left[0]
            return (1, 0) if a > b else (0, 1) if a < b else (0, 0)
        greater = less = 0
        for a in left:
            greater += a > b
            less += a < b
        return greater, less
    below = at_or_below = 0
    for a in left:
        below += bisect_left(right, a)
        at_or_below += bisect_right(right, a)
    return below, len(left) * len(right) - at_or_below


class _LayerCosts:
    """Crossings at two nodes of one layer, with the neighbour layers held fixed."""

    def __init__(self, layer: Sequence[int], pos: Sequence[int], up: Sequence[Sequence[int]],
                 down: Sequence[Sequence[int]]) -> None:
        self.up = _sorted_positions(layer, pos, up)
        self.down = _sorted_positions(layer, pos, down)

    def costs(self, v: int, w: int) -> tuple[int, int]:
        """Crossings at ``v`` and ``w``, both sides: with ``v`` left of ``w``, and with
        ``w`` left of ``v``. (Two nodes with one edge each way, such as two dummies,
        take an inlined path: transpose asks this for every neighbouring pair.)"""
        up_v, up_w, down_v, down_w = self.up[v], self.up[w], self.down[v], self.down[w]
        if len(up_v) == len(up_w) == len(down_v) == len(down_w) == 1:
            a, b, c, d = up_v[0], up_w[0], down_v[0], down_w[0]
            return (a > b) + (c > d), (a < b) + (c < d)
        up_vw, up_wv = _side_costs(up_v, up_w)
        down_vw, down_wv = _side_costs(down_v, down_w)
        return up_vw + down_vw, up_wv + down_wv

    def row(self, v: int, others: Sequence[int]) -> tuple[list[int], list[int]]:
        """:meth:`costs` of ``v`` with each of ``others``, as two lists (``v`` left,
        ``v`` right). Per side, how many of ``v``'s neighbour positions lie above and
        below each position is tabulated once, so each other node costs one look-up per
        edge instead of a merge of two lists.

        Node 0 reaches positions 0 and 2 below, node 1 position 1, node 2 position 0:
        left of 1, 0's edge to 2 crosses 1's (and right of it, 0's edge to 0 does);
        left of 2, 0's edge to 2 crosses 2's edge to 0, right of it nothing crosses.

        >>> costs = _LayerCosts([0, 1, 2], [0, 1, 2, 0, 1, 2], [[], [], [], [], [], []],
        ...                     [[3, 5], [4], [3], [], [], []])
        >>> costs.row(0, [1, 2])
        ([1, 1], [1, 0])
        """
        left = [0] * len(others)
        right = [0] * len(others)
        for mine, theirs in ((self.up[v], self.up), (self.down[v], self.down)):
            if not mine:
                continue
            limit = mine[-1] + 1      # every position past v's last counts as this one
            above = [len(mine) - bisect_right(mine, b) for b in range(limit + 1)]
            below = [bisect_left(mine, b) for b in range(limit + 1)]
            for i, w in enumerate(others):
                for b in theirs[w]:
                    if b > limit:
                        b = limit
                    left[i] += above[b]
                    right[i] += below[b]
        return left, right


def transpose(layers: list[list[int]], pos: list[int], up: Sequence[Sequence[int]],
              down: Sequence[Sequence[int]], max_rounds: int = 8,
              pinned: Sequence[int] | None = None,
              dirty: list[bool] | None = None,
              expired: Callable[[], bool] | None = None,
              equal: bool = False) -> list[bool]:
    """Swap neighbours while that strictly lowers crossings (at most ``max_rounds``);
    with ``equal``, the first round also swaps crossing pairs that cost as much either
    way (dot's ``reverse`` transpose: a step along a plateau the sweeps can leave);
    pinned nodes (``pinned[v] != 0``) never move. The first round visits the ``dirty``
    layers (all by default), later rounds only layers next to a layer that changed in the
    round before: elsewhere no swap can have become better. ``expired()`` (the time
    budget) ends the rounds early. Returns which layers changed."""
    dirty = dirty if dirty is not None else [True] * len(layers)
    touched = [False] * len(layers)
    for round_number in range(max_rounds):
        if round_number and expired is not None and expired():
            break
        changed = [_transpose_layer(layer, pos, up, down, pinned, equal and not round_number)
                   if dirty[i] else False for i, layer in enumerate(layers)]
        if not any(changed):
            break
        touched = [a or b for a, b in zip(touched, changed, strict=True)]
        dirty = widen(changed)
    return touched


def widen(flags: list[bool]) -> list[bool]:
    """Flags set also next to every set flag.

    >>> widen([False, True, False, False])
    [True, True, True, False]
    """
    return [flags[i] or (i > 0 and flags[i - 1]) or (i + 1 < len(flags) and flags[i + 1])
            for i in range(len(flags))]


def _transpose_layer(layer: list[int], pos: list[int], up: Sequence[Sequence[int]],
                     down: Sequence[Sequence[int]], pinned: Sequence[int] | None,
                     equal: bool = False) -> bool:
    if len(layer) < 2:
        return False
    costs = _LayerCosts(layer, pos, up, down)
    changed = False
    for j in range(len(layer) - 1):
        v, w = layer[j], layer[j + 1]
        if pinned and (pinned[v] or pinned[w]):
            continue
        keep, swap = costs.costs(v, w)
        if swap < keep or (equal and keep and swap == keep):
            layer[j], layer[j + 1] = w, v
            pos[v], pos[w] = j + 1, j
            changed = True
    return changed


def sift(layers: list[list[int]], pos: list[int], up: Sequence[Sequence[int]],
         down: Sequence[Sequence[int]], deadline: Deadline | None = None,
         pinned: Sequence[int] | None = None) -> None:
    """One sifting round: every node, layer by layer, moves to its best slot between the
    pinned nodes at the layer's ends (which stay put: moving among the free nodes does
    not change their crossings). A layer whose segments to both neighbour layers cross
    nothing is skipped: no slot can do better than none."""
    below = [bilayer_crossings(layers[i], pos, down, len(layers[i + 1]))
             for i in range(len(layers) - 1)] + [0]
    moved = False
    for i, layer in enumerate(layers):
        above = (bilayer_crossings(layers[i - 1], pos, down, len(layer)) if moved
                 else below[i - 1]) if i else 0
        moved = False
        if not above and not below[i]:
            continue
        head = [v for v in layer if pinned and pinned[v] < 0]
        tail = [v for v in layer if pinned and pinned[v] > 0]
        free = [v for v in layer if not (pinned and pinned[v])]
        if len(free) < 2:
            continue
        costs = _LayerCosts(free, pos, up, down)
        before = list(free)
        for v in before:
            _sift_node(free, v, pos, costs, len(head))
        moved = free != before
        layers[i] = head + free + tail
        if deadline is not None and deadline.expired():
            return


def _sift_node(layer: list[int], v: int, pos: list[int], costs: _LayerCosts,
               offset: int) -> None:
    if not costs.up[v] and not costs.down[v]:
        return
    others = [w for w in layer if w != v]
    current = pos[v] - offset
    right_of, left_of = costs.row(v, others)
    cost = sum(right_of)
    best, best_cost = 0, cost
    current_cost = cost if current == 0 else None
    for k in range(1, len(others) + 1):
        cost += left_of[k - 1] - right_of[k - 1]
        if k == current:
            current_cost = cost
        if cost < best_cost:
            best, best_cost = k, cost
    if current_cost is not None and best_cost >= current_cost:
        return
    others.insert(best, v)
    layer[:] = others
    for p, w in enumerate(layer):
        pos[w] = p + offset
