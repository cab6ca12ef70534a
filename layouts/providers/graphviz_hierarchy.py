"""Compound nodes and ports for the graphviz provider.

- A compound node becomes a dot cluster (``subgraph cluster_n<i>``, clusters nest as the
  children do) with its label's measured size reserved at its top; its box is the
  cluster's ``bb`` from dot's answer. An edge to or from a compound node is drawn to its
  first leaf with ``lhead``/``ltail`` (and ``compound=true``), so dot clips it at the
  cluster's border.
- A port becomes dot's compass point of its side (``n``, ``e``, ``s``, ``w``; a free port
  takes the flow's exit side for edges leaving it, its entry side otherwise). dot has one
  compass point per side, so the ports of one side are spread evenly along that face
  afterwards, in their order, and edges at a port end at its centre.

>>> from layouts.graph import Node
>>> g = Graph((Node("g", 9, 9, children=(Node("a", 9, 9),)), Node("b", 9, 9)))
>>> dot_names(g), first_leaf(g.nodes[0])
({'g': 'cluster_n0', 'a': 'n1', 'b': 'n2'}, 'a')
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from layouts.graph import Edge, Graph, Node, Port, PortSide
from layouts.options import Direction
from layouts.result import Box, NodeBox, PortBox, Side

COMPASS: Mapping[PortSide, str] = {PortSide.NORTH: "n", PortSide.EAST: "e",
                                   PortSide.SOUTH: "s", PortSide.WEST: "w"}
CLUSTER_MARGIN_PT = 12
EXIT_SIDE: Mapping[Direction, PortSide] = {
    Direction.TOP_TO_BOTTOM: PortSide.SOUTH, Direction.LEFT_TO_RIGHT: PortSide.EAST,
    Direction.BOTTOM_TO_TOP: PortSide.NORTH, Direction.RIGHT_TO_LEFT: PortSide.WEST,
}
OPPOSITE: Mapping[PortSide, PortSide] = {
    PortSide.NORTH: PortSide.SOUTH, PortSide.SOUTH: PortSide.NORTH,
    PortSide.EAST: PortSide.WEST, PortSide.WEST: PortSide.EAST,
}


def dot_names(graph: Graph) -> dict[str, str]:
    """Internal dot names in pre-order: ``n<i>`` for leaves, ``cluster_n<i>`` for compound
    nodes (so a flat graph keeps the names ``n0, n1, ...`` of its model order)."""
    return {n.id: f"cluster_n{i}" if n.children else f"n{i}"
            for i, n in enumerate(graph.all_nodes())}


def first_leaf(node: Node) -> str:
    """The first leaf below ``node`` (itself when it has no children)."""
    while node.children:
        node = node.children[0]
    return node.id


def _html_box(width: float, height: float) -> str:
    w, h = math.ceil(width), math.ceil(height)
    return (f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="0" '
            f'FIXEDSIZE="TRUE" WIDTH="{w}" HEIGHT="{h}"><TR><TD></TD></TR></TABLE>>')


def add_nodes(parent: Any, nodes: tuple[Node, ...], names: Mapping[str, str],
              leaf_attributes: Any) -> None:
    """Add ``nodes`` to the pygraphviz graph ``parent``: leaves through
    ``leaf_attributes(node) -> dict``, compound nodes as nested clusters."""
    for n in nodes:
        if not n.children:
            parent.add_node(names[n.id], **leaf_attributes(n))
            continue
        label = _html_box(n.label_width, n.label_height) if n.label_width > 0 else ""
        cluster = parent.add_subgraph(name=names[n.id], label=label, labelloc="t",
                                      margin=str(CLUSTER_MARGIN_PT))
        add_nodes(cluster, n.children, names, leaf_attributes)


def add_rank_groups(dot: Any, graph: Graph, names: Mapping[str, str]) -> None:
    """Each rank group as a ``rank=same/min/...`` subgraph of the cluster holding all its
    members (the root when they are in different clusters); compound members are left
    out (a cluster cannot be ranked in dot)."""
    parents = graph.parents()
    nodes = graph.node_index()
    subgraphs = {str(sub.name): sub for sub in _all_subgraphs(dot)}
    for i, group in enumerate(graph.rank_groups):
        members = [n for n in group.nodes if not nodes[n].children]
        if not members:
            continue
        owners = {parents[n] for n in members}
        owner = owners.pop() if len(owners) == 1 else None
        parent = dot if owner is None else subgraphs[names[owner]]
        parent.add_subgraph([names[n] for n in members], name=f"rank_{i}",
                            rank=group.kind.value)


def _all_subgraphs(dot: Any) -> list[Any]:
    found, stack = [], list(dot.subgraphs())
    while stack:
        sub = stack.pop()
        found.append(sub)
        stack.extend(sub.subgraphs())
    return found


GRAPHVIZ_PORT = "graphviz.port"
GRAPHVIZ_COMPASS = "graphviz.compass"
"""Port options naming dot's own port (a record field) and compass point, as the DOT
reader sets them for ``node:port:compass`` edge ends."""
RECORD_SHAPES = frozenset({"record", "mrecord"})


def dot_port(graph: Graph, node_id: str, port: Port, direction: Direction) -> str:
    """dot's ``tailport``/``headport`` for ``port``: its record field and compass point
    when it names them (``f0``, ``f0:n``, ``ne``), else the compass point of its side.

    >>> from layouts.graph import Node
    >>> p = Port("p", PortSide.NORTH, layout_options=(("graphviz.port", "f0"),
    ...                                               ("graphviz.compass", "ne")))
    >>> g = Graph((Node("a", 9, 9, ports=(p,), layout_options=(("graphviz.shape", "record"),)),))
    >>> dot_port(g, "a", p, Direction.TOP_TO_BOTTOM)
    'f0:ne'
    >>> dot_port(Graph((Node("a", 9, 9, ports=(p,)),)), "a", p, Direction.TOP_TO_BOTTOM)
    'ne'
    """
    options = dict(port.layout_options)
    field = str(options.get(GRAPHVIZ_PORT, ""))
    compass = str(options.get(GRAPHVIZ_COMPASS, ""))
    if field and _is_record(graph.node(node_id)):
        return f"{field}:{compass}" if compass else field
    return compass or COMPASS[free_side(graph, node_id, port, direction)]


def _is_record(node: Node) -> bool:
    return str(dict(node.layout_options).get("graphviz.shape", "")).lower() in RECORD_SHAPES


def record_attributes(node: Node) -> dict[str, str]:
    """``shape`` and ``label`` of a record node as the DOT reader read them, so dot lays
    its fields out and routes edges to them by name; nothing for other nodes."""
    if not _is_record(node):
        return {}
    options = dict(node.layout_options)
    label = str(options.get("graphviz.label", "\\N"))
    if label.startswith("<") and label.endswith(">"):
        label += " "   # pygraphviz would take "<f0> a|<f1>" for an HTML label; a blank
        #                 between record tokens changes nothing
    return {"shape": str(options["graphviz.shape"]), "label": label}


def free_side(graph: Graph, node_id: str, port: Port, direction: Direction) -> PortSide:
    """The side of a free port: the exit side when an edge leaves from it."""
    if port.side is not PortSide.FREE:
        return port.side
    leaving = any(e.source == node_id and e.source_port == port.id for e in graph.edges)
    exit_side = EXIT_SIDE[direction]
    return exit_side if leaving else OPPOSITE[exit_side]


def edge_ends(graph: Graph, edge: Edge, direction: Direction, names: Mapping[str, str],
              nodes: Mapping[str, Node]) -> dict[str, str]:
    """dot attributes for an edge's ends: ports' compass points and, for compound ends,
    ``ltail``/``lhead`` (``names`` from :func:`dot_names`, ``nodes`` by id)."""
    attrs: dict[str, str] = {}
    if edge.source_port is None and edge.target_port is None and not (
            nodes[edge.source].children or nodes[edge.target].children):
        return attrs
    tail, head = (edge.target, edge.source) if edge.loop_back else (edge.source, edge.target)
    tail_port, head_port = ((edge.target_port, edge.source_port) if edge.loop_back
                            else (edge.source_port, edge.target_port))
    for key, node_id, port_id, lkey in (("tailport", tail, tail_port, "ltail"),
                                        ("headport", head, head_port, "lhead")):
        node = nodes[node_id]
        if port_id is not None:
            attrs[key] = dot_port(graph, node_id, node.port(port_id), direction)
        if node.children:
            attrs[lkey] = names[node_id]
    return attrs


def endpoint_names(edge: Edge, names: Mapping[str, str], nodes: Mapping[str, Node]
                   ) -> tuple[str, str]:
    """The dot nodes an edge is drawn between (tail, head; a loop-back reversed)."""
    tail, head = (edge.target, edge.source) if edge.loop_back else (edge.source, edge.target)
    return names[first_leaf(nodes[tail])], names[first_leaf(nodes[head])]


def cluster_boxes(laid: Any, graph: Graph, height: float) -> dict[str, Box]:
    """Each compound node's box from its cluster's ``bb`` (dot's y up, flipped)."""
    names = dot_names(graph)
    boxes: dict[str, Box] = {}
    stack = [laid]
    found: dict[str, Any] = {}
    while stack:
        g = stack.pop()
        for sub in g.subgraphs():
            found[str(sub.name)] = sub
            stack.append(sub)
    for n in graph.all_nodes():
        if n.children:
            llx, lly, urx, ury = (float(v) for v in str(
                found[names[n.id]].graph_attr["bb"]).split(","))
            boxes[n.id] = Box(llx, height - ury, urx - llx, ury - lly)
    return boxes


_FACE: Mapping[PortSide, Side] = {PortSide.NORTH: Side.TOP, PortSide.EAST: Side.RIGHT,
                                  PortSide.SOUTH: Side.BOTTOM, PortSide.WEST: Side.LEFT}


def port_boxes(graph: Graph, boxes: Mapping[str, NodeBox], direction: Direction
               ) -> list[PortBox]:
    """Ports spread evenly along their faces, in their order (clockwise, as ELK counts),
    each centred on its node's boundary."""
    out: list[PortBox] = []
    for n in graph.all_nodes():
        by_side: dict[PortSide, list[Port]] = {}
        for p in n.ports:
            by_side.setdefault(free_side(graph, n.id, p, direction), []).append(p)
        for side, ports in by_side.items():
            ordered = sorted(ports, key=lambda p: (p.order is None, p.order or 0))
            for i, p in enumerate(ordered):
                out.append(_port_box(boxes[n.id], p, side, (i + 1) / (len(ordered) + 1)))
    return out


def _port_box(node: NodeBox, port: Port, side: PortSide, t: float) -> PortBox:
    """``t`` runs clockwise: left to right on north, top to bottom on east, right to left
    on south, bottom to top on west."""
    if port.x is not None and port.y is not None:
        return PortBox(port.id, node.id, node.x + port.x, node.y + port.y, port.width,
                       port.height, _FACE[side])
    if side is PortSide.NORTH:
        cx, cy = node.x + t * node.width, node.y
    elif side is PortSide.EAST:
        cx, cy = node.x + node.width, node.y + t * node.height
    elif side is PortSide.SOUTH:
        cx, cy = node.x + (1 - t) * node.width, node.y + node.height
    else:
        cx, cy = node.x, node.y + (1 - t) * node.height
    return PortBox(port.id, node.id, cx - port.width / 2, cy - port.height / 2, port.width,
                   port.height, _FACE[side])
