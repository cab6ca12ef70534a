"""Layer sweeps: the initial order and one-layer reordering by barycenter (Sugiyama,
Tagawa and Toda 1981) or weighted median (Gansner et al. 1993, section 3).

Nodes without neighbours on the fixed side keep their slot; ties keep the current order,
so the first-seen model order survives wherever it costs no crossing.

>>> layers = [[0, 1], [2, 3]]
>>> pos = [0, 1, 0, 1]
>>> up = [[], [], [1], [0]]
>>> sort_layer(layers[1], pos, up, median=False)
[3, 2]
"""

from __future__ import annotations

import random
from collections.abc import Sequence


def initial_layers(nodes: Sequence[int], rank: Sequence[int], down: Sequence[Sequence[int]],
                   layer_count: int, rng: random.Random | None = None) -> list[list[int]]:
    """Depth-first discovery order per layer, from the nodes by rank then model order
    (dagre's initOrder); with ``rng``, roots and children are visited in random order.

    >>> initial_layers([0, 1, 2], [0, 1, 1], [[2, 1], [], []], 2)
    [[0], [2, 1]]
    """
    roots = sorted(nodes, key=lambda v: rank[v])
    if rng is not None:
        rng.shuffle(roots)
        roots.sort(key=lambda v: rank[v])
    layers: list[list[int]] = [[] for _ in range(layer_count)]
    seen: set[int] = set()
    for root in roots:
        stack = [root]
        while stack:
            v = stack.pop()
            if v in seen:
                continue
            seen.add(v)
            layers[rank[v]].append(v)
            children = list(down[v])
            if rng is not None:
                rng.shuffle(children)
            stack.extend(reversed(children))
    return layers


def breadth_first_layers(nodes: Sequence[int], rank: Sequence[int],
                         down: Sequence[Sequence[int]], up: Sequence[Sequence[int]],
                         layer_count: int, *, from_bottom: bool = False) -> list[list[int]]:
    """Breadth-first discovery order per layer from the nodes without predecessors
    (``from_bottom``: without successors), in model order: dot's initial order
    (``build_ranks``, Gansner et al. 1993, section 3), which visits every node's
    neighbours before theirs, so siblings start side by side.

    >>> breadth_first_layers([0, 1, 2, 3], [0, 0, 1, 1], [[3], [2], [], []],
    ...                      [[], [], [1], [0]], 2)
    [[0, 1], [3, 2]]
    """
    forward = up if from_bottom else down
    backward = down if from_bottom else up
    layers: list[list[int]] = [[] for _ in range(layer_count)]
    seen = [False] * (max(nodes, default=-1) + 1)
    member = set(nodes)
    queue: list[int] = []
    for root in sorted(nodes, key=lambda v: -rank[v] if from_bottom else rank[v]):
        if seen[root] or any(u in member for u in backward[root]):
            continue
        seen[root] = True
        queue.append(root)
        head = len(queue) - 1
        while head < len(queue):
            v = queue[head]
            head += 1
            layers[rank[v]].append(v)
            for w in forward[v]:
                if not seen[w]:
                    seen[w] = True
                    queue.append(w)
    for v in sorted(nodes, key=lambda v: rank[v]):   # reached from no root: cannot happen
        if not seen[v]:                              # in a DAG, kept for safety
            seen[v] = True
            layers[rank[v]].append(v)
    return layers


def barycenter(neighbours: Sequence[int], pos: Sequence[int]) -> float | None:
    """Mean neighbour position, ``None`` without neighbours.

    >>> barycenter([0, 3], [0, 1, 2, 3])
    1.5
    """
    if not neighbours:
        return None
    return sum(pos[w] for w in neighbours) / len(neighbours)


def weighted_median(neighbours: Sequence[int], pos: Sequence[int]) -> float | None:
    """Gansner et al.'s weighted median of neighbour positions, ``None`` without any.

    >>> weighted_median([0, 1, 5, 6], [0, 1, 2, 3, 4, 5, 6])
    3.0
    """
    if not neighbours:
        return None
    p = sorted(pos[w] for w in neighbours)
    m = len(p) // 2
    if len(p) % 2 == 1:
        return float(p[m])
    if len(p) == 2:
        return (p[0] + p[1]) / 2
    left = p[m - 1] - p[0]
    right = p[-1] - p[m]
    if left + right == 0:
        return (p[m - 1] + p[m]) / 2
    return (p[m - 1] * right + p[m] * left) / (left + right)


def sort_layer(layer: Sequence[int], pos: Sequence[int], neighbours: Sequence[Sequence[int]],
               *, median: bool, pinned: Sequence[int] | None = None,
               reverse_ties: bool = False) -> list[int]:
    """``layer`` reordered by the neighbours' barycenter (or median); nodes without
    neighbours and pinned nodes (``pinned[v] != 0``) keep their index. Nodes with equal
    keys keep their order, or swap it with ``reverse_ties`` (Gansner et al.'s
    alternation, which lets sweeps leave a plateau of equal counts)."""
    movable: list[tuple[float, int, int]] = []
    slots: list[int] = []
    for index, v in enumerate(layer):
        around = neighbours[v]
        if not around or (pinned and pinned[v]):
            continue
        key: float
        count = len(around)
        if count == 1:
            key = pos[around[0]]
        elif count == 2:   # the median of two is their mean, as is the barycenter
            key = (pos[around[0]] + pos[around[1]]) / 2
        elif median:
            key = weighted_median(around, pos) or 0.0
        else:
            key = sum([pos[w] for w in around]) / count
        movable.append((key, -pos[v] if reverse_ties else pos[v], v))
        slots.append(index)
    result = list(layer)
    if len(movable) < 2:    # one movable node keeps its slot
        return result
    movable.sort()
    for index, (_, _, v) in zip(slots, movable, strict=True):
        result[index] = v
    return result


MemoKey = tuple[int, bool, bool, bool]
"""(layer, downward, median, reverse_ties)"""


class SweepMemo:
    """What the sweeps of one ordering remember (every restart and corridor side): per
    (layer, downward, mode), the fixed neighbour layer, the result of the last sort of
    that layer in such a sweep, and the pins of its nodes then.

    The mode is the median flag only where it matters: a layer none of whose nodes has
    three or more neighbours on the fixed side sorts the same by median as by
    barycenter (the median of one or two positions is their mean), so a median sweep
    finds what the barycenter sweep before it left (and the other way round). With
    ``reverse_ties`` a sort is not idempotent (ties swap again), so that mode keeps
    its own entries, as it always did.

    >>> memo = SweepMemo()
    >>> memo.key(1, [0, 1], [[5], [5, 6]], downward=True, median=True, reverse_ties=False)
    (1, True, False, False)
    >>> memo.key(1, [0, 1], [[5], [5, 6, 7]], downward=False, median=True, reverse_ties=False)
    (1, False, True, False)
    """

    __slots__ = ("plain", "sorted")

    def __init__(self) -> None:
        self.sorted: dict[MemoKey, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = {}
        self.plain: dict[tuple[int, bool], bool] = {}

    def key(self, i: int, layer: Sequence[int], neighbours: Sequence[Sequence[int]], *,
            downward: bool, median: bool, reverse_ties: bool) -> MemoKey:
        """The entry of layer ``i`` (``layer``, whose nodes' fixed-side ``neighbours``
        decide whether the median flag counts; layers keep their nodes, so that is
        worked out once per layer and direction)."""
        if median and not reverse_ties:
            plain = self.plain.get((i, downward))
            if plain is None:
                plain = self.plain[(i, downward)] = all(len(neighbours[v]) < 3 for v in layer)
            median = not plain
        return (i, downward, median, reverse_ties)


def sweep(layers: list[list[int]], pos: list[int], up: Sequence[Sequence[int]],
          down: Sequence[Sequence[int]], *, downward: bool, median: bool,
          pinned: Sequence[int] | None = None, memo: SweepMemo | None = None,
          reverse_ties: bool = False) -> list[bool]:
    """Reorder every layer (in place) against its already-ordered neighbour layer;
    returns which layers changed. With a ``memo`` (kept between the sweeps of one
    ordering), a layer that still is what its last sort against the same, unchanged,
    neighbour layer gave, with the same pins, is left alone: sorting is idempotent, so
    it would come out the same (:class:`SweepMemo` says when a barycenter and a median
    sort count as the same).

    >>> layers, memo = [[0, 1], [2, 3]], SweepMemo()
    >>> sweep(layers, [0, 1, 0, 1], [[], [], [1], [0]], [[3], [2], [], []],
    ...       downward=True, median=False, memo=memo), layers
    ([False, True], [[0, 1], [3, 2]])
    >>> memo.sorted
    {(1, True, False, False): ((0, 1), (3, 2), ())}
    """
    changed = [False] * len(layers)
    indices = range(1, len(layers)) if downward else range(len(layers) - 2, -1, -1)
    neighbours = up if downward else down
    for i in indices:
        if len(layers[i]) < 2:
            continue
        fixed = tuple(layers[i - 1] if downward else layers[i + 1])
        pins = () if pinned is None else tuple([pinned[v] for v in layers[i]])
        if memo is not None:
            key = memo.key(i, layers[i], neighbours, downward=downward, median=median,
                           reverse_ties=reverse_ties)
            if memo.sorted.get(key) == (fixed, tuple(layers[i]), pins):
                continue
        ordered = sort_layer(layers[i], pos, neighbours, median=median,
                             pinned=pinned, reverse_ties=reverse_ties)
        if memo is not None:
            memo.sorted[key] = (fixed, tuple(ordered),
                                () if pinned is None else tuple([pinned[v] for v in ordered]))
        if ordered != layers[i]:
            changed[i] = True
            layers[i] = ordered
            for p, v in enumerate(ordered):
                pos[v] = p
    return changed
