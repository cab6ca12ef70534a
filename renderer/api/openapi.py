"""The workflow API's part of ``/openapi.json``, generated from the route table
(:data:`renderer.api.workflow.ROUTES`) and the body schemas (:mod:`renderer.api.schemas`).

>>> paths = workflow_paths()
>>> sorted(paths["/api/workflow/start"])
['post']
>>> paths["/api/workflow/start"]["post"]["security"]
[{'bearer': ['workflow:operate']}]
"""

from __future__ import annotations

from typing import Any

from renderer.api.graph_schemas import graph_query_schemas, graph_schemas
from renderer.api.schemas import REQUEST_SCHEMAS, RESPONSE_SCHEMAS
from renderer.api.workflow import PREFIX, ROUTES, RouteSpec
from workflow.model import RunState
from workflow.store import TaskStatus

_ERROR = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
_CONFLICT = {"application/json": {"schema": {"$ref": "#/components/schemas/Conflict"}}}
_FAILURES = {
    "400": ("Malformed body or query; the message names the field", _ERROR),
    "401": ("No bearer token, or a bad one (see WWW-Authenticate)", _ERROR),
    "403": ("The token lacks the scope; the message names it", _ERROR),
    "404": ("No such run, task, definition or dead letter in the caller's tenant", _ERROR),
    "409": ("The run's state or revision does not allow it; the body has both", _CONFLICT),
    "413": ("Body over the size limit", _ERROR),
    "415": ("Unsupported content type", _ERROR),
    "422": ("A definition with validation errors, or a reused Idempotency-Key", _ERROR),
    "502": ("The layout provider crashed", _ERROR),
    "503": ("The layout provider (or the service's layout workers) is unavailable", _ERROR),
    "504": ("The layout ran past its time limit", _ERROR),
}
_SEQUENCE = {"type": "string", "pattern": "^[0-9]{1,18}$"}
_QUERY_SCHEMAS: dict[str, dict[str, Any]] = {
    "limit": {"type": "integer", "minimum": 1, "maximum": 500},
    "after": {"type": "string"},  # an opaque cursor from a page's "next"
    "/events after": _SEQUENCE,
    "/audit after": _SEQUENCE,
    "/instances status": {"type": "string", "enum": [s.value for s in RunState],
                          "description": "Compared without regard to case"},
    "/tasks status": {"type": "string", "enum": [s.value for s in TaskStatus],
                      "description": "Compared without regard to case"},
    **graph_query_schemas(),
}
"""Query parameter schemas by name, or by "<route path> <name>" where routes differ."""
_ETAG = {"description": "The SHA-256 of the body, quoted (a strong entity tag)",
         "schema": {"type": "string"}}
SECURITY_SCHEMES = {"bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
                               "description": "A JWT with the scopes workflow:view < "
                                              "workflow:operate < workflow:admin and a "
                                              "tenant claim"}}


def workflow_components() -> dict[str, Any]:
    """Schemas the workflow paths refer to."""
    return {**REQUEST_SCHEMAS, **RESPONSE_SCHEMAS, **graph_schemas()}


def workflow_paths() -> dict[str, Any]:
    """Every workflow route as an OpenAPI path item."""
    paths: dict[str, Any] = {}
    for spec in ROUTES:
        paths.setdefault(PREFIX + spec.path, {})[spec.method.lower()] = _operation(spec)
    paths[PREFIX + "/events/stream"] = {"get": {
        "summary": "The outbox as server-sent events, resuming after Last-Event-ID",
        "security": [{"bearer": ["workflow:view"]}],
        "parameters": [_query("after", _SEQUENCE),
                       {"name": "Last-Event-ID", "in": "header", "required": False,
                        "schema": {"type": "string"}}],
        "responses": {"200": {"description": "An endless text/event-stream",
                              "content": {"text/event-stream": {"schema": {"type": "string"}}}},
                      **_failures("400", "401", "403")}}}
    return paths


def _operation(spec: RouteSpec) -> dict[str, Any]:
    operation: dict[str, Any] = {"summary": spec.summary,
                                 "security": [{"bearer": [spec.scope.claim]}]}
    parameters = [{"name": name, "in": "path", "required": True,
                   "schema": {"type": "string", "minLength": 1}}
                  for name in ("name", "version", "id") if "{" + name + "}" in spec.path]
    parameters += [_query(name, _QUERY_SCHEMAS.get(f"{spec.path} {name}",
                                                   _QUERY_SCHEMAS.get(name, {"type": "string"})))
                   for name in spec.query]
    if spec.path == "/start":
        parameters.append({"name": "Idempotency-Key", "in": "header", "required": False,
                           "schema": {"type": "string", "minLength": 1, "maxLength": 200}})
    if spec.drawing:
        parameters.append({"name": "If-None-Match", "in": "header", "required": False,
                           "schema": {"type": "string"}})
    if parameters:
        operation["parameters"] = parameters
    if spec.method == "POST":
        operation["requestBody"] = _request_body(spec)
    success: dict[str, Any] = {"description": "OK"}
    if spec.response is not None:
        success["content"] = {"application/json": {"schema": {
            "$ref": f"#/components/schemas/{spec.response}"}}}
    codes = ["400", "401", "403", "404", "413", "415"]
    if spec.drawing:
        _drawing_responses(operation, success)
        codes += ["502", "503", "504"]
    if ("{id}" in spec.path and not spec.drawing) or spec.path == "/start":
        codes.append("409")
    if spec.path in ("/definitions", "/start"):
        codes += ["409", "422"]
    operation["responses"] = {str(spec.success): success, **operation.get("responses", {}),
                              **_failures(*sorted(set(codes)))}
    if spec.success == 201:
        operation["responses"]["200"] = success  # an idempotent repeat
    return operation


def _drawing_responses(operation: dict[str, Any], success: dict[str, Any]) -> None:
    """A drawing is SVG text or JSON (``format=json|elk``), under an ETag; 304 repeats
    only the ETag."""
    success["description"] = "The drawing: svg (default), json or elk by the format parameter"
    success["content"] = {"image/svg+xml": {"schema": {"type": "string"}},
                          **success.get("content", {})}
    success["headers"] = {"ETag": _ETAG}
    operation["responses"] = {"304": {"description": "Not modified: If-None-Match named the "
                                                     "drawing's ETag; no body",
                                      "headers": {"ETag": _ETAG}}}


def _request_body(spec: RouteSpec) -> dict[str, Any]:
    if spec.request is None:  # a DSL document: YAML or JSON text
        if spec.path == "/definitions/validate":  # any body, none too: its problems, a 200
            anything: dict[str, Any] = {"schema": {}}
            return {"required": False, "content": {"application/yaml": anything,
                                                   "text/yaml": anything,
                                                   "application/json": anything}}
        text = {"schema": {"type": "string"}}
        return {"required": True, "content": {"application/yaml": text, "text/yaml": text,
                                              "application/json": {"schema": {"type": "object"}}}}
    return {"required": spec.request in ("StartRequest", "RepairRequest", "CompleteTaskRequest",
                                         "ReplayRequest"),
            "content": {"application/json": {"schema": {
                "$ref": f"#/components/schemas/{spec.request}"}}}}


def _query(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema}


def _failures(*codes: str) -> dict[str, Any]:
    return {code: {"description": _FAILURES[code][0], "content": _FAILURES[code][1]}
            for code in codes}
