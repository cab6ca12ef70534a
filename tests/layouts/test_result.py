import json

from layouts.graph import Shape
from layouts.result import (
    Box,
    Diagnostics,
    EdgeEnd,
    EdgeRoute,
    LayoutResult,
    NodeBox,
    Point,
    Side,
)


def _result(seconds: float) -> LayoutResult:
    return LayoutResult(
        nodes=(NodeBox("a", 0, 0, 10, 10), NodeBox("b", 0.1234567, 30, 10, 10, Shape.CIRCLE)),
        edges=(EdgeRoute("e", "a", "b", (Point(5, 10), Point(5.0004, 30)),
                         EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0), Box(7, 15, 8, 4)),),
        width=10.1234567, height=40,
        diagnostics=Diagnostics("demo", "best", "TopToBottom", seconds=seconds,
                                phases=(("order", seconds / 2),)),
    )


def test_json_is_byte_identical_whatever_the_timings() -> None:
    assert _result(0.5).to_json() == _result(0.7).to_json()


def test_numbers_are_rounded_to_three_decimals() -> None:
    data = json.loads(_result(0).to_json())
    assert data["nodes"][1]["x"] == 0.123
    assert data["width"] == 10.123
    assert data["edges"][0]["points"][1] == {"x": 5, "y": 30}
    assert data["edges"][0]["sourceEnd"] == {"side": "bottom", "slot": 0}


def test_timings_only_on_request() -> None:
    assert "seconds" not in _result(0.5).to_dict()["diagnostics"]
    timed = _result(0.5).to_dict(timings=True)["diagnostics"]
    assert timed["seconds"] == 0.5
    assert timed["phases"] == [{"name": "order", "seconds": 0.25}]


def test_node_lookup() -> None:
    assert _result(0).node("b").shape is Shape.CIRCLE
