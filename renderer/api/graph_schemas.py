"""JSON Schemas and query parameters of the graph endpoints, for ``/openapi.json``.

``RunGraph`` is our layout result schema (:func:`layouts.schemas.result_json_schema`) with
the keys a run view adds (:mod:`renderer.run_graph`), still closed, so it describes exactly
what ``format=json`` writes; ``ElkRunGraph`` adds the same keys to the ELK JSON graph.
The query parameters are the render endpoint's: ``format``, ``engine`` and the layout
options of :data:`layouts.options.OPTION_TABLE`.

>>> GRAPH_QUERY[:3]
('format', 'engine', 'direction')
>>> sorted(graph_schemas())
['ElkRunGraph', 'GraphDrawing', 'RunGraph']
"""

from __future__ import annotations

import copy
from typing import Any

from layouts.options import OPTION_TABLE, camel_case, options_json_schema
from layouts.registry import DEFAULT_ENGINE
from layouts.schemas import result_json_schema
from renderer.diagram import EdgeState
from renderer.run_graph import GRAPH_FORMATS
from renderer.run_views import VIEW_QUERY_NAMES
from workflow.model import RunState, StepState

Schema = dict[str, Any]

GRAPH_QUERY: tuple[str, ...] = ("format", "engine",
                                *(camel_case(spec.name) for spec in OPTION_TABLE),
                                *VIEW_QUERY_NAMES)
"""The query parameters of a graph route, as ``/openapi.json`` lists them."""

_TIME: Schema = {"type": ["string", "null"], "format": "date-time"}
_TEXT_OR_NULL: Schema = {"type": ["string", "null"]}
_COUNT: Schema = {"type": "integer", "minimum": 0}
STEP_PROPERTIES: Schema = {
    "state": {"enum": [s.value for s in StepState]}, "attempts": _COUNT, "iteration": _COUNT,
    "startedAt": _TIME, "finishedAt": _TIME, "error": _TEXT_OR_NULL,
    "waitingFor": _TEXT_OR_NULL,
    "childRun": {"type": "object", "additionalProperties": False,
                 "required": ["workflowInstanceId", "state"],
                 "description": "An opened SubWorkflow step's child run (expandSubworkflows)",
                 "properties": {"workflowInstanceId": {"type": "string"},
                                "state": {"enum": [s.value for s in RunState]}}}}
EDGE_PROPERTIES: Schema = {"state": {"enum": [s.value for s in EdgeState]},
                           "iterations": _COUNT}
RUN_OBJECT: Schema = {
    "type": "object", "additionalProperties": False,
    "required": ["workflowInstanceId", "workflowName", "workflowVersion", "state", "revision",
                 "timers", "compensation"],
    "properties": {
        "workflowInstanceId": {"type": "string"}, "workflowName": {"type": "string"},
        "workflowVersion": {"type": "string"}, "state": {"enum": [s.value for s in RunState]},
        "revision": _COUNT,
        "timers": {"type": "array", "items": {"type": "object", "properties": {
            "stepId": {"type": "string"}, "attemptId": {"type": "string"},
            "purpose": {"type": "string"}, "dueAt": _TIME}}},
        "compensation": {"type": "object", "properties": {
            "pending": {"type": "array", "items": {"type": "string"}},
            "compensated": {"type": "array", "items": {"type": "string"}}}}}}


def run_graph_schema() -> Schema:
    """The ``format=json`` drawing: a LayoutResult whose nodes and edges may carry a run's
    fields, with an optional top-level ``run`` (a definition's drawing has neither)."""
    schema = copy.deepcopy(result_json_schema())
    schema["title"] = "RunGraph"
    schema["description"] = ("A LayoutResult; in a run's drawing every node and edge also "
                             "has its state, and the top-level run names the run.")
    properties = schema["properties"]
    properties["nodes"]["items"]["properties"].update(copy.deepcopy(STEP_PROPERTIES))
    properties["edges"]["items"]["properties"].update(copy.deepcopy(EDGE_PROPERTIES))
    properties["run"] = copy.deepcopy(RUN_OBJECT)
    return schema


def elk_run_graph_schema() -> Schema:
    """The ``format=elk`` drawing: the ELK JSON graph with the same run fields."""
    return {"allOf": [{"$ref": "#/components/schemas/ElkGraph"}, {
        "type": "object", "properties": {
            "children": {"type": "array", "items": {
                "type": "object", "properties": copy.deepcopy(STEP_PROPERTIES)}},
            "edges": {"type": "array", "items": {
                "type": "object", "properties": copy.deepcopy(EDGE_PROPERTIES)}},
            "run": copy.deepcopy(RUN_OBJECT)}}]}


def graph_schemas() -> dict[str, Schema]:
    """The components the graph routes refer to."""
    return {"RunGraph": run_graph_schema(), "ElkRunGraph": elk_run_graph_schema(),
            "GraphDrawing": {"anyOf": [{"$ref": "#/components/schemas/RunGraph"},
                                       {"$ref": "#/components/schemas/ElkRunGraph"}]}}


def graph_query_schemas() -> dict[str, Schema]:
    """The schema of each of :data:`GRAPH_QUERY`."""
    options = options_json_schema()["properties"]
    return {"format": {"type": "string", "enum": [f.value for f in GRAPH_FORMATS],
                       "default": "svg"},
            "engine": {"type": "string", "default": DEFAULT_ENGINE},
            **{camel_case(spec.name): options[spec.name] for spec in OPTION_TABLE},
            "expandSubworkflows": {"type": "boolean", "default": False, "description":
                                   "Draw each SubWorkflow step as a box holding its child "
                                   "workflow's steps (in a run's drawing: its child run's, "
                                   "with their states)"},
            "groupFanouts": {"type": "boolean", "default": False, "description":
                             "Draw each Fanout..Join block as a group box"}}
