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
        pts = [p for i, p in enumerate(route.points) if i == 0 or p != route.points[i - 1]]
        if len(pts) < 2:
            continue
        for role, node, side, (a, b) in (
                ("source", route.source, route.source_end.side, pts[:2]),
                ("target", route.target, route.target_end.side, (pts[-1], pts[-2]))):
            if side is None or _at_side_tip(nodes[node], a):
                continue
            nx, ny = NORMALS[side]
            dx, dy = b.x - a.x, b.y - a.y
            if abs(dx * ny - dy * nx) > 1e-6 or dx * nx + dy * ny <= 0:
                out.append(Violation(ViolationKind.BOUNDARY_ANGLE, route.id, None,
                                     f"{role} end of '{route.id}' does not run straight out "
                                     f"of its {side.value} face"))
    return out


def side_tips(node: NodeBox, direction: Direction) -> tuple[Point, Point]:
    c = node.center
    if direction is Direction.LEFT_TO_RIGHT:
        return Point(c.x, node.y), Point(c.x, node.y + node.height)
    return Point(node.x, c.y), Point(node.x + node.width, c.y)


def near(a: Point, b: Point) -> bool:
    return abs(a.x - b.x) <= TOLERANCE and abs(a.y - b.y) <= TOLERANCE
