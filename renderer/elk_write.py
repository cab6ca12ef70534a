"""Write a laid-out diagram as ELK JSON, the way elkjs returns it.

An ELK JSON input (:attr:`Diagram.elk_source`) is echoed with everything it had (unknown
fields, id types, key and element order, ``source``/``target`` or ``sources``/``targets``
as given) plus what elkjs adds: ``x``, ``y``, ``width``, ``height`` on every node, port
and (first) label, and on every edge ``sections`` (``id``, ``startPoint``, ``endPoint``,
``bendPoints`` when there are any, ``incomingShape``, ``outgoingShape``) and
``container``. Coordinates are relative as ELK defines them: a node to its parent, a port
to its node, a node or port label to its owner, an edge's sections and labels to its
container. Other inputs get the same shape built from the graph, with ``sources``/
``targets`` and two extension keys, ``shape`` on nodes and ``loopBack`` on declared back
edges. Numbers are rounded to 2 decimals, so output is deterministic.

>>> from layouts.graph import Graph, Node
>>> from layouts.result import Diagnostics, LayoutResult, NodeBox
>>> diagram = Diagram("g", Graph((Node("a", 80, 40),)))
>>> result = LayoutResult((NodeBox("a", 10, 20, 80, 40),), (), 100, 70,
...                       Diagnostics("hand", "draft", "TopToBottom"))
>>> child = elk_document(diagram, result)["children"][0]
>>> child["x"], child["y"], child["width"], child["labels"][0]["text"]
(10, 20, 80, 'a')
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, TypeVar

from layouts.elk_options import same_option
from layouts.graph import Edge, Label, Node
from layouts.result import Box, EdgeRoute, LayoutResult, NodeBox, Point, PortBox
from renderer.diagram import Diagram
from renderer.svg import edge_label_box, edge_labels

DEFAULT_ROOT_ID = "root"


def write_elk_json(diagram: Diagram, result: LayoutResult) -> bytes:
    """The laid-out diagram as ELK JSON (UTF-8, 2-space indent, trailing newline)."""
    return elk_text(elk_document(diagram, result))


def elk_text(document: Mapping[str, Any]) -> bytes:
    """ELK JSON data as written: UTF-8, 2-space indent, keys in their order, a newline."""
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _num(value: float) -> float | int:
    rounded = round(float(value), 2)
    return 0 if rounded == 0 else int(rounded) if rounded.is_integer() else rounded


def _point(p: Point, origin: Point) -> dict[str, float | int]:
    return {"x": _num(p.x - origin.x), "y": _num(p.y - origin.y)}


def _place(item: dict[str, Any], x: float, y: float, width: float, height: float) -> None:
    """Set ``x``, ``y``, ``width``, ``height``, keeping the position of keys already there."""
    item["x"], item["y"] = _num(x), _num(y)
    item["width"], item["height"] = _num(width), _num(height)


def elk_document(diagram: Diagram, result: LayoutResult) -> dict[str, Any]:
    """The laid-out diagram as ELK JSON data (a new object each call; callers may add
    keys, as run views do)."""
    if diagram.elk_source is not None:
        document = copy.deepcopy(dict(diagram.elk_source))
    else:
        document = _skeleton(diagram)
    _Filler(diagram, result).fill(document)
    return document


class _Filler:
    """Fills positions into an ELK document whose ids name the graph's elements."""

    def __init__(self, diagram: Diagram, result: LayoutResult) -> None:
        self.graph = diagram.graph
        self.result = result
        self.nodes = {n.id: n for n in result.nodes}
        self.ports = {p.id: p for p in result.ports}
        self.routes = {r.id: r for r in result.edges}
        self.edges = {e.id: e for e in diagram.graph.edges}
        self.containers = diagram.graph.edge_containers()
        self.model = diagram.graph.node_index()
        self.labels = edge_labels(diagram)
        self.raw_ids: dict[str, Any] = {}
        self.root_id: Any = DEFAULT_ROOT_ID

    def fill(self, document: dict[str, Any]) -> None:
        self.root_id = document.get("id", DEFAULT_ROOT_ID)
        self._collect_ids(document)
        document["x"], document["y"] = 0, 0
        document["width"], document["height"] = _num(self.result.width), _num(self.result.height)
        shapes = _coords(document, "elk.json.shapeCoords", ShapeCoords, ShapeCoords.PARENT)
        edges = _coords(document, "elk.json.edgeCoords", EdgeCoords, EdgeCoords.CONTAINER)
        self._fill_owner(document, Point(0.0, 0.0), shapes, edges)

    def _collect_ids(self, document: Mapping[str, Any]) -> None:
        stack = [document]
        while stack:
            item = stack.pop()
            for child in item.get("children", []):
                self.raw_ids[str(child.get("id"))] = child.get("id")
                for port in child.get("ports", []):
                    self.raw_ids[str(port.get("id"))] = port.get("id")
                stack.append(child)

    def _fill_owner(self, owner: dict[str, Any], origin: Point, shapes: ShapeCoords,
                    edges: EdgeCoords) -> None:
        """Fill ``owner``'s children (recursively) and the edges declared in it, with
        ``shapes``/``edges`` the coordinate systems in force at ``owner`` (its own
        ``elk.json.shapeCoords``/``edgeCoords``, else its parent's), as elkjs does: a
        node's position is in its parent's system, its labels, ports and children in
        its own; an edge's points and labels in the system of the node declaring it."""
        at = origin if shapes is ShapeCoords.PARENT else Point(0.0, 0.0)
        for child in owner.get("children", []):
            box = self.nodes.get(str(child.get("id")))
            if box is None:
                continue
            _place(child, box.x - at.x, box.y - at.y, box.width, box.height)
            corner = Point(box.x, box.y)
            own = _coords(child, "elk.json.shapeCoords", ShapeCoords, shapes)
            inner = corner if own is ShapeCoords.PARENT else Point(0.0, 0.0)
            self._fill_labels(child, box.label_box, inner, self._node_label_default(box),
                              box.extra_label_boxes, self.model[box.id].extra_labels)
            for port in child.get("ports", []):
                self._fill_port(port, inner, own)
            self._fill_owner(child, corner, own,
                             _coords(child, "elk.json.edgeCoords", EdgeCoords, edges))
        for edge in owner.get("edges", []):
            self._fill_edge(edge, edges, origin)

    def _node_label_default(self, box: NodeBox) -> Box:
        node = self.model[box.id]
        width, height = node.label_width, node.label_height
        top = box.y + 4 if node.children else box.y + (box.height - height) / 2
        return Box(box.x + (box.width - width) / 2, top, width, height)

    def _fill_labels(self, item: dict[str, Any], placed: Box | None, origin: Point,
                     default: Box, extra: tuple[Box, ...] = (),
                     extra_sizes: tuple[Label, ...] = ()) -> None:
        """Every label of ``item``: the first at ``placed`` (else ``default``), the rest at
        their ``extra`` boxes, else stacked under the one before, centred on it."""
        labels = item.get("labels")
        if not isinstance(labels, list) or not labels or not isinstance(labels[0], dict):
            return
        box = placed or default
        _place(labels[0], box.x - origin.x, box.y - origin.y, box.width, box.height)
        for i, label in enumerate(labels[1:]):
            if not isinstance(label, dict):
                continue
            if i < len(extra):
                box = extra[i]
            else:
                size = extra_sizes[i] if i < len(extra_sizes) else Label("", 0.0, 0.0)
                box = Box(box.center.x - size.width / 2, box.bottom, size.width, size.height)
            _place(label, box.x - origin.x, box.y - origin.y, box.width, box.height)

    def _fill_port(self, port: dict[str, Any], corner: Point, shapes: ShapeCoords) -> None:
        placed = self.ports.get(str(port.get("id")))
        if placed is None:
            return
        _place(port, placed.x - corner.x, placed.y - corner.y, placed.width, placed.height)
        model = self.model[placed.node].port(placed.id)
        own = Point(placed.x, placed.y) if shapes is ShapeCoords.PARENT else Point(0.0, 0.0)
        self._fill_labels(port, placed.label_box, own,
                          _port_label_default(placed, self.model[placed.node]),
                          placed.extra_label_boxes, model.extra_labels)

    def _fill_edge(self, item: dict[str, Any], coords: EdgeCoords, declared_in: Point
                   ) -> None:
        edge_id = str(item.get("id"))
        route, edge = self.routes.get(edge_id), self.edges.get(edge_id)
        if route is None or edge is None:
            return
        container = self.containers[edge_id]
        origin = {EdgeCoords.CONTAINER: self.result.offset_of(container),
                  EdgeCoords.PARENT: declared_in, EdgeCoords.ROOT: Point(0.0, 0.0)}[coords]
        item["sections"] = [_section(route, edge, origin, self.raw_ids)]
        if route.junction_points:
            item["junctionPoints"] = [_point(p, origin) for p in route.junction_points]
        label = self.labels.get(edge_id) or edge.label
        box = route.label_box or edge_label_box(route, label)
        if box is not None:
            self._fill_labels(item, box, origin, box, route.extra_label_boxes,
                              edge.extra_labels)
        if coords is EdgeCoords.CONTAINER:   # elkjs names the container only then
            item["container"] = self.root_id if container is None else self.raw_ids.get(
                container, container)


class ShapeCoords(StrEnum):
    """ELK's ``elk.json.shapeCoords``: nodes, ports and their labels relative to their
    parent (the default) or to the root."""

    PARENT = "PARENT"
    ROOT = "ROOT"


class EdgeCoords(StrEnum):
    """ELK's ``elk.json.edgeCoords``: edge points and labels relative to the edge's
    container (the default), to the node that declares it, or to the root."""

    CONTAINER = "CONTAINER"
    PARENT = "PARENT"
    ROOT = "ROOT"


_C = TypeVar("_C", ShapeCoords, EdgeCoords)


def _coords(item: Mapping[str, Any], name: str, kind: type[_C], inherited: _C) -> _C:
    """The coordinate system ``item`` sets with option ``name`` (any spelling, in
    ``layoutOptions`` or ``properties``), else ``inherited`` (also for ``INHERIT`` and
    values ELK does not have).

    >>> _coords({"layoutOptions": {"json.edgeCoords": "root"}}, "elk.json.edgeCoords",
    ...         EdgeCoords, EdgeCoords.CONTAINER)
    <EdgeCoords.ROOT: 'ROOT'>
    """
    for key in ("layoutOptions", "properties"):
        options = item.get(key)
        if not isinstance(options, Mapping):
            continue
        for option, value in options.items():
            if isinstance(option, str) and same_option(option, name):
                text = str(value).strip().upper()
                if text in kind._value2member_map_:
                    return kind(text)
    return inherited


def _port_label_default(port: PortBox, node: Node) -> Box:
    model = node.port(port.id)
    return Box(port.x + port.width, port.y - model.label_height, model.label_width,
               model.label_height)


def _section(route: EdgeRoute, edge: Edge, origin: Point, raw_ids: Mapping[str, Any]
             ) -> dict[str, Any]:
    points = route.points
    section: dict[str, Any] = {
        "id": f"{edge.id}_s0",
        "startPoint": _point(points[0], origin),
        "endPoint": _point(points[-1], origin),
    }
    if len(points) > 2:
        section["bendPoints"] = [_point(p, origin) for p in points[1:-1]]
    incoming = edge.source_port or edge.source
    outgoing = edge.target_port or edge.target
    section["incomingShape"] = raw_ids.get(incoming, incoming)
    section["outgoingShape"] = raw_ids.get(outgoing, outgoing)
    return section


def _skeleton(diagram: Diagram) -> dict[str, Any]:
    """The ELK JSON shape of a graph that was not read from ELK JSON: nodes with their
    title label, ports and children; each edge declared in its container."""
    graph = diagram.graph
    edges_in: dict[str | None, list[Edge]] = {}
    containers = graph.edge_containers()
    for edge in graph.edges:
        edges_in.setdefault(containers[edge.id], []).append(edge)
    titles = {n.id: view.title if (view := diagram.nodes.get(n.id)) else (n.label or n.id)
              for n in graph.all_nodes()}
    labels = edge_labels(diagram)

    def node(n: Node) -> dict[str, Any]:
        item: dict[str, Any] = {"id": n.id, "x": 0, "y": 0, "width": 0, "height": 0,
                                "shape": n.shape.value, "labels": [{"text": titles[n.id]}]}
        if n.ports:
            item["ports"] = [{"id": p.id, **({"labels": [
                {"text": text} for text in (p.label, *(x.text for x in p.extra_labels))]}
                if p.label else {})} for p in n.ports]
        if n.children:
            item["children"] = [node(c) for c in n.children]
        if edges_in.get(n.id):
            item["edges"] = [_skeleton_edge(e, labels.get(e.id)) for e in edges_in[n.id]]
        return item

    return {"id": diagram.name or DEFAULT_ROOT_ID, "x": 0, "y": 0, "width": 0, "height": 0,
            "children": [node(n) for n in graph.nodes],
            "edges": [_skeleton_edge(e, labels.get(e.id)) for e in edges_in.get(None, [])]}


def _skeleton_edge(edge: Edge, label: str | None) -> dict[str, Any]:
    item: dict[str, Any] = {"id": edge.id, "sources": [edge.source_port or edge.source],
                            "targets": [edge.target_port or edge.target]}
    if label:
        item["labels"] = [{"text": label}]
    if edge.loop_back:
        item["loopBack"] = True
    return item
