"""The repair pass's first look at a route: can it have a defect at all?

:func:`layouts.layered.routing.repair.route_defects` counts a route's defects with the
contract checkers, which build a :class:`~layouts.quality_geometry.Segment` per segment
and test every node of the grid cells near it. Almost every route the construction
draws has none, so the repair pass first asks this cheaper, conservative question: a
route :func:`may_have_defects` unless each of its ends leaves its face along the
normal, no step runs against the flow, and no segment comes within the clearance of a
foreign node's box or passes through its own source's or target's interior. Only the
routes that may have one are counted exactly (and repaired). ``False`` is a promise
(``route_defects`` would find none); ``True`` only means "count them".

A segment is compared only with the boxes :class:`~.node_bands.NodeBands` finds near
its bounds, with plain arithmetic on the box and its interior box; only a possible
intrusion into the route's own source or target asks the outline test
(:func:`~layouts.quality_geometry.intrudes`).

>>> from layouts.result import EdgeEnd, EdgeRoute, NodeBox, Point, Side
>>> boxes = {n.id: n for n in (NodeBox("a", 0, 0, 100, 40), NodeBox("b", 0, 200, 100, 40),
...                            NodeBox("m", 60, 100, 80, 40))}
>>> screen = DefectScreen(boxes, clearance=12)
>>> down = EdgeRoute("e", "a", "b", (Point(20, 40), Point(20, 200)),
...                  EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0))
>>> screen.may_have_defects(down)           # 40 px left of m: clear
False
>>> screen.may_have_defects(EdgeRoute("f", "a", "b", (Point(50, 40), Point(50, 200)),
...                                   EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0)))
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import pairwise

from layouts.layered.contracts.violations import TOLERANCE
from layouts.layered.routing.node_bands import NodeBands
from layouts.quality_geometry import Segment, intrudes
from layouts.result import EdgeRoute, NodeBox, Point, Side

_NORMAL = {Side.TOP: (0, -1), Side.BOTTOM: (0, 1), Side.LEFT: (-1, 0), Side.RIGHT: (1, 0)}
"""Outward normals, as (dx, dy) signs."""


def _leaves_along(side: Side, dx: float, dy: float) -> bool:
    """Whether an end segment (dx, dy) leaves ``side`` along its outward normal, as
    :func:`~layouts.layered.contracts.angles.check_boundary_angles` reads it."""
    nx, ny = _NORMAL[side]
    if nx:
        return abs(dy) <= 1e-6 and dx * nx > 0
    return abs(dx) <= 1e-6 and dy * ny > 0


def _ends_straight(route: EdgeRoute) -> bool:
    """No ``boundary-angle`` defect: each end with a side leaves it along its normal."""
    points = route.points
    for side, end, after, rest in ((route.source_end.side, points[0], points[1], points),
                                   (route.target_end.side, points[-1], points[-2],
                                    reversed(points))):
        if side is None:
            continue
        if after == end:      # a repeated end point: the end segment is further on
            found = next((p for p in rest if p != end), None)
            if found is None:
                return True   # every point the same: no end segment to judge
            after = found
        if not _leaves_along(side, after.x - end.x, after.y - end.y):
            return False
    return True


class DefectScreen:
    """Node boxes filed for :meth:`may_have_defects` (see the module)."""

    def __init__(self, boxes: Mapping[str, NodeBox], clearance: float) -> None:
        self.boxes = boxes
        self.limit = clearance - TOLERANCE
        self.reach = max(self.limit, 0.0)
        self.bands = NodeBands(list(boxes.values()))

    def may_have_defects(self, route: EdgeRoute) -> bool:
        """Whether :func:`~layouts.layered.routing.repair.route_defects` may find a
        defect on ``route`` (``False``: it finds none)."""
        points = route.points
        if not _ends_straight(route) or not (
                route.loop_back or route.source == route.target
                or all(b.y - a.y >= -TOLERANCE for a, b in pairwise(points))):
            return True
        own = (route.source, route.target)
        near = self._segment_near
        return any(near(own, a, b) for a, b in pairwise(points)
                   if a.x != b.x or a.y != b.y)     # coordinates: no dataclass __eq__

    def _segment_near(self, own: tuple[str, str], a: Point, b: Point) -> bool:
        """Whether segment ``a``-``b`` comes within the limit of a foreign box (or
        touches one), or may pass through its own source or target (``own``)."""
        x0, x1 = (a.x, b.x) if a.x <= b.x else (b.x, a.x)
        y0, y1 = (a.y, b.y) if a.y <= b.y else (b.y, a.y)
        reach, limit = self.reach, self.limit
        for e in self.bands.near(x0, y0, x1, y1, reach):
            ex0, ey0, ex1, ey1, node_id, ix0, iy0, ix1, iy1 = e
            # the gaps between the segment's bounds and the box along x and along y
            dx = ex0 - x1 if ex0 > x1 else x0 - ex1 if x0 > ex1 else 0.0
            dy = ey0 - y1 if ey0 > y1 else y0 - ey1 if y0 > ey1 else 0.0
            if dx > reach or dy > reach:
                continue
            if node_id in own:
                if x1 >= ix0 and x0 <= ix1 and y1 >= iy0 and y0 <= iy1 and intrudes(
                        Segment(a.x, a.y, b.x, b.y, 0, "", ""), self.boxes[node_id]):
                    return True
                continue
            gap = dx if not dy else dy if not dx else math.hypot(dx, dy)
            if not (gap > 0 and gap >= limit):
                return True
        return False
