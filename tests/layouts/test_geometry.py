import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from layouts.geometry import (
    clip_to_outline,
    distance_to_outline,
    on_outline,
    side_of,
    strictly_inside,
)
from layouts.graph import Shape
from layouts.result import NodeBox, Point, Side

RECT = NodeBox("r", 0, 0, 100, 40, Shape.RECT)
DIAMOND = NodeBox("d", 0, 0, 40, 20, Shape.DIAMOND)
CIRCLE = NodeBox("c", 0, 0, 40, 30, Shape.CIRCLE)  # radius min(40, 30) / 2 = 15
ELLIPSE = NodeBox("e", 0, 0, 80, 40, Shape.ELLIPSE)  # semi-axes 40 and 20 around (40, 20)


def _close(p: Point, x: float, y: float) -> bool:
    return math.isclose(p.x, x, abs_tol=1e-6) and math.isclose(p.y, y, abs_tol=1e-6)


def test_clip_rect_straight_down() -> None:
    assert _close(clip_to_outline(RECT, Point(50, 20), Point(50, 200)), 50, 40)


def test_clip_diamond_on_diagonal() -> None:
    # ray from centre (20, 10) towards +x,+y at 45 degrees meets |dx|/20 + |dy|/10 = 1
    # where t/20 + t/10 = 1, t = 20/3
    p = clip_to_outline(DIAMOND, Point(20, 10), Point(120, 110))
    assert _close(p, 20 + 20 / 3, 10 + 20 / 3)


def test_clip_ellipse_on_diagonal() -> None:
    # from the centre along (1, 1): (t/40)^2 + (t/20)^2 = 1, t = 40 / sqrt(5)
    p = clip_to_outline(ELLIPSE, Point(40, 20), Point(140, 120))
    t = 40 / math.sqrt(5)
    assert _close(p, 40 + t, 20 + t)


def test_ellipse_outline_is_not_its_box() -> None:
    # the box corner region: (10, 5) is inside the box but outside the ellipse
    # ((30/40)^2 + (15/20)^2 = 1.125 > 1)
    assert not strictly_inside(ELLIPSE, Point(10, 5))
    assert strictly_inside(ELLIPSE, Point(40, 20))
    # (40 - 40 cos 60deg, 20 - 20 sin 60deg) lies on the ellipse
    assert on_outline(ELLIPSE, Point(40 - 20, 20 - 20 * math.sqrt(3) / 2))


def test_clip_circle_uses_short_side_radius() -> None:
    p = clip_to_outline(CIRCLE, Point(20, 15), Point(100, 15))
    assert _close(p, 20 + 15, 15)


@pytest.mark.parametrize(
    ("node", "point", "expected"),
    [(RECT, Point(100, 20), 0.0), (RECT, Point(50, 30), 10.0), (RECT, Point(103, 44), 5.0),
     (DIAMOND, Point(20, 0), 0.0), (DIAMOND, Point(20, -3), 3.0), (DIAMOND, Point(43, 10), 3.0),
     (CIRCLE, Point(20, 15 - 20), 5.0), (ELLIPSE, Point(40, -7), 7.0),
     (ELLIPSE, Point(85, 20), 5.0)],
)
def test_distance_to_outline(node: NodeBox, point: Point, expected: float) -> None:
    assert math.isclose(distance_to_outline(node, point), expected, abs_tol=1e-9)


def test_diamond_edge_distance_is_perpendicular() -> None:
    # the outline segment from the right tip (40, 10) to the bottom tip (20, 20) lies on the
    # line x + 2y = 60; the point (40, 20) is |40 + 40 - 60| / sqrt(1 + 4) = 20 / sqrt(5) from
    # it, with the foot (36, 12) inside that segment
    assert math.isclose(distance_to_outline(DIAMOND, Point(40, 20)), 20 / math.sqrt(5))


def test_on_outline_and_inside() -> None:
    assert on_outline(DIAMOND, Point(30, 5))  # midway between the top and right tips
    assert not on_outline(DIAMOND, Point(0, 0))  # box corner is outside a diamond
    assert strictly_inside(RECT, Point(50, 20))
    assert not strictly_inside(DIAMOND, Point(2, 2))


def test_side_of_respects_aspect_ratio() -> None:
    assert side_of(RECT, Point(90, 0)) is Side.TOP
    assert side_of(RECT, Point(100, 20)) is Side.RIGHT
    assert side_of(RECT, Point(0, 25)) is Side.LEFT
    assert side_of(RECT, Point(10, 40)) is Side.BOTTOM


@given(
    shape=st.sampled_from(list(Shape)),
    fx=st.floats(-0.45, 0.45), fy=st.floats(-0.45, 0.45),
    angle=st.floats(0, 2 * math.pi), reach=st.floats(1.5, 20),
)
def test_clip_lands_on_the_outline_and_on_the_segment(
    shape: Shape, fx: float, fy: float, angle: float, reach: float
) -> None:
    node = NodeBox("n", 10, 20, 60, 30, shape)
    # an inside point well within every outline: the inner quarter of a circle/diamond
    inside = Point(node.center.x + fx * 30 * 0.5, node.center.y + fy * 30 * 0.5)
    far = 60 * reach
    outside = Point(inside.x + math.cos(angle) * far, inside.y + math.sin(angle) * far)
    p = clip_to_outline(node, inside, outside)
    assert distance_to_outline(node, p) < 1e-6
    # collinear with the segment and between its ends
    cross = (p.x - inside.x) * (outside.y - inside.y) - (p.y - inside.y) * (outside.x - inside.x)
    assert abs(cross) < 1e-6 * math.hypot(outside.x - inside.x, outside.y - inside.y) * 100
    assert min(inside.x, outside.x) - 1e-9 <= p.x <= max(inside.x, outside.x) + 1e-9
