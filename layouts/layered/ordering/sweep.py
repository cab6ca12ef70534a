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
               *, median: bool, pinned: Sequence[int] | None = None) -> list[int]:
    """``layer`` reordered by the neighbours' barycenter (or median); nodes without
    neighbours and pinned nodes (``pinned[v] != 0``) keep their index."""
    measure = weighted_median if median else barycenter
    keys = [None if pinned and pinned[v] else measure(neighbours[v], pos) for v in layer]
    movable = sorted((k, pos[v], v) for k, v in zip(keys, layer, strict=True) if k is not None)
    result: list[int] = []
    moving = iter(movable)
    for k, v in zip(keys, layer, strict=True):
        result.append(v if k is None else next(moving)[2])
    return result


def sweep(layers: list[list[int]], pos: list[int], up: Sequence[Sequence[int]],
          down: Sequence[Sequence[int]], *, downward: bool, median: bool,
          pinned: Sequence[int] | None = None) -> list[bool]:
    """Reorder every layer (in place) against its already-ordered neighbour layer;
    returns which layers changed."""
    changed = [False] * len(layers)
    indices = range(1, len(layers)) if downward else range(len(layers) - 2, -1, -1)
    for i in indices:
        ordered = sort_layer(layers[i], pos, up if downward else down, median=median,
                             pinned=pinned)
        if ordered != layers[i]:
            changed[i] = True
            layers[i] = ordered
            for p, v in enumerate(ordered):
                pos[v] = p
    return changed
