"""Read an ELK JSON graph as elkjs callers write it into a :class:`Diagram`.

Accepted, as elkjs accepts them: ``children`` nested to any depth (compound nodes),
``ports``, ``labels`` (every one is laid out, the first as the element's label and the
rest as :attr:`~layouts.graph.Node.extra_labels`; sizes are measured when not given),
``edges`` declared in any node with ``sources``/``targets`` naming nodes or ports (or the
older ``source``/``target`` with ``sourcePort``/``targetPort``), ids that are strings or
integers, and ``layoutOptions`` (or the older ``properties``) on every element. The ELK
options become engine options of the graph model (passed unchanged to elkjs);
``elk.port.side``, ``elk.port.index`` and ``elk.portConstraints`` also set the model's
port sides, orders and constraints, and the root's options that we have in our option
table become :attr:`Diagram.option_values`. Positions in the input are ignored, except the
port positions of ``FIXED_POS`` nodes.

>>> d = read_elk_graph({"id": "root", "layoutOptions": {"elk.direction": "RIGHT"},
...     "children": [{"id": 1, "width": 30, "height": 30,
...                   "ports": [{"id": "p", "layoutOptions": {"port.side": "EAST"}}]},
...                  {"id": "g", "children": [{"id": "b", "width": 30, "height": 30}]}],
...     "edges": [{"id": "e", "sources": ["p"], "targets": ["b"]}]})
>>> e = d.graph.edges[0]
>>> (e.source, e.source_port, e.target), d.graph.node("1").ports[0].side.value
(('1', 'p', 'b'), 'east')
>>> d.option_values
{'direction': 'LeftToRight'}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from layouts.elk_options import document_option_values, elk_option
from layouts.graph import (
    MAX_DEPTH,
    MAX_SIZE,
    Edge,
    EngineOptions,
    Graph,
    Label,
    Node,
    OptionValue,
    Port,
    PortConstraints,
    PortSide,
    Shape,
)
from renderer.diagram import Diagram, EdgeView, NodeView, StepKind
from renderer.from_definition import edge_label_size, node_size

DEFAULT_ROOT_ID = "root"

ELK_PORT_CONSTRAINTS: Mapping[str, PortConstraints] = {
    # ELK layered treats UNDEFINED as FREE: port sides are then not kept (checked on elkjs)
    "UNDEFINED": PortConstraints.FREE,
    "FREE": PortConstraints.FREE,
    "FIXED_SIDE": PortConstraints.FIXED_SIDE,
    "FIXED_ORDER": PortConstraints.FIXED_ORDER,
    "FIXED_RATIO": PortConstraints.FIXED_POS,
    "FIXED_POS": PortConstraints.FIXED_POS,
}


class ElkJsonError(ValueError):
    """The data is not an ELK JSON graph we can read; the message names the problem."""


def text_id(value: object, where: str) -> str:
    """An ELK id (a non-empty string or an integer) as our string id."""
    if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        raise ElkJsonError(f"{where} must be a non-empty string or an integer, not {value!r}")
    return str(value)


def _list(item: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = item.get(key, [])
    if not isinstance(value, list):
        raise ElkJsonError(f"{where} '{key}' must be a list")
    return value


def _objects(item: Mapping[str, Any], key: str, where: str) -> list[Mapping[str, Any]]:
    value = _list(item, key, where)
    if not all(isinstance(x, Mapping) for x in value):
        raise ElkJsonError(f"{where} '{key}' must be a list of objects")
    return value


def options_of(item: Mapping[str, Any], where: str) -> EngineOptions:
    """``properties`` (the older key) then ``layoutOptions``: later keys win."""
    merged: dict[str, OptionValue] = {}
    for key in ("properties", "layoutOptions"):
        value = item.get(key, {})
        if not isinstance(value, Mapping):
            raise ElkJsonError(f"{where} '{key}' must be an object")
        for name, option in value.items():
            if not isinstance(option, str | int | float):
                raise ElkJsonError(f"{where} option {name!r} has {option!r}; it must be a "
                                   "string, number or boolean")
            merged[str(name)] = option
    return tuple(merged.items())


def _option(options: EngineOptions, elk_id: str) -> OptionValue | None:
    found = None
    for key, value in options:
        entry = elk_option(key)
        if entry is not None and entry.elk_id == elk_id:
            found = value
    return found


def _size(item: Mapping[str, Any], key: str, where: str) -> float | None:
    value = item.get(key)
    if value is None:
        return None
    # compared before float(), which overflows on integers such as 10**400; NaN fails too
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= MAX_SIZE:
        shown = value if not isinstance(value, int) or abs(value) < 1e15 else "a huge integer"
        raise ElkJsonError(f"{where} has {key} {shown!r}; it must be a number from 0 to "
                           f"{MAX_SIZE:g}")
    return float(value)


@dataclass(frozen=True, slots=True)
class _Label:
    text: str
    width: float
    height: float


def _label_text_and_size(label: Mapping[str, Any], name: str) -> tuple[str, float, float]:
    """A label's text and its size: ``width``/``height`` when given, else measured.
    ``name`` says which label it is in errors (``node 'a' label 1``)."""
    text = label.get("text", "")
    if not isinstance(text, str | int | float):
        raise ElkJsonError(f"{name} text must be text, not {text!r}")
    measured_width, measured_height = edge_label_size(str(text))
    width = _size(label, "width", name)
    height = _size(label, "height", name)
    return (str(text), measured_width if width is None else width,
            measured_height if height is None else height)


def _first_label(item: Mapping[str, Any], where: str) -> _Label | None:
    labels = _objects(item, "labels", where)
    if not labels:
        return None
    return _Label(*_label_text_and_size(labels[0], f"{where} label"))


def _extra_labels(item: Mapping[str, Any], where: str) -> tuple[Label, ...]:
    """Every label after the first, with its size (measured when not given) and its
    ``layoutOptions``."""
    out = []
    for i, label in enumerate(_objects(item, "labels", where)[1:], start=1):
        name = f"{where} label {i}"
        out.append(Label(*_label_text_and_size(label, name), options_of(label, name)))
    return tuple(out)


@dataclass
class _Reader:
    """State of one read: every node's views, the edges found anywhere (still naming
    node or port ids), and each port's owner."""

    views: dict[str, NodeView] = field(default_factory=dict)
    raw_edges: list[tuple[Mapping[str, Any], str]] = field(default_factory=list)
    port_owner: dict[str, str] = field(default_factory=dict)

    def node(self, item: object, where: str, depth: int) -> Node:
        if not isinstance(item, Mapping):
            raise ElkJsonError(f"{where} must be an object")
        node_id = text_id(item.get("id"), f"{where}.id")
        where = f"node '{node_id}'"
        if depth > MAX_DEPTH:
            raise ElkJsonError(f"{where} is nested {depth} deep; at most {MAX_DEPTH} levels "
                               "are supported")
        options = options_of(item, where)
        label = _first_label(item, where)
        title = label.text if label else node_id
        try:
            shape = Shape(item.get("shape", Shape.RECT.value))
        except ValueError:
            raise ElkJsonError(f"{where} has unknown shape {item.get('shape')!r}") from None
        view = NodeView(StepKind.PLAIN, title)
        self.views[node_id] = view
        children = tuple(self.node(c, f"{where} children[{i}]", depth + 1)
                         for i, c in enumerate(_list(item, "children", where)))
        self.raw_edges.extend((e, f"{where} edges[{i}]")
                              for i, e in enumerate(_list(item, "edges", where)))
        constraints = ELK_PORT_CONSTRAINTS.get(
            str(_option(options, "portConstraints") or "UNDEFINED").upper(),
            PortConstraints.FREE)
        ports = self.ports(item, node_id, constraints)
        measured_width, measured_height = node_size(view, shape)
        width = _size(item, "width", where) or measured_width
        height = _size(item, "height", where) or measured_height
        return Node(node_id, width, height, shape, title if label else "", ports, children,
                    constraints, label.width if label else 0.0, label.height if label else 0.0,
                    options, extra_labels=_extra_labels(item, where))

    def ports(self, item: Mapping[str, Any], node_id: str, constraints: PortConstraints
              ) -> tuple[Port, ...]:
        where = f"node '{node_id}'"
        read = []
        for index, port in enumerate(_objects(item, "ports", where)):
            port_id = text_id(port.get("id"), f"{where} ports[{index}].id")
            self.port_owner.setdefault(port_id, node_id)
            port_where = f"port '{port_id}'"
            options = options_of(port, port_where)
            side_value = str(_option(options, "port.side") or "UNDEFINED").lower()
            side = PortSide(side_value) if side_value in PortSide._value2member_map_ \
                else PortSide.FREE
            position = None
            if constraints is PortConstraints.FIXED_POS:
                x, y = _size_or_zero(port, "x"), _size_or_zero(port, "y")
                position = (x, y)
            label = _first_label(port, port_where)
            read.append((port_id, side, _index(_option(options, "port.index")), position,
                         _size(port, "width", port_where) or 0.0,
                         _size(port, "height", port_where) or 0.0, label, options,
                         _extra_labels(port, port_where)))
        orders = _side_orders([(p[0], p[1], p[2]) for p in read])
        return tuple(
            Port(port_id, side, orders.get(port_id),
                 None if position is None else position[0],
                 None if position is None else position[1], width, height,
                 label.text if label else "", label.width if label else 0.0,
                 label.height if label else 0.0, options, extra)
            for port_id, side, _, position, width, height, label, options, extra in read)

    def edge(self, item: object, where: str, index: int) -> Edge:
        if not isinstance(item, Mapping):
            raise ElkJsonError(f"{where} must be an object")
        edge_id = text_id(item.get("id", f"e{index}"), f"{where}.id")
        where = f"edge '{edge_id}'"
        source, source_port = self.end(item, "sources", "source", where)
        target, target_port = self.end(item, "targets", "target", where)
        label = _first_label(item, where)
        loop_back = item.get("loopBack", False)
        if not isinstance(loop_back, bool):
            raise ElkJsonError(f"{where} has loopBack {loop_back!r}; it must be true or false")
        return Edge(edge_id, source, target, label.text if label else None, loop_back,
                    label.width if label else 0.0, label.height if label else 0.0,
                    source_port, target_port, options_of(item, where),
                    _extra_labels(item, where))

    def end(self, item: Mapping[str, Any], plural: str, singular: str, where: str
            ) -> tuple[str, str | None]:
        """(node id, port id or ``None``) of one end; a port id names its node."""
        if plural in item:
            ends = item[plural]
            if not isinstance(ends, list) or len(ends) != 1:
                raise ElkJsonError(f"{where} needs exactly one entry in '{plural}' "
                                   "(hyperedges are not supported)")
            ref = text_id(ends[0], f"{where} {plural}[0]")
            owner = self.port_owner.get(ref)
            return (owner, ref) if owner is not None else (ref, None)
        if singular in item:
            node = text_id(item[singular], f"{where} {singular}")
            port = item.get(f"{singular}Port")
            return node, None if port is None else text_id(port, f"{where} {singular}Port")
        raise ElkJsonError(f"{where} needs '{plural}'")


def _size_or_zero(item: Mapping[str, Any], key: str) -> float:
    value = item.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not -MAX_SIZE <= value <= MAX_SIZE:
        raise ElkJsonError(f"port '{item.get('id')}' has {key} {value!r}; it must be a number")
    return float(value)


def _index(value: OptionValue | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise ElkJsonError(f"elk.port.index {value!r} is not an integer") from None


def _side_orders(ports: list[tuple[str, PortSide, int | None]]) -> dict[str, int]:
    """Each indexed port's place among the indexed ports of its side (ELK's index runs
    clockwise around the node, so sorting by it gives the clockwise order on each side)."""
    orders: dict[str, int] = {}
    for side in PortSide:
        indexed = sorted((index, port_id) for port_id, s, index in ports
                         if s is side and index is not None and side is not PortSide.FREE)
        orders.update({port_id: order for order, (_, port_id) in enumerate(indexed)})
    return orders


def read_elk_graph(data: object) -> Diagram:
    """A diagram from an ELK JSON graph; it keeps ``data`` to echo (see
    :mod:`renderer.elk_write`).

    Raises :class:`ElkJsonError` for a malformed graph and
    :class:`layouts.errors.InvalidGraphError` for duplicate ids or dangling edges.
    """
    if not isinstance(data, Mapping) or not isinstance(data.get("children", []), list):
        raise ElkJsonError("ELK JSON needs a top-level object with a 'children' list")
    if "children" not in data:
        raise ElkJsonError("ELK JSON needs a top-level object with a 'children' list")
    reader = _Reader()
    root_options = options_of(data, "the root")
    nodes = tuple(reader.node(item, f"children[{i}]", 1)
                  for i, item in enumerate(data["children"]))
    top_edges = [(e, f"edges[{i}]") for i, e in enumerate(_list(data, "edges", "the root"))]
    edges = tuple(reader.edge(item, where, index)
                  for index, (item, where) in enumerate(top_edges + reader.raw_edges))
    graph = Graph(nodes, edges, root_options)
    graph.validate()
    edge_views = {e.id: EdgeView(e.label) for e in edges if e.label}
    return Diagram(text_id(data.get("id", DEFAULT_ROOT_ID), "root id"), graph, reader.views,
                   edge_views, document_option_values(root_options), data)
