"""Label ranks, the way dot makes room for edge labels: an edge of two layers has a
dummy in the layer between, and placement keeps its label's width free beside that
dummy (:mod:`.label_room`); an edge of one layer has none, so where its source's face is
crowded (a hub, parallel edges) every vertical of the edge runs a few pixels from other
edges' and its label has no place nearer its own route than any other. dot gives every
labelled edge two layers (its label is a node of the middle one); here only the labelled
edges of one layer whose label the drawing put astray get them, so the drawings whose
labels all found room stay as they are.

:func:`crowded` names those edges in a routed drawing and :func:`lengthen` gives them a
least length of two layers before layering. :func:`roomiest` draws the graph, then
again with those edges lengthened, for a few rounds (a longer edge moves its target's
layer, and other labels may find themselves crowded in the new drawing). Room has a
price: an edge whose label needs room beside it fans out from a crowded face (two more
bends), and the layers below a lengthened edge are ordered anew (crossings come and
go). So each drawing has a :func:`cost`, an astray label counted as
:data:`ASTRAY_COST` bends and a crossing as :data:`CROSSING_COST` of a bend, and the
cheapest drawing is kept; the rounds stop at the first that puts more labels astray
than the cheapest.

>>> from layouts.layered.graph import EngineEdge, EngineNode, LayeredGraph
>>> g = LayeredGraph((EngineNode("a", 9, 9), EngineNode("b", 9, 9)),
...                  (EngineEdge("e", 0, 1, 0, label_width=30), EngineEdge("f", 0, 1, 1)))
>>> [e.min_length for e in lengthen(g, frozenset({0})).edges]
[2, 1]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial

from layouts.layered.budget import Redraws
from layouts.layered.contracts.labels import misplaced_labels
from layouts.layered.graph import LayeredGraph, ProperGraph
from layouts.layered.model import ChainEdge, Deadline, Routing
from layouts.quality_geometry import route_segments
from layouts.quality_grid import swept_crossings
from layouts.result import EdgeRoute

__all__ = ["ASTRAY_COST", "CROSSING_COST", "LABEL_LENGTH", "ROUNDS", "Labelled", "cost",
           "crowded", "lengthen", "roomiest"]

LABEL_LENGTH = 2
"""The least length, in layers, of a labelled edge that gets a label rank: one dummy."""

ROUNDS = 2
"""At most this many drawings after the first, each with more edges lengthened: on the
real graphs of ``bench/compare.py`` a fourth drawing was never the cheapest, and a third
only once (``long-hub`` at draft effort, ``tests/layouts/layered/label_graphs``)."""

ASTRAY_COST = 5.0
"""An astray label costs as much as this many bends: more than the two bends its edge
takes to fan out to room beside it, so a label put on its own edge is worth them, but
not the six that three parallel edges take to fan out for the middle one's label."""

CROSSING_COST = 0.1
"""A crossing costs this much of a bend: the crossings of a dense graph drawn again
with its layers moved differ by hundreds either way, which a few labels must not
outweigh, nor much outweigh them."""


@dataclass(frozen=True, slots=True)
class Labelled:
    """A routed drawing with the ids of its astray labels and the input positions of
    the labelled edges of one layer among them (:func:`crowded`); the ordering's
    crossing count (``None``: the staircase layout), the notes of its steps and the
    input positions of the edges it drew at least two layers long."""

    routing: Routing
    astray: frozenset[str]
    crowded: frozenset[int]
    order_crossings: int | None = None
    notes: tuple[str, ...] = ()
    lengthened: frozenset[int] = frozenset()


def _one_layer(edge: ChainEdge) -> bool:
    """A forward edge between consecutive layers: no dummy to keep room beside."""
    return not edge.reversed and not edge.lane and not edge.chain and edge.upper != edge.lower


def crowded(proper: ProperGraph, routes: Sequence[EdgeRoute]) -> tuple[frozenset[str],
                                                                        frozenset[int]]:
    """The ids of the routes whose label is astray (nearer another route than its own,
    :func:`~layouts.layered.contracts.labels.misplaced_labels`), and the input positions
    of the forward edges of one layer of ``proper`` among them."""
    astray = frozenset(misplaced_labels(routes))
    if not astray:
        return astray, frozenset()
    return astray, frozenset(position for position, edge in enumerate(proper.chain_edges)
                             if edge.id in astray and _one_layer(edge))


def lengthen(graph: LayeredGraph, positions: frozenset[int]) -> LayeredGraph:
    """A copy of ``graph`` whose edges at the input ``positions`` are at least
    :data:`LABEL_LENGTH` layers long (see the module example); ``graph`` itself is not
    changed."""
    if not positions:
        return graph
    return replace(graph, edges=tuple(
        replace(e, min_length=max(e.min_length, LABEL_LENGTH)) if e.position in positions
        else e for e in graph.edges))


def cost(drawing: Labelled) -> float:
    """The price of ``drawing`` (see the module docstring): its bends (a route of ``k``
    segments bends ``k - 1`` times), plus :data:`CROSSING_COST` per crossing of its
    routes and :data:`ASTRAY_COST` per astray label.

    >>> from layouts.result import Point
    >>> cross = (EdgeRoute("a", "s", "t", (Point(0, 5), Point(10, 5))),
    ...          EdgeRoute("b", "u", "v", (Point(5, 0), Point(5, 8), Point(9, 8))))
    >>> cost(Labelled(Routing((), cross, 10, 10), frozenset({"a"}), frozenset()))  # 1 + 0.1 + 5
    6.1
    """
    segments = [route_segments(edge.points, index, edge.source, edge.target)
                for index, edge in enumerate(drawing.routing.edges)]
    bends = sum(max(0, len(mine) - 1) for mine in segments)
    crossings = swept_crossings([s for mine in segments for s in mine])
    return bends + CROSSING_COST * crossings + ASTRAY_COST * len(drawing.astray)


Draw = Callable[[frozenset[int]], Labelled]
"""Lays out the component with the edges at the given input positions lengthened."""


def roomiest(draw: Draw, deadline: Deadline) -> Labelled:
    """``draw`` with no edge lengthened; then, while the latest drawing has crowded
    edges (:func:`crowded`) not lengthened yet, puts no more labels astray than the
    cheapest so far (:func:`cost`) and the time left is at least what it took, again with
    those lengthened too, at most :data:`ROUNDS` times. The drawing kept is the cheapest
    (the earliest on ties).

    >>> from layouts.result import Point
    >>> bent = EdgeRoute("e", "s", "t", (Point(0, 0), Point(0, 5), Point(9, 5), Point(9, 9)))
    >>> astray = {frozenset(): {"a"}, frozenset({1}): {"b"}, frozenset({1, 2}): set()}
    >>> def draw(lengthened: frozenset[int]) -> Labelled:   # each round bends twice more
    ...     routes = (bent,) * len(lengthened)
    ...     return Labelled(Routing((), routes, 0, 0), frozenset(astray[lengthened]),
    ...                     frozenset({len(lengthened) + 1}), len(lengthened))
    >>> roomiest(draw, Deadline(60)).order_crossings   # costs 5, 7 (as many astray), 4
    2
    """
    redraws = Redraws(deadline)
    best = latest = redraws.draw(partial(draw, frozenset()))
    if not best.crowded:
        return best
    lengthened: frozenset[int] = frozenset()
    best_cost = cost(best)
    for _ in range(ROUNDS):
        more = latest.crowded - lengthened
        if not more or len(latest.astray) > len(best.astray) or not redraws.affords_another():
            break
        lengthened |= more
        latest = redraws.draw(partial(draw, lengthened))
        latest_cost = cost(latest)
        if latest_cost < best_cost:
            best, best_cost = latest, latest_cost
    if best is not latest:
        deadline.exhausted = False   # every drawing but the last ended in time
    return best
