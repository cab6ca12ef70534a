"""The ELK JSON graph format: write a laid-out diagram, read an un-laid-out graph.

Written graphs follow the shape elkjs returns, so front ends built on elkjs can switch
to our output: ``children`` with top-left ``x``/``y``, ``width``, ``height`` and
``labels``; ``edges`` with ``sources``/``targets`` and one section each (``startPoint``,
``bendPoints``, ``endPoint``); edge ``labels`` with ``x``/``y``/``width``/``height``/
``text``. Two extension keys keep what ELK has no field for: ``shape`` on nodes and
``loopBack`` on declared back edges. Keys come in a fixed order and numbers are rounded
to 2 decimals, so output is deterministic.

Reading accepts flat graphs only (nested ``children`` are rejected) with one source and
one target per edge; missing node sizes are measured from the label.

>>> from layouts.graph import Graph, Node
>>> from layouts.result import Diagnostics, LayoutResult, NodeBox
>>> diagram = Diagram("g", Graph((Node("a", 80, 40),)))
>>> result = LayoutResult((NodeBox("a", 10, 20, 80, 40),), (), 100, 70,
...                       Diagnostics("hand", "draft", "TopToBottom"))
>>> data = json.loads(write_elk_json(diagram, result))
>>> data["children"][0]["x"], data["children"][0]["width"]
(10, 80)
>>> read_elk_graph(data).graph.node("a").width
80.0
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from layouts.graph import MAX_SIZE, Edge, Graph, Node, Shape
from layouts.result import EdgeRoute, LayoutResult, Point
from renderer.diagram import Diagram, EdgeView, NodeView, StepKind
from renderer.from_definition import edge_label_size, node_size
from renderer.svg import edge_label_box, edge_labels

DEFAULT_ROOT_ID = "root"


class ElkJsonError(ValueError):
    """The data is not a flat ELK JSON graph we can read; the message names the problem."""


def write_elk_json(diagram: Diagram, result: LayoutResult) -> bytes:
    """The laid-out diagram as ELK JSON (UTF-8, 2-space indent, trailing newline)."""
    return elk_text(elk_document(diagram, result))


def elk_text(document: Mapping[str, Any]) -> bytes:
    """ELK JSON data as written: UTF-8, 2-space indent, keys in their order, a newline."""
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def elk_document(diagram: Diagram, result: LayoutResult) -> dict[str, Any]:
    """The laid-out diagram as ELK JSON data (a new object each call; callers may add
    keys, as run views do)."""
    labels = edge_labels(diagram)
    titles = {n.id: diagram.nodes[n.id].title if n.id in diagram.nodes else (n.label or n.id)
              for n in diagram.graph.nodes}
    loop_backs = {e.id for e in diagram.graph.edges if e.loop_back}
    document: dict[str, Any] = {
        "id": diagram.name or DEFAULT_ROOT_ID,
        "x": 0,
        "y": 0,
        "width": _num(result.width),
        "height": _num(result.height),
        "children": [
            {"id": n.id, "x": _num(n.x), "y": _num(n.y), "width": _num(n.width),
             "height": _num(n.height), "shape": n.shape.value,
             "labels": [{"text": titles.get(n.id, n.id)}]}
            for n in result.nodes
        ],
        "edges": [_edge(route, labels.get(route.id), route.id in loop_backs)
                  for route in result.edges],
    }
    return document


def _num(value: float) -> float | int:
    rounded = round(float(value), 2)
    return 0 if rounded == 0 else int(rounded) if rounded.is_integer() else rounded


def _point(p: Point) -> dict[str, float | int]:
    return {"x": _num(p.x), "y": _num(p.y)}


def _edge(route: EdgeRoute, label: str | None, declared_loop_back: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"id": route.id, "sources": [route.source],
                           "targets": [route.target]}
    if len(route.points) >= 2:
        out["sections"] = [{
            "id": f"{route.id}_s0",
            "startPoint": _point(route.points[0]),
            "bendPoints": [_point(p) for p in route.points[1:-1]],
            "endPoint": _point(route.points[-1]),
        }]
    box = edge_label_box(route, label)
    if label and box is not None:
        out["labels"] = [{"text": label, "x": _num(box.x), "y": _num(box.y),
                          "width": _num(box.width), "height": _num(box.height)}]
    if route.loop_back or declared_loop_back:
        out["loopBack"] = True
    return out


def read_elk_graph(data: object) -> Diagram:
    """A diagram of plain nodes from a flat ELK JSON graph (positions are ignored).

    Raises :class:`ElkJsonError` for a malformed graph and
    :class:`layouts.errors.InvalidGraphError` for duplicate ids or dangling edges.
    """
    if not isinstance(data, Mapping) or not isinstance(data.get("children"), list):
        raise ElkJsonError("ELK JSON needs a top-level object with a 'children' list")
    edges_data = data.get("edges", [])
    if not isinstance(edges_data, list):
        raise ElkJsonError("ELK JSON 'edges' must be a list")
    nodes, views = [], {}
    for index, item in enumerate(data["children"]):
        node, view = _read_node(item, index)
        nodes.append(node)
        views[node.id] = view
    edges = [_read_edge(item, index) for index, item in enumerate(edges_data)]
    graph = Graph(tuple(nodes), tuple(edges))
    graph.validate()
    edge_views = {e.id: EdgeView(e.label) for e in edges if e.label}
    return Diagram(_text(data.get("id", DEFAULT_ROOT_ID), "root id"), graph, views, edge_views)


def _text(value: object, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        raise ElkJsonError(f"{where} must be a non-empty string, not {value!r}")
    return str(value)


def _first_label(item: Mapping[str, Any], where: str) -> Mapping[str, Any] | None:
    labels = item.get("labels", [])
    if not isinstance(labels, list) or not all(isinstance(x, Mapping) for x in labels):
        raise ElkJsonError(f"{where} 'labels' must be a list of objects")
    return labels[0] if labels else None


def _size(item: Mapping[str, Any], key: str, where: str) -> float | None:
    value = item.get(key)
    if value is None:
        return None
    # compared before float(), which overflows on integers such as 10**400; NaN fails too
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_SIZE:
        shown = value if not isinstance(value, int) or abs(value) < 1e15 else "a huge integer"
        raise ElkJsonError(f"{where} has {key} {shown!r}; it must be a number > 0 and <= "
                           f"{MAX_SIZE:g}")
    return float(value)


def _read_node(item: object, index: int) -> tuple[Node, NodeView]:
    if not isinstance(item, Mapping):
        raise ElkJsonError(f"children[{index}] must be an object")
    node_id = _text(item.get("id"), f"children[{index}].id")
    where = f"node '{node_id}'"
    if item.get("children"):
        raise ElkJsonError(f"{where} has nested children; only flat ELK graphs are supported")
    label = _first_label(item, where)
    title = _text(label.get("text"), f"{where} label text") if label else node_id
    try:
        shape = Shape(item.get("shape", Shape.RECT.value))
    except ValueError:
        raise ElkJsonError(f"{where} has unknown shape {item.get('shape')!r}") from None
    view = NodeView(StepKind.PLAIN, title)
    measured_width, measured_height = node_size(view, shape)
    width = _size(item, "width", where) or measured_width
    height = _size(item, "height", where) or measured_height
    return Node(node_id, width, height, shape, title), view


def _single_end(item: Mapping[str, Any], plural: str, singular: str, where: str) -> str:
    if plural in item:
        ends = item[plural]
        if not isinstance(ends, list) or len(ends) != 1:
            raise ElkJsonError(f"{where} needs exactly one entry in '{plural}' (hyperedges "
                               "are not supported)")
        return _text(ends[0], f"{where} {plural}[0]")
    if singular in item:
        return _text(item[singular], f"{where} {singular}")
    raise ElkJsonError(f"{where} needs '{plural}'")


def _read_edge(item: object, index: int) -> Edge:
    if not isinstance(item, Mapping):
        raise ElkJsonError(f"edges[{index}] must be an object")
    edge_id = _text(item.get("id", f"e{index}"), f"edges[{index}].id")
    where = f"edge '{edge_id}'"
    source = _single_end(item, "sources", "source", where)
    target = _single_end(item, "targets", "target", where)
    label = _first_label(item, where)
    text = _text(label.get("text"), f"{where} label text") if label else None
    width, height = edge_label_size(text)
    if label is not None:
        width = _size(label, "width", f"{where} label") or width
        height = _size(label, "height", f"{where} label") or height
    loop_back = item.get("loopBack", False)
    if not isinstance(loop_back, bool):
        raise ElkJsonError(f"{where} has loopBack {loop_back!r}; it must be true or false")
    return Edge(edge_id, source, target, text, loop_back, width, height)
