"""Step 1 of the hierarchical layout: split a compound graph into one flat *level* per
compound node (and one for the root), and each edge into one *piece* per level it passes.

An edge from ``s`` to ``t`` belongs to its container ``C`` (the nearest common ancestor,
:meth:`layouts.graph.Graph.edge_container`). At ``C``'s level its piece joins the children
of ``C`` that hold ``s`` and ``t`` (or ``s`` and ``t`` themselves); it carries the edge's
label and loop-back flag. Inside every compound ``q`` strictly below ``C`` that holds ``s``
the edge *leaves* ``q``: ``q``'s level gets a dummy node, and a piece from the child of
``q`` holding ``s`` to that dummy. Likewise every compound holding ``t`` gets an
*entering* dummy and a piece from it. So each level is a flat graph the layered pipeline
lays out as it is, and an edge crosses each compound border at most once.

>>> from layouts.graph import Edge, Graph, Node
>>> g = Graph((Node("g", 9, 9, children=(Node("a", 9, 9),)), Node("c", 9, 9)),
...           (Edge("e", "a", "c"),))
>>> plan = split(g)
>>> [level.owner for level in plan.levels]          # children before parents
['g', None]
>>> [(p.level, p.source, p.target) for p in plan.paths[0].pieces]
[('g', 'a', '^x0'), (None, 'g', 'c')]
>>> plan.paths[0].crossings
(Crossing(edge='e', compound='g', dummy='^x0', entering=False),)
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

from layouts.errors import InvalidGraphError
from layouts.graph import Edge, Graph, Node


@dataclass(frozen=True, slots=True)
class Crossing:
    """Edge ``edge`` crosses the border of compound ``compound``: ``entering`` it (from
    the dummy ``dummy`` on the compound's first layer) or leaving it (to ``dummy`` on its
    last layer)."""

    edge: str
    compound: str
    dummy: str
    entering: bool


@dataclass(frozen=True, slots=True)
class Piece:
    """The part of an input edge laid out at one level (``None``: the root)."""

    level: str | None
    source: str
    target: str


@dataclass(frozen=True, slots=True)
class EdgePath:
    """An input edge's pieces and crossings, in the order a route from its source meets
    them: the leaving pieces innermost first, the container's piece, then the entering
    pieces outermost first. ``crossings[i]`` joins ``pieces[i]`` and ``pieces[i + 1]``."""

    edge: Edge
    pieces: tuple[Piece, ...]
    crossings: tuple[Crossing, ...]


@dataclass(frozen=True, slots=True)
class Level:
    """One flat graph to lay out: the children of ``owner`` (``None``: the root's nodes),
    its entering and leaving dummies, and the pieces of edges at this level (as
    :class:`Edge` values with the input edge's id)."""

    owner: str | None
    children: tuple[Node, ...]
    entering: tuple[Crossing, ...]
    leaving: tuple[Crossing, ...]
    edges: tuple[Edge, ...]


@dataclass(frozen=True, slots=True)
class Plan:
    """Every level, children's levels before their parents' (post-order), and every
    input edge's path, in input order."""

    levels: tuple[Level, ...]
    paths: tuple[EdgePath, ...]
    parents: Mapping[str, str | None]


def dummy_prefix(ids: set[str]) -> str:
    """``^x``, with more ``^`` until no id of the graph starts with it.

    >>> dummy_prefix({"^x1", "a"})
    '^^x'
    """
    prefix = "^x"
    while any(i.startswith(prefix) for i in ids):
        prefix = "^" + prefix
    return prefix


def split(graph: Graph) -> Plan:
    """The levels and edge paths of ``graph`` (see the module docstring). An edge between
    a compound node and one of its own descendants is refused with an
    :class:`InvalidGraphError` naming it (the layered engine routes edges between
    compound boxes and nodes, not from a box's inside to its own border)."""
    parents = graph.parents()
    prefix = dummy_prefix({n.id for n in graph.all_nodes()} | {e.id for e in graph.edges})
    dummies = (f"{prefix}{number}" for number in itertools.count())
    entering: dict[str | None, list[Crossing]] = {}
    leaving: dict[str | None, list[Crossing]] = {}
    pieces_at: dict[str | None, list[Edge]] = {}

    def climb(edge_id: str, end: str, container: str | None, inward: bool,
              port: str | None = None) -> tuple[str, list[Piece], list[Crossing]]:
        """From ``end`` up to ``container``: a piece and a border dummy in each compound
        passed (``inward``: the edge enters it, towards its target); the node reached.
        The first piece, at ``end`` itself, keeps the edge's ``port`` there."""
        pieces: list[Piece] = []
        crossings: list[Crossing] = []
        at = end
        while parents[at] != container:
            compound = parents[at]
            assert compound is not None
            dummy = next(dummies)
            crossing = Crossing(edge_id, compound, dummy, entering=inward)
            (entering if inward else leaving).setdefault(compound, []).append(crossing)
            own = port if at == end else None
            piece = Edge(edge_id, dummy, at, target_port=own) if inward else \
                Edge(edge_id, at, dummy, source_port=own)
            pieces_at.setdefault(compound, []).append(piece)
            pieces.append(Piece(compound, piece.source, piece.target))
            crossings.append(crossing)
            at = compound
        return at, pieces, crossings

    paths = []
    for edge in graph.edges:
        container = _container(parents, edge.source, edge.target)
        if edge.source != edge.target and container in (edge.source, edge.target):
            inner = edge.target if container == edge.source else edge.source
            raise InvalidGraphError(
                f"edge '{edge.id}' joins compound node '{container}' to its own descendant "
                f"'{inner}'; the layered engine does not lay that out yet (elkjs does)",
                offending_id=edge.id)
        top_source, out_pieces, out_crossings = climb(edge.id, edge.source, container, False,
                                                      edge.source_port)
        top_target, in_pieces, in_crossings = climb(edge.id, edge.target, container, True,
                                                    edge.target_port)
        pieces_at.setdefault(container, []).append(
            Edge(edge.id, top_source, top_target, edge.label, edge.loop_back,
                 edge.label_width, edge.label_height,
                 edge.source_port if top_source == edge.source else None,
                 edge.target_port if top_target == edge.target else None))
        paths.append(EdgePath(
            edge,
            (*out_pieces, Piece(container, top_source, top_target), *reversed(in_pieces)),
            (*out_crossings, *reversed(in_crossings))))
    levels = [Level(n.id, n.children, tuple(entering.get(n.id, ())),
                    tuple(leaving.get(n.id, ())), tuple(pieces_at.get(n.id, ())))
              for n in _post_order(graph.nodes)]
    levels.append(Level(None, graph.nodes, (), (), tuple(pieces_at.get(None, ()))))
    return Plan(tuple(levels), tuple(paths), parents)


def _container(parents: Mapping[str, str | None], source: str, target: str) -> str | None:
    """The edge's container as :meth:`layouts.graph.Graph.edge_container` defines it,
    from a parents map computed once."""
    if source == target:
        return parents[source]
    seen: set[str] = set()
    at: str | None = source
    while at is not None:
        seen.add(at)
        at = parents[at]
    at = target
    while at is not None and at not in seen:
        at = parents[at]
    return at


def _post_order(roots: tuple[Node, ...]) -> list[Node]:
    """Compound nodes, each after every compound inside it (iterative: deep input)."""
    out: list[Node] = []
    stack: list[tuple[Node, bool]] = [(n, False) for n in reversed(roots) if n.children]
    while stack:
        node, done = stack.pop()
        if done:
            out.append(node)
            continue
        stack.append((node, True))
        stack.extend((c, False) for c in reversed(node.children) if c.children)
    return out
