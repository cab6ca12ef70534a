"""ELK's answer -> our result, on hand-made ELK JSON (no Node.js needed).

Outline arithmetic: a diamond with centre (cx, cy) and half sizes (hw, hh) is
|x - cx| / hw + |y - cy| / hh = 1; a circle is (x - cx)^2 + (y - cy)^2 = r^2, r = min(w, h)/2.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from layouts.errors import ProviderFailedError
from layouts.graph import Edge, Graph, Node, Shape
from layouts.providers.elkjs_convert import from_elk_graph
from layouts.result import Box, Diagnostics, Point, Side

DIAGNOSTICS = Diagnostics(engine="elkjs", effort="balanced", direction="TopToBottom")


def _elk(children: list[dict[str, Any]], edges: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": "root", "width": 300, "height": 200, "children": children, "edges": edges}


def _section(*points: tuple[float, float]) -> dict[str, Any]:
    first, *bends, last = points
    return {"startPoint": {"x": first[0], "y": first[1]},
            "bendPoints": [{"x": x, "y": y} for x, y in bends],
            "endPoint": {"x": last[0], "y": last[1]}}


def test_diamond_target_end_slides_down_the_vertical_axis() -> None:
    graph = Graph((Node("a", 40, 40), Node("d", 40, 40, Shape.DIAMOND)), (Edge("e", "a", "d"),))
    elk = _elk([{"id": "a", "x": 12, "y": 12}, {"id": "d", "x": 12, "y": 72}],
               [{"id": "e", "sections": [_section((22, 52), (22, 72))]}])
    route = from_elk_graph(graph, elk, DIAGNOSTICS).edges[0]
    # centre (32, 92), hw = hh = 20: |22 - 32| / 20 = 0.5, so dy = 20 * 0.5 = 10, y = 92 - 10
    assert route.points[0] == Point(22, 52)
    assert route.points[-1].x == 22
    assert route.points[-1].y == pytest.approx(82, abs=1e-9)
    assert route.source_end.side is Side.BOTTOM and route.target_end.side is Side.TOP


def test_diamond_source_end_slides_along_the_horizontal_axis() -> None:
    graph = Graph((Node("d", 60, 40, Shape.DIAMOND), Node("b", 40, 40)), (Edge("e", "d", "b"),))
    elk = _elk([{"id": "d", "x": 0, "y": 80}, {"id": "b", "x": 100, "y": 75}],
               [{"id": "e", "sections": [_section((60, 95), (100, 95))]}])
    route = from_elk_graph(graph, elk, DIAGNOSTICS).edges[0]
    # centre (30, 100), hw 30, hh 20: |95 - 100| / 20 = 0.25, dx = 30 * 0.75 = 22.5
    assert route.points[0].y == 95
    assert route.points[0].x == pytest.approx(30 + 22.5, abs=1e-9)
    assert route.points[-1] == Point(100, 95)
    assert route.source_end.side is Side.RIGHT and route.target_end.side is Side.LEFT


def test_circle_target_end_slides_along_the_horizontal_axis() -> None:
    graph = Graph((Node("a", 40, 40), Node("t", 40, 40, Shape.CIRCLE)), (Edge("e", "a", "t"),))
    elk = _elk([{"id": "a", "x": 20, "y": 88}, {"id": "t", "x": 100, "y": 100}],
               [{"id": "e", "sections": [_section((60, 108), (100, 108))]}])
    end = from_elk_graph(graph, elk, DIAGNOSTICS).edges[0].points[-1]
    # centre (120, 120), r 20: dy = 12, dx = sqrt(400 - 144) = 16, x = 120 - 16
    assert end.y == 108
    assert end.x == pytest.approx(104, abs=1e-9)


def test_circle_missed_by_the_axis_takes_the_outline_point_towards_the_bend() -> None:
    graph = Graph((Node("a", 20, 20), Node("t", 80, 20, Shape.CIRCLE)), (Edge("e", "a", "t"),))
    elk = _elk([{"id": "a", "x": -5, "y": -50}, {"id": "t", "x": 0, "y": 0}],
               [{"id": "e", "sections": [_section((5, -30), (5, 0))]}])
    end = from_elk_graph(graph, elk, DIAGNOSTICS).edges[0].points[-1]
    # centre (40, 10), r = 20 / 2 = 10; the line x = 5 misses it (35 > 10). Towards (5, -30):
    # direction (-35, -40), length sqrt(2825) = 53.1507; 10 * (-35, -40) / 53.1507
    assert end.x == pytest.approx(40 - 6.5850, abs=1e-3)
    assert end.y == pytest.approx(10 - 7.5258, abs=1e-3)


def test_rectangle_ends_bends_sections_and_label_are_kept() -> None:
    graph = Graph((Node("a", 40, 40), Node("b", 40, 40)),
                  (Edge("e", "a", "b", label="go", label_width=20, label_height=10),))
    sections = [_section((20, 40), (20, 50), (60, 50)), _section((60, 50), (60, 70))]
    elk = _elk([{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 40, "y": 70}],
               [{"id": "e", "sections": sections,
                 "labels": [{"text": "go", "x": 30, "y": 52, "width": 20, "height": 10}]}])
    result = from_elk_graph(graph, elk, DIAGNOSTICS)
    route = result.edges[0]
    assert route.points == (Point(20, 40), Point(20, 50), Point(60, 50), Point(60, 70))
    assert route.label_box == Box(30, 52, 20, 10)
    assert route.loop_back is False
    assert (result.width, result.height) == (300, 200)
    assert result.node("b").x == 40 and result.node("b").shape is Shape.RECT


def test_loop_back_route_is_turned_back_to_run_from_its_source() -> None:
    # ELK got the loop-back b -> a as a -> b, and routed it from a's bottom to b's top.
    graph = Graph((Node("a", 40, 40), Node("b", 40, 40)),
                  (Edge("back", "b", "a", loop_back=True),))
    elk = _elk([{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 0, "y": 100}],
               [{"id": "back", "sections": [_section((20, 40), (20, 100))]}])
    route = from_elk_graph(graph, elk, DIAGNOSTICS).edges[0]
    assert route.points == (Point(20, 100), Point(20, 40))
    assert route.source_end.side is Side.TOP and route.target_end.side is Side.BOTTOM
    assert route.loop_back is True


@pytest.mark.parametrize(("elk", "names"), [
    (_elk([{"id": "a", "x": 0, "y": 0}], []), "node 'b' is missing"),
    (_elk([{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": "1", "y": 0}], []), "node 'b'"),
    (_elk([{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 0, "y": 50}], []),
     "edge 'e' is missing"),
    (_elk([{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 0, "y": 50}],
          [{"id": "e", "sections": []}]), "edge 'e' has no sections"),
    (_elk([{"id": "a", "x": 0, "y": 0}, {"id": "b", "x": 0, "y": 50}],
          [{"id": "e", "sections": [{"startPoint": {"x": 0, "y": math.nan},
                                     "endPoint": {"x": 0, "y": 50}}]}]), "edge 'e'"),
    ({"children": "nope"}, "'children' is not a list"),
])
def test_unusable_answers_are_typed_errors_naming_the_part(elk: dict[str, Any],
                                                           names: str) -> None:
    graph = Graph((Node("a", 40, 40), Node("b", 40, 40)), (Edge("e", "a", "b"),))
    with pytest.raises(ProviderFailedError, match="unusable layout") as caught:
        from_elk_graph(graph, elk, DIAGNOSTICS)
    assert names in str(caught.value)
