"""The safety-net repairs: fed a defective route, they fix it; a fix that would add
another defect is refused. Clearance 12 px throughout."""

from __future__ import annotations

from dataclasses import replace

from layouts.layered.model import Deadline
from layouts.layered.routing.repair import (
    Scene,
    accepted,
    crossings,
    repair_routes,
    route_defects,
    segments,
)
from layouts.options import LayoutOptions
from layouts.quality_grid import Grid
from layouts.result import EdgeEnd, EdgeRoute, NodeBox, Point, Side

BOTTOM0, TOP0 = EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0)


def pts(*xy: tuple[float, float]) -> tuple[Point, ...]:
    return tuple(Point(x, y) for x, y in xy)


def boxes_of(*boxes: NodeBox) -> dict[str, NodeBox]:
    return {b.id: b for b in boxes}


A = NodeBox("a", 0, 0, 100, 40)
B = NodeBox("b", 200, 200, 100, 40)
M = NodeBox("m", 100, 55, 80, 25)          # y 55..80, in the way of a track at y = 70
THROUGH_M = EdgeRoute("e", "a", "b", pts((50, 40), (50, 70), (250, 70), (250, 200)),
                      BOTTOM0, TOP0)


def test_a_segment_through_a_foreign_node_is_nudged_past_it_with_clearance() -> None:
    boxes = boxes_of(A, B, M)
    fixed = repair_routes([THROUGH_M], boxes, LayoutOptions(), Deadline(5))[0]
    # below m: 80 + 12 = 92 (a move of 22); above: 55 - 12 = 43 (a move of 27): below wins
    assert fixed.points == pts((50, 40), (50, 92), (250, 92), (250, 200))


def test_the_nudge_keeps_going_outward_past_the_next_node() -> None:
    below = NodeBox("n", 120, 85, 40, 10)   # y 85..95: 92 is still too close, go on
    boxes = boxes_of(A, B, M, below)
    fixed = repair_routes([THROUGH_M], boxes, LayoutOptions(), Deadline(5))[0]
    # downward: 80 + 12 = 92 touches n, then 95 + 12 = 107 (a move of 37); upward:
    # 55 - 12 = 43 (a move of 27) is nearer, so the route goes above m
    assert fixed.points == pts((50, 40), (50, 43), (250, 43), (250, 200))


def test_a_sideways_departure_gets_a_stub_out_of_its_face() -> None:
    target = NodeBox("b", 200, 100, 100, 40)
    boxes = boxes_of(A, target)
    sideways = EdgeRoute("e", "a", "b", pts((50, 40), (250, 40), (250, 100)), BOTTOM0, TOP0)
    fixed = repair_routes([sideways], boxes, LayoutOptions(), Deadline(5))[0]
    # a stub of 12 px straight down from the bottom slot, then across and down as before
    assert fixed.points == pts((50, 40), (50, 52), (250, 52), (250, 100))
    assert route_defects(fixed, boxes, Grid.for_items(boxes.values(), segments(fixed.points)),
                         12).none


def test_a_nudge_that_adds_a_crossing_is_refused() -> None:
    boxes = boxes_of(A, B, M)
    # another edge's vertical at x = 150 from y = 85 to 100: the track at 92 would cross it
    other = EdgeRoute("o", "p", "q", pts((150, 85), (150, 100)))
    moved = EdgeRoute("e", "a", "b", pts((50, 40), (50, 92), (250, 92), (250, 200)),
                      BOTTOM0, TOP0)
    grid = Grid.for_items(boxes.values(), segments(THROUGH_M.points))
    scene = Scene(boxes, grid, [other], 12)
    assert not accepted(THROUGH_M, moved, lambda d: d.under + d.near, scene)
    assert accepted(THROUGH_M, moved, lambda d: d.under + d.near, Scene(boxes, grid, [], 12))


def test_a_move_of_an_anchored_endpoint_is_refused() -> None:
    boxes = boxes_of(A, B, M)
    grid = Grid.for_items(boxes.values(), [])
    off = EdgeRoute("e", "a", "b", pts((40, 40), (40, 92), (250, 92), (250, 200)), BOTTOM0, TOP0)
    assert not accepted(THROUGH_M, off, lambda d: d.under, Scene(boxes, grid, [], 12))


def test_clean_routes_are_left_exactly_as_they_are() -> None:
    boxes = boxes_of(A, B)
    clean = EdgeRoute("e", "a", "b", pts((50, 40), (50, 70), (250, 70), (250, 200)),
                      BOTTOM0, TOP0)
    assert repair_routes([clean], boxes, LayoutOptions(), Deadline(5)) == [clean]


def test_acceptance_counts_shared_stretches_as_the_contracts_do() -> None:
    # f runs down x = 100.3; a polyline down x = 100 is 0.3 px from it, within the
    # contracts' 0.5 px: one shared stretch (the old exact-collinearity test saw none)
    f = EdgeRoute("f", "c", "d", pts((100.3, 0), (100.3, 200)), BOTTOM0, TOP0)
    assert crossings(pts((100, 50), (100, 150)), [f]) == (0, 1)
    # two edges leaving g at one point share their trunk as a fan may: not counted
    left = EdgeRoute("gl", "g", "l", pts((100, 40), (100, 60), (30, 60), (30, 100)), BOTTOM0,
                     TOP0)
    right = EdgeRoute("gr", "g", "r", pts((100, 40), (100, 60), (170, 60), (170, 100)),
                      BOTTOM0, TOP0)
    assert crossings(left.points, [right], left) == (0, 0)
    assert crossings(left.points, [replace(right, source="h")], left) == (0, 1)
