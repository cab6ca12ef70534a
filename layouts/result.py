"""The typed result of every layout engine.

Coordinates are pixels with the origin at the top-left of the drawing and y growing
downwards. Node boxes are given by their top-left corner. Every edge route runs from a
point on its source node's outline to a point on its target node's outline.

Compound graphs and ports: every coordinate here is **absolute** (relative to the
drawing's origin), at every level of the hierarchy, so checkers and writers need no
transform. ``nodes`` lists every node of the hierarchy, parents before their children,
each with its ``parent`` (``None`` at the root); ``ports`` gives each port's box with its
``node``. Writers that need ELK's parent-relative coordinates (a node relative to its
parent, an edge relative to its container) subtract the parent's corner
(:meth:`LayoutResult.offset_of`).

>>> r = LayoutResult(
...     nodes=(NodeBox("a", 0, 0, 10, 10, Shape.RECT),),
...     edges=(),
...     width=10, height=10,
...     diagnostics=Diagnostics(engine="demo", effort="draft", direction="TopToBottom"),
... )
>>> r.node("a").center
Point(x=5.0, y=5.0)
>>> r.to_dict()["nodes"][0]["x"]
0
>>> LayoutResult.from_dict(r.to_dict()) == r
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from layouts.graph import Shape


class Side(StrEnum):
    """Face of a node an edge end attaches to."""

    TOP = "top"
    BOTTOM = "bottom"
    LEFT = "left"
    RIGHT = "right"


@dataclass(frozen=True, slots=True)
class Point:
    x: float
    y: float


@dataclass(frozen=True, slots=True)
class Box:
    """An axis-aligned box given by its top-left corner and size."""

    x: float
    y: float
    width: float
    height: float

    @property
    def center(self) -> Point:
        return Point(self.x + self.width / 2, self.y + self.height / 2)

    @property
    def right(self) -> float:
        return self.x + self.width

    @property
    def bottom(self) -> float:
        return self.y + self.height


@dataclass(frozen=True, slots=True)
class NodeBox:
    """A placed node."""

    id: str
    x: float
    y: float
    width: float
    height: float
    shape: Shape = Shape.RECT
    parent: str | None = None
    label_box: Box | None = None
    """Where the engine put the node's label (absolute), when it places labels."""
    extra_label_boxes: tuple[Box, ...] = ()
    """Where the labels after the first went (:attr:`layouts.graph.Node.extra_labels`)."""

    def __repr__(self) -> str:
        """The dataclass repr, with ``parent`` and ``label_box`` only when set."""
        text = (f"NodeBox(id={self.id!r}, x={self.x!r}, y={self.y!r}, width={self.width!r}, "
                f"height={self.height!r}, shape={self.shape!r}")
        if self.parent is not None:
            text += f", parent={self.parent!r}"
        if self.label_box is not None:
            text += f", label_box={self.label_box!r}"
        return text + ")"

    @property
    def box(self) -> Box:
        return Box(self.x, self.y, self.width, self.height)

    @property
    def center(self) -> Point:
        return Point(self.x + self.width / 2, self.y + self.height / 2)


@dataclass(frozen=True, slots=True)
class PortBox:
    """A placed port of node ``node``: its top-left corner (absolute) and size; ``side``
    is the face it ended up on and, for slot-based engines, ``slot`` its slot index on
    that face, numbered as :attr:`EdgeEnd.slot` (the edge ends at a port share its slot)."""

    id: str
    node: str
    x: float
    y: float
    width: float = 0.0
    height: float = 0.0
    side: Side | None = None
    label_box: Box | None = None
    slot: int | None = None
    extra_label_boxes: tuple[Box, ...] = ()

    @property
    def center(self) -> Point:
        return Point(self.x + self.width / 2, self.y + self.height / 2)


@dataclass(frozen=True, slots=True)
class EdgeEnd:
    """Where an edge end attaches: the node face and, for slot-based engines, the slot
    index on that face (0 is the left-most / top-most slot); ``None`` when the engine
    has no slots. ``lattice``, when set, is the number of slots on the face's lattice
    when some of them are left empty (more than the ends and ports on the face use)."""

    side: Side | None = None
    slot: int | None = None
    lattice: int | None = None


@dataclass(frozen=True, slots=True)
class EdgeRoute:
    """A routed edge: a polyline from the source outline to the target outline."""

    id: str
    source: str
    target: str
    points: tuple[Point, ...]
    source_end: EdgeEnd = EdgeEnd()
    target_end: EdgeEnd = EdgeEnd()
    label_box: Box | None = None
    loop_back: bool = False
    source_port: str | None = None
    target_port: str | None = None
    junction_points: tuple[Point, ...] = ()
    """Where edges that share a segment split (ELK's ``junctionPoints``), absolute."""
    extra_label_boxes: tuple[Box, ...] = ()
    """Where the labels after the first went (:attr:`layouts.graph.Edge.extra_labels`)."""


@dataclass(frozen=True, slots=True)
class Diagnostics:
    """What the engine did: name, effort, direction, seconds in total and per phase,
    and whether the time budget ran out (the layout is then the best found so far)."""

    engine: str
    effort: str
    direction: str
    seconds: float = 0.0
    budget_exhausted: bool = False
    phases: tuple[tuple[str, float], ...] = ()
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    """What the engine could not honour (an option or feature it ignored), one line each;
    the service returns them as the response's ``warnings``."""


@dataclass(frozen=True, slots=True)
class LayoutResult:
    """Node boxes, edge routes, drawing size and diagnostics."""

    nodes: tuple[NodeBox, ...]
    edges: tuple[EdgeRoute, ...]
    width: float
    height: float
    diagnostics: Diagnostics
    ports: tuple[PortBox, ...] = ()
    _index: dict[str, NodeBox] = field(default_factory=dict, compare=False, repr=False)

    def node(self, node_id: str) -> NodeBox:
        """The placed node with ``node_id``; ``KeyError`` if absent."""
        if not self._index:
            self._index.update({n.id: n for n in self.nodes})
        return self._index[node_id]

    def port(self, port_id: str) -> PortBox:
        """The placed port with ``port_id``; ``KeyError`` if absent."""
        for p in self.ports:
            if p.id == port_id:
                return p
        raise KeyError(port_id)

    def offset_of(self, node_id: str | None) -> Point:
        """The absolute top-left corner of node ``node_id`` (the origin for ``None``): what
        to subtract to make a coordinate relative to that node, as ELK JSON wants."""
        if node_id is None:
            return Point(0.0, 0.0)
        n = self.node(node_id)
        return Point(n.x, n.y)

    def to_dict(self, *, timings: bool = False) -> dict[str, Any]:
        """Our JSON result schema. Numbers are rounded to 3 decimals; timings are left
        out unless asked for, so the same input gives byte-identical JSON."""
        return {
            "width": _num(self.width),
            "height": _num(self.height),
            "nodes": [_node_to_dict(n) for n in self.nodes],
            "edges": [_edge_to_dict(e) for e in self.edges],
            "diagnostics": _diagnostics_to_dict(self.diagnostics, timings),
            **({"ports": [_port_to_dict(p) for p in self.ports]} if self.ports else {}),
        }

    def to_json(self, *, timings: bool = False) -> str:
        """Deterministic JSON text of :meth:`to_dict` (sorted keys, 2-space indent)."""
        return json.dumps(self.to_dict(timings=timings), indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LayoutResult:
        """The result :meth:`to_dict` wrote ``data`` from: ``from_dict(d).to_dict() == d``
        for every ``d`` it writes, with or without timings (numbers come back as floats,
        already rounded to 3 decimals, so a result of rounded numbers comes back equal).

        Raises ``ValueError`` naming the first key that is missing or of the wrong type.

        >>> LayoutResult.from_dict({"width": 1})
        Traceback (most recent call last):
        ...
        ValueError: layout result: missing key 'height'
        """
        try:
            return _result_from_dict(data)
        except KeyError as error:
            raise ValueError(f"layout result: missing key {error.args[0]!r}") from None
        except (TypeError, ValueError, AttributeError) as error:
            raise ValueError(f"layout result: {error}") from None


def _num(value: float) -> float | int:
    rounded = round(float(value), 3)
    if rounded == 0:
        return 0
    return int(rounded) if rounded.is_integer() else rounded


def _node_to_dict(n: NodeBox) -> dict[str, Any]:
    out: dict[str, Any] = {"id": n.id, "x": _num(n.x), "y": _num(n.y), "width": _num(n.width),
                           "height": _num(n.height), "shape": n.shape.value}
    if n.parent is not None:
        out["parent"] = n.parent
    if n.label_box is not None:
        out["labelBox"] = _box_to_dict(n.label_box)
    return out


def _box_to_dict(box: Box) -> dict[str, Any]:
    return {"x": _num(box.x), "y": _num(box.y), "width": _num(box.width),
            "height": _num(box.height)}


def _box_from_dict(box: Mapping[str, Any] | None) -> Box | None:
    if box is None:
        return None
    return Box(float(box["x"]), float(box["y"]), float(box["width"]), float(box["height"]))


def _port_to_dict(p: PortBox) -> dict[str, Any]:
    out: dict[str, Any] = {"id": p.id, "node": p.node, "x": _num(p.x), "y": _num(p.y),
                           "width": _num(p.width), "height": _num(p.height),
                           "side": None if p.side is None else p.side.value}
    if p.label_box is not None:
        out["labelBox"] = _box_to_dict(p.label_box)
    if p.slot is not None:
        out["slot"] = p.slot
    return out


def _end_to_dict(end: EdgeEnd) -> dict[str, Any]:
    out: dict[str, Any] = {"side": None if end.side is None else end.side.value,
                           "slot": end.slot}
    if end.lattice is not None:
        out["lattice"] = end.lattice
    return out


def _edge_to_dict(e: EdgeRoute) -> dict[str, Any]:
    return {
        "id": e.id,
        "source": e.source,
        "target": e.target,
        "points": [{"x": _num(p.x), "y": _num(p.y)} for p in e.points],
        "sourceEnd": _end_to_dict(e.source_end),
        "targetEnd": _end_to_dict(e.target_end),
        "labelBox": None if e.label_box is None else _box_to_dict(e.label_box),
        "loopBack": e.loop_back,
        **({"sourcePort": e.source_port} if e.source_port is not None else {}),
        **({"targetPort": e.target_port} if e.target_port is not None else {}),
        **({"junctionPoints": [{"x": _num(p.x), "y": _num(p.y)} for p in e.junction_points]}
           if e.junction_points else {}),
    }


def _diagnostics_to_dict(d: Diagnostics, timings: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "engine": d.engine,
        "effort": d.effort,
        "direction": d.direction,
        "budgetExhausted": d.budget_exhausted,
        "notes": list(d.notes),
    }
    if d.warnings:
        out["warnings"] = list(d.warnings)
    if timings:
        out["seconds"] = round(d.seconds, 6)
        out["phases"] = [{"name": n, "seconds": round(s, 6)} for n, s in d.phases]
    return out


def _result_from_dict(data: Mapping[str, Any]) -> LayoutResult:
    """Read in the order :meth:`LayoutResult.to_dict` writes, so the first missing key
    is the one an error names."""
    width, height = float(data["width"]), float(data["height"])
    nodes = tuple(NodeBox(str(n["id"]), float(n["x"]), float(n["y"]), float(n["width"]),
                          float(n["height"]), Shape(n["shape"]),
                          _optional_text(n.get("parent")), _box_from_dict(n.get("labelBox")))
                  for n in data["nodes"])
    edges = tuple(_edge_from_dict(e) for e in data["edges"])
    ports = tuple(PortBox(str(p["id"]), str(p["node"]), float(p["x"]), float(p["y"]),
                          float(p["width"]), float(p["height"]),
                          None if p["side"] is None else Side(p["side"]),
                          _box_from_dict(p.get("labelBox")),
                          None if p.get("slot") is None else int(p["slot"]))
                  for p in data.get("ports", ()))
    return LayoutResult(nodes, edges, width, height,
                        _diagnostics_from_dict(data["diagnostics"]), ports)


def _optional_text(value: object) -> str | None:
    return None if value is None else str(value)


def _end_from_dict(data: Mapping[str, Any]) -> EdgeEnd:
    side, slot, lattice = data["side"], data["slot"], data.get("lattice")
    return EdgeEnd(None if side is None else Side(side), None if slot is None else int(slot),
                   None if lattice is None else int(lattice))


def _edge_from_dict(data: Mapping[str, Any]) -> EdgeRoute:
    box = _box_from_dict(data["labelBox"])
    return EdgeRoute(
        str(data["id"]), str(data["source"]), str(data["target"]),
        tuple(Point(float(p["x"]), float(p["y"])) for p in data["points"]),
        _end_from_dict(data["sourceEnd"]), _end_from_dict(data["targetEnd"]),
        box,
        _boolean(data["loopBack"], "loopBack"),
        _optional_text(data.get("sourcePort")), _optional_text(data.get("targetPort")),
        tuple(Point(float(p["x"]), float(p["y"])) for p in data.get("junctionPoints", ())),
    )


def _diagnostics_from_dict(data: Mapping[str, Any]) -> Diagnostics:
    """Diagnostics; ``seconds`` and ``phases`` are 0 and empty when written without timings."""
    return Diagnostics(
        str(data["engine"]), str(data["effort"]), str(data["direction"]),
        float(data.get("seconds", 0.0)), _boolean(data["budgetExhausted"], "budgetExhausted"),
        tuple((str(p["name"]), float(p["seconds"])) for p in data.get("phases", ())),
        tuple(str(note) for note in data["notes"]),
        tuple(str(warning) for warning in data.get("warnings", ())),
    )


def _boolean(value: object, key: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{key} must be true or false, not {value!r}")
    return value
