"""The OpenAPI 3.1 document of the rendering service (``GET /openapi.json``).

Built as data: the render query parameters come from :data:`OPTION_TABLE`, and the
components are the JSON Schemas of :mod:`layouts.schemas` (graph, options, result).

>>> document = openapi_document()
>>> names = set(document["components"]["schemas"])
>>> document["openapi"], {"ElkGraph", "Error", "StartRequest"} <= names
('3.1.0', True)
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from layouts.options import OPTION_TABLE, camel_case, options_json_schema
from layouts.registry import DEFAULT_ENGINE
from layouts.schemas import all_schemas
from renderer.api.openapi import SECURITY_SCHEMES, workflow_components, workflow_paths
from renderer.writers import MEDIA_TYPES, OutputFormat


def openapi_document(*, metrics_public: bool = False) -> dict[str, Any]:
    """The OpenAPI 3.1 description of the service; the render query parameters come from
    :data:`OPTION_TABLE` and the components are the schemas of :mod:`layouts.schemas`.
    ``/metrics`` needs a view token unless ``metrics_public`` (``WFR_METRICS_PUBLIC``).

    >>> openapi_document()["paths"]["/metrics"]["get"]["security"]
    [{'bearer': ['workflow:view']}]
    >>> "security" in openapi_document(metrics_public=True)["paths"]["/metrics"]["get"]
    False
    """
    components = {_COMPONENT_NAMES.get(k, k): v for k, v in all_schemas().items()}
    components["Error"] = {"type": "object", "required": ["error"],
                           "properties": {"error": {"type": "string"}}}
    components["ElkGraph"] = ELK_GRAPH_SCHEMA
    option_schemas = options_json_schema()["properties"]
    render_parameters = [
        _query_parameter("format", {"type": "string", "enum": [f.value for f in OutputFormat],
                                    "default": "svg"}, "Output format."),
        _query_parameter("engine", {"type": "string", "default": DEFAULT_ENGINE},
                         "Layout engine; see /api/engines."),
        *(_query_parameter(camel_case(spec.name), option_schemas[spec.name], spec.description)
          for spec in OPTION_TABLE),
    ]
    drawing_output: dict[str, Any] = {m: {} for m in sorted(set(MEDIA_TYPES.values()))}
    components.update(workflow_components())
    return {
        "openapi": "3.1.0",
        "info": {"title": "workflow-renderer", "version": _package_version()},
        "paths": {
            "/api/render": {"post": {
                "summary": "Lay out and draw a workflow definition, ELK JSON, graph JSON or DOT",
                "parameters": render_parameters,
                "requestBody": {"required": True, "content": {
                    "application/yaml": {"schema": {"type": "string"}},
                    "application/json": {"schema": {"$ref": "#/components/schemas/Graph"}},
                    "text/vnd.graphviz": {"schema": {"type": "string"}}}},
                "responses": {"200": {"description": "The drawing", "content": {
                    **drawing_output,
                    # format=json gives a LayoutResult, format=elk the ELK JSON graph
                    "application/json": {"schema": {"anyOf": [
                        {"$ref": "#/components/schemas/LayoutResult"},
                        {"$ref": "#/components/schemas/ElkGraph"}]}},
                }, "headers": {"ETag": {"schema": {"type": "string"}, "description":
                                        "Send it back in If-None-Match to get 304"}}},
                    "304": {"description": "Not modified: If-None-Match named this "
                                           "drawing's ETag"},
                    **_ERROR_RESPONSES}}},
            "/api/engines": _get("Layout engines, available or not and why"),
            "/api/schemas/{name}": _get("A JSON Schema: graph, options or result",
                                        [{"name": "name", "in": "path", "required": True,
                                          "schema": {"enum": list(all_schemas())}}]),
            "/drawings/{file}": _get("A fixture drawn by name, e.g. document-processing.svg",
                                     [{"name": "file", "in": "path", "required": True,
                                       "schema": {"type": "string"}}, *render_parameters[1:]]),
            "/healthz": _get("The process is alive"),
            "/readyz": _get("The worker pool, the default engine, the workflow store and its "
                            "pump are ready"),
            "/openapi.json": _get("This document"),
            "/": _get("An HTML index of the fixture drawings"),
            "/metrics": _metrics(metrics_public),
            **workflow_paths(),
        },
        "components": {"schemas": components, "securitySchemes": SECURITY_SCHEMES},
    }


_NUMBER = {"type": "number"}
_POINT = {"type": "object", "required": ["x", "y"], "properties": {"x": _NUMBER, "y": _NUMBER}}
_BOX = {"x": _NUMBER, "y": _NUMBER, "width": _NUMBER, "height": _NUMBER}
ELK_GRAPH_SCHEMA: dict[str, Any] = {
    "description": "A laid-out graph in the shape elkjs returns (renderer.elk_json), with the "
                   "extension keys 'shape' on nodes and 'loopBack' on declared back edges.",
    "type": "object",
    "required": ["id", "x", "y", "width", "height", "children", "edges"],
    "properties": {"id": {"type": "string"}, **_BOX, "children": {"type": "array", "items": {
        "type": "object", "required": ["id", "x", "y", "width", "height", "labels"],
        "properties": {"id": {"type": "string"}, **_BOX, "shape": {"type": "string"},
                       "labels": {"type": "array"}}}},
        "edges": {"type": "array", "items": {
            "type": "object", "required": ["id", "sources", "targets"],
            "properties": {
                "id": {"type": "string"},
                "sources": {"type": "array", "items": {"type": "string"}},
                "targets": {"type": "array", "items": {"type": "string"}},
                "sections": {"type": "array", "items": {
                    "type": "object", "required": ["startPoint", "endPoint"],
                    "properties": {"startPoint": _POINT, "endPoint": _POINT,
                                   "bendPoints": {"type": "array", "items": _POINT}}}},
                "labels": {"type": "array"}, "loopBack": {"type": "boolean"}}}}},
}
"""The ``format=elk`` output; LayoutResult forbids extra keys, so the two never overlap."""

_COMPONENT_NAMES = {"graph": "Graph", "options": "LayoutOptions", "result": "LayoutResult"}
_ERROR_RESPONSES = {
    str(status): {"description": meaning, "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/Error"}}}}
    for status, meaning in (
        (400, "Unreadable body, bad option, unknown engine or a timeBudget over the "
              "server's maximum"), (404, "No such name"),
        (408, "The body did not arrive in time"),
        (413, "Body, node or edge count, or a label over its limit (the message names it), "
              "or a render past the worker's memory limit"),
        (415, "Unsupported content type"),
        (422, "Invalid graph; the message names the offending id"),
        (502, "The layout provider failed"),
        (503, "The layout provider is unavailable, the render queue is full (see "
              "Retry-After) or the layout worker died (it was replaced)"),
        (504, "The layout ran past its time limit"))
}


def _get(summary: str, parameters: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    operation: dict[str, Any] = {"summary": summary,
                                 "responses": {"200": {"description": "OK"}, **_ERROR_RESPONSES}}
    if parameters:
        operation["parameters"] = parameters
    return {"get": operation}


def _metrics(public: bool) -> dict[str, Any]:
    path = _get("Prometheus metrics in the text format (workflow:view unless "
                "WFR_METRICS_PUBLIC opens them for a scraper)")
    if not public:
        path["get"]["security"] = [{"bearer": ["workflow:view"]}]
        path["get"]["responses"]["401"] = {"description": "No valid bearer token"}
        path["get"]["responses"]["403"] = {"description": "The token lacks workflow:view"}
    return path


def _query_parameter(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema,
            "description": description}


def _package_version() -> str:
    try:
        return version("workflow-renderer")
    except PackageNotFoundError:
        return "0.0.0"
