"""The repair pass's screen (:mod:`layouts.layered.routing.defect_screen`) and the node
bands it and the fans look segments up in (:mod:`layouts.layered.routing.node_bands`).

The screen's promise: when it says a route has no defect, the contract checkers
(:func:`~layouts.layered.routing.repair.route_defects`) find none. Checked by hand at
the clearance threshold and on thousands of random routes among random nodes, where
both answers must occur often enough for the check to mean something."""

from __future__ import annotations

import random

import pytest

from layouts.graph import Shape
from layouts.layered.fans import SAME, _apart
from layouts.layered.routing.defect_screen import DefectScreen
from layouts.layered.routing.node_bands import ID, NodeBands
from layouts.layered.routing.repair import route_defects, segments
from layouts.quality_geometry import Segment, intrudes, segment_box_distance
from layouts.quality_grid import Grid
from layouts.result import EdgeEnd, EdgeRoute, NodeBox, Point, Side

CLEARANCE = 12.0
A = NodeBox("a", 0, 0, 100, 40)
B = NodeBox("b", 0, 300, 100, 40)
M = NodeBox("m", 60, 100, 80, 40)          # x 60..140, y 100..140
BOXES = {n.id: n for n in (A, B, M)}


def down(x: float, *, source: str = "a", target: str = "b") -> EdgeRoute:
    """Straight down from a's bottom face (y = 40) to b's top face (y = 300) at ``x``."""
    return EdgeRoute("e", source, target, (Point(x, 40), Point(x, 300)),
                     EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0))


def exact(route: EdgeRoute, boxes: dict[str, NodeBox]) -> bool:
    """Whether the contract checkers find a defect on ``route``."""
    grid = Grid.for_items(boxes.values(), segments(route.points))
    return not route_defects(route, boxes, grid, CLEARANCE).none


@pytest.mark.parametrize(("x", "flagged"), [
    (60 - 11.5, False),    # 11.5 px from m: the clearance less the 0.5 px tolerance, kept
    (60 - 11.4, True),     # 11.4 px: too near
    (60, True),            # along m's left side
    (100, True),           # through m
    (140 + 11.5, False),   # right of m, symmetric
])
def test_the_clearance_threshold_is_the_contracts_one(x: float, flagged: bool) -> None:
    screen = DefectScreen(BOXES, CLEARANCE)
    assert screen.may_have_defects(down(x)) is flagged
    assert exact(down(x), BOXES) is flagged


def test_an_end_leaving_its_face_sideways_may_be_a_defect() -> None:
    sideways = EdgeRoute("e", "a", "b", (Point(20, 40), Point(-30, 40), Point(-30, 300)),
                         EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0))
    assert DefectScreen(BOXES, CLEARANCE).may_have_defects(sideways)
    assert exact(sideways, BOXES)


def test_a_step_against_the_flow_counts_only_for_forward_edges() -> None:
    # down the left of everything, then up 20 px and down again: against the flow
    points = (Point(20, 40), Point(20, 60), Point(-30, 60), Point(-30, 40), Point(-30, 250),
              Point(20, 250), Point(20, 300))
    forward = EdgeRoute("e", "a", "b", points, EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0))
    screen = DefectScreen(BOXES, CLEARANCE)
    assert screen.may_have_defects(forward) and exact(forward, BOXES)
    loop_back = EdgeRoute("e", "a", "b", points, EdgeEnd(Side.BOTTOM, 0),
                          EdgeEnd(Side.TOP, 0), loop_back=True)
    assert not screen.may_have_defects(loop_back) and not exact(loop_back, BOXES)


def test_a_route_back_through_its_own_source_may_be_a_defect() -> None:
    # out of a's bottom, round its left and back in across it at y = 20, out of its top,
    # then round the left of everything down to b (flagged a loop-back: no flow rule)
    back = EdgeRoute("e", "a", "b", (Point(20, 40), Point(20, 60), Point(-30, 60),
                                     Point(-30, 20), Point(50, 20), Point(50, -20),
                                     Point(-60, -20), Point(-60, 250), Point(20, 250),
                                     Point(20, 300)),
                     EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0), loop_back=True)
    assert DefectScreen(BOXES, CLEARANCE).may_have_defects(back)
    assert exact(back, BOXES)
    around = EdgeRoute("e", "a", "b", (Point(20, 40), Point(20, 60), Point(-60, 60),
                                       Point(-60, 250), Point(20, 250), Point(20, 300)),
                       EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0), loop_back=True)
    assert not DefectScreen(BOXES, CLEARANCE).may_have_defects(around)


def test_ends_at_a_diamond_tip_and_a_circle_face_are_clean() -> None:
    gate = NodeBox("g", 0, 0, 80, 40, Shape.DIAMOND)
    timer = NodeBox("t", 10, 200, 60, 60, Shape.CIRCLE)
    boxes = {"g": gate, "t": timer}
    route = EdgeRoute("e", "g", "t", (Point(40, 40), Point(40, 200)),
                      EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0))
    assert not DefectScreen(boxes, CLEARANCE).may_have_defects(route)
    assert not exact(route, boxes)


def _random_case(rng: random.Random) -> tuple[dict[str, NodeBox], EdgeRoute]:
    shapes = list(Shape)
    boxes = {f"n{i}": NodeBox(f"n{i}", rng.randrange(0, 900), rng.randrange(0, 900),
                              rng.randrange(10, 120), rng.randrange(10, 80), rng.choice(shapes))
             for i in range(rng.randrange(2, 7))}
    source, target = rng.sample(sorted(boxes), 2)
    s = boxes[source]
    x, y = round(s.x + rng.random() * s.width, 2), s.y + s.height
    points = [Point(x, y)]
    for step in range(rng.randrange(1, 6)):
        if step == 0:
            y += rng.choice([0.25, 11.5, 12, 40, 90, 150])
        elif step % 2 == 0:
            y += rng.choice([-30, 0.25, 11.5, 12, 40, 90, 150])
        else:
            x += rng.choice([-200, -60, -11.5, 0.3, 12, 60, 200])
        points.append(Point(round(x, 2), round(y, 2)))
    sides = [None, *Side]
    first = Side.BOTTOM if rng.random() < 0.8 else rng.choice(sides)   # mostly leaves down
    route = EdgeRoute("e", source, target, tuple(points), EdgeEnd(first, 0),
                      EdgeEnd(rng.choice([None, None, *sides]), 0),
                      loop_back=rng.random() < 0.2)
    return boxes, route


def test_a_route_the_screen_passes_has_no_defect_the_checkers_find() -> None:
    rng = random.Random(20261201)
    passed = flagged = 0
    for _ in range(3000):
        boxes, route = _random_case(rng)
        if DefectScreen(boxes, CLEARANCE).may_have_defects(route):
            flagged += 1
        else:
            passed += 1
            assert not exact(route, boxes), route
    assert passed > 300 and flagged > 300     # both answers are exercised


def test_node_bands_find_every_box_within_reach() -> None:
    rng = random.Random(5)
    for _ in range(300):
        boxes = [NodeBox(f"n{i}", rng.uniform(-100, 900), rng.uniform(-100, 900),
                         rng.uniform(1, 150), rng.uniform(1, 90)) for i in range(30)]
        bands = NodeBands(boxes)
        x0, y0 = rng.uniform(-100, 900), rng.uniform(-100, 900)
        x1 = x0 + rng.choice([0, rng.uniform(0, 600)])
        y1 = y0 + rng.choice([0, rng.uniform(0, 600)])
        reach = rng.choice([0.0, 11.5, 30.0])
        within = {b.id for b in boxes if b.x <= x1 + reach and x0 - reach <= b.x + b.width
                  and b.y <= y1 + reach and y0 - reach <= b.y + b.height}
        assert within <= {e[ID] for e in bands.near(x0, y0, x1, y1, reach)}


def test_a_segment_the_fans_call_apart_neither_enters_nor_nears_the_box() -> None:
    rng = random.Random(11)
    apart = 0
    for _ in range(3000):
        box = NodeBox("n", 100, 100, rng.choice([20, 80]), rng.choice([20, 40]),
                      rng.choice(list(Shape)))
        x, y = rng.uniform(60, 220), rng.uniform(60, 180)
        length = rng.uniform(1, 100)
        s = Segment(x, y, x + length, y, 0, "", "") if rng.random() < 0.5 else \
            Segment(x, y, x, y + length, 0, "", "")
        if _apart(s, box, CLEARANCE):
            apart += 1
            assert not intrudes(s, box)
            assert segment_box_distance(s, box.x, box.y, box.x + box.width,
                                        box.y + box.height) >= CLEARANCE - SAME
    assert apart > 300
