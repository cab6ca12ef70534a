"""Layer moves: a local search over the layering of a small drawing with ports.

Network simplex gives the layering of least total edge length (Gansner et al. 1993),
which on a graph without ports is also a good one to order. With ports the ends of an
edge are pinned to faces and to an order round their node, and a layering can force
crossings that no order of its layers avoids (``tests/layouts/layered/test_cycle_entry``
works one case out: a cycle through fixed ports that closes round a node whose path
leaves the cycle's layers). ELK's layering, which is not the shortest, then puts some
node a layer or two further and draws no crossing. This search does the same by trial:
it moves one node at a time to another rank its edges allow (:func:`span`), draws the
graph on the moved layering (every later step of the pipeline, routing included) and
keeps the move when the *drawing* crosses less (:func:`better`: fewer crossings, no more
labels astray; on equal crossings a shorter total edge length). It stops at a round of
moves that keeps none, at :data:`MAX_DRAWS` drawings, or when the time left is short.

A move keeps the layering valid (every edge ``rank[target] - rank[source] >=
min_length``, no edge turned round) and the entry on rank 0; a sink may go one layer
below the deepest rank (the case above: the node that closes the cycle goes below the
path's end); members of rank groups never move, and with a first or last rank class no
other node moves onto or off the first or last rank (:func:`movable`, :func:`span`).

The pipeline runs the search once per layout, on the drawing its other trials kept (free
port sides, entry rule, effort, label ranks), and only on components with ports of at
most :data:`MAX_ITEMS` nodes and dummies above draft effort.

>>> from layouts.layered.graph import EngineEdge, EngineNode, LayeredGraph
>>> g = LayeredGraph(tuple(EngineNode(n, 9, 9) for n in "abcd"),
...                  (EngineEdge("ab", 0, 1, 0), EngineEdge("bc", 1, 2, 1),
...                   EngineEdge("ad", 0, 3, 2)))
>>> rank = (0, 1, 2, 1)
>>> [list(span(g, rank, v)) for v in range(4)]   # a: the entry; sinks to rank 2 + 1
[[0], [1], [2, 3], [1, 2, 3]]
>>> moved(rank, 3, 2), length(g, moved(rank, 3, 2))   # ab + bc + ad = 1 + 1 + 2
((0, 1, 2, 2), 4)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from layouts.graph import RankKind
from layouts.layered.graph import LayeredGraph
from layouts.layered.model import Deadline, Routing
from layouts.quality_geometry import route_segments
from layouts.quality_grid import crossed_edges
from layouts.result import EdgeRoute

__all__ = ["MAX_AREA_GROWTH", "MAX_DRAWS", "MAX_ITEMS", "Trial", "better", "candidates",
           "crossed_nodes", "crossing_routes", "length", "movable", "moved", "search", "span"]

Ranks = tuple[int, ...]
T = TypeVar("T")

MAX_ITEMS = 60
"""The search runs on components of at most this many nodes and dummies: each move it
tries is a whole drawing (5 to 50 ms at these sizes), and on larger components the
moves that pay are rarer than the time they cost."""

MAX_AREA_GROWTH = 1.2
"""A move is kept only while the drawing stays within this many times the area of the
drawing the search started from. Moving a node to another layer adds a layer or widens
one, and past a fifth more area the reader scans more than the crossing saves: the port
sample ``every-side`` top to bottom went from 1 crossing to 0 at 1.52 times the area
(with the hub's feed on a layer of its own), and ELK draws it with the 1 crossing.
``mixed-constraints`` top to bottom, 1 to 0 at 1.12 times, keeps its move."""

MAX_DRAWS = 8
"""At most this many drawings per search (after the one it starts from): a count, not a
clock, so the same input gets the same drawing. A layout with ports draws the graph
about 7 to 14 times already (free port sides trials, each with both entry rules where
no node is a source), so the search adds at most about as much again; on the port
graphs of ``bench/compound.py`` every move that pays came within 8 drawings, and on the
generated port graphs of 8 to 24 nodes 8 drawings found three quarters of what 16
did."""


@dataclass(frozen=True, slots=True)
class Trial(Generic[T]):
    """A layering and what its drawing scored: the drawing's crossings, its labels
    astray and the layering's total edge length (:func:`length`)."""

    rank: Ranks
    crossings: int
    astray: int
    length: int
    drawing: T
    crossed: frozenset[int] | None = None
    """The nodes at the ends of the drawing's crossing routes (:func:`crossed_nodes`),
    the ones the next moves try; ``None``: every movable node."""
    area: float = 0.0
    """The drawing's width times height (``0``: not known, never too large)."""


def better(trial: Trial[T], kept: Trial[T], most_area: float = float("inf")) -> bool:
    """Whether ``trial`` beats ``kept``: no more labels astray, an area of at most
    ``most_area``, and fewer crossings, or as many over a shorter total edge length.

    >>> better(Trial((), 0, 0, 9, None), Trial((), 1, 0, 5, None))
    True
    >>> better(Trial((), 0, 1, 5, None), Trial((), 1, 0, 5, None))   # a label astray
    False
    >>> better(Trial((), 1, 0, 5, None), Trial((), 1, 0, 5, None))   # a tie keeps
    False
    >>> better(Trial((), 0, 0, 9, None, area=130), Trial((), 1, 0, 5, None), 120)
    False
    """
    return trial.astray <= kept.astray and trial.area <= most_area and \
        (trial.crossings, trial.length) < (kept.crossings, kept.length)


def length(graph: LayeredGraph, rank: Ranks) -> int:
    """Total edge length in layers: the sum of ``rank[target] - rank[source]``."""
    return sum(rank[e.target] - rank[e.source] for e in graph.edges)


def moved(rank: Ranks, v: int, r: int) -> Ranks:
    """``rank`` with node ``v`` on rank ``r`` (a new tuple)."""
    return (*rank[:v], r, *rank[v + 1:])


def _extremes(graph: LayeredGraph) -> bool:
    """Whether a rank group pins the first or last rank (dot's min/source/max/sink)."""
    return any(kind is not RankKind.SAME for kind, _ in graph.rank_groups)


def movable(graph: LayeredGraph) -> list[int]:
    """The nodes a move may take, in model order: not the entry, in no rank group.

    >>> from layouts.layered.graph import EngineEdge, EngineNode
    >>> g = LayeredGraph(tuple(EngineNode(n, 9, 9) for n in "abc"),
    ...                  (EngineEdge("ab", 0, 1, 0),), rank_groups=((RankKind.SAME, (1, 2)),))
    >>> movable(g)
    []
    """
    grouped = {v for _, members in graph.rank_groups for v in members}
    return [v for v in range(len(graph.nodes)) if v != graph.entry and v not in grouped]


def span(graph: LayeredGraph, rank: Ranks, v: int) -> range:
    """The ranks node ``v`` may take, the others staying: at least each predecessor's
    rank plus its edge's least length (0 without one), at most each successor's less
    it (one below the deepest rank without one); when a rank group pins the first or
    last rank, strictly between them, and a node on one of them stays (see the module
    example)."""
    deepest = max(rank, default=0)
    low = max((rank[e.source] + e.min_length for e in graph.edges if e.target == v),
              default=0)
    high = min((rank[e.target] - e.min_length for e in graph.edges if e.source == v),
               default=deepest + 1)
    if v == graph.entry or (_extremes(graph) and rank[v] in (0, deepest)):
        return range(rank[v], rank[v] + 1)
    if _extremes(graph):
        low, high = max(low, 1), min(high, deepest - 1)
    return range(low, high + 1)


def candidates(graph: LayeredGraph, rank: Ranks,
               nodes: frozenset[int] | None = None) -> Iterator[Ranks]:
    """Every layering one move from ``rank``: the :func:`movable` nodes in model order
    (those among ``nodes`` when given), each to the other ranks of its :func:`span`,
    nearest first (up before down).

    >>> from layouts.layered.graph import EngineEdge, EngineNode
    >>> g = LayeredGraph(tuple(EngineNode(n, 9, 9) for n in "abc"),
    ...                  (EngineEdge("ab", 0, 1, 0), EngineEdge("ac", 0, 2, 1)))
    >>> list(candidates(g, (0, 1, 1)))   # the sinks b, c: ranks 1 to the deepest + 1 = 2
    [(0, 2, 1), (0, 1, 2)]
    >>> list(candidates(g, (0, 2, 1)))   # b: 1 or 3 (1 first: up on ties); c: 2 or 3
    [(0, 1, 1), (0, 3, 1), (0, 2, 2), (0, 2, 3)]
    """
    free = set(movable(graph))
    for v in range(len(graph.nodes)):
        if v not in free or (nodes is not None and v not in nodes):
            continue
        here = rank[v]
        options = sorted((r for r in span(graph, rank, v) if r != here),
                         key=lambda r: (abs(r - here), r))
        for r in options:
            yield moved(rank, v, r)


def crossed_nodes(graph: LayeredGraph, routing: Routing) -> frozenset[int]:
    """The nodes of ``graph`` at the ends of the routes of ``routing`` that cross
    another (:func:`~layouts.quality_grid.crossed_edges`).

    >>> from layouts.layered.graph import EngineNode
    >>> from layouts.result import EdgeRoute, Point
    >>> g = LayeredGraph(tuple(EngineNode(n, 9, 9) for n in "abcdef"), ())
    >>> routes = (EdgeRoute("ab", "a", "b", (Point(0, 5), Point(10, 5))),
    ...           EdgeRoute("cd", "c", "d", (Point(5, 0), Point(5, 10))),
    ...           EdgeRoute("ef", "e", "f", (Point(50, 0), Point(50, 10))))
    >>> sorted(crossed_nodes(g, Routing((), routes, 60, 10)))
    [0, 1, 2, 3]
    """
    index = {n.id: v for v, n in enumerate(graph.nodes)}
    ends = {end for i in crossing_routes(routing.edges)
            for end in (routing.edges[i].source, routing.edges[i].target)}
    return frozenset(index[n] for n in ends if n in index)


def crossing_routes(routes: Sequence[EdgeRoute]) -> frozenset[int]:
    """The positions in ``routes`` of the routes that cross another
    (:func:`~layouts.quality_grid.crossed_edges`)."""
    return crossed_edges([s for i, e in enumerate(routes)
                          for s in route_segments(e.points, i, e.source, e.target)])


def search(graph: LayeredGraph, start: Trial[T], draw: Callable[[Ranks], Trial[T]],
           deadline: Deadline, max_draws: int | None = None) -> Trial[T]:
    """From the layering of ``start``, the best layering found by moving one node at a
    time: each round draws the :func:`candidates` of the layering kept in turn and
    keeps the first that is :func:`better` (within :data:`MAX_AREA_GROWTH` times the
    area of ``start``), then starts a new round from it. The moves
    tried are those of the nodes at the ends of the kept drawing's crossing routes
    (:attr:`Trial.crossed`), where a move can change what crosses. A layering drawn
    once is not drawn again (the kept drawings only get better, so one that lost then
    loses again). It stops when a round keeps none, the drawing kept does not cross,
    ``max_draws`` drawings (default :data:`MAX_DRAWS`) were made, the deadline expired,
    or the time left is less than twice the slowest drawing so far. ``draw`` gives the
    scored drawing of a layering; the ``start`` is not drawn again.

    >>> from layouts.layered.graph import EngineEdge, EngineNode
    >>> g = LayeredGraph(tuple(EngineNode(n, 9, 9) for n in "abc"),
    ...                  (EngineEdge("ab", 0, 1, 0), EngineEdge("ac", 0, 2, 1)))
    >>> def draw(rank: Ranks) -> Trial[None]:   # crosses unless b and c share a rank
    ...     return Trial(rank, int(rank[1] != rank[2]), 0, length(g, rank), None)
    >>> search(g, draw((0, 2, 1)), draw, Deadline(60)).rank
    (0, 1, 1)
    """
    limit = MAX_DRAWS if max_draws is None else max_draws
    kept = start
    most_area = MAX_AREA_GROWTH * start.area if start.area else float("inf")
    drawn = {start.rank}
    slowest = 0.0
    while kept.crossings > 0:
        improved = False
        for rank in candidates(graph, kept.rank, kept.crossed):
            if rank in drawn:   # drawn already, and not better than a layering kept since
                continue
            if len(drawn) > limit or deadline.expired() or \
                    deadline.remaining() < 2 * slowest:
                return kept
            started = time.perf_counter()
            trial = draw(rank)
            slowest = max(slowest, time.perf_counter() - started)
            drawn.add(rank)
            if better(trial, kept, most_area):
                kept, improved = trial, True
                break
        if not improved:
            break
    return kept
