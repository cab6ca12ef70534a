"""The typed input graph of every layout engine.

A graph is immutable: engines copy what they need and never change the caller's graph.

>>> g = Graph(
...     nodes=(Node("a", 120, 40), Node("b", 40, 40, Shape.DIAMOND)),
...     edges=(Edge("e1", "a", "b"),),
... )
>>> g.validate()
>>> [n.id for n in g.nodes]
['a', 'b']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from layouts.errors import InvalidGraphError

MAX_SIZE = 1_000_000.0
"""Largest node or label width/height in px: far beyond any drawing, small enough that
sums over thousands of nodes stay finite (1e308 would overflow to inf and NaN)."""


class Shape(StrEnum):
    """Outline of a node; endpoints are clipped to this outline."""

    RECT = "rect"
    DIAMOND = "diamond"
    CIRCLE = "circle"
    ELLIPSE = "ellipse"


@dataclass(frozen=True, slots=True)
class Node:
    """A node with a fixed size. ``circle`` nodes use ``min(width, height) / 2`` as radius
    centred in their box; ``ellipse`` nodes are the ellipse inscribed in their box;
    ``diamond`` nodes have their tips at the box's edge midpoints."""

    id: str
    width: float
    height: float
    shape: Shape = Shape.RECT
    label: str = ""


@dataclass(frozen=True, slots=True)
class Edge:
    """A directed edge. ``label_width``/``label_height`` give the measured size of the
    label box (0 when there is no label); ``loop_back`` marks a declared back edge."""

    id: str
    source: str
    target: str
    label: str | None = None
    loop_back: bool = False
    label_width: float = 0.0
    label_height: float = 0.0


@dataclass(frozen=True, slots=True)
class Graph:
    """Nodes and directed edges, in model order (the order engines keep where it is free)."""

    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...] = field(default_factory=tuple)

    def node(self, node_id: str) -> Node:
        """Return the node with ``node_id``; ``KeyError`` if absent."""
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)

    def validate(self) -> None:
        """Raise :class:`InvalidGraphError` naming the first offending node or edge.

        Checks: non-empty string ids, unique node ids, unique edge ids, positive sizes and
        non-negative label sizes up to :data:`MAX_SIZE`, and edges whose ends exist.
        """
        node_ids: set[str] = set()
        for n in self.nodes:
            _check_id(n.id, "node")
            if n.id in node_ids:
                raise InvalidGraphError(f"duplicate node id '{n.id}'", offending_id=n.id)
            node_ids.add(n.id)
            _check_size(n.id, "width", n.width)
            _check_size(n.id, "height", n.height)
        edge_ids: set[str] = set()
        for e in self.edges:
            _check_id(e.id, "edge")
            if e.id in edge_ids:
                raise InvalidGraphError(f"duplicate edge id '{e.id}'", offending_id=e.id)
            edge_ids.add(e.id)
            for end, ref in (("source", e.source), ("target", e.target)):
                if ref not in node_ids:
                    raise InvalidGraphError(
                        f"edge '{e.id}' has {end} '{ref}', which is not a node",
                        offending_id=e.id,
                    )
            for name, value in (("label_width", e.label_width), ("label_height", e.label_height)):
                if not 0 <= value <= MAX_SIZE:  # False for NaN too
                    raise InvalidGraphError(
                        f"edge '{e.id}' has {name} {value!r}; it must be from 0 to "
                        f"{MAX_SIZE:g}",
                        offending_id=e.id,
                    )

    def to_dict(self) -> dict[str, Any]:
        """The graph as our JSON graph schema (see :mod:`layouts.schemas`)."""
        return {
            "nodes": [
                {"id": n.id, "width": n.width, "height": n.height, "shape": n.shape.value,
                 "label": n.label}
                for n in self.nodes
            ],
            "edges": [_edge_dict(e) for e in self.edges],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Graph:
        """Build a graph from our JSON graph schema; raises :class:`InvalidGraphError`."""
        if not isinstance(data, Mapping) or not isinstance(data.get("nodes"), list):
            raise InvalidGraphError("graph JSON needs a 'nodes' list")
        edges_data = data.get("edges", [])
        if not isinstance(edges_data, list):
            raise InvalidGraphError("graph JSON 'edges' must be a list")
        nodes = tuple(_node_from(item, i) for i, item in enumerate(data["nodes"]))
        edges = tuple(_edge_from(item, i) for i, item in enumerate(edges_data))
        graph = cls(nodes=nodes, edges=edges)
        graph.validate()
        return graph


def _edge_dict(e: Edge) -> dict[str, Any]:
    out: dict[str, Any] = {"id": e.id, "source": e.source, "target": e.target}
    if e.label is not None:
        out["label"] = e.label
        out["labelWidth"] = e.label_width
        out["labelHeight"] = e.label_height
    if e.loop_back:
        out["loopBack"] = True
    return out


def _check_id(value: object, what: str) -> None:
    if not isinstance(value, str) or not value:
        raise InvalidGraphError(f"{what} id {value!r} must be a non-empty string")


def _check_size(node_id: str, name: str, value: object) -> None:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or not 0 < value <= MAX_SIZE:  # type: ignore[operator]  # False for NaN too
        shown = value if not isinstance(value, int) or abs(value) < 1e15 else "a huge integer"
        raise InvalidGraphError(
            f"node '{node_id}' has {name} {shown!r}; it must be a number > 0 and <= "
            f"{MAX_SIZE:g}",
            offending_id=node_id,
        )


def _node_from(item: object, index: int) -> Node:
    if not isinstance(item, Mapping):
        raise InvalidGraphError(f"nodes[{index}] must be an object")
    node_id = item.get("id")
    _check_id(node_id, "node")
    assert isinstance(node_id, str)
    shape_name = item.get("shape", "rect")
    try:
        shape = Shape(shape_name)
    except ValueError:
        raise InvalidGraphError(
            f"node '{node_id}' has shape {shape_name!r}; expected one of "
            f"{', '.join(s.value for s in Shape)}",
            offending_id=node_id,
        ) from None
    width, height = item.get("width"), item.get("height")
    _check_size(node_id, "width", width)
    _check_size(node_id, "height", height)
    label = _label_from(item.get("label", ""), f"node '{node_id}'", node_id, allow_none=False)
    return Node(node_id, float(width), float(height), shape,  # type: ignore[arg-type]
                label or "")


def _label_from(
    value: object, where: str, offending_id: str, *, allow_none: bool = True
) -> str | None:
    """A label as text: strings as they are, numbers and booleans written out, ``None``
    kept where allowed (edges); lists and objects are refused, as in the graph schema."""
    if isinstance(value, str) or (value is None and allow_none):
        return value
    if isinstance(value, int | float):  # booleans too
        return str(value)
    shown = "null" if value is None else f"{type(value).__name__} {str(value)[:40]}"
    raise InvalidGraphError(f"{where} has label {shown}; it must be text, a number or a "
                            "boolean", offending_id=offending_id)


def _edge_from(item: object, index: int) -> Edge:
    if not isinstance(item, Mapping):
        raise InvalidGraphError(f"edges[{index}] must be an object")
    edge_id = item.get("id", f"e{index}")
    _check_id(edge_id, "edge")
    source, target = item.get("source"), item.get("target")
    for end, ref in (("source", source), ("target", target)):
        if not isinstance(ref, str) or not ref:
            raise InvalidGraphError(f"edge '{edge_id}' needs a string {end}",
                                    offending_id=str(edge_id))
    label = _label_from(item.get("label"), f"edge '{edge_id}'", str(edge_id))
    loop_back = item.get("loopBack", False)
    if not isinstance(loop_back, bool):
        raise InvalidGraphError(f"edge '{edge_id}' has loopBack {loop_back!r}; it must be "
                                "true or false", offending_id=str(edge_id))
    return Edge(
        id=str(edge_id),
        source=str(source),
        target=str(target),
        label=label,
        loop_back=loop_back,
        label_width=_float_or_zero(item.get("labelWidth", 0.0), str(edge_id)),
        label_height=_float_or_zero(item.get("labelHeight", 0.0), str(edge_id)),
    )


def _float_or_zero(value: object, edge_id: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidGraphError(f"edge '{edge_id}' has a non-numeric label size {value!r}",
                                offending_id=edge_id)
    if not 0 <= value <= MAX_SIZE:  # checked before float(), which overflows on 10**400
        shown = value if isinstance(value, float) or abs(value) < 1e15 else "a huge integer"
        raise InvalidGraphError(f"edge '{edge_id}' has label size {shown!r}; it must be "
                                f"from 0 to {MAX_SIZE:g}", offending_id=edge_id)
    return float(value)
