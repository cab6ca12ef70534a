"""JSON Schemas (draft 2020-12) of the layout interface's JSON shapes.

- :func:`graph_json_schema`: what :meth:`Graph.to_dict` writes and :meth:`Graph.from_dict`
  reads. Like the reader, it lets unknown keys through, gives edges an optional ``id``
  and allows ``label``/``labelWidth``/``labelHeight``/``loopBack`` to be left out. What a
  schema cannot say (unique ids, edges naming existing nodes) is checked by
  :meth:`Graph.validate`.
- :func:`result_json_schema`: exactly what :meth:`LayoutResult.to_dict` writes (no other
  keys; ``seconds`` and ``phases`` appear only with timings).
- :func:`options_json_schema`: generated from the option table in :mod:`layouts.options`.

Enumerations come from the code's own enums, so they cannot drift.

>>> sorted(all_schemas())
['graph', 'options', 'result']
>>> graph_json_schema()["properties"]["nodes"]["items"]["properties"]["shape"]["enum"]
['rect', 'diamond', 'circle']
"""

from __future__ import annotations

from typing import Any

from layouts.graph import Shape
from layouts.options import Direction, Effort, options_json_schema
from layouts.result import Side

__all__ = ["all_schemas", "graph_json_schema", "options_json_schema", "result_json_schema"]

DRAFT = "https://json-schema.org/draft/2020-12/schema"

_ID = {"type": "string", "minLength": 1}
_POSITIVE = {"type": "number", "exclusiveMinimum": 0}
_NON_NEGATIVE = {"type": "number", "minimum": 0}
_NUMBER = {"type": "number"}
_SHAPE = {"enum": [s.value for s in Shape]}


def graph_json_schema() -> dict[str, Any]:
    """The JSON Schema of our graph format (:meth:`layouts.graph.Graph.to_dict`).

    >>> graph_json_schema()["required"]
    ['nodes']
    """
    node = {
        "type": "object",
        "properties": {
            "id": _ID,
            "width": _POSITIVE,
            "height": _POSITIVE,
            "shape": {**_SHAPE, "default": Shape.RECT.value},
            "label": {"type": ["string", "number", "boolean"], "default": "",
                      "description": "Text of the node; numbers and booleans are read as text."},
        },
        "required": ["id", "width", "height"],
    }
    edge = {
        "type": "object",
        "properties": {
            "id": {**_ID, "description": "Defaults to 'e<index>' when left out."},
            "source": _ID,
            "target": _ID,
            "label": {"type": ["string", "number", "boolean", "null"],
                      "description": "Guard or label text; null or absent means none."},
            "labelWidth": {**_NON_NEGATIVE, "default": 0},
            "labelHeight": {**_NON_NEGATIVE, "default": 0},
            "loopBack": {"type": "boolean", "default": False,
                         "description": "A declared back edge (drawn against the flow)."},
        },
        "required": ["source", "target"],
    }
    return {
        "$schema": DRAFT,
        "title": "Graph",
        "description": "Nodes with fixed sizes and directed edges, in model order. Node ids "
                       "are unique and edges name existing nodes (checked by the reader).",
        "type": "object",
        "properties": {
            "nodes": {"type": "array", "items": node},
            "edges": {"type": "array", "items": edge, "default": []},
        },
        "required": ["nodes"],
    }


def _closed(properties: dict[str, Any], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """An object with exactly these keys, all required except ``optional``."""
    return {
        "type": "object",
        "properties": properties,
        "required": [name for name in properties if name not in optional],
        "additionalProperties": False,
    }


def result_json_schema() -> dict[str, Any]:
    """The JSON Schema of a layout result (:meth:`layouts.result.LayoutResult.to_dict`).

    >>> result_json_schema()["required"]
    ['width', 'height', 'nodes', 'edges', 'diagnostics']
    """
    point = _closed({"x": _NUMBER, "y": _NUMBER})
    box = _closed({"x": _NUMBER, "y": _NUMBER, "width": _NON_NEGATIVE,
                   "height": _NON_NEGATIVE})
    end = _closed({
        "side": {"enum": [*(s.value for s in Side), None]},
        "slot": {"type": ["integer", "null"], "minimum": 0},
    })
    node = _closed({"id": _ID, "x": _NUMBER, "y": _NUMBER, "width": _NON_NEGATIVE,
                    "height": _NON_NEGATIVE, "shape": _SHAPE})
    edge = _closed({
        "id": _ID, "source": _ID, "target": _ID,
        "points": {"type": "array", "items": point, "minItems": 2},
        "sourceEnd": end, "targetEnd": end,
        "labelBox": {"anyOf": [box, {"type": "null"}]},
        "loopBack": {"type": "boolean"},
    })
    phase = _closed({"name": {"type": "string"}, "seconds": _NON_NEGATIVE})
    diagnostics = _closed({
        "engine": _ID,
        "effort": {"enum": [e.value for e in Effort]},
        "direction": {"enum": [d.value for d in Direction]},
        "budgetExhausted": {"type": "boolean"},
        "notes": {"type": "array", "items": {"type": "string"}},
        "seconds": _NON_NEGATIVE,
        "phases": {"type": "array", "items": phase},
    }, optional=("seconds", "phases"))
    return {
        "$schema": DRAFT,
        "title": "LayoutResult",
        "description": "Placed nodes (top-left corner and size, y down) and, per edge, the "
                       "polyline from the source outline to the target outline.",
        **_closed({
            "width": _NON_NEGATIVE, "height": _NON_NEGATIVE,
            "nodes": {"type": "array", "items": node},
            "edges": {"type": "array", "items": edge},
            "diagnostics": diagnostics,
        }),
    }


def all_schemas() -> dict[str, dict[str, Any]]:
    """Every published schema by name (``graph``, ``options``, ``result``).

    >>> all_schemas()["options"]["title"]
    'LayoutOptions'
    """
    return {
        "graph": graph_json_schema(),
        "options": options_json_schema(),
        "result": result_json_schema(),
    }
