"""Exact crossing counts: Barth, Juenger and Mutzel (2004), "Simple and efficient bilayer
cross counting", JGAA 8(2). Edges between two layers, sorted by their upper end and then
their lower end, cross exactly as often as the sequence of lower positions has
inversions. Where they use an accumulator tree, the count here keeps the lower positions
seen so far in a sorted list (``bisect``): ``O(E log E)`` comparisons plus list inserts
that move at most ``E`` words in C, several times faster in Python for layers of up to
a few thousand edges.

Also the pairwise count ``c(v, w)`` used by transpose and sifting: the crossings among the
edges of ``v`` and ``w`` to one neighbouring layer when ``v`` stands left of ``w``.

>>> pos = [0, 1, 0, 1]
>>> down = [[3], [2], [], []]   # 0-3 and 1-2 cross once
>>> bilayer_crossings([0, 1], pos, down, 2)
1
"""

from __future__ import annotations

from bisect import bisect_right, insort
from collections.abc import Sequence


def bilayer_crossings(upper: Sequence[int], pos: Sequence[int],
                      down: Sequence[Sequence[int]], lower_size: int) -> int:
    """Crossings between layer ``upper`` and the layer below it (``lower_size`` nodes);
    ``down[v]`` lists the lower neighbours of ``v`` (with repeats for parallel edges).

    Edges 0-4, 1-3, 1-4, 2-3: 0-4 crosses 1-3 and 2-3, and 1-4 crosses 2-3.

    >>> bilayer_crossings([0, 1, 2], [0, 1, 2, 0, 1], [[4], [3, 4], [3], [], []], 2)
    3
    """
    seen: list[int] = []   # lower positions of the edges so far, sorted
    crossings = 0
    for u in upper:
        around = down[u]
        if len(around) == 1:
            p = pos[around[0]]
            crossings += len(seen) - bisect_right(seen, p)
            insort(seen, p)
            continue
        ends = sorted([pos[w] for w in around])
        for p in ends:
            crossings += len(seen) - bisect_right(seen, p)
        for p in ends:
            insort(seen, p)
    return crossings


def total_crossings(layers: Sequence[Sequence[int]], pos: Sequence[int],
                    down: Sequence[Sequence[int]]) -> int:
    """Crossings over all consecutive layer pairs.

    >>> total_crossings([[0, 1], [2, 3]], [0, 1, 0, 1], [[3], [2], [], []])
    1
    """
    return sum(bilayer_crossings(layers[i], pos, down, len(layers[i + 1]))
               for i in range(len(layers) - 1))


def pair_crossings(left: Sequence[int], right: Sequence[int], pos: Sequence[int]) -> int:
    """Crossings among edges to one layer of a node with neighbours ``left`` standing left
    of a node with neighbours ``right``: pairs ``(a, b)`` with ``pos[a] > pos[b]``.

    >>> pair_crossings([0, 2], [1], [0, 1, 2])
    1
    """
    if not left or not right:
        return 0
    right_positions = sorted(pos[b] for b in right)
    count = 0
    j = 0
    for p in sorted(pos[a] for a in left):
        while j < len(right_positions) and right_positions[j] < p:
            j += 1
        count += j
    return count
