import json

import pytest

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


def test_from_dict_reads_what_to_dict_wrote_with_its_rounding() -> None:
    read = LayoutResult.from_dict(_result(0.5).to_dict(timings=True))
    assert read.node("b") == NodeBox("b", 0.123, 30.0, 10.0, 10.0, Shape.CIRCLE)
    assert read.width == 10.123  # 10.1234567 rounded to 3 decimals
    (edge,) = read.edges
    assert edge.points == (Point(5.0, 10.0), Point(5.0, 30.0))  # 5.0004 -> 5
    assert (edge.source_end, edge.target_end) == (EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0))
    assert edge.label_box == Box(7.0, 15.0, 8.0, 4.0) and edge.loop_back is False
    assert read.diagnostics == Diagnostics("demo", "best", "TopToBottom", seconds=0.5,
                                           phases=(("order", 0.25),))


def test_from_dict_without_timings_has_zero_seconds_and_no_phases() -> None:
    read = LayoutResult.from_dict(_result(0.5).to_dict())
    assert (read.diagnostics.seconds, read.diagnostics.phases) == (0.0, ())
    assert read.to_dict() == _result(0.5).to_dict()


def test_from_dict_keeps_ends_without_sides_and_missing_label_boxes() -> None:
    result = LayoutResult((NodeBox("a", 0, 0, 9, 9),),
                          (EdgeRoute("l", "a", "a", (Point(0, 0), Point(9, 9)), loop_back=True),),
                          9, 9, Diagnostics("demo", "draft", "LeftToRight", notes=("n",)))
    assert LayoutResult.from_dict(result.to_dict()) == result


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.pop("diagnostics"), "missing key 'diagnostics'"),
    (lambda d: d["nodes"][0].update(shape="hexagon"), "'hexagon' is not a valid Shape"),
    (lambda d: d["edges"][0].update(loopBack="yes"), "loopBack must be true or false"),
    (lambda d: d["edges"][0]["sourceEnd"].update(side="inside"), "'inside' is not a valid Side"),
    (lambda d: d.update(width="wide"), "could not convert string to float: 'wide'"),
])
def test_from_dict_names_what_is_wrong(change, message) -> None:
    data = _result(0).to_dict()
    change(data)
    with pytest.raises(ValueError, match=message):
        LayoutResult.from_dict(data)
