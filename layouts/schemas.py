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
['rect', 'diamond', 'circle', 'ellipse']
"""

from __future__ import annotations

from typing import Any

from layouts.graph import PortConstraints, PortSide, RankKind, Shape
from layouts.options import Direction, Effort, options_json_schema
from layouts.result import Side

__all__ = ["all_schemas", "graph_json_schema", "options_json_schema", "result_json_schema"]

DRAFT = "https://json-schema.org/draft/2020-12/schema"

_ID = {"type": "string", "minLength": 1}
_POSITIVE = {"type": "number", "exclusiveMinimum": 0}
_NON_NEGATIVE = {"type": "number", "minimum": 0}
_NUMBER = {"type": "number"}
_SHAPE = {"enum": [s.value for s in Shape]}
_ENGINE_OPTIONS = {
    "type": "object",
    "additionalProperties": {"type": ["string", "number", "boolean"]},
    "description": "Options in an engine's own names (ELK's layoutOptions), passed unchanged "
                   "to engines that read them; other engines warn about each one they "
                   "cannot honour.",
}
_LABEL_SIZE = {**_NON_NEGATIVE, "default": 0, "description": "Measured label size in px."}
_EXTRA_LABELS = {
    "type": "array", "default": [],
    "description": "Labels after the first, in order; engines that place labels stack them.",
    "items": {"type": "object", "required": ["text"], "properties": {
        "text": {"type": ["string", "number", "boolean"]}, "width": _LABEL_SIZE,
        "height": _LABEL_SIZE, "layoutOptions": _ENGINE_OPTIONS}},
}


def graph_json_schema() -> dict[str, Any]:
    """The JSON Schema of our graph format (:meth:`layouts.graph.Graph.to_dict`).

    >>> graph_json_schema()["required"]
    ['nodes']
    """
    port = {
        "type": "object",
        "properties": {
            "id": _ID,
            "side": {"enum": [side.value for side in PortSide],
                     "default": PortSide.FREE.value,
                     "description": "north = top, east = right, south = bottom, west = "
                                    "left; free: the engine chooses."},
            "order": {"type": "integer", "minimum": 0, "maximum": 1_000_000,
                      "description": "Place among the ports of its side, clockwise around "
                                     "the node as ELK counts elk.port.index."},
            "x": {**_NUMBER, "description": "Fixed left, relative to the node (with y)."},
            "y": {**_NUMBER, "description": "Fixed top, relative to the node (with x)."},
            "width": {**_NON_NEGATIVE, "default": 0},
            "height": {**_NON_NEGATIVE, "default": 0},
            "label": {"type": ["string", "number", "boolean"], "default": ""},
            "labelWidth": _LABEL_SIZE,
            "labelHeight": _LABEL_SIZE,
            "layoutOptions": _ENGINE_OPTIONS,
            "extraLabels": _EXTRA_LABELS,
        },
        "required": ["id"],
        "dependentRequired": {"x": ["y"], "y": ["x"]},
    }
    node = {
        "type": "object",
        "properties": {
            "id": _ID,
            "width": _POSITIVE,
            "height": _POSITIVE,
            "shape": {**_SHAPE, "default": Shape.RECT.value},
            "label": {"type": ["string", "number", "boolean"], "default": "",
                      "description": "Text of the node; numbers and booleans are read as text."},
            "ports": {"type": "array", "items": port, "default": [],
                      "description": "Connection points on the node's boundary."},
            "portConstraints": {"enum": [c.value for c in PortConstraints],
                                "default": PortConstraints.UNDEFINED.value,
                                "description": "How freely an engine may move the ports "
                                               "(ELK's elk.portConstraints)."},
            "children": {"type": "array", "items": {"$ref": "#/properties/nodes/items"},
                         "default": [],
                         "description": "Nested nodes: a node with children is a compound "
                                        "node whose width/height are its smallest size."},
            "collapsed": {"type": "boolean", "default": False,
                          "description": "Draw this compound node as one node of its own "
                                         "size, its children hidden and their edges "
                                         "redirected to it."},
            "labelWidth": _LABEL_SIZE,
            "labelHeight": _LABEL_SIZE,
            "layoutOptions": _ENGINE_OPTIONS,
            "extraLabels": _EXTRA_LABELS,
        },
        "required": ["id", "width", "height"],
    }
    edge = {
        "type": "object",
        "properties": {
            "id": {**_ID, "description": "Defaults to 'e<index>' when left out."},
            "source": _ID,
            "target": _ID,
            "sourcePort": {**_ID, "description": "A port of the source node."},
            "targetPort": {**_ID, "description": "A port of the target node."},
            "label": {"type": ["string", "number", "boolean", "null"],
                      "description": "Guard or label text; null or absent means none."},
            "labelWidth": {**_NON_NEGATIVE, "default": 0},
            "labelHeight": {**_NON_NEGATIVE, "default": 0},
            "loopBack": {"type": "boolean", "default": False,
                         "description": "A declared back edge (drawn against the flow)."},
            "layoutOptions": _ENGINE_OPTIONS,
            "extraLabels": _EXTRA_LABELS,
        },
        "required": ["source", "target"],
    }
    rank_group = {
        "type": "object",
        "properties": {
            "rank": {"enum": [k.value for k in RankKind], "default": RankKind.SAME.value,
                     "description": "same: one shared layer; min/max: the first/last layer; "
                                    "source/sink: the first/last layer alone."},
            "nodes": {"type": "array", "items": _ID, "minItems": 1},
        },
        "required": ["nodes"],
    }
    return {
        "$schema": DRAFT,
        "title": "Graph",
        "description": "Nodes with fixed sizes (optionally with ports and nested children) "
                       "and directed edges between nodes at any level, in model order. Node "
                       "and port ids are unique across the hierarchy and edges name existing "
                       "nodes and ports of those nodes (checked by the reader).",
        "type": "object",
        "properties": {
            "nodes": {"type": "array", "items": node},
            "edges": {"type": "array", "items": edge, "default": []},
            "layoutOptions": _ENGINE_OPTIONS,
            "rankGroups": {"type": "array", "items": rank_group, "default": [],
                           "description": "Layering constraints (DOT's rank=same/min/max/"
                                          "source/sink subgraphs); engines that cannot "
                                          "honour one say so in their warnings."},
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
        "lattice": {"type": "integer", "minimum": 1},
    }, optional=("lattice",))
    node = _closed({"id": _ID, "x": _NUMBER, "y": _NUMBER, "width": _NON_NEGATIVE,
                    "height": _NON_NEGATIVE, "shape": _SHAPE, "parent": _ID,
                    "labelBox": box}, optional=("parent", "labelBox"))
    port = _closed({"id": _ID, "node": _ID, "x": _NUMBER, "y": _NUMBER,
                    "width": _NON_NEGATIVE, "height": _NON_NEGATIVE,
                    "side": {"enum": [*(s.value for s in Side), None]}, "labelBox": box,
                    "slot": {"type": "integer", "minimum": 0}},
                   optional=("labelBox", "slot"))
    edge = _closed({
        "id": _ID, "source": _ID, "target": _ID,
        "points": {"type": "array", "items": point, "minItems": 2},
        "sourceEnd": end, "targetEnd": end,
        "labelBox": {"anyOf": [box, {"type": "null"}]},
        "loopBack": {"type": "boolean"},
        "sourcePort": _ID, "targetPort": _ID,
        "junctionPoints": {"type": "array", "items": point, "minItems": 1},
    }, optional=("sourcePort", "targetPort", "junctionPoints"))
    phase = _closed({"name": {"type": "string"}, "seconds": _NON_NEGATIVE})
    diagnostics = _closed({
        "engine": _ID,
        "effort": {"enum": [e.value for e in Effort]},
        "direction": {"enum": [d.value for d in Direction]},
        "budgetExhausted": {"type": "boolean"},
        "notes": {"type": "array", "items": {"type": "string"}},
        "warnings": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "seconds": _NON_NEGATIVE,
        "phases": {"type": "array", "items": phase},
    }, optional=("warnings", "seconds", "phases"))
    return {
        "$schema": DRAFT,
        "title": "LayoutResult",
        "description": "Placed nodes (top-left corner and size, y down) and, per edge, the "
                       "polyline from the source outline to the target outline. Every "
                       "coordinate is absolute, nested nodes and ports included; a nested "
                       "node names its parent.",
        **_closed({
            "width": _NON_NEGATIVE, "height": _NON_NEGATIVE,
            "nodes": {"type": "array", "items": node},
            "edges": {"type": "array", "items": edge},
            "diagnostics": diagnostics,
            "ports": {"type": "array", "items": port, "minItems": 1},
        }, optional=("ports",)),
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
