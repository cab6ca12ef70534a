"""A small feedback arc set: strongly connected components, then the greedy heuristic of
Eades, Lin and Smyth (1993), "A fast and effective heuristic for the feedback arc set
problem", Information Processing Letters 47(6), inside each component.

The heuristic builds a vertex sequence: sinks go to the end, sources to the front, and
otherwise the vertex with the largest out-degree minus in-degree goes to the front. Edges
pointing backwards in the sequence form the feedback set. Ties are broken by a caller-given
priority (the engine passes the depth-first discovery order from the entry node, which
follows model order), so the result is deterministic.

>>> feedback_edges(3, [(0, 1), (1, 2), (2, 0)], priority=[0, 1, 2])
[2]
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence


def strongly_connected_components(node_count: int,
                                  arcs: Sequence[tuple[int, int]]) -> list[int]:
    """Component number per node (Tarjan 1972, iterative).

    >>> strongly_connected_components(3, [(0, 1), (1, 0), (1, 2)])
    [1, 1, 0]
    """
    successors: list[list[int]] = [[] for _ in range(node_count)]
    for a, b in arcs:
        successors[a].append(b)
    index = [-1] * node_count
    low = [0] * node_count
    on_stack = [False] * node_count
    component = [-1] * node_count
    stack: list[int] = []
    counter = 0
    components = 0
    for root in range(node_count):
        if index[root] != -1:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            v, i = work[-1]
            if i < len(successors[v]):
                work[-1] = (v, i + 1)
                w = successors[v][i]
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, 0))
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    component[w] = components
                    if w == v:
                        break
                components += 1
    return component


def eades_lin_smyth_sequence(nodes: Sequence[int], arcs: Sequence[tuple[int, int]],
                             priority: Sequence[int]) -> list[int]:
    """The greedy vertex sequence of ``nodes`` (arcs must stay inside ``nodes``).

    >>> eades_lin_smyth_sequence([0, 1, 2], [(0, 1), (1, 2), (2, 0), (0, 2)], [0, 1, 2])
    [0, 1, 2]
    """
    out_arcs: dict[int, list[int]] = {v: [] for v in nodes}
    in_arcs: dict[int, list[int]] = {v: [] for v in nodes}
    for a, b in arcs:
        out_arcs[a].append(b)
        in_arcs[b].append(a)
    out_degree = {v: len(out_arcs[v]) for v in nodes}
    in_degree = {v: len(in_arcs[v]) for v in nodes}
    removed: set[int] = set()
    heap = [(_key(v, out_degree, in_degree, priority), v) for v in nodes]
    heapq.heapify(heap)
    front: list[int] = []
    back: list[int] = []
    while heap:
        key, v = heapq.heappop(heap)
        if v in removed or key != _key(v, out_degree, in_degree, priority):
            continue
        removed.add(v)
        (back if key[:2] == (0, 1) else front).append(v)
        for w in out_arcs[v]:
            if w not in removed:
                in_degree[w] -= 1
                heapq.heappush(heap, (_key(w, out_degree, in_degree, priority), w))
        for w in in_arcs[v]:
            if w not in removed:
                out_degree[w] -= 1
                heapq.heappush(heap, (_key(w, out_degree, in_degree, priority), w))
    return front + back[::-1]


def _key(v: int, out_degree: dict[int, int], in_degree: dict[int, int],
         priority: Sequence[int]) -> tuple[int, int, int]:
    """Sources (``(0, 0, .)``, to the front) and sinks (``(0, 1, .)``, to the back) are
    taken first; then the largest out-degree minus in-degree goes to the front."""
    if in_degree[v] == 0:
        return (0, 0, priority[v])
    if out_degree[v] == 0:
        return (0, 1, -priority[v])
    return (1, in_degree[v] - out_degree[v], priority[v])


def feedback_edges(node_count: int, arcs: Sequence[tuple[int, int]],
                   priority: Sequence[int]) -> list[int]:
    """Indices of ``arcs`` whose reversal makes the graph acyclic. Arcs outside cycles are
    never chosen; self-loops must be removed beforehand.

    >>> feedback_edges(4, [(0, 1), (1, 2), (2, 1), (2, 3)], priority=[0, 1, 2, 3])
    [2]
    """
    component = strongly_connected_components(node_count, arcs)
    members: dict[int, list[int]] = {}
    for v in sorted(range(node_count), key=lambda v: priority[v]):
        members.setdefault(component[v], []).append(v)
    inner: dict[int, list[tuple[int, int]]] = {}
    for a, b in arcs:
        if component[a] == component[b]:
            inner.setdefault(component[a], []).append((a, b))
    position = [0] * node_count
    for c, nodes in members.items():
        if len(nodes) > 1:
            for i, v in enumerate(eades_lin_smyth_sequence(nodes, inner[c], priority)):
                position[v] = i
    return [i for i, (a, b) in enumerate(arcs)
            if component[a] == component[b] and position[a] > position[b]]
