"""The boundary-slot lattice: where edge ends may attach to a node.

Each node face holds a discrete, evenly spaced set of slot points. For a face of length
``L`` that holds ``k`` edge ends, slot ``i`` (``0 <= i < k``) sits at ``L * (i + 1) / (k + 1)``
from the face's start: the left end of a top or bottom face, the top end of a left or right
face. So one end uses the face's centre, and no slot ever sits on a corner or, for a
diamond, on a tip of the face's far ends. Along the face the slot point lies on the node's
TRUE outline: the box edge for a rectangle, the diamond's edge at that x (or y) for a
diamond, the circle for a circle (whose faces span its diameter, centred in the box).

The contract checker (:mod:`layouts.layered.contracts`) recomputes endpoints with
:func:`slot_point`, so this module is the single definition of the lattice.

>>> from layouts.graph import Shape
>>> box = NodeBox("d", 0, 0, 60, 40, Shape.DIAMOND)
>>> slot_point(box, Side.BOTTOM, 1, 0)     # one end: the bottom tip
Point(x=30.0, y=40.0)
>>> slot_point(box, Side.BOTTOM, 2, 0)     # x = 60 * 1/3 = 20; y = 20 + 20 * (1 - 10/30)
Point(x=20.0, y=33.333333333333336)
"""

from __future__ import annotations

import math

from layouts.geometry import radius
from layouts.graph import Shape
from layouts.result import NodeBox, Point, Side

VERTICAL_SIDES = (Side.TOP, Side.BOTTOM)


def slot_offset(length: float, count: int, index: int) -> float:
    """Distance of slot ``index`` of ``count`` from the start of a face of ``length``.

    >>> slot_offset(120, 3, 0), slot_offset(120, 3, 1), slot_offset(120, 3, 2)
    (30.0, 60.0, 90.0)
    """
    if count < 1 or not 0 <= index < count:
        raise ValueError(f"slot index {index} is outside 0..{count - 1}")
    return length * (index + 1) / (count + 1)


def face_span(node: NodeBox, side: Side) -> tuple[float, float]:
    """Start coordinate and length of a face (x for top/bottom, y for left/right).

    >>> face_span(NodeBox("c", 0, 0, 80, 40, Shape.CIRCLE), Side.TOP)
    (20.0, 40.0)
    """
    horizontal = side in VERTICAL_SIDES
    if node.shape is Shape.CIRCLE:
        r = radius(node)
        centre = node.center.x if horizontal else node.center.y
        return centre - r, 2 * r
    return (node.x, node.width) if horizontal else (node.y, node.height)


def slot_coordinate(node: NodeBox, side: Side, count: int, index: int,
                    offset: float | None = None) -> float:
    """The slot's coordinate along its face: x on top/bottom faces, y on left/right.
    ``offset``, when given, is the end's own distance from the face's start instead (a
    port's fixed point, see :mod:`layouts.layered.portmap`)."""
    start, length = face_span(node, side)
    return start + (slot_offset(length, count, index) if offset is None else offset)


def outline_depth(node: NodeBox, side: Side, along: float) -> float:
    """The outline coordinate across ``side`` at ``along`` (a y for top/bottom, an x for
    left/right): where a line perpendicular to the face at ``along`` meets the outline.

    >>> outline_depth(NodeBox("d", 0, 0, 60, 40, Shape.DIAMOND), Side.TOP, 45.0)
    10.0
    """
    c = node.center
    horizontal = side in VERTICAL_SIDES
    low_side = side in (Side.TOP, Side.LEFT)
    centre_across = c.y if horizontal else c.x
    offset = abs(along - (c.x if horizontal else c.y))
    if node.shape is Shape.DIAMOND:
        half_along = node.width / 2 if horizontal else node.height / 2
        half_across = node.height / 2 if horizontal else node.width / 2
        depth = half_across * max(0.0, 1 - offset / half_along)
    elif node.shape is Shape.CIRCLE:
        r = radius(node)
        depth = math.sqrt(max(0.0, r * r - offset * offset))
    elif node.shape is Shape.ELLIPSE:
        half_along = node.width / 2 if horizontal else node.height / 2
        half_across = node.height / 2 if horizontal else node.width / 2
        depth = half_across * math.sqrt(max(0.0, 1 - (offset / half_along) ** 2))
    else:
        depth = node.height / 2 if horizontal else node.width / 2
    return centre_across - depth if low_side else centre_across + depth


def slot_point(node: NodeBox, side: Side, count: int, index: int,
               offset: float | None = None) -> Point:
    """The point of slot ``index`` of ``count`` on ``side`` of ``node``'s true outline
    (or at ``offset`` from the face's start, as :func:`slot_coordinate`).

    >>> slot_point(NodeBox("a", 10, 20, 100, 40), Side.TOP, 1, 0)
    Point(x=60.0, y=20.0)
    >>> slot_point(NodeBox("a", 10, 20, 100, 40), Side.RIGHT, 2, 1)   # y = 20 + 40 * 2/3
    Point(x=110.0, y=46.66666666666667)
    """
    along = slot_coordinate(node, side, count, index, offset)
    across = outline_depth(node, side, along)
    if side in VERTICAL_SIDES:
        return Point(along, across)
    return Point(across, along)
