"""The slot lattice: slot i of k on a face of length L sits at L * (i + 1) / (k + 1) from
the face's start, on the node's true outline."""

from __future__ import annotations

import math

import pytest

from layouts.geometry import on_outline
from layouts.graph import Shape
from layouts.layered.routing.slots import face_span, slot_offset, slot_point
from layouts.result import NodeBox, Point, Side


def test_offsets_split_the_face_evenly_and_never_touch_its_ends() -> None:
    assert [slot_offset(100, 4, i) for i in range(4)] == [20, 40, 60, 80]
    assert slot_offset(90, 1, 0) == 45          # a single end: the centre


def test_an_index_outside_the_face_is_refused() -> None:
    with pytest.raises(ValueError, match="outside"):
        slot_offset(100, 2, 2)


def test_rectangle_slots_lie_on_the_box_faces() -> None:
    box = NodeBox("r", 10, 20, 120, 60)
    assert slot_point(box, Side.BOTTOM, 3, 0) == Point(10 + 30, 80)
    assert slot_point(box, Side.TOP, 3, 2) == Point(10 + 90, 20)
    assert slot_point(box, Side.LEFT, 1, 0) == Point(10, 50)
    assert slot_point(box, Side.RIGHT, 2, 0) == Point(130, 40)      # 20 + 60/3


def test_diamond_slots_lie_on_the_diamond_edges() -> None:
    d = NodeBox("d", 0, 0, 80, 40, Shape.DIAMOND)   # centre (40, 20), half sizes 40 x 20
    # top face, 3 slots: x = 20, 40, 60; at |dx| = 20 the upper edge is at
    # y = 20 - 20 * (1 - 20/40) = 10; the middle slot is the top tip
    assert [slot_point(d, Side.TOP, 3, i) for i in range(3)] == [
        Point(20, 10), Point(40, 0), Point(60, 10)]
    # right face, 2 slots: y = 40/3 and 80/3, |dy| = 20/3: x = 40 + 40 * (1 - 1/3)
    p = slot_point(d, Side.RIGHT, 2, 0)
    assert p.x == pytest.approx(40 + 40 * (2 / 3))
    assert p.y == pytest.approx(40 / 3)
    for i in range(5):
        assert on_outline(d, slot_point(d, Side.BOTTOM, 5, i))


def test_circle_faces_span_the_diameter_and_slots_lie_on_the_circle() -> None:
    c = NodeBox("c", 0, 0, 80, 40, Shape.CIRCLE)    # radius 20 centred at (40, 20)
    assert face_span(c, Side.BOTTOM) == (20, 40)
    # 3 slots: x = 30, 40, 50; at |dx| = 10 the circle is at y = 20 + sqrt(400 - 100)
    p = slot_point(c, Side.BOTTOM, 3, 0)
    assert p.x == 30
    assert p.y == pytest.approx(20 + math.sqrt(300))
    assert slot_point(c, Side.BOTTOM, 3, 1) == Point(40, 40)
    assert all(on_outline(c, slot_point(c, Side.LEFT, 4, i)) for i in range(4))
