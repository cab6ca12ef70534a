"""The boundary-angle check: an end leaves (or enters) its face straight along the face's
outward normal; and the diamond side tips the gateway rules speak of. Kept apart from
:mod:`.ends` (which needs the slot lattice of :mod:`layouts.layered.routing`) so that the
routing repairs can count angle defects with it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from layouts.graph import Shape
from layouts.layered.contracts.violations import TOLERANCE, Violation, ViolationKind
from layouts.options import Direction
from layouts.result import EdgeRoute, NodeBox, Point, Side

NORMALS = {Side.TOP: (0.0, -1.0), Side.BOTTOM: (0.0, 1.0), Side.LEFT: (-1.0, 0.0),
           Side.RIGHT: (1.0, 0.0)}


def _at_side_tip(node: NodeBox, p: Point) -> bool:
    return node.shape is Shape.DIAMOND and any(
        near(p, tip) for direction in Direction for tip in side_tips(node, direction))


def check_boundary_angles(routes: Sequence[EdgeRoute], nodes: Mapping[str, NodeBox]
                          ) -> list[Violation]:
    """The first and last segments run along their face's outward normal (ends on a
    diamond's tip are left to the gateway rules)."""
    out = []
    for route in routes:
        if len(route.points) < 2:
            continue
        first, last = _end_segment(route.points, 1), _end_segment(route.points, -1)
        if first is None or last is None:
            continue
        for role, node, side, (a, b) in (
                ("source", route.source, route.source_end.side, first),
                ("target", route.target, route.target_end.side, last)):
            if side is None:
                continue
            nx, ny = NORMALS[side]
            dx, dy = b.x - a.x, b.y - a.y
            if (abs(dx * ny - dy * nx) > 1e-6 or dx * nx + dy * ny <= 0) \
                    and not _at_side_tip(nodes[node], a):
                out.append(Violation(ViolationKind.BOUNDARY_ANGLE, route.id, None,
                                     f"{role} end of '{route.id}' does not run straight out "
                                     f"of its {side.value} face"))
    return out


def _end_segment(points: Sequence[Point], step: int) -> tuple[Point, Point] | None:
    """The end point (the first for ``step`` 1, the last for -1) and the nearest point
    different from it (``None``: all the same)."""
    end, after = (points[0], points[1]) if step > 0 else (points[-1], points[-2])
    if after != end:
        return end, after
    indices = range(1, len(points)) if step > 0 else range(len(points) - 2, -1, -1)
    return next(((end, points[i]) for i in indices if points[i] != end), None)


def side_tips(node: NodeBox, direction: Direction) -> tuple[Point, Point]:
    c = node.center
    if direction is Direction.LEFT_TO_RIGHT:
        return Point(c.x, node.y), Point(c.x, node.y + node.height)
    return Point(node.x, c.y), Point(node.x + node.width, c.y)


def near(a: Point, b: Point) -> bool:
    return abs(a.x - b.x) <= TOLERANCE and abs(a.y - b.y) <= TOLERANCE
