"""The JSON Schemas of the workflow API's bodies, declared once as data.

The same schemas validate request bodies (:func:`validate_body`, so an unknown field or a
wrong type is a 400 naming it) and describe the API in ``/openapi.json``.

>>> try:
...     validate_body("StartRequest", {"workflowName": "w", "colour": "red"})
... except BodyError as error:
...     print(str(error).split(" (")[0])
body: unknown field 'colour'
>>> validate_body("StartRequest", {"workflowName": 7})
Traceback (most recent call last):
...
renderer.api.schemas.BodyError: body.workflowName: 7 is not of type 'string'
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jsonschema

from renderer.api.views import parse_iso_time
from workflow.model import RunState, StepState
from workflow.store import TaskStatus
from workflow.transition import DECISIONS

Schema = dict[str, Any]

_STRING: Schema = {"type": "string"}
_ID: Schema = {"type": "string", "minLength": 1, "maxLength": 400}
_TIME: Schema = {"type": ["string", "null"], "format": "date-time"}
_REVISION: Schema = {"type": "integer", "minimum": 0}
_OBJECT: Schema = {"type": "object"}
_ANY: Schema = {}
_DECISION: Schema = {"type": "string", "enum": list(DECISIONS)}
_RUN_STATE: Schema = {"enum": [s.value for s in RunState]}


def _object(properties: Schema, required: tuple[str, ...] = (), *, closed: bool = True
            ) -> Schema:
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    if closed:
        schema["additionalProperties"] = False
    return schema


def _page(item: str) -> Schema:
    return _object({"items": {"type": "array", "items": {"$ref": f"#/components/schemas/{item}"}},
                    "next": {"type": ["string", "null"]}}, ("items", "next"))


REQUEST_SCHEMAS: dict[str, Schema] = {
    "StartRequest": _object({
        "workflowName": _ID, "workflowVersion": _ID,
        "businessReference": {"type": ["string", "null"], "maxLength": 400},
        "payload": _ANY}, ("workflowName",)),
    "VerbRequest": _object({"expectedRevision": _REVISION}),
    "CancelRequest": _object({"expectedRevision": _REVISION,
                              "reason": {"type": "string", "maxLength": 2000}}),
    "RepairRequest": _object({"expectedRevision": _REVISION, "rewindTo": _ID, "input": _OBJECT},
                             ("rewindTo",)),
    "ResumeRequest": _object({"expectedRevision": _REVISION, "decision": _DECISION,
                              "data": _OBJECT, "stepId": _ID}),
    "CompleteTaskRequest": _object({"decision": _DECISION, "input": _OBJECT}, ("decision",)),
    "ReplayRequest": _object({"signalIds": {"type": "array", "items": _ID, "minItems": 1,
                                            "maxItems": 1000}}, ("signalIds",)),
    "RetentionRequest": _object({"referenceUtc": {"type": "string", "format": "date-time"}}),
}

_ATTEMPT = _object({"attemptId": _STRING, "startedAt": _TIME, "endedAt": _TIME,
                    "outcome": {"type": ["string", "null"]}, "error": {"type": ["string", "null"]}},
                   closed=False)
_STEP = _object({
    "stepId": _STRING, "kind": _STRING, "state": {"enum": [s.value for s in StepState]},
    "iteration": {"type": "integer"}, "attempt": {"type": "integer"},
    "attemptId": {"type": ["string", "null"]}, "waitingFor": {"type": ["string", "null"]},
    "output": _ANY, "error": {"type": ["string", "null"]}, "startedAt": _TIME,
    "finishedAt": _TIME, "attempts": {"type": "array", "items": _ATTEMPT}}, closed=False)
_TASK_ITEM: Schema = {"$ref": "#/components/schemas/Task"}

RESPONSE_SCHEMAS: dict[str, Schema] = {
    "ValidationResult": _object({"valid": {"type": "boolean"}, "problems": {
        "type": "array", "items": _object({"severity": {"enum": ["error", "warning"]},
                                           "subject": _STRING, "message": _STRING})}},
        ("valid", "problems")),
    "DefinitionVersion": _object({"workflowName": _STRING, "version": _STRING,
                                  "graphHash": _STRING, "steps": {"type": "integer"},
                                  "loadedAt": _TIME}, closed=False),
    "DefinitionList": _object({"items": {"type": "array", "items": _object(
        {"workflowName": _STRING, "versions": {"type": "array", "items": _STRING},
         "latest": _STRING})}}, ("items",)),
    "VersionList": _object({"items": {"type": "array", "items": {
        "$ref": "#/components/schemas/DefinitionVersion"}}}, ("items",)),
    "StartResult": _object({"workflowInstanceId": _STRING, "workflowName": _STRING,
                            "workflowVersion": _STRING,
                            "state": _RUN_STATE,
                            "nextTasks": {"type": "array"}},
                           ("workflowInstanceId", "workflowName", "workflowVersion", "state",
                            "nextTasks"), closed=False),
    "InstanceSummary": _object({"workflowInstanceId": _STRING, "workflowName": _STRING,
                                "workflowVersion": _STRING,
                                "state": _RUN_STATE,
                                "revision": {"type": "integer"}}, closed=False),
    "InstancePage": _page("InstanceSummary"),
    "Instance": _object({"workflowInstanceId": _STRING, "state": _RUN_STATE,
                         "revision": {"type": "integer"}, "variables": _ANY,
                         "steps": {"type": "array", "items": _STEP},
                         "timers": {"type": "array"}, "compensation": _OBJECT,
                         "children": {"type": "array"}, "tasks": {"type": "array",
                                                                  "items": _TASK_ITEM}},
                        ("workflowInstanceId", "state", "revision", "steps"), closed=False),
    "Task": _object({"taskId": _STRING, "workflowInstanceId": _STRING, "stepId": _STRING,
                     "attemptId": _STRING, "status": {"enum": [s.value for s in TaskStatus]},
                     "assignee": {"type": ["string", "null"]}}, closed=False),
    "TaskPage": _page("Task"),
    "DeadLetterList": _object({"items": {"type": "array", "items": _object(
        {"signalId": _STRING, "workflowInstanceId": _STRING, "kind": _STRING,
         "attempts": {"type": "integer"}, "error": _STRING, "failedAt": _TIME},
        closed=False)}}, ("items",)),
    "ReplayResult": _object({"replayed": {"type": "array", "items": _STRING}}, ("replayed",)),
    "EventPage": _object({"items": {"type": "array", "items": _object(
        {"seq": {"type": "integer"}, "workflowInstanceId": _STRING, "kind": _STRING,
         "stepId": {"type": ["string", "null"]}, "detail": {"type": ["string", "null"]},
         "at": _TIME}, closed=False)}, "last": {"type": "integer"}}, ("items", "last")),
    "RetentionResult": _object({"purged": {"type": "integer"}, "before": _TIME}, ("purged",)),
    "AuditPage": _object({"items": {"type": "array", "items": _object(
        {"seq": {"type": "integer"}, "actor": _STRING, "action": _STRING, "target": _STRING,
         "revisionBefore": {"type": ["integer", "null"]},
         "revisionAfter": {"type": ["integer", "null"]}, "at": _TIME}, closed=False)},
        "last": {"type": "integer"}}, ("items", "last")),
    "DefinitionDiff": _object({
        "workflowName": _STRING, "from": _STRING, "to": _STRING,
        **{part: _object({"added": {"type": "array", "items": _STRING},
                          "removed": {"type": "array", "items": _STRING},
                          "changed": {"type": "array", "items": _object(
                              {"id": _STRING, "fields": _OBJECT})}},
                         ("added", "removed", "changed")) for part in ("steps", "edges")}},
        ("workflowName", "from", "to", "steps", "edges")),
    "Conflict": _object({"error": _STRING, "state": _STRING, "revision": {"type": "integer"}},
                        ("error",), closed=False),
}


class BodyError(ValueError):
    """A request body that does not fit its schema; the message names the field."""


FORMATS = jsonschema.FormatChecker()
"""The formats a body is checked for; ``date-time`` is what the handlers can read (without
the optional rfc3339 package jsonschema would let any string through)."""


@FORMATS.checks("date-time", raises=(ValueError, OverflowError))
def _is_time(value: object) -> bool:
    if isinstance(value, str):
        parse_iso_time(value)
    return True


@cache
def _validator(name: str) -> jsonschema.protocols.Validator:
    schema = REQUEST_SCHEMAS[name]
    cls = jsonschema.validators.validator_for(schema)
    validator: jsonschema.protocols.Validator = cls(schema, format_checker=FORMATS)
    return validator


def validate_body(name: str, body: object) -> None:
    """Raise :class:`BodyError` naming the first problem of ``body`` against ``name``."""
    errors = sorted(_validator(name).iter_errors(body),  # type: ignore[arg-type]
                    key=lambda e: [str(p) for p in e.absolute_path])
    if not errors:
        return
    error = errors[0]
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    if error.validator == "additionalProperties":
        schema = error.schema if isinstance(error.schema, dict) else {}
        known = schema.get("properties", {})
        allowed = ", ".join(known)
        extra = sorted(set(error.instance if isinstance(error.instance, dict) else ()) - set(known))
        raise BodyError(f"body{where}: unknown field {extra[0]!r} (allowed: {allowed})")
    if error.validator == "required":
        raise BodyError(f"body{where}: {error.message}")
    raise BodyError(f"body{where}: {_short(error.instance)} {error.message.split(' ', 1)[1]}"
                    if error.message.startswith(repr(error.instance)) else
                    f"body{where}: {error.message}")


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
