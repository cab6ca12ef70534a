"""A small-weight feedback ordering of a weighted digraph: the greedy heuristic of Eades,
Lin and Smyth, "A fast and effective heuristic for the feedback arc set problem"
(Information Processing Letters 47(6), 1993), used by :mod:`.tracks` to turn the cheaper
order of every conflicting pair of legs into one top-to-bottom order of a channel.

Sinks go to the back, sources to the front; when neither is left, the node with the
largest out-weight minus in-weight goes to the front (lowest index on ties, so the result
is deterministic). Every node keeps its remaining neighbours, its weight balance and its
sink/source status up to date as nodes leave, and a lazy max-heap finds the best node, so
the whole ordering costs O((n + m) log n) for n nodes and m arcs (a scan of every node
per pick would cost O(n * m): minutes on a dense channel of a complete bipartite graph).

>>> greedy_order(3, {(0, 1): 2, (1, 2): 1, (2, 0): 1})   # a cycle: 0 has 2 - 1 = 1
[0, 1, 2]
"""

from __future__ import annotations

import heapq


class _Shrinking:
    """The graph as nodes leave it: remaining arcs with their weights, current sinks and
    sources, and each node's out-weight minus in-weight, with the nodes filed in buckets
    by that balance and a max-heap over the balances that have a bucket (so a change of
    balance costs two set operations, not a heap entry)."""

    def __init__(self, count: int, weights: dict[tuple[int, int], int]) -> None:
        self.outs: list[dict[int, int]] = [{} for _ in range(count)]
        self.ins: list[dict[int, int]] = [{} for _ in range(count)]
        self.balance = [0] * count
        for (a, b), w in weights.items():
            self.outs[a][b] = w
            self.ins[b][a] = w
            self.balance[a] += w
            self.balance[b] -= w
        self.remaining = set(range(count))
        self.sinks = {v for v in range(count) if not self.outs[v]}
        self.sources = {v for v in range(count) if not self.ins[v]}
        self.buckets: dict[int, set[int]] = {}
        for v, value in enumerate(self.balance):
            self.buckets.setdefault(value, set()).add(v)
        self.heap = [-value for value in self.buckets]
        heapq.heapify(self.heap)

    def _rebalance(self, v: int, change: int) -> None:
        old = self.balance[v]
        new = self.balance[v] = old + change
        self.buckets[old].discard(v)
        bucket = self.buckets.get(new)
        if bucket is None:
            self.buckets[new] = {v}
            heapq.heappush(self.heap, -new)
        else:
            bucket.add(v)

    def remove(self, v: int) -> None:
        self.remaining.discard(v)
        self.sinks.discard(v)
        self.sources.discard(v)
        self.buckets[self.balance[v]].discard(v)
        for w, weight in self.outs[v].items():
            ins = self.ins[w]
            del ins[v]
            if weight:
                self._rebalance(w, weight)
            if not ins:
                self.sources.add(w)
        for w, weight in self.ins[v].items():
            outs = self.outs[w]
            del outs[v]
            if weight:
                self._rebalance(w, -weight)
            if not outs:
                self.sinks.add(w)

    def best(self) -> int:
        """The remaining node with the largest balance, lowest index on ties (empty
        buckets met on the way are dropped)."""
        while True:
            bucket = self.buckets[-self.heap[0]]
            if bucket:
                return min(bucket)
            del self.buckets[-heapq.heappop(self.heap)]


def greedy_order(count: int, weights: dict[tuple[int, int], int]) -> list[int]:
    """Nodes ``0..count-1`` ordered so that arcs ``(a, b)`` of ``weights`` mostly point
    forwards (a before b), the weight of the backward ones kept small.

    >>> greedy_order(4, {(2, 1): 1, (1, 0): 1, (3, 2): 1})   # a path: sources first
    [3, 2, 1, 0]
    >>> greedy_order(3, {}), greedy_order(2, {(1, 0): 0})     # no arcs; one arc
    ([0, 1, 2], [1, 0])
    """
    if not weights:
        return list(range(count))        # every node a sink: they keep their order
    if count == 2 and len(weights) == 1:
        [(a, b)] = weights               # the source, then the sink
        return [a, b]
    graph = _Shrinking(count, weights)
    left: list[int] = []
    right: list[int] = []
    while graph.remaining:
        sinks = sorted(graph.sinks)
        for v in reversed(sinks):
            right.append(v)
            graph.remove(v)
        sources = sorted(graph.sources)
        for v in sources:
            left.append(v)
            graph.remove(v)
        if graph.remaining and not sinks and not sources:
            best = graph.best()
            left.append(best)
            graph.remove(best)
    return left + right[::-1]
