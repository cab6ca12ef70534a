"""Lane shifts: move a loop-back lane (:mod:`.lanes`) sideways as a whole.

A lane is a dummy chain. Sweeps, transpose and sifting move one node at a time, and one
dummy of a lane moved across a column on its own crosses the lane's own segments, so a
lane that started on the wrong side of a column stays there. This move shifts every dummy
of one lane by the same number of slots in its layer (clamped to the layer's unpinned
slots), up to :data:`MAX_SHIFT` either way, and keeps the best strict improvement; lanes
are taken in turn, each from the result of the one before.

A shift changes only the layers its lane spans, so only those are scored: ``cost(layers,
first, last)`` gives the crossings between layers ``first`` and ``last + 1`` (segments, and
runs in those channels). ``expired()`` stops the shifts early.

>>> layers = [[0, 5], [1, 6], [2]]     # the lane 5, 6 stands right of the column 0, 1
>>> def cost(candidate, first, last):  # a made-up count: 1 while the lane is on the right
...     return int(first == 0 and candidate[0].index(5) > candidate[0].index(0))
>>> shift_lanes(layers, [[5, 6]], cost, [0] * 7, [0, 1, 2, 0, 0, 0, 1], lambda: False)
[[5, 0], [6, 1], [2]]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["MAX_SHIFT", "shift_lanes"]

MAX_SHIFT = 3
"""Slots a lane may move either way in one shift."""


def shift_lanes(layers: list[list[int]], lanes: Sequence[Sequence[int]],
                cost: Callable[[list[list[int]], int, int], int], pinned: Sequence[int],
                rank: Sequence[int], expired: Callable[[], bool]) -> list[list[int]]:
    """The layers after shifting each lane in turn to its best slot."""
    best = layers
    for lane in lanes:
        if expired():
            break
        first, last = max(rank[lane[0]] - 1, 0), min(rank[lane[-1]], len(layers) - 2)
        start, best_count = best, cost(best, first, last)
        moves = _moves(start, lane, pinned, rank)
        for step in (*range(-MAX_SHIFT, 0), *range(1, MAX_SHIFT + 1)):
            candidate = _shifted(start, moves, step)
            if candidate is None:
                continue
            count = cost(candidate, first, last)
            if count < best_count:
                best, best_count = candidate, count
    return best


@dataclass(frozen=True, slots=True)
class _Move:
    """One dummy of a lane in ``layers[layer]``: its slot, and the lowest and highest
    slots it may take (the unpinned ones; pinned nodes stay at their layer's ends)."""

    dummy: int
    layer: int
    slot: int
    low: int
    high: int


def _moves(layers: Sequence[Sequence[int]], lane: Sequence[int], pinned: Sequence[int],
           rank: Sequence[int]) -> list[_Move]:
    """Every dummy of ``lane`` as a :class:`_Move` in ``layers``: the same for every
    step, so worked out once per lane.

    >>> _moves([[7, 0, 5, 8]], [5], [1 if v == 8 else -1 if v == 7 else 0 for v in range(9)],
    ...        [0] * 9)
    [_Move(dummy=5, layer=0, slot=2, low=1, high=2)]
    """
    moves = []
    for d in lane:
        layer = layers[rank[d]]
        low = sum(1 for v in layer if pinned[v] < 0)
        high = len(layer) - 1 - sum(1 for v in layer if pinned[v] > 0)
        moves.append(_Move(d, rank[d], layer.index(d), low, high))
    return moves


def _shifted(layers: list[list[int]], moves: Sequence[_Move], step: int
             ) -> list[list[int]] | None:
    """A copy of ``layers`` with every dummy of the lane ``moves`` describes moved
    ``step`` slots (clamped to its unpinned slots), or ``None`` when no dummy can move.

    >>> moves = _moves([[0, 5], [6, 1]], [5, 6], [0] * 7, [0, 1, 0, 0, 0, 0, 1])
    >>> _shifted([[0, 5], [6, 1]], moves, -1), _shifted([[0, 5], [6, 1]], moves, 2)
    ([[5, 0], [6, 1]], [[0, 5], [1, 6]])
    >>> _shifted([[0, 5], [6, 1]], moves[:1], 1) is None
    True
    """
    out = list(layers)
    moved = False
    for move in moves:
        new = min(max(move.slot + step, move.low), move.high)
        if new != move.slot:
            layer = list(out[move.layer])
            del layer[move.slot]
            layer.insert(new, move.dummy)
            out[move.layer] = layer
            moved = True
    return out if moved else None
