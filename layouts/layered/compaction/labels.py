"""Which edge labels sit nearer another route than their own: a reader would take such a
label for the other edge's. Compaction moves labels with a run of their own route, but a
neighbouring route may come closer; the step is undone when it misplaces a label that was
placed right before.

>>> from layouts.result import Box, EdgeRoute, Point
>>> own = EdgeRoute("a", "s", "t", (Point(0, 0), Point(0, 100)), label_box=Box(4, 40, 20, 10))
>>> other = EdgeRoute("b", "s", "u", (Point(30, 0), Point(30, 100)))
>>> misplaced([own, other]), misplaced([own, EdgeRoute("b", "s", "u",
...                                                     (Point(26, 0), Point(26, 100)))])
(set(), {'a'})
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from layouts.layered.routing.segment_index import SegmentIndex, polyline_segments
from layouts.quality_geometry import Segment, segment_box_distance
from layouts.result import Box, EdgeRoute

__all__ = ["misplaced"]


def misplaced(routes: Sequence[EdgeRoute]) -> set[str]:
    """Ids of the labelled routes whose label box is not strictly nearer their own route
    than every other route (only routes with a segment near the box are measured)."""
    labelled = [(i, r) for i, r in enumerate(routes) if r.label_box is not None]
    if not labelled:
        return set()
    index = SegmentIndex.of_routes([r.points for r in routes])
    wrong: set[str] = set()
    for key, route in labelled:
        box = route.label_box
        assert box is not None
        own = _distance(polyline_segments(route.points), box)
        reach = Segment(box.x - own, box.y - own, box.x + box.width + own,
                        box.y + box.height + own, 0, "", "")
        others = [s for other, s in index.near(reach, key)]
        if _distance(others, box) <= own:
            wrong.add(route.id)
    return wrong


def _distance(segments: Sequence[Segment], box: Box) -> float:
    return min((segment_box_distance(s, box.x, box.y, box.x + box.width, box.y + box.height)
                for s in segments), default=math.inf)
