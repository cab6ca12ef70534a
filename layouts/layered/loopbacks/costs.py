"""Corridor costs: the crossings of loop-back corridor runs and lane runs, cheap enough
to score every sweep of ordering, and the corridor side planned per reversed edge (see
:mod:`.anchors` for how ordering models the runs).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Mapping, Sequence

from layouts.layered.graph import ProperGraph


class CorridorCosts:
    """Crossings of corridor runs, cheap enough to score every sweep.

    The run below a reversed edge's ``lower`` node crosses every segment leaving that
    layer on the corridor's side of ``lower``; the run above its ``upper`` node every
    segment entering that layer on that side of ``upper``. :meth:`assign` picks a side
    per edge, shortest edges first: the side where its runs cross fewer segments plus
    fewer corridors already on that side whose layer ranges overlap its own only in part
    (those would cross it); ties keep the preferred side. Then single edges move to the
    other side while that strictly lowers the total (a local search for this max-cut-like
    choice). Lane edges have no side; their runs count in the total
    (:meth:`lane_runs`).

    >>> from layouts.layered.graph import EngineNode
    >>> from layouts.layered.model import ChainEdge

    Layers [a, b], [c, d], [e]; segments a -> c, b -> d, d -> e; the loop-back c -> a.
    Its run below c crosses d -> e when it goes right, nothing when it goes left:

    >>> back = ChainEdge("r", "c", "a", "a", "c", (), True, True)
    >>> g = ProperGraph(tuple(EngineNode(n, 9, 9) for n in "abcde"), (0, 0, 1, 1, 2), 3,
    ...                 ((0, 2), (1, 3), (3, 4)), (back,), (0,) * 5,
    ...                 {n: i for i, n in enumerate("abcde")})
    >>> costs = CorridorCosts(g)
    >>> pos = [0, 1, 0, 1, 0]
    >>> costs.runs(pos, 2, 0, -1), costs.runs(pos, 2, 0, 1)
    (0, 1)
    >>> costs.assign(pos, lambda component: 1)
    ([(0, -1)], 0)
    """

    def __init__(self, graph: ProperGraph) -> None:
        self.graph = graph
        self.channels: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for a, b in graph.segments:
            self.channels.setdefault((graph.component[a], graph.rank[a]), []).append((a, b))
        edges = []
        self.lanes: list[tuple[int, int, int, int]] = []
        for i, e in enumerate(graph.chain_edges):
            if e.reversed and e.upper != e.lower:
                lower, upper = graph.index[e.lower], graph.index[e.upper]
                if e.lane:
                    self.lanes.append((lower, graph.index[e.chain[-1]],
                                       upper, graph.index[e.chain[0]]))
                    continue
                span = (graph.rank[upper], graph.rank[lower] + 1)
                edges.append((span[1] - span[0], i, lower, upper, span))
        self.edges = sorted(edges)

    def runs(self, pos: Sequence[int], lower: int, upper: int, side: int) -> int:
        """Crossings of the two runs of the edge from ``lower`` up to ``upper``."""
        reach = math.inf * side
        return self._below(pos, lower, reach) + self._above(pos, upper, reach)

    def _below(self, pos: Sequence[int], lower: int, reach: float) -> int:
        """The run below ``lower`` out to slot ``reach`` of its layer (a lane's bottom,
        or an infinite slot for the side of the drawing): the segments leaving that layer
        strictly between the two."""
        low, high = sorted((pos[lower], reach))
        channel = self.channels.get((self.graph.component[lower], self.graph.rank[lower]), ())
        return sum(1 for a, _ in channel if low < pos[a] < high)

    def _above(self, pos: Sequence[int], upper: int, reach: float) -> int:
        """The run above ``upper`` out to slot ``reach``: the segments entering that
        layer strictly between the two."""
        low, high = sorted((pos[upper], reach))
        channel = self.channels.get((self.graph.component[upper], self.graph.rank[upper] - 1),
                                    ())
        return sum(1 for _, b in channel if low < pos[b] < high)

    def lane_runs(self, pos: Sequence[int], component: int | None = None) -> int:
        """Crossings of the runs that turn lane edges (of ``component``, if given) into
        their lanes: below the lower node, the segments starting strictly between it and
        the lane's bottom; above the upper node, those ending between it and the lane's top."""
        return sum(self._below(pos, lower, pos[bottom]) + self._above(pos, upper, pos[top])
                   for lower, bottom, upper, top in self.lanes
                   if component is None or self.graph.component[lower] == component)

    def local_runs(self, pos: Sequence[int], sides: Mapping[int, int], first: int,
                   last: int) -> int:
        """Crossings of the runs in the channels below layers ``first`` to ``last``:
        corridor runs on the given ``sides`` (by chain edge index; edges without one are
        left out) and lane runs. With the sides fixed, a move inside those layers changes
        nothing else, so this scores it cheaply."""
        rank = self.graph.rank
        total = 0
        for _, i, lower, upper, _ in self.edges:
            side = sides.get(i)
            if side is None:
                continue
            if first <= rank[lower] <= last:
                total += self._below(pos, lower, math.inf * side)
            if first <= rank[upper] - 1 <= last:
                total += self._above(pos, upper, math.inf * side)
        for lower, bottom, upper, top in self.lanes:
            if first <= rank[lower] <= last:
                total += self._below(pos, lower, pos[bottom])
            if first <= rank[upper] - 1 <= last:
                total += self._above(pos, upper, pos[top])
        return total

    def assign(self, pos: Sequence[int], preferred: Callable[[int], int],
               component: int | None = None) -> tuple[list[tuple[int, int]], int]:
        """``(edge index, side)`` for every reversed edge (of ``component``, if given,
        by its lower node) and the total crossings of their runs and corridors: the
        greedy choice, shortest edges first, then single edges moved to the other side
        while that strictly lowers the total (two partly overlapping corridors can take
        opposite sides only once both are placed)."""
        edges = [e for e in self.edges
                 if component is None or self.graph.component[e[2]] == component]
        runs = [{side: self.runs(pos, lower, upper, side) for side in (-1, 1)}
                for _, _, lower, upper, _ in edges]
        partners = _overlap_partners([e[4] for e in edges])
        sides: list[int] = []
        for k, (_, _, lower, _, _) in enumerate(edges):
            first = preferred(self.graph.component[lower]) or 1
            sides.append(min((-1, 1), key=lambda side: (
                runs[k][side] + _overlaps(partners[k], sides, side), side != first)))
        _improve(sides, runs, partners)
        total = sum(runs[k][side] + _overlaps(partners[k], sides[:k], side)
                    for k, side in enumerate(sides)) + self.lane_runs(pos, component)
        return [(e[1], side) for e, side in zip(edges, sides, strict=True)], total

    def crossing_edges(self, pos: Sequence[int], sides: Sequence[int], *,
                       cover: bool = True) -> list[int]:
        """Chain edge indices of the corridors that cost crossings with ``sides`` (per
        chain edge, as :class:`OrderingResult` reports them): those whose runs cross a
        segment, then, for the corridors that cross each other (partial overlap, same
        side), a small set that leaves no such pair: repeatedly the one with the most
        such partners left, the shorter first on ties (a short lane is easier to fit
        between the columns). Without ``cover``, every corridor that crosses another.

        >>> from layouts.layered.graph import EngineNode
        >>> from layouts.layered.model import ChainEdge
        >>> nodes = tuple(EngineNode(n, 9, 9) for n in "abcdef")
        >>> a = ChainEdge("a", "d", "a", "a", "d", (), True, True)   # layers 0-3
        >>> b = ChainEdge("b", "e", "c", "c", "e", (), True, True)   # layers 2-4, shorter
        >>> g = ProperGraph(nodes, tuple(range(6)), 6, tuple((i, i + 1) for i in range(5)),
        ...                 (a, b), (0,) * 6, {n: i for i, n in enumerate("abcdef")})
        >>> costs = CorridorCosts(g)
        >>> costs.crossing_edges([0] * 6, [-1, -1]), costs.crossing_edges([0] * 6, [-1, 1])
        ([1], [])
        >>> costs.crossing_edges([0] * 6, [-1, -1], cover=False)
        [0, 1]
        """
        chosen: set[int] = set()
        conflicts: dict[int, set[int]] = {}
        partners = _overlap_partners([e[4] for e in self.edges])
        for k, (_, i, lower, upper, _) in enumerate(self.edges):
            if self.runs(pos, lower, upper, sides[i]):
                chosen.add(k)
            conflicts[k] = {j for j in partners[k] if sides[self.edges[j][1]] == sides[i]}
        if not cover:
            chosen.update(k for k, partners_left in conflicts.items() if partners_left)
        for k in chosen:
            for j in conflicts.pop(k):
                conflicts[j].discard(k)
        while any(conflicts.values()):
            k = max(conflicts, key=lambda k: (len(conflicts[k]), -self.edges[k][0], -k))
            chosen.add(k)
            for j in conflicts.pop(k):
                conflicts[j].discard(k)
        return sorted(self.edges[k][1] for k in chosen)


def _overlap_partners(spans: Sequence[tuple[int, int]]) -> list[list[int]]:
    """For every span, the indices of the spans that overlap it in part (see
    :func:`_partial_overlap`), found by a sweep over the spans sorted by start, so the
    cost is O(R log R + pairs) rather than R squared.

    >>> _overlap_partners([(3, 9), (7, 12), (9, 14), (4, 6)])
    [[1], [0, 2], [1], []]
    """
    partners: list[list[int]] = [[] for _ in spans]
    by_start = sorted(range(len(spans)), key=lambda i: spans[i])
    starts = [spans[i][0] for i in by_start]
    for i in range(len(spans)):
        # candidates start strictly inside span i: bisect over the sorted starts
        lo = bisect.bisect_right(starts, spans[i][0])
        hi = bisect.bisect_left(starts, spans[i][1])
        for j in by_start[lo:hi]:
            if j != i and _partial_overlap(spans[i], spans[j]):
                partners[i].append(j)
                partners[j].append(i)
    # equal starts never overlap in part (one holds the other), so each pair is seen once
    return [sorted(p) for p in partners]


def _overlaps(partners: Sequence[int], sides: Sequence[int], side: int) -> int:
    """Partners among the first ``len(sides)`` corridors (side 0: not placed) on ``side``."""
    placed = len(sides)
    return sum(1 for j in partners if j < placed and sides[j] == side)


def _improve(sides: list[int], runs: Sequence[dict[int, int]],
             partners: Sequence[Sequence[int]], max_rounds: int = 4) -> None:
    """Move single corridors to the other side while that strictly lowers the total."""
    for _ in range(max_rounds):
        moved = False
        for k, side in enumerate(sides):
            stay = runs[k][side] + _overlaps(partners[k], sides, side)
            move = runs[k][-side] + _overlaps(partners[k], sides, -side)
            if move < stay:
                sides[k], moved = -side, True
        if not moved:
            return


def _partial_overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Channel ranges (first, last) that share more than one channel while neither
    holds the other. Ranges meeting in a single channel (one edge's last is the other's
    first) need not cross: there the run out of the upper edge's source (its verticals go
    up) can take a track above the run into the lower edge's target (verticals go down),
    which costs routing's track assignment nothing.

    >>> _partial_overlap((3, 9), (7, 12)), _partial_overlap((3, 9), (9, 14))
    (True, False)
    """
    intersect = a[0] < b[1] and b[0] < a[1]
    nested = (a[0] <= b[0] and b[1] <= a[1]) or (b[0] <= a[0] and a[1] <= b[1])
    return intersect and not nested
