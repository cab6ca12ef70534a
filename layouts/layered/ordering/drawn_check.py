"""The final check of the ``best`` effort, by the crossings of the drawing itself.

Ordering counts the crossings of straight segments between layers (and of the
loop-back runs it models); routing then draws orthogonal legs on tracks, doglegs and
lanes, and on dense graphs that adds crossings the ordering never saw, more for some
orders than for others. So a higher effort with fewer ordering crossings can *draw* more
(issue 16: four dense real graphs did). ``best`` therefore draws the ``balanced``
layout first, and when that drawing has crossings and the time budget affords another
layout, draws its own search's too, keeping the one whose drawing puts fewer labels
astray, then crosses less, then bends less; on ties the ``balanced`` one, so ``best``
never draws more crossings than ``balanced`` with as many labels astray, and differs
only where it earns its time.

The count is the one :func:`layouts.quality.measure` reports: segment pairs of
different routes crossing in both interiors, or at a vertex where one route passes
from one side of the other to the other side.

>>> from layouts.layered.model import Routing
>>> from layouts.result import EdgeRoute, NodeBox, Point
>>> boxes = tuple(NodeBox(n, x, y, 10, 10) for n, x, y in
...               (("a", 0, 0), ("b", 40, 0), ("c", 0, 60), ("d", 40, 60)))
>>> ad = EdgeRoute("ad", "a", "d", (Point(5, 10), Point(5, 30), Point(45, 30), Point(45, 60)))
>>> bc = EdgeRoute("bc", "b", "c", (Point(45, 10), Point(45, 20), Point(25, 20), Point(25, 45),
...                                  Point(5, 45), Point(5, 60)))
>>> drawn_crossings(Routing(boxes, (ad, bc), 50, 70))   # x = 25 crosses y = 30
1
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

from layouts.layered.budget import Redraws
from layouts.layered.contracts.labels import misplaced_labels
from layouts.layered.model import Deadline, Routing
from layouts.options import Effort, LayoutOptions
from layouts.quality_geometry import Segment, route_segments
from layouts.quality_grid import swept_crossings

__all__ = ["AFFORD", "SEARCH_ITEMS", "Drawing", "drawn_crossings", "fewer_crossings"]

SEARCH_ITEMS = 1_000
"""The ``best`` search runs on components of at most this many nodes and edges: it
costs two to three times the ``balanced`` layout (loop-back lanes order again at the
higher effort), which the speed targets allow on small dense graphs, not at 1,000
nodes, where ``best`` gives ``balanced``'s drawing."""

AFFORD = 1.0
"""The ``best`` search is tried only while the time left is at least this many times
what the ``balanced`` layout took: enough for a search of balanced's size, which the
deadline then cuts short where it must (keeping its best order so far, as every
budgeted step does; whether it ran then depends on the machine's speed)."""


@dataclass(frozen=True, slots=True)
class Drawing:
    """A routed drawing and the ordering's crossing count (``None``: the staircase
    layout), as the pipeline's per-component step returns them."""

    routing: Routing
    order_crossings: int | None
    notes: tuple[str, ...] = ()


Draw = Callable[[LayoutOptions, Deadline], Drawing]
"""Lays out the component with the options, under the deadline."""


def fewer_crossings(draw: Draw, options: LayoutOptions, deadline: Deadline,
                    items: int) -> Drawing:
    """``draw(options)``; at ``best`` effort the ``balanced`` drawing first, then the
    ``best`` one when the first has crossings, the component has at most
    :data:`SEARCH_ITEMS` nodes and edges (``items``) and the time left affords it (see
    :data:`AFFORD`), keeping the ``best`` drawing only when it draws fewer crossings
    (or as many and fewer bends). A note says when ``balanced``'s drawing was kept."""
    if options.effort is not Effort.BEST:
        return draw(options, deadline)
    redraws = Redraws(deadline)
    first = redraws.draw(partial(draw, replace(options, effort=Effort.BALANCED), deadline))
    if first.order_crossings is None or items > SEARCH_ITEMS or deadline.exhausted:
        return first      # no search to try: no need to count the drawing's crossings
    first_key = _key(first.routing)
    if first_key[0] == 0 or not redraws.affords_another(AFFORD):
        return first
    was_exhausted = deadline.exhausted
    second = draw(options, deadline)
    second_key = _key(second.routing)
    if second.order_crossings is not None and \
            (_astray(second.routing), *second_key) < (_astray(first.routing), *first_key):
        return second
    deadline.exhausted = was_exhausted   # the drawing kept was not cut short
    note = (f"best effort: balanced's drawing kept ({first_key[0]} crossings; "
            f"best's search drew {second_key[0]})")
    return replace(first, notes=(*first.notes, note))


def _astray(routing: Routing) -> int:
    """Labels nearer another route than their own: a drawing that puts fewer astray is
    kept whatever it crosses (:mod:`layouts.layered.label_ranks` pays crossings and
    bends for them)."""
    return len(misplaced_labels(routing.edges))


def _key(routing: Routing) -> tuple[int, int]:
    """Drawn crossings, then bends (each route's segments count both: a route of ``k``
    segments bends ``k - 1`` times, as :func:`~layouts.quality_geometry.bend_count`
    counts the vertices of its simplified polyline)."""
    segments = _segments(routing)
    bends = sum(max(0, len(mine) - 1) for mine in segments)
    return swept_crossings([s for mine in segments for s in mine]), bends


def drawn_crossings(routing: Routing) -> int:
    """Crossings of the routes of ``routing`` (see the module docstring)."""
    return swept_crossings([s for mine in _segments(routing) for s in mine])


def _segments(routing: Routing) -> list[list[Segment]]:
    """Per route, its segments (:func:`~layouts.quality_geometry.route_segments`)."""
    return [route_segments(edge.points, index, edge.source, edge.target)
            for index, edge in enumerate(routing.edges)]
