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

from collections.abc import Callable, Sequence

from layouts.layered.model import Deadline


def _sorted_positions(layer: Sequence[int], pos: Sequence[int],
                      neighbours: Sequence[Sequence[int]]) -> dict[int, list[int]]:
    return {v: sorted([pos[u] for u in neighbours[v]]) for v in layer}


def _inversions(left: list[int], right: list[int]) -> int:
    """Pairs ``(a, b)`` of sorted positions, ``a`` from ``left``, with ``a > b``."""
    if not left or not right:
        return 0
    if len(right) == 1:
        b = right[0]
        return sum(1 for a in left if a > b)
    count = 0
    j = 0
    for a in left:
        while j < len(right) and right[j] < a:
            j += 1
        count += j
    return count


class _LayerCosts:
    """Crossings at two nodes of one layer, with the neighbour layers held fixed."""

    def __init__(self, layer: Sequence[int], pos: Sequence[int], up: Sequence[Sequence[int]],
                 down: Sequence[Sequence[int]]) -> None:
        self.up = _sorted_positions(layer, pos, up)
        self.down = _sorted_positions(layer, pos, down)

    def cost(self, v: int, w: int) -> int:
        """Crossings at ``v`` and ``w`` with ``v`` left of ``w``, both sides."""
        return _side_cost(self.up[v], self.up[w]) + _side_cost(self.down[v], self.down[w])


def _side_cost(left: list[int], right: list[int]) -> int:
    if len(left) == 1 and len(right) == 1:
        return 1 if left[0] > right[0] else 0
    return _inversions(left, right)


def transpose(layers: list[list[int]], pos: list[int], up: Sequence[Sequence[int]],
              down: Sequence[Sequence[int]], max_rounds: int = 8,
              pinned: Sequence[int] | None = None,
              dirty: list[bool] | None = None,
              expired: Callable[[], bool] | None = None) -> list[bool]:
    """Swap neighbours while that strictly lowers crossings (at most ``max_rounds``);
    pinned nodes (``pinned[v] != 0``) never move. The first round visits the ``dirty``
    layers (all by default), later rounds only layers next to a layer that changed in the
    round before: elsewhere no swap can have become better. ``expired()`` (the time
    budget) ends the rounds early. Returns which layers changed."""
    dirty = dirty if dirty is not None else [True] * len(layers)
    touched = [False] * len(layers)
    for round_number in range(max_rounds):
        if round_number and expired is not None and expired():
            break
        changed = [_transpose_layer(layer, pos, up, down, pinned) if dirty[i] else False
                   for i, layer in enumerate(layers)]
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
                     down: Sequence[Sequence[int]], pinned: Sequence[int] | None) -> bool:
    if len(layer) < 2:
        return False
    costs = _LayerCosts(layer, pos, up, down)
    changed = False
    for j in range(len(layer) - 1):
        v, w = layer[j], layer[j + 1]
        if pinned and (pinned[v] or pinned[w]):
            continue
        if costs.cost(w, v) < costs.cost(v, w):
            layer[j], layer[j + 1] = w, v
            pos[v], pos[w] = j + 1, j
            changed = True
    return changed


def sift(layers: list[list[int]], pos: list[int], up: Sequence[Sequence[int]],
         down: Sequence[Sequence[int]], deadline: Deadline | None = None,
         pinned: Sequence[int] | None = None) -> None:
    """One sifting round: every node, layer by layer, moves to its best slot between the
    pinned nodes at the layer's ends (which stay put: moving among the free nodes does
    not change their crossings)."""
    for i, layer in enumerate(layers):
        head = [v for v in layer if pinned and pinned[v] < 0]
        tail = [v for v in layer if pinned and pinned[v] > 0]
        free = [v for v in layer if not (pinned and pinned[v])]
        if len(free) < 2:
            continue
        costs = _LayerCosts(free, pos, up, down)
        for v in list(free):
            _sift_node(free, v, pos, costs, len(head))
        layers[i] = head + free + tail
        if deadline is not None and deadline.expired():
            return


def _sift_node(layer: list[int], v: int, pos: list[int], costs: _LayerCosts,
               offset: int) -> None:
    if not costs.up[v] and not costs.down[v]:
        return
    others = [w for w in layer if w != v]
    current = pos[v] - offset
    right_of = [costs.cost(v, w) for w in others]
    left_of = [costs.cost(w, v) for w in others]
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
