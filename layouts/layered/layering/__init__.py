"""Phase 2, layering: a rank per node by network simplex (see :mod:`.network_simplex`),
one weakly connected component at a time.

Pre-condition: an acyclic :class:`LayeredGraph` (after cycle breaking), self-loops set aside.
Post-condition: ``rank[target] - rank[source] >= min_length`` for every edge; every
component starts at rank 0, with its entry node on rank 0 (:attr:`LayeredGraph.entry` for
the graph's entry, else the first node in model order without incoming edges): zero-weight
arcs from the entry to the component's other sources keep them from rising above it.

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.layered.graph import import_graph
>>> from layouts.options import LayoutOptions
>>> g = Graph(tuple(Node(n, 9, 9) for n in "abc"), (Edge("1", "a", "c"), Edge("2", "b", "c")))
>>> run(import_graph(g, LayoutOptions()))
(0, 0, 1)
"""

from __future__ import annotations

from dataclasses import replace

from layouts.layered.graph import LayeredGraph
from layouts.layered.layering import rank_groups
from layouts.layered.layering.network_simplex import Arc, rank_component
from layouts.layered.model import Deadline

__all__ = ["components", "run"]


def components(node_count: int, pairs: list[tuple[int, int]]) -> list[int]:
    """Weakly connected component per node, numbered in model order of first member.

    >>> components(4, [(2, 3), (0, 2)])
    [0, 1, 0, 0]
    """
    parent = list(range(node_count))

    def find(v: int) -> int:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    # a component's root is its smallest member, so every parent index is at most its
    # child's: one pass in index order finds every root (and numbers them in model order)
    roots: list[int] = []
    numbers: list[int] = []
    count = 0
    for v, up in enumerate(parent):
        if up == v:
            roots.append(v)
            numbers.append(count)
            count += 1
        else:
            root = roots[up]
            roots.append(root)
            numbers.append(numbers[root])
    return numbers


def run(graph: LayeredGraph, deadline: Deadline | None = None) -> tuple[int, ...]:
    """Rank per node (index order), each component normalised to start at 0. The
    members of a rank group share their class's rank (:mod:`.rank_groups`)."""
    node_count = len(graph.nodes)
    pairs = [(e.source, e.target) for e in graph.edges]
    classes = rank_groups.merge(node_count, pairs, graph.rank_groups)
    rep = classes.representative
    links = [(v, rep[v]) for v in range(node_count)]
    end = max(classes.first, classes.last)
    if end != -1:   # a first or last rank is the whole graph's, as in dot
        links += [(end, v) for v in range(node_count)]
    component = components(node_count, [(rep[a], rep[b]) for a, b in pairs] + links)
    members: dict[int, list[int]] = {}
    for v in range(node_count):
        if rep[v] == v:
            members.setdefault(component[v], []).append(v)
    arcs_of: dict[int, list[Arc]] = {c: [] for c in members}
    for e in graph.edges:
        arcs_of[component[e.source]].append((rep[e.source], rep[e.target], e.min_length,
                                             e.weight))
    rank = [0] * node_count
    for c, nodes in members.items():
        local = {v: i for i, v in enumerate(nodes)}
        arcs = [(local[a], local[b], length, weight) for a, b, length, weight in arcs_of[c]]
        entry = local.get(classes.first, local.get(rep[graph.entry], -1))
        arcs += _entry_arcs(len(nodes), arcs, entry, _local_classes(classes, local))
        for v, r in zip(nodes, rank_component(len(nodes), arcs, deadline), strict=True):
            rank[v] = r
    return tuple(rank[rep[v]] for v in range(node_count))


def _local_classes(classes: rank_groups.Classes, local: dict[int, int]
                   ) -> rank_groups.Classes:
    return replace(classes, representative=[], first=local.get(classes.first, -1),
                   last=local.get(classes.last, -1))


def _entry_arcs(node_count: int, arcs: list[Arc], entry: int,
                classes: rank_groups.Classes | None = None) -> list[Arc]:
    """Zero-weight, zero-length arcs from the entry node (``-1``: the first source) to
    every other source of one component; with a first or last rank class, the arcs
    that keep it first or last (:func:`.rank_groups.extreme_arcs`) instead."""
    has_incoming = [False] * node_count
    has_outgoing = [False] * node_count
    for a, b, _, _ in arcs:
        has_incoming[b] = True
        has_outgoing[a] = True
    sources = [v for v in range(node_count) if not has_incoming[v]]
    first = entry if entry in sources else sources[0]
    if classes is not None and (classes.first != -1 or classes.last != -1):
        sinks = [v for v in range(node_count) if not has_outgoing[v]]
        extra = rank_groups.extreme_arcs(classes, sources, sinks)
        if classes.first == -1:
            extra += [(first, s, 0, 0.0) for s in sources if s != first]
        return extra
    return [(first, s, 0, 0.0) for s in sources if s != first]
