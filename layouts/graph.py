"""The typed input graph of every layout engine: nodes (with optional ports and children),
and edges between nodes (optionally at a port), in model order.

A graph is immutable: engines copy what they need and never change the caller's graph.

>>> g = Graph(
...     nodes=(Node("a", 120, 40), Node("b", 40, 40, Shape.DIAMOND)),
...     edges=(Edge("e1", "a", "b"),),
... )
>>> g.validate()
>>> [n.id for n in g.nodes]
['a', 'b']

Ports and compound nodes (issue 13/14's one model for both). A port sits on one side of its
node (``north``/``east``/``south``/``west``, or ``free`` for the engine to choose); a node
may hold child nodes, to any depth. Every edge of the graph, whatever level its ends are
at, is listed once in :attr:`Graph.edges`; ``source_port``/``target_port`` name a port of
the source/target node. Ids are unique across the whole hierarchy: no two nodes, no two
ports, no node and port, and no two edges share one.

>>> group = Node("g", 10, 10, children=(
...     Node("a", 80, 40, ports=(Port("out", PortSide.SOUTH),)),
...     Node("b", 80, 40)))
>>> g = Graph((group, Node("c", 80, 40)),
...           (Edge("e1", "a", "b", source_port="out"), Edge("e2", "b", "c")))
>>> g.validate()
>>> [n.id for n in g.all_nodes()], g.parent_of("a"), g.parent_of("g")
(['g', 'a', 'b', 'c'], 'g', None)
>>> sorted(f.value for f in g.features())
['compound', 'ports']
>>> g.edge_container(g.edges[1]) is None  # b (inside g) -> c (at the root): the root
True
>>> Graph.from_dict(g.to_dict()) == g
True
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from layouts.errors import InvalidGraphError

MAX_SIZE = 1_000_000.0
"""Largest node or label width/height in px: far beyond any drawing, small enough that
sums over thousands of nodes stay finite (1e308 would overflow to inf and NaN)."""

_E = TypeVar("_E", bound=StrEnum)

OptionValue = str | int | float | bool
"""A value of an engine's own layout option, as JSON gives it."""

EngineOptions = tuple[tuple[str, OptionValue], ...]
"""Layout options in an engine's own names (ELK's ``layoutOptions``: ``elk.direction``
...), in document order. Engines that read these names (elkjs) get them unchanged; the
others report each one they cannot honour in the result's warnings."""

MAX_DEPTH = 64
"""Deepest nesting of children accepted (the root's nodes are depth 1); deeper input is
refused rather than risking Python's recursion limit."""


class Shape(StrEnum):
    """Outline of a node; endpoints are clipped to this outline."""

    RECT = "rect"
    DIAMOND = "diamond"
    CIRCLE = "circle"
    ELLIPSE = "ellipse"


class PortSide(StrEnum):
    """The side of its node a port sits on, named as ELK names them (``elk.port.side``):
    north is the top face, east the right, south the bottom, west the left, in drawing
    coordinates whatever the layout direction. ``free`` leaves the side to the engine."""

    NORTH = "north"
    EAST = "east"
    SOUTH = "south"
    WEST = "west"
    FREE = "free"


class PortConstraints(StrEnum):
    """How freely an engine may move a node's ports (ELK's ``elk.portConstraints``).

    ``undefined``: as ``fixed_side`` when any port of the node names a side, else ``free``.
    ``free``: side and order are the engine's choice. ``fixed_side``: each port stays on its
    side, in any order. ``fixed_order``: also in the order of :attr:`Port.order`.
    ``fixed_pos``: at :attr:`Port.x`/:attr:`Port.y` exactly."""

    UNDEFINED = "undefined"
    FREE = "free"
    FIXED_SIDE = "fixed_side"
    FIXED_ORDER = "fixed_order"
    FIXED_POS = "fixed_pos"


class RankKind(StrEnum):
    """Which layer a :class:`RankGroup` asks for, as Graphviz's ``rank`` subgraph
    attribute names them: ``same`` one shared layer; ``min``/``max`` the first/last layer
    (others may share it); ``source``/``sink`` the first/last layer alone."""

    SAME = "same"
    MIN = "min"
    MAX = "max"
    SOURCE = "source"
    SINK = "sink"


@dataclass(frozen=True, slots=True)
class RankGroup:
    """A layering constraint: the nodes of ``nodes`` (ids, at any level) share one layer
    (``rank=same`` in DOT), placed as ``kind`` says. Engines that cannot honour it say so
    in the result's warnings.

    >>> RankGroup(("a", "b")).kind.value
    'same'
    """

    nodes: tuple[str, ...]
    kind: RankKind = RankKind.SAME


class GraphFeature(StrEnum):
    """Input features that not every engine supports (see :meth:`Graph.features`)."""

    PORTS = "ports"
    COMPOUND = "compound"


@dataclass(frozen=True, slots=True)
class Label:
    """A label after an element's first one (ELK elements may have several): its text,
    measured size and engine options. Engines that place labels stack an element's
    labels in order, as ELK does.

    >>> Label("second", 40, 12).width
    40
    """

    text: str
    width: float
    height: float
    layout_options: EngineOptions = ()


@dataclass(frozen=True, slots=True)
class Port:
    """A connection point on its node's boundary.

    ``order`` is the port's place among the ports of its side, counted clockwise around
    the node as ELK counts ``elk.port.index`` (north: left to right, east: top to bottom,
    south: right to left, west: bottom to top), 0 first; ``None`` when free. ``x``/``y``,
    when given (both or neither), fix the port's top-left corner relative to its node's
    top-left corner. ``width``/``height`` are the port's size (0: a point);
    ``label_width``/``label_height`` its label's measured size."""

    id: str
    side: PortSide = PortSide.FREE
    order: int | None = None
    x: float | None = None
    y: float | None = None
    width: float = 0.0
    height: float = 0.0
    label: str = ""
    label_width: float = 0.0
    label_height: float = 0.0
    layout_options: EngineOptions = ()
    extra_labels: tuple[Label, ...] = ()


@dataclass(frozen=True, slots=True)
class Node:
    """A node with a fixed size. ``circle`` nodes use ``min(width, height) / 2`` as radius
    centred in their box; ``ellipse`` nodes are the ellipse inscribed in their box;
    ``diamond`` nodes have their tips at the box's edge midpoints.

    A node with ``children`` is a compound node: ``width``/``height`` are then its smallest
    size, and engines grow its box to hold its children (with padding and its label).
    ``ports`` are its connection points, ``port_constraints`` how an engine may move them.
    ``label_width``/``label_height`` are the measured size of its label (0: not measured);
    ``layout_options`` are engine options for this node (see :data:`EngineOptions`)."""

    id: str
    width: float
    height: float
    shape: Shape = Shape.RECT
    label: str = ""
    ports: tuple[Port, ...] = ()
    children: tuple[Node, ...] = ()
    port_constraints: PortConstraints = PortConstraints.UNDEFINED
    label_width: float = 0.0
    label_height: float = 0.0
    layout_options: EngineOptions = ()
    collapsed: bool = False
    """A compound node drawn as one node of its own size, its children hidden and their
    edges redirected to it (see :mod:`layouts.collapse`)."""
    extra_labels: tuple[Label, ...] = ()
    """Labels after the first (``label``), in order."""

    def port(self, port_id: str) -> Port:
        """The port with ``port_id``; ``KeyError`` if the node has none.

        >>> Node("a", 9, 9, ports=(Port("p", PortSide.EAST),)).port("p").side.value
        'east'
        """
        for p in self.ports:
            if p.id == port_id:
                return p
        raise KeyError(port_id)

    def effective_port_constraints(self) -> PortConstraints:
        """``port_constraints`` with ``undefined`` resolved as documented there.

        >>> Node("a", 9, 9, ports=(Port("p", PortSide.EAST),)).effective_port_constraints()
        <PortConstraints.FIXED_SIDE: 'fixed_side'>
        """
        if self.port_constraints is not PortConstraints.UNDEFINED:
            return self.port_constraints
        sided = any(p.side is not PortSide.FREE for p in self.ports)
        return PortConstraints.FIXED_SIDE if sided else PortConstraints.FREE


@dataclass(frozen=True, slots=True)
class Edge:
    """A directed edge. ``label_width``/``label_height`` give the measured size of the
    label box (0 when there is no label); ``loop_back`` marks a declared back edge.
    ``source_port``/``target_port``, when set, name a port of the source/target node the
    edge starts/ends at. The ends may be nodes at any level of the hierarchy."""

    id: str
    source: str
    target: str
    label: str | None = None
    loop_back: bool = False
    label_width: float = 0.0
    label_height: float = 0.0
    source_port: str | None = None
    target_port: str | None = None
    layout_options: EngineOptions = ()
    extra_labels: tuple[Label, ...] = ()
    """Labels after the first (``label``), in order."""


@dataclass(frozen=True, slots=True)
class Graph:
    """Nodes and directed edges, in model order (the order engines keep where it is free).
    ``nodes`` are the root's nodes; nested nodes are reached through ``children``."""

    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...] = field(default_factory=tuple)
    layout_options: EngineOptions = ()
    rank_groups: tuple[RankGroup, ...] = ()
    """Layering constraints (DOT's ``rank=same/min/max/source/sink`` subgraphs)."""

    def all_nodes(self) -> Iterator[Node]:
        """Every node of the hierarchy, parents before their children (pre-order)."""
        stack = list(reversed(self.nodes))
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.children))

    def node(self, node_id: str) -> Node:
        """Return the node with ``node_id`` at any level; ``KeyError`` if absent (a linear
        search: use :meth:`node_index` for many lookups)."""
        for n in self.nodes:  # the root's nodes first, as fast as for a flat graph
            if n.id == node_id:
                return n
        for n in self.all_nodes():
            if n.id == node_id:
                return n
        raise KeyError(node_id)

    def parents(self) -> dict[str, str | None]:
        """Each node id -> its parent's id (``None`` for the root's nodes)."""
        out: dict[str, str | None] = {n.id: None for n in self.nodes}
        for n in self.all_nodes():
            for child in n.children:
                out[child.id] = n.id
        return out

    def parent_of(self, node_id: str) -> str | None:
        """The id of the node holding ``node_id``, ``None`` at the root; ``KeyError`` if
        there is no such node."""
        return self.parents()[node_id]

    def is_flat(self) -> bool:
        """Whether no node has children or ports (what every engine supports)."""
        return not self.features()

    def features(self) -> frozenset[GraphFeature]:
        """The features this graph uses beyond plain nodes and edges."""
        found: set[GraphFeature] = set()
        for n in self.all_nodes():
            if n.children:
                found.add(GraphFeature.COMPOUND)
            if n.ports:
                found.add(GraphFeature.PORTS)
        return frozenset(found)

    def edge_container(self, edge: Edge) -> str | None:
        """The id of the node an edge belongs to as ELK defines it (``None``: the root):
        the nearest common ancestor of its ends, where an end that holds the other end
        counts as that ancestor; a self-loop belongs to its node's parent."""
        parents = self.parents()
        return _container(parents, edge.source, edge.target)

    def edge_containers(self) -> dict[str, str | None]:
        """:meth:`edge_container` of every edge by id, in one pass over the hierarchy."""
        parents = self.parents()
        return {e.id: _container(parents, e.source, e.target) for e in self.edges}

    def rank_groups_among(self, ids: set[str] | frozenset[str]) -> tuple[RankGroup, ...]:
        """The rank groups with only their members among ``ids`` (groups left empty
        dropped): the constraints of a part of the graph.

        >>> Graph((Node("a", 9, 9), Node("b", 9, 9)),
        ...       rank_groups=(RankGroup(("a", "b")),)).rank_groups_among({"b"})
        (RankGroup(nodes=('b',), kind=<RankKind.SAME: 'same'>),)
        """
        kept = (RankGroup(tuple(n for n in g.nodes if n in ids), g.kind)
                for g in self.rank_groups)
        return tuple(g for g in kept if g.nodes)

    def node_index(self) -> dict[str, Node]:
        """Every node of the hierarchy by id (one pass; :meth:`node` searches each time)."""
        return {n.id: n for n in self.all_nodes()}

    def validate(self) -> None:
        """Raise :class:`InvalidGraphError` naming the first offending node, port or edge.

        Checks: non-empty string ids, ids unique across the hierarchy (nodes and ports
        share one namespace, edges another), positive sizes and non-negative label and port
        sizes up to :data:`MAX_SIZE`, nesting up to :data:`MAX_DEPTH`, and edges whose
        ends (and ports, on those ends) exist.
        """
        ports_of = _check_nodes(self.nodes)
        _check_rank_groups(self.rank_groups, ports_of)
        edge_ids: set[str] = set()
        for e in self.edges:
            _check_id(e.id, "edge")
            if e.id in edge_ids:
                raise InvalidGraphError(f"duplicate edge id '{e.id}'", offending_id=e.id)
            edge_ids.add(e.id)
            for end, ref, port in (("source", e.source, e.source_port),
                                   ("target", e.target, e.target_port)):
                if ref not in ports_of:
                    raise InvalidGraphError(
                        f"edge '{e.id}' has {end} '{ref}', which is not a node",
                        offending_id=e.id,
                    )
                if port is not None and port not in ports_of[ref]:
                    raise InvalidGraphError(
                        f"edge '{e.id}' has {end} port '{port}', which is not a port of "
                        f"node '{ref}'", offending_id=e.id)
            for name, value in (("label_width", e.label_width), ("label_height", e.label_height)):
                if not 0 <= value <= MAX_SIZE:  # False for NaN too
                    raise InvalidGraphError(
                        f"edge '{e.id}' has {name} {value!r}; it must be from 0 to "
                        f"{MAX_SIZE:g}",
                        offending_id=e.id,
                    )

    def to_dict(self) -> dict[str, Any]:
        """The graph as our JSON graph schema (see :mod:`layouts.schemas`). Ports,
        children and port constraints are written only when a node has them."""
        out: dict[str, Any] = {
            "nodes": [_node_dict(n) for n in self.nodes],
            "edges": [_edge_dict(e) for e in self.edges],
        }
        _put_options(out, self.layout_options)
        if self.rank_groups:
            out["rankGroups"] = [{"rank": g.kind.value, "nodes": list(g.nodes)}
                                 for g in self.rank_groups]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Graph:
        """Build a graph from our JSON graph schema; raises :class:`InvalidGraphError`."""
        if not isinstance(data, Mapping) or not isinstance(data.get("nodes"), list):
            raise InvalidGraphError("graph JSON needs a 'nodes' list")
        edges_data = data.get("edges", [])
        if not isinstance(edges_data, list):
            raise InvalidGraphError("graph JSON 'edges' must be a list")
        nodes = tuple(_node_from(item, f"nodes[{i}]", 1) for i, item in enumerate(data["nodes"]))
        edges = tuple(_edge_from(item, i) for i, item in enumerate(edges_data))
        graph = cls(nodes=nodes, edges=edges,
                    layout_options=_options_from(data, "the graph", None),
                    rank_groups=_rank_groups_from(data.get("rankGroups", [])))
        graph.validate()
        return graph


def _check_rank_groups(groups: tuple[RankGroup, ...], nodes: Mapping[str, object]) -> None:
    for i, group in enumerate(groups):
        if not group.nodes:
            raise InvalidGraphError(f"rank group {i} names no node")
        for node_id in group.nodes:
            if node_id not in nodes:
                raise InvalidGraphError(f"rank group {i} names '{node_id}', which is not a "
                                        "node", offending_id=node_id)


def _rank_groups_from(value: object) -> tuple[RankGroup, ...]:
    """``rankGroups`` of a graph JSON object: ``[{"rank": "same", "nodes": [ids]}]``."""
    if not isinstance(value, list):
        raise InvalidGraphError("graph JSON 'rankGroups' must be a list")
    groups = []
    for i, item in enumerate(value):
        if not isinstance(item, Mapping):
            raise InvalidGraphError(f"rankGroups[{i}] must be an object")
        kind = _choice(RankKind, item.get("rank", "same"), f"rankGroups[{i}]", "rank", "")
        ids = item.get("nodes")
        if not isinstance(ids, list) or not all(isinstance(n, str) and n for n in ids):
            raise InvalidGraphError(f"rankGroups[{i}] 'nodes' must be a list of node ids")
        groups.append(RankGroup(tuple(ids), kind))
    return tuple(groups)


def _put_options(out: dict[str, Any], options: EngineOptions) -> None:
    if options:
        out["layoutOptions"] = dict(options)


def _options_from(item: Mapping[str, Any], where: str, offending_id: str | None
                  ) -> EngineOptions:
    """``layoutOptions`` of a graph JSON object: names to scalar values."""
    value = item.get("layoutOptions", {})
    if not isinstance(value, Mapping):
        raise InvalidGraphError(f"{where} 'layoutOptions' must be an object",
                                offending_id=offending_id)
    for name, option in value.items():
        if not isinstance(option, str | int | float):  # booleans are ints
            raise InvalidGraphError(f"{where} layout option {name!r} has {option!r}; it must "
                                    "be a string, number or boolean", offending_id=offending_id)
    return tuple((str(name), option) for name, option in value.items())


def _container(parents: Mapping[str, str | None], source: str, target: str) -> str | None:
    if source == target:
        return parents[source]
    ancestors: list[str | None] = []
    at: str | None = source
    while at is not None:
        ancestors.append(at)
        at = parents[at]
    seen = set(ancestors)
    at = target
    while at is not None:
        if at in seen:
            return at
        at = parents[at]
    return None


def _check_nodes(roots: tuple[Node, ...]) -> dict[str, frozenset[str]]:
    """Check every node and port; return each node id -> its port ids."""
    ports_of: dict[str, frozenset[str]] = {}
    port_ids: set[str] = set()
    stack: list[tuple[Node, int]] = [(n, 1) for n in reversed(roots)]
    while stack:
        n, depth = stack.pop()
        _check_id(n.id, "node")
        if n.id in ports_of:
            raise InvalidGraphError(f"duplicate node id '{n.id}'", offending_id=n.id)
        if n.id in port_ids:
            raise InvalidGraphError(f"id '{n.id}' names both a node and a port",
                                    offending_id=n.id)
        if depth > MAX_DEPTH:
            raise InvalidGraphError(f"node '{n.id}' is nested {depth} deep; at most "
                                    f"{MAX_DEPTH} levels are supported", offending_id=n.id)
        _check_size(n.id, "width", n.width)
        _check_size(n.id, "height", n.height)
        own: set[str] = set()
        for p in n.ports:
            _check_port(n.id, p)
            if p.id in port_ids:
                raise InvalidGraphError(f"duplicate port id '{p.id}' (on node '{n.id}')",
                                        offending_id=p.id)
            if p.id in ports_of or p.id == n.id:
                raise InvalidGraphError(f"id '{p.id}' names both a node and a port",
                                        offending_id=p.id)
            port_ids.add(p.id)
            own.add(p.id)
        ports_of[n.id] = frozenset(own)
        stack.extend((child, depth + 1) for child in reversed(n.children))
    return ports_of


def _check_port(node_id: str, p: Port) -> None:
    _check_id(p.id, "port")
    where = f"port '{p.id}' of node '{node_id}'"
    for name, value in (("width", p.width), ("height", p.height)):
        if not 0 <= value <= MAX_SIZE:  # False for NaN too
            raise InvalidGraphError(f"{where} has {name} {value!r}; it must be from 0 to "
                                    f"{MAX_SIZE:g}", offending_id=p.id)
    if (p.x is None) != (p.y is None):
        raise InvalidGraphError(f"{where} gives only one of x and y", offending_id=p.id)
    for name, coordinate in (("x", p.x), ("y", p.y)):
        if coordinate is not None and not -MAX_SIZE <= coordinate <= MAX_SIZE:
            raise InvalidGraphError(f"{where} has {name} {coordinate!r}; it must be from "
                                    f"{-MAX_SIZE:g} to {MAX_SIZE:g}", offending_id=p.id)
    if p.order is not None and not 0 <= p.order <= 1_000_000:
        raise InvalidGraphError(f"{where} has order {p.order!r}; it must be from 0 to "
                                "1000000", offending_id=p.id)


def _port_dict(p: Port) -> dict[str, Any]:
    out: dict[str, Any] = {"id": p.id, "side": p.side.value}
    if p.order is not None:
        out["order"] = p.order
    if p.x is not None and p.y is not None:
        out["x"], out["y"] = p.x, p.y
    if p.width or p.height:
        out["width"], out["height"] = p.width, p.height
    if p.label:
        out["label"] = p.label
    _put_label_size(out, p.label_width, p.label_height)
    _put_options(out, p.layout_options)
    _put_extra_labels(out, p.extra_labels)
    return out


def _put_extra_labels(out: dict[str, Any], labels: tuple[Label, ...]) -> None:
    if labels:
        out["extraLabels"] = [{"text": label.text, "width": label.width,
                               "height": label.height, **({"layoutOptions": dict(
                                   label.layout_options)} if label.layout_options else {})}
                              for label in labels]


def _extra_labels_from(item: Mapping[str, Any], where: str, offending_id: str
                       ) -> tuple[Label, ...]:
    labels = []
    for i, value in enumerate(_list(item, "extraLabels", where, offending_id)):
        at = f"{where} extraLabels[{i}]"
        if not isinstance(value, Mapping):
            raise InvalidGraphError(f"{at} must be an object", offending_id=offending_id)
        text = _label_from(value.get("text", ""), at, offending_id, allow_none=False)
        labels.append(Label(text or "", _label_size(value, "width", at, offending_id),
                            _label_size(value, "height", at, offending_id),
                            _options_from(value, at, offending_id)))
    return tuple(labels)


def _put_label_size(out: dict[str, Any], width: float, height: float) -> None:
    if width or height:
        out["labelWidth"], out["labelHeight"] = width, height


def _node_dict(n: Node) -> dict[str, Any]:
    out: dict[str, Any] = {"id": n.id, "width": n.width, "height": n.height,
                           "shape": n.shape.value, "label": n.label}
    if n.ports:
        out["ports"] = [_port_dict(p) for p in n.ports]
    if n.port_constraints is not PortConstraints.UNDEFINED:
        out["portConstraints"] = n.port_constraints.value
    if n.children:
        out["children"] = [_node_dict(c) for c in n.children]
    if n.collapsed:
        out["collapsed"] = True
    _put_label_size(out, n.label_width, n.label_height)
    _put_options(out, n.layout_options)
    _put_extra_labels(out, n.extra_labels)
    return out


def _edge_dict(e: Edge) -> dict[str, Any]:
    out: dict[str, Any] = {"id": e.id, "source": e.source, "target": e.target}
    if e.source_port is not None:
        out["sourcePort"] = e.source_port
    if e.target_port is not None:
        out["targetPort"] = e.target_port
    if e.label is not None:
        out["label"] = e.label
        out["labelWidth"] = e.label_width
        out["labelHeight"] = e.label_height
    if e.loop_back:
        out["loopBack"] = True
    _put_options(out, e.layout_options)
    _put_extra_labels(out, e.extra_labels)
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


def _node_from(item: object, where: str, depth: int) -> Node:
    if not isinstance(item, Mapping):
        raise InvalidGraphError(f"{where} must be an object")
    node_id = item.get("id")
    _check_id(node_id, "node")
    assert isinstance(node_id, str)
    if depth > MAX_DEPTH:
        raise InvalidGraphError(f"node '{node_id}' is nested {depth} deep; at most "
                                f"{MAX_DEPTH} levels are supported", offending_id=node_id)
    shape = _choice(Shape, item.get("shape", "rect"), f"node '{node_id}'", "shape", node_id)
    width, height = item.get("width"), item.get("height")
    _check_size(node_id, "width", width)
    _check_size(node_id, "height", height)
    label = _label_from(item.get("label", ""), f"node '{node_id}'", node_id, allow_none=False)
    ports = tuple(_port_from(p, f"node '{node_id}' ports[{i}]", node_id)
                  for i, p in enumerate(_list(item, "ports", f"node '{node_id}'", node_id)))
    children = tuple(_node_from(c, f"node '{node_id}' children[{i}]", depth + 1)
                     for i, c in enumerate(_list(item, "children", f"node '{node_id}'",
                                                 node_id)))
    constraints = _choice(PortConstraints, item.get("portConstraints", "undefined"),
                          f"node '{node_id}'", "portConstraints", node_id)
    where = f"node '{node_id}'"
    collapsed = item.get("collapsed", False)
    if not isinstance(collapsed, bool):
        raise InvalidGraphError(f"{where} has collapsed {collapsed!r}; it must be true or "
                                "false", offending_id=node_id)
    return Node(node_id, float(width), float(height), shape,  # type: ignore[arg-type]
                label or "", ports, children, constraints,
                _label_size(item, "labelWidth", where, node_id),
                _label_size(item, "labelHeight", where, node_id),
                _options_from(item, where, node_id), collapsed,
                _extra_labels_from(item, where, node_id))


def _label_size(item: Mapping[str, Any], key: str, where: str, offending_id: str) -> float:
    value = item.get(key, 0.0)
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not 0 <= value <= MAX_SIZE:  # before float(); False for NaN
        raise InvalidGraphError(f"{where} has {key} {value!r}; it must be a number from 0 "
                                f"to {MAX_SIZE:g}", offending_id=offending_id)
    return float(value)


def _list(item: Mapping[str, Any], key: str, where: str, offending_id: str) -> list[Any]:
    value = item.get(key, [])
    if not isinstance(value, list):
        raise InvalidGraphError(f"{where} '{key}' must be a list", offending_id=offending_id)
    return value


def _choice(kind: type[_E], value: object, where: str, key: str, offending_id: str) -> _E:
    if isinstance(value, str) and value in kind._value2member_map_:
        return kind(value)
    raise InvalidGraphError(
        f"{where} has {key} {value!r}; expected one of {', '.join(m.value for m in kind)}",
        offending_id=offending_id,
    )


def _port_number(item: Mapping[str, Any], key: str, where: str, port_id: str,
                 default: float | None) -> float | None:
    value = item.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not -MAX_SIZE <= value <= MAX_SIZE:  # before float(); False for NaN
        raise InvalidGraphError(f"{where} has {key} {value!r}; it must be a number from "
                                f"{-MAX_SIZE:g} to {MAX_SIZE:g}", offending_id=port_id)
    return float(value)


def _port_from(item: object, where: str, node_id: str) -> Port:
    if not isinstance(item, Mapping):
        raise InvalidGraphError(f"{where} must be an object", offending_id=node_id)
    port_id = item.get("id")
    _check_id(port_id, "port")
    assert isinstance(port_id, str)
    where = f"port '{port_id}' of node '{node_id}'"
    side = _choice(PortSide, item.get("side", "free"), where, "side", port_id)
    order = item.get("order")
    if order is not None and (isinstance(order, bool) or not isinstance(order, int)):
        raise InvalidGraphError(f"{where} has order {order!r}; it must be an integer",
                                offending_id=port_id)
    label = _label_from(item.get("label", ""), where, port_id, allow_none=False)
    port = Port(port_id, side, order,
                _port_number(item, "x", where, port_id, None),
                _port_number(item, "y", where, port_id, None),
                _port_number(item, "width", where, port_id, 0.0) or 0.0,
                _port_number(item, "height", where, port_id, 0.0) or 0.0,
                label or "", _label_size(item, "labelWidth", where, port_id),
                _label_size(item, "labelHeight", where, port_id),
                _options_from(item, where, port_id),
                _extra_labels_from(item, where, port_id))
    _check_port(node_id, port)
    return port


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
    ports = []
    for key in ("sourcePort", "targetPort"):
        port = item.get(key)
        if port is not None and (not isinstance(port, str) or not port):
            raise InvalidGraphError(f"edge '{edge_id}' has {key} {port!r}; it must be a "
                                    "non-empty string", offending_id=str(edge_id))
        ports.append(port)
    return Edge(
        id=str(edge_id),
        source=str(source),
        target=str(target),
        source_port=ports[0],
        target_port=ports[1],
        layout_options=_options_from(item, f"edge '{edge_id}'", str(edge_id)),
        label=label,
        loop_back=loop_back,
        label_width=_float_or_zero(item.get("labelWidth", 0.0), str(edge_id)),
        label_height=_float_or_zero(item.get("labelHeight", 0.0), str(edge_id)),
        extra_labels=_extra_labels_from(item, f"edge '{edge_id}'", str(edge_id)),
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
