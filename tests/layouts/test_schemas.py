"""The published JSON Schemas agree with what the code writes and reads (checked with the
independent ``jsonschema`` validator)."""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
import pytest

from layouts.errors import InvalidGraphError
from layouts.graph import Edge, Graph, Node, Shape
from layouts.options import LayoutOptions
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
from layouts.schemas import all_schemas, graph_json_schema, result_json_schema

Validator = jsonschema.Draft202012Validator


def _valid(schema: dict[str, Any], instance: object) -> bool:
    return Validator(schema).is_valid(instance)


def _graph() -> Graph:
    return Graph(
        nodes=(Node("a", 120, 40, Shape.RECT, "Receive"), Node("b", 40, 40, Shape.DIAMOND),
               Node("c", 30, 30, Shape.CIRCLE, "wait")),
        edges=(Edge("e1", "a", "b"), Edge("e2", "b", "c", label="true", label_width=24.5,
                                           label_height=12),
               Edge("e3", "c", "a", loop_back=True)),
    )


def _result() -> LayoutResult:
    return LayoutResult(
        nodes=(NodeBox("a", 0, 0, 120, 40), NodeBox("b", 40, 100, 40, 40, Shape.DIAMOND)),
        edges=(
            EdgeRoute("e1", "a", "b", (Point(60, 40), Point(60, 100)),
                      EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0),
                      label_box=Box(64, 60, 24.5, 12)),
            EdgeRoute("e2", "b", "a", (Point(80, 120), Point(140, 120), Point(140, 20),
                                       Point(120, 20.123456)), loop_back=True),
        ),
        width=140, height=140,
        diagnostics=Diagnostics("demo", "best", "LeftToRight", seconds=0.25,
                                budget_exhausted=True, phases=(("rank", 0.1),),
                                notes=("hand-built",)),
    )


def test_every_schema_is_a_valid_draft_2020_12_schema() -> None:
    schemas = all_schemas()
    assert set(schemas) == {"graph", "options", "result"}
    for schema in schemas.values():
        Validator.check_schema(schema)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        json.dumps(schema)  # serialisable as published


def test_graph_to_dict_validates() -> None:
    assert _valid(graph_json_schema(), _graph().to_dict())
    assert _valid(graph_json_schema(), Graph(nodes=(Node("x", 1, 1),)).to_dict())


@pytest.mark.parametrize("timings", [False, True])
def test_result_to_dict_validates(timings: bool) -> None:
    data = json.loads(_result().to_json(timings=timings))
    assert _valid(result_json_schema(), data)


def test_options_schema_accepts_option_dicts() -> None:
    schema = all_schemas()["options"]
    assert _valid(schema, LayoutOptions().to_dict())
    assert not _valid(schema, {"effort": "extreme"})
    assert not _valid(schema, {"clearance": -1})


def _without(data: dict[str, Any], path: tuple[Any, ...], key: str) -> dict[str, Any]:
    out = copy.deepcopy(data)
    target: Any = out
    for step in path:
        target = target[step]
    del target[key]
    return out


def _with(data: dict[str, Any], path: tuple[Any, ...], key: str, value: object
          ) -> dict[str, Any]:
    out = copy.deepcopy(data)
    target: Any = out
    for step in path:
        target = target[step]
    target[key] = value
    return out


GRAPH_BAD = [
    ("missing node id", lambda g: _without(g, ("nodes", 0), "id")),
    ("empty node id", lambda g: _with(g, ("nodes", 0), "id", "")),
    ("negative width", lambda g: _with(g, ("nodes", 0), "width", -5)),
    ("zero height", lambda g: _with(g, ("nodes", 1), "height", 0)),
    ("width as text", lambda g: _with(g, ("nodes", 1), "width", "40")),
    ("wrong shape", lambda g: _with(g, ("nodes", 1), "shape", "hexagon")),
    ("edge without source", lambda g: _without(g, ("edges", 0), "source")),
    ("numeric target", lambda g: _with(g, ("edges", 0), "target", 3)),
    ("negative label width", lambda g: _with(g, ("edges", 1), "labelWidth", -1)),
    ("boolean label width", lambda g: _with(g, ("edges", 1), "labelWidth", True)),
    ("nodes not a list", lambda g: _with(g, (), "nodes", {"a": 1})),
    ("no nodes", lambda g: _without(g, (), "nodes")),
]


@pytest.mark.parametrize(("name", "mutate"), GRAPH_BAD, ids=[n for n, _ in GRAPH_BAD])
def test_graph_schema_rejects_what_the_reader_rejects(name: str, mutate: Any) -> None:
    data = mutate(_graph().to_dict())
    assert not _valid(graph_json_schema(), data), name
    with pytest.raises(InvalidGraphError):
        Graph.from_dict(data)


GRAPH_GOOD = [
    ("edge id left out", lambda g: _without(g, ("edges", 0), "id")),
    ("shape left out", lambda g: _without(g, ("nodes", 0), "shape")),
    ("label left out", lambda g: _without(g, ("nodes", 0), "label")),
    ("edges left out", lambda g: _without(g, (), "edges")),
    ("unknown key kept", lambda g: _with(g, ("nodes", 0), "colour", "red")),
    ("integer sizes", lambda g: _with(g, ("nodes", 0), "width", 3)),
]


@pytest.mark.parametrize(("name", "mutate"), GRAPH_GOOD, ids=[n for n, _ in GRAPH_GOOD])
def test_graph_schema_accepts_what_the_reader_accepts(name: str, mutate: Any) -> None:
    data = mutate(_graph().to_dict())
    assert _valid(graph_json_schema(), data), name
    Graph.from_dict(data)


RESULT_BAD = [
    ("missing node id", lambda r: _without(r, ("nodes", 0), "id")),
    ("negative node width", lambda r: _with(r, ("nodes", 0), "width", -1)),
    ("wrong shape", lambda r: _with(r, ("nodes", 1), "shape", "star")),
    ("one route point", lambda r: _with(r, ("edges", 0), "points", [{"x": 1, "y": 2}])),
    ("wrong side", lambda r: _with(r, ("edges", 0, "sourceEnd"), "side", "middle")),
    ("negative slot", lambda r: _with(r, ("edges", 0, "sourceEnd"), "slot", -1)),
    ("fractional slot", lambda r: _with(r, ("edges", 0, "sourceEnd"), "slot", 1.5)),
    ("unknown key", lambda r: _with(r, ("edges", 0), "colour", "red")),
    ("missing loopBack", lambda r: _without(r, ("edges", 1), "loopBack")),
    ("missing diagnostics", lambda r: _without(r, (), "diagnostics")),
    ("unknown effort", lambda r: _with(r, ("diagnostics",), "effort", "max")),
    ("negative drawing height", lambda r: _with(r, (), "height", -3)),
    ("label box without width", lambda r: _without(r, ("edges", 0, "labelBox"), "width")),
]


@pytest.mark.parametrize(("name", "mutate"), RESULT_BAD, ids=[n for n, _ in RESULT_BAD])
def test_result_schema_rejects_invalid_instances(name: str, mutate: Any) -> None:
    data = mutate(json.loads(_result().to_json(timings=True)))
    assert not _valid(result_json_schema(), data), name


def test_result_schema_allows_null_sides_slots_and_label_box() -> None:
    data = json.loads(_result().to_json())
    assert data["edges"][1]["sourceEnd"] == {"side": None, "slot": None}
    assert data["edges"][1]["labelBox"] is None
    assert _valid(result_json_schema(), data)
