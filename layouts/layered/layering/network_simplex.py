"""Network simplex layering: Gansner, Koutsofios, North and Vo (1993), "A technique for
drawing directed graphs", IEEE TSE 19(3), section 2.

Minimises the sum of ``weight * (rank[target] - rank[source])`` subject to
``rank[target] - rank[source] >= min_length`` on a connected DAG: an initial longest-path
ranking, a feasible tight spanning tree, then exchanges of a tree edge with a negative cut
value for the non-tree edge of least slack crossing the same cut. Tree nodes carry the
postorder ``low``/``lim`` numbers of the paper (as in dagre), so "is this node below the
tree edge" is two comparisons. Finally ranks are normalised to start at 0 and balanced.

>>> rank_component(3, [(0, 1, 1, 1.0), (1, 2, 1, 1.0), (0, 2, 1, 1.0)])
[0, 1, 2]
"""

from __future__ import annotations

from collections.abc import Sequence

from layouts.layered.model import Deadline

Arc = tuple[int, int, int, float]
"""``(source, target, min_length, weight)``."""


class _Tree:
    """The spanning tree: tree arcs per node, parent arcs, postorder numbers, and the
    cut value of every tree arc (by arc index)."""

    def __init__(self, node_count: int, arc_count: int) -> None:
        self.adjacent: list[list[int]] = [[] for _ in range(node_count)]
        self.parent = [-1] * node_count
        self.parent_arc = [-1] * node_count
        self.low = [0] * node_count
        self.lim = [0] * node_count
        self.cut = [0.0] * arc_count
        self.postorder: list[int] = []
        self.incident: list[list[int]] = [[] for _ in range(node_count)]


def rank_component(node_count: int, arcs: Sequence[Arc],
                   deadline: Deadline | None = None) -> list[int]:
    """Optimal ranks of one connected DAG (nodes ``0..node_count-1``), lowest rank 0.

    >>> rank_component(2, [(0, 1, 2, 1.0)])
    [0, 2]
    """
    if node_count == 0:
        return []
    arcs = _merge_parallel(arcs)
    rank = _longest_path(node_count, arcs)
    if deadline is not None and deadline.expired():
        low = min(rank)
        return [r - low for r in rank]
    tree = _feasible_tree(node_count, arcs, rank, deadline)
    if tree is None:   # out of time: the longest-path ranks, feasible but not tight
        rank = _longest_path(node_count, arcs)
        low = min(rank)
        return [r - low for r in rank]
    _number_tree(tree, arcs, root=0)
    _compute_cut_values(tree, arcs)
    while (leave := _leaving_node(tree)) != -1:
        if deadline is not None and deadline.expired():
            break
        enter = _entering_arc(tree, arcs, rank, leave)
        _exchange(tree, arcs, rank, leave, enter)
    low = min(rank)
    return _balance(node_count, arcs, [r - low for r in rank])


def _merge_parallel(arcs: Sequence[Arc]) -> list[Arc]:
    merged: dict[tuple[int, int], tuple[int, float]] = {}
    for a, b, length, weight in arcs:
        old_length, old_weight = merged.get((a, b), (0, 0.0))
        merged[(a, b)] = (max(old_length, length), old_weight + weight)
    return [(a, b, length, weight) for (a, b), (length, weight) in merged.items()]


def _longest_path(node_count: int, arcs: list[Arc]) -> list[int]:
    """Sinks at rank 0, every other node as low as its successors allow (dagre)."""
    outgoing: list[list[int]] = [[] for _ in range(node_count)]
    pending = [0] * node_count
    incoming: list[list[int]] = [[] for _ in range(node_count)]
    for i, (a, b, _, _) in enumerate(arcs):
        outgoing[a].append(i)
        incoming[b].append(i)
        pending[a] += 1
    rank = [0] * node_count
    ready = [v for v in range(node_count) if pending[v] == 0]
    while ready:
        v = ready.pop()
        if outgoing[v]:
            rank[v] = min(rank[arcs[i][1]] - arcs[i][2] for i in outgoing[v])
        for i in incoming[v]:
            a = arcs[i][0]
            pending[a] -= 1
            if pending[a] == 0:
                ready.append(a)
    return rank


def _slack(arc: Arc, rank: list[int]) -> int:
    return rank[arc[1]] - rank[arc[0]] - arc[2]


def _feasible_tree(node_count: int, arcs: list[Arc], rank: list[int],
                   deadline: Deadline | None = None) -> _Tree | None:
    """Grow a tree of tight arcs from node 0, shifting the tree's ranks to make the
    least-slack incident arc tight whenever the tree stops growing; ``None`` when the
    deadline expires first (``rank`` is then shifted in part, so not to be used)."""
    tree = _Tree(node_count, len(arcs))
    incident = tree.incident
    for i, (a, b, _, _) in enumerate(arcs):
        incident[a].append(i)
        incident[b].append(i)
    in_tree = [False] * node_count
    in_tree[0] = True
    members = [0]
    while True:
        stack = list(members)
        while stack:
            v = stack.pop()
            for i in incident[v]:
                a, b = arcs[i][0], arcs[i][1]
                w = b if a == v else a
                if not in_tree[w] and _slack(arcs[i], rank) == 0:
                    in_tree[w] = True
                    members.append(w)
                    stack.append(w)
                    tree.adjacent[v].append(i)
                    tree.adjacent[w].append(i)
        if len(members) == node_count:
            return tree
        if deadline is not None and deadline.expired():
            return None
        best = min((i for i, (a, b, _, _) in enumerate(arcs) if in_tree[a] != in_tree[b]),
                   key=lambda i: (_slack(arcs[i], rank), i))
        delta = _slack(arcs[best], rank)
        shift = delta if in_tree[arcs[best][0]] else -delta
        for v in members:
            rank[v] += shift


def _number_tree(tree: _Tree, arcs: list[Arc], root: int, start: int | None = None) -> None:
    """Parents, postorder ``lim`` and subtree minimum ``low`` below ``root``: the whole
    tree from its root (``start`` None), or one subtree renumbered in place from
    ``start``, keeping the subtree root's own parent."""
    counter = 1 if start is None else start
    if start is None:
        tree.parent[root] = -1
        tree.parent_arc[root] = -1
    tree.postorder = []
    stack = [(root, 0)]
    tree.low[root] = counter
    while stack:
        v, i = stack[-1]
        if i < len(tree.adjacent[v]):
            stack[-1] = (v, i + 1)
            arc_index = tree.adjacent[v][i]
            a, b = arcs[arc_index][0], arcs[arc_index][1]
            w = b if a == v else a
            if arc_index != tree.parent_arc[v]:
                tree.parent[w] = v
                tree.parent_arc[w] = arc_index
                tree.low[w] = counter
                stack.append((w, 0))
            continue
        stack.pop()
        tree.lim[v] = counter
        counter += 1
        tree.postorder.append(v)


def _compute_cut_values(tree: _Tree, arcs: list[Arc]) -> None:
    """Cut value of each node's parent edge, children first (dagre's calcCutValue)."""
    incident = tree.incident
    for child in tree.postorder:
        parent = tree.parent[child]
        if parent == -1:
            continue
        child_is_tail = arcs[tree.parent_arc[child]][0] == child
        value = arcs[tree.parent_arc[child]][3]
        for i in incident[child]:
            a, b, _, weight = arcs[i]
            is_out = a == child
            other = b if is_out else a
            if other == parent:
                continue
            points_to_head = is_out == child_is_tail
            value += weight if points_to_head else -weight
            if tree.parent[other] == child and tree.parent_arc[other] == i:
                value += -tree.cut[i] if points_to_head else tree.cut[i]
        tree.cut[tree.parent_arc[child]] = value


def _leaving_node(tree: _Tree) -> int:
    """The first node (by index) whose parent edge has a negative cut value, else -1."""
    for v, arc in enumerate(tree.parent_arc):
        if arc != -1 and tree.cut[arc] < 0:
            return v
    return -1


def _entering_arc(tree: _Tree, arcs: list[Arc], rank: list[int], child: int) -> int:
    """The least-slack arc crossing the cut of ``child``'s parent edge the other way."""
    low, lim = tree.low[child], tree.lim[child]
    child_is_tail = arcs[tree.parent_arc[child]][0] == child
    best, best_slack = -1, 0
    for i, arc in enumerate(arcs):
        source_below = low <= tree.lim[arc[0]] <= lim
        target_below = low <= tree.lim[arc[1]] <= lim
        if source_below == target_below or target_below != child_is_tail:
            continue
        slack = _slack(arc, rank)
        if best == -1 or slack < best_slack:
            best, best_slack = i, slack
    return best


def _exchange(tree: _Tree, arcs: list[Arc], rank: list[int], child: int, enter: int) -> None:
    """Swap the tree arc above ``child`` for ``enter`` incrementally (as Graphviz's
    ``update``): shift the subtree below the leaving arc to make ``enter`` tight, adjust
    the cut values on the tree path between ``enter``'s ends by the leaving arc's cut
    value, and renumber only the subtree of the path's top node."""
    leaving = tree.parent_arc[child]
    cut = tree.cut[leaving]
    delta = _slack(arcs[enter], rank)
    if delta:
        _shift_subtree(tree, arcs, rank, child, -delta if arcs[leaving][0] == child else delta)
    tail, head = arcs[enter][0], arcs[enter][1]
    top = _update_path(tree, arcs, tail, head, cut, True)
    _update_path(tree, arcs, head, tail, cut, False)
    tree.cut[enter] = -cut
    tree.cut[leaving] = 0.0
    a, b = arcs[leaving][0], arcs[leaving][1]
    tree.adjacent[a].remove(leaving)
    tree.adjacent[b].remove(leaving)
    tree.adjacent[tail].append(enter)
    tree.adjacent[head].append(enter)
    _number_tree(tree, arcs, top, tree.low[top])


def _shift_subtree(tree: _Tree, arcs: list[Arc], rank: list[int], root: int,
                   shift: int) -> None:
    stack = [root]
    while stack:
        v = stack.pop()
        rank[v] += shift
        for arc in tree.adjacent[v]:
            if arc != tree.parent_arc[v]:
                stack.append(arcs[arc][1] if arcs[arc][0] == v else arcs[arc][0])


def _update_path(tree: _Tree, arcs: list[Arc], v: int, w: int, cut: float,
                 upward: bool) -> int:
    """Walk from ``v`` up to the first node whose subtree holds ``w``, changing the cut
    value of each tree arc passed; return that node."""
    while not tree.low[v] <= tree.lim[w] <= tree.lim[v]:
        arc = tree.parent_arc[v]
        same = upward if arcs[arc][0] == v else not upward
        tree.cut[arc] += cut if same else -cut
        v = tree.parent[v]
    return v


def _balance(node_count: int, arcs: list[Arc], rank: list[int]) -> list[int]:
    """Move nodes whose in-weight equals their out-weight to the feasible rank holding
    the fewest nodes (ties: the lowest rank), in node order (the paper's balancing)."""
    incoming: list[list[Arc]] = [[] for _ in range(node_count)]
    outgoing: list[list[Arc]] = [[] for _ in range(node_count)]
    for arc in arcs:
        outgoing[arc[0]].append(arc)
        incoming[arc[1]].append(arc)
    sizes: dict[int, int] = {}
    for r in rank:
        sizes[r] = sizes.get(r, 0) + 1
    for v in range(node_count):
        weight_in = sum(arc[3] for arc in incoming[v])
        if weight_in == 0 or weight_in != sum(arc[3] for arc in outgoing[v]):
            continue
        lowest = max(rank[arc[0]] + arc[2] for arc in incoming[v])
        highest = min(rank[arc[1]] - arc[2] for arc in outgoing[v])
        best = min(range(lowest, highest + 1), key=lambda r: (sizes.get(r, 0), r))
        if best != rank[v] and sizes.get(best, 0) < sizes[rank[v]] - 1:
            sizes[rank[v]] -= 1
            sizes[best] = sizes.get(best, 0) + 1
            rank[v] = best
    return rank
