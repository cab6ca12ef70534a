"""Rank groups in layering (DOT's ``rank=same/min/max/source/sink``): the members of a
group are merged into one class before network simplex ranks the graph, so they get one
rank, as Graphviz's dot does ("the nodes of a same-rank set are collapsed into one node",
Gansner et al. 1993, section 2).

- ``same``: the group's members become one class.
- ``min``/``source``: all such members become one class, ranked first: the class is the
  component's entry, with zero-weight arcs to every other source (length 0 for ``min``,
  1 for ``source``, which keeps the first layer to the class alone).
- ``max``/``sink``: one class ranked last, symmetrically (arcs from every other sink).

This engine draws no edge inside a layer, so a member joined to its class by an edge or
a path (in either direction, after cycle breaking) cannot share its rank and is left
out; so is a ``min``/``source`` member with a predecessor (``max``/``sink``: with a
successor). Which members were left out is visible in the layout itself: the provider
checks every group on the drawing (:mod:`layouts.rank_check`).

Pre-condition: ``arcs`` form a DAG over ``node_count`` nodes.
Post-condition: the class quotient of the DAG is a DAG, and no arc joins two members of
one class.

>>> c = merge(4, [(0, 1), (1, 2)], ((RankKind.SAME, (0, 3)), (RankKind.SAME, (0, 2))))
>>> c.representative   # 3 joins 0; 2 is below 0 (0 -> 1 -> 2), so it cannot
[0, 1, 2, 0]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from layouts.graph import RankKind
from layouts.layered.graph import EngineRankGroup

MAX_STEPS = 2_000_000
"""Class visits the path checks may make in all (a few seconds at most): past it, the
remaining members are left out (and reported), so a huge graph with many groups cannot
make layering quadratic."""

_FIRST = frozenset({RankKind.MIN, RankKind.SOURCE})
_LAST = frozenset({RankKind.MAX, RankKind.SINK})


@dataclass(frozen=True, slots=True)
class Classes:
    """Each node's class representative; ``first``/``last`` the representative of the
    class ranked first/last (``-1``: none), ``strict_first``/``strict_last`` whether it
    keeps its layer to itself (``source``/``sink``)."""

    representative: list[int]
    first: int = -1
    last: int = -1
    strict_first: bool = False
    strict_last: bool = False


class _Merger:
    """Union-find over node indices with reachability in the current quotient DAG."""

    def __init__(self, node_count: int, arcs: Sequence[tuple[int, int]]) -> None:
        self.parent = list(range(node_count))
        self.members: list[list[int]] = [[v] for v in range(node_count)]
        self.successors: list[list[int]] = [[] for _ in range(node_count)]
        self.has_in = [False] * node_count
        self.has_out = [False] * node_count
        self.steps = 0
        for a, b in arcs:
            self.successors[a].append(b)
            self.has_out[a] = True
            self.has_in[b] = True

    def find(self, v: int) -> int:
        while self.parent[v] != v:
            self.parent[v] = self.parent[self.parent[v]]
            v = self.parent[v]
        return v

    def reaches(self, start: int, goal: int) -> bool:
        """Whether a path leads from class ``start`` to class ``goal``."""
        seen = {start}
        stack = [start]
        while stack:
            self.steps += 1
            for v in self.members[stack.pop()]:
                for w in self.successors[v]:
                    r = self.find(w)
                    if r == goal:
                        return True
                    if r not in seen:
                        seen.add(r)
                        stack.append(r)
        return False

    def join(self, a: int, b: int) -> bool:
        """Merge the classes of ``a`` and ``b`` unless a path joins them."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return True
        if self.steps > MAX_STEPS or self.reaches(ra, rb) or self.reaches(rb, ra):
            return False
        keep, drop = min(ra, rb), max(ra, rb)
        self.parent[drop] = keep
        self.members[keep] += self.members[drop]
        self.members[drop] = []
        return True

    def class_has(self, root: int, flags: list[bool]) -> bool:
        return any(flags[v] for v in self.members[root])


def merge(node_count: int, arcs: Sequence[tuple[int, int]],
          groups: Sequence[EngineRankGroup]) -> Classes:
    """The classes of ``groups`` over the DAG ``arcs`` (see the module docstring)."""
    merger = _Merger(node_count, arcs)
    for kind, nodes in groups:
        if kind is RankKind.SAME:
            _join_all(merger, nodes)
    ends = []
    for kinds, flags in ((_FIRST, merger.has_in), (_LAST, merger.has_out)):
        members = [v for kind, nodes in groups if kind in kinds for v in nodes
                   if not flags[v]]
        joined = _join_all(merger, members)
        root = merger.find(joined) if joined != -1 else -1
        ends.append(-1 if root == -1 or merger.class_has(root, flags) else root)
    strict = [any(kind is wanted for kind, _ in groups)
              for wanted in (RankKind.SOURCE, RankKind.SINK)]
    return Classes([merger.find(v) for v in range(node_count)], ends[0], ends[1],
                   strict[0], strict[1])


def _join_all(merger: _Merger, nodes: Sequence[int]) -> int:
    """Join each of ``nodes`` to the first one's class where no path forbids it; the
    first node (``-1`` for none)."""
    if not nodes:
        return -1
    first = nodes[0]
    for v in nodes[1:]:
        merger.join(first, v)
    return first


def extreme_arcs(classes: Classes, sources: Sequence[int], sinks: Sequence[int]
                 ) -> list[tuple[int, int, int, float]]:
    """Zero-weight arcs that put the first class above every other source and the last
    class below every other sink (representatives in, representatives out)."""
    arcs: list[tuple[int, int, int, float]] = []
    if classes.first != -1:
        length = 1 if classes.strict_first else 0
        arcs += [(classes.first, s, length, 0.0) for s in sources if s != classes.first]
    if classes.last != -1:
        length = 1 if classes.strict_last else 0
        arcs += [(t, classes.last, length, 0.0) for t in sinks if t != classes.last]
    return arcs
