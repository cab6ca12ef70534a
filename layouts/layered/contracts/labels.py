"""Labels on their own edge: a label box must be strictly nearer its own route than every
other route, or a reader takes it for the other edge's (``label-astray``). Compaction
asks the same question before it keeps a step (:mod:`layouts.layered.compaction`).

>>> from layouts.result import Box, EdgeRoute, Point
>>> own = EdgeRoute("a", "s", "t", (Point(0, 0), Point(0, 100)), label_box=Box(4, 40, 20, 10))
>>> other = EdgeRoute("b", "s", "u", (Point(30, 0), Point(30, 100)))
>>> misplaced_labels([own, other]), misplaced_labels([own, EdgeRoute("b", "s", "u",
...                                                  (Point(26, 0), Point(26, 100)))])
(set(), {'a'})
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from layouts.layered.contracts.violations import Violation, ViolationKind
from layouts.layered.routing.segment_index import SegmentIndex, polyline_segments
from layouts.quality_geometry import Segment, segment_box_distance
from layouts.result import Box, EdgeRoute


def misplaced_labels(routes: Sequence[EdgeRoute]) -> set[str]:
    """Ids of the labelled routes whose label box is not strictly nearer their own route
    than every other route (only routes with a segment near the box are measured: any
    segment nearer than the own route's distance lies in the box grown by that much)."""
    labelled = [(i, r) for i, r in enumerate(routes) if r.label_box is not None]
    if not labelled:
        return set()
    index = SegmentIndex.of_routes([r.points for r in routes])
    extent = _extent(routes)
    wrong: set[str] = set()
    for key, route in labelled:
        box = route.label_box
        assert box is not None
        own = _distance(_own_segments(route), box)
        # the box grown by ``own``, clipped to the routes' extent (nothing lies beyond)
        x0, y0 = max(box.x - own, extent[0]), max(box.y - own, extent[1])
        x1, y1 = min(box.right + own, extent[2]), min(box.bottom + own, extent[3])
        if x0 > x1 or y0 > y1:
            continue
        others = [s for _, s in index.near(Segment(x0, y0, x1, y1, 0, "", ""), key)]
        if _distance(others, box) <= own:
            wrong.add(route.id)
    return wrong


def check_labels_nearest(routes: Sequence[EdgeRoute]) -> list[Violation]:
    """One ``label-astray`` violation per label of :func:`misplaced_labels`, in route order."""
    wrong = misplaced_labels(routes)
    return [Violation(ViolationKind.LABEL_ASTRAY, r.id, None,
                      f"label of '{r.id}' is not nearer its own route than another")
            for r in routes if r.id in wrong]


def _own_segments(route: EdgeRoute) -> list[Segment]:
    """The route's segments; a route of one repeated point is that point."""
    p = route.points[0]
    return polyline_segments(route.points) or [Segment(p.x, p.y, p.x, p.y, 0, "", "")]


def _extent(routes: Sequence[EdgeRoute]) -> tuple[float, float, float, float]:
    xs = [p.x for r in routes for p in r.points]
    ys = [p.y for r in routes for p in r.points]
    return min(xs), min(ys), max(xs), max(ys)


def _distance(segments: Sequence[Segment], box: Box) -> float:
    return min((segment_box_distance(s, box.x, box.y, box.x + box.width, box.y + box.height)
                for s in segments), default=math.inf)
