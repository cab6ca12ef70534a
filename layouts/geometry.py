"""Outline geometry shared by providers, metrics and writers.

Node outlines: ``rect`` is its box; ``diamond`` has its four tips at the midpoints of the
box's sides; ``circle`` is centred in the box with radius ``min(width, height) / 2``;
``ellipse`` is inscribed in the box (semi-axes ``width / 2`` and ``height / 2``).

>>> from layouts.graph import Shape
>>> d = NodeBox("d", 0, 0, 40, 40, Shape.DIAMOND)
>>> clip_to_outline(d, Point(20, 20), Point(20, 100))
Point(x=20.0, y=40.0)
>>> on_outline(d, Point(10, 30))
True
"""

from __future__ import annotations

import math

from layouts.graph import Shape
from layouts.result import NodeBox, Point, Side

OUTLINE_TOLERANCE = 0.5


def _diamond_level(node: NodeBox, p: Point) -> float:
    """|dx|/hw + |dy|/hh: 1 on the diamond outline, < 1 inside."""
    c = node.center
    return abs(p.x - c.x) / (node.width / 2) + abs(p.y - c.y) / (node.height / 2)


def _ellipse_level(node: NodeBox, p: Point) -> float:
    """(dx/a)^2 + (dy/b)^2: 1 on the ellipse outline, < 1 inside."""
    c = node.center
    return ((p.x - c.x) / (node.width / 2)) ** 2 + ((p.y - c.y) / (node.height / 2)) ** 2


ELLIPSE_ITERATIONS = 6


def _ellipse_distance(node: NodeBox, p: Point) -> float:
    """Euclidean distance to the ellipse outline: the nearest outline point is found in
    the first quadrant (by symmetry) with the evolute iteration of C. Chou, "Distance
    to an ellipse" (2017), which converges to below 1e-9 px in a few steps.

    >>> e = NodeBox("e", 0, 0, 80, 40, Shape.ELLIPSE)
    >>> _ellipse_distance(e, Point(40, 0)), round(_ellipse_distance(e, Point(40, -10)), 9)
    (0.0, 10.0)
    """
    a, b = node.width / 2, node.height / 2
    px, py = abs(p.x - node.center.x), abs(p.y - node.center.y)
    tx = ty = math.sqrt(0.5)
    for _ in range(ELLIPSE_ITERATIONS):
        ex, ey = (a * a - b * b) * tx ** 3 / a, (b * b - a * a) * ty ** 3 / b
        r = math.hypot(a * tx - ex, b * ty - ey)
        q = math.hypot(px - ex, py - ey)
        if q == 0:
            break
        tx = min(1.0, max(0.0, ((px - ex) * r / q + ex) / a))
        ty = min(1.0, max(0.0, ((py - ey) * r / q + ey) / b))
        norm = math.hypot(tx, ty)
        tx, ty = tx / norm, ty / norm
    return math.hypot(px - a * tx, py - b * ty)


def radius(node: NodeBox) -> float:
    """Radius of a circle node."""
    return min(node.width, node.height) / 2


def distance_to_outline(node: NodeBox, p: Point) -> float:
    """Euclidean distance from ``p`` to the node's outline (0 when on it)."""
    c = node.center
    if node.shape is Shape.CIRCLE:
        return abs(math.hypot(p.x - c.x, p.y - c.y) - radius(node))
    if node.shape is Shape.ELLIPSE:
        return _ellipse_distance(node, p)
    if node.shape is Shape.DIAMOND:
        hw, hh = node.width / 2, node.height / 2
        dx, dy = abs(p.x - c.x), abs(p.y - c.y)
        # distance to the line x/hw + y/hh = 1 in the first quadrant, or to a tip
        norm = math.hypot(1 / hw, 1 / hh)
        t = (dx / hw + dy / hh - 1) / norm
        fx, fy = dx - t / hw / norm, dy - t / hh / norm
        if fx < 0:
            return math.hypot(dx, dy - hh)
        if fy < 0:
            return math.hypot(dx - hw, dy)
        return abs(t)
    x0, y0, x1, y1 = node.x, node.y, node.x + node.width, node.y + node.height
    if x0 <= p.x <= x1 and y0 <= p.y <= y1:
        return min(p.x - x0, x1 - p.x, p.y - y0, y1 - p.y)
    dx = max(x0 - p.x, 0.0, p.x - x1)
    dy = max(y0 - p.y, 0.0, p.y - y1)
    return math.hypot(dx, dy)


def on_outline(node: NodeBox, p: Point, tolerance: float = OUTLINE_TOLERANCE) -> bool:
    """Whether ``p`` lies on the node's outline within ``tolerance`` px."""
    return distance_to_outline(node, p) <= tolerance


def strictly_inside(node: NodeBox, p: Point, margin: float = OUTLINE_TOLERANCE) -> bool:
    """Whether ``p`` is inside the outline and farther than ``margin`` from it."""
    c = node.center
    if node.shape is Shape.CIRCLE:
        return math.hypot(p.x - c.x, p.y - c.y) < radius(node) - margin
    if node.shape is Shape.ELLIPSE:
        return _ellipse_level(node, p) < 1 and _ellipse_distance(node, p) > margin
    if node.shape is Shape.DIAMOND:
        return _diamond_level(node, p) < 1 and distance_to_outline(node, p) > margin
    return (node.x + margin < p.x < node.x + node.width - margin
            and node.y + margin < p.y < node.y + node.height - margin)


def _inside_closed(node: NodeBox, p: Point) -> bool:
    c = node.center
    if node.shape is Shape.CIRCLE:
        return math.hypot(p.x - c.x, p.y - c.y) <= radius(node)
    if node.shape is Shape.ELLIPSE:
        return _ellipse_level(node, p) <= 1
    if node.shape is Shape.DIAMOND:
        return _diamond_level(node, p) <= 1
    return node.x <= p.x <= node.x + node.width and node.y <= p.y <= node.y + node.height


def clip_to_outline(node: NodeBox, inside: Point, outside: Point) -> Point:
    """The point where the segment from ``inside`` to ``outside`` leaves the outline.

    Solved in closed form per shape. When the segment does not cross the outline (both
    ends inside, or both outside), the outline point on the ray from the centre through
    ``outside`` is returned instead.
    """
    if not _inside_closed(node, inside) and _inside_closed(node, outside):
        inside, outside = outside, inside
    if not _inside_closed(node, inside) or _inside_closed(node, outside):
        return project_to_outline(node, outside)
    t = _exit_fraction(node, inside, outside)
    return Point(inside.x + (outside.x - inside.x) * t, inside.y + (outside.y - inside.y) * t)


def _exit_fraction(node: NodeBox, inside: Point, outside: Point) -> float:
    """The fraction t in [0, 1] along inside -> outside where the outline is crossed."""
    c = node.center
    ux, uy = inside.x - c.x, inside.y - c.y
    dx, dy = outside.x - inside.x, outside.y - inside.y
    if node.shape is Shape.CIRCLE:
        # |u + t d| = r: a t^2 + b t + k = 0 with k < 0 (inside), so one positive root
        a, b, k = dx * dx + dy * dy, 2 * (ux * dx + uy * dy), ux * ux + uy * uy - radius(node) ** 2
        return (-b + math.sqrt(b * b - 4 * a * k)) / (2 * a)
    hw, hh = node.width / 2, node.height / 2
    if node.shape is Shape.ELLIPSE:
        # the circle case in coordinates scaled by 1/hw and 1/hh
        sx, sy, ex, ey = ux / hw, uy / hh, dx / hw, dy / hh
        a, b, k = ex * ex + ey * ey, 2 * (sx * ex + sy * ey), sx * sx + sy * sy - 1
        return (-b + math.sqrt(b * b - 4 * a * k)) / (2 * a)
    if node.shape is Shape.DIAMOND:
        # |ux + t dx| / hw + |uy + t dy| / hh is convex in t, < 1 at t = 0 and > 1 at t = 1:
        # the crossing is the smallest root among the four sign combinations
        roots = []
        for sx in (-1, 1):
            for sy in (-1, 1):
                slope = sx * dx / hw + sy * dy / hh
                if slope > 0:
                    roots.append((1 - sx * ux / hw - sy * uy / hh) / slope)
        level = [abs(ux + t * dx) / hw + abs(uy + t * dy) / hh for t in roots]
        return min(t for t, f in zip(roots, level, strict=True) if 0 <= t <= 1 and f <= 1 + 1e-9)
    exits = [(h - u) / d if d > 0 else (-h - u) / d
             for u, d, h in ((ux, dx, hw), (uy, dy, hh)) if d != 0]
    return min(exits)


def project_to_outline(node: NodeBox, p: Point) -> Point:
    """The outline point on the ray from the node's centre through ``p``."""
    c = node.center
    if p == c:
        return Point(c.x, node.y)
    far = max(node.width, node.height) * 4 + math.hypot(p.x - c.x, p.y - c.y)
    length = math.hypot(p.x - c.x, p.y - c.y)
    target = Point(c.x + (p.x - c.x) / length * far, c.y + (p.y - c.y) / length * far)
    return clip_to_outline(node, c, target)


def side_of(node: NodeBox, p: Point) -> Side:
    """The face of the node's box that ``p`` is nearest to, judged from the centre
    with the box's aspect ratio (so a point on the top face of a wide box is ``top``)."""
    c = node.center
    dx = (p.x - c.x) / (node.width / 2)
    dy = (p.y - c.y) / (node.height / 2)
    if abs(dy) >= abs(dx):
        return Side.BOTTOM if dy > 0 else Side.TOP
    return Side.RIGHT if dx > 0 else Side.LEFT
