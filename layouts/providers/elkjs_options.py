"""Our graph and options -> one ELK JSON graph for elkjs.

:func:`elk_layout_options` is the one place that maps :data:`layouts.options.OPTION_TABLE`
to ELK's option names; :func:`to_elk_graph` copies the graph in (never changing it).
The ELK option names and meanings are those of the Eclipse Layout Kernel reference,
https://eclipse.dev/elk/reference/options.html (ELK layered: Schulze, Spönemann and
von Hanxleden, "Drawing layered graphs with port constraints", JVLC 2014).

>>> from layouts.graph import Edge, Graph, Node
>>> graph = Graph((Node("a", 120, 40), Node("b", 120, 40)), (Edge("e", "a", "b"),))
>>> elk = to_elk_graph(graph, LayoutOptions())
>>> elk["layoutOptions"]["elk.direction"], [c["id"] for c in elk["children"]]
('DOWN', ['a', 'b'])
>>> elk["edges"][0]["sources"], elk["edges"][0]["targets"]
(['a'], ['b'])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from layouts.elk_options import elk_option, is_writer_option, same_option
from layouts.graph import (
    Edge,
    EngineOptions,
    Graph,
    Label,
    Node,
    OptionValue,
    Port,
    PortConstraints,
    PortSide,
    RankKind,
)
from layouts.options import Direction, Effort, LayoutOptions

ROOT_ID = "wfr-root"

ELK_DIRECTIONS: Mapping[Direction, str] = {
    Direction.TOP_TO_BOTTOM: "DOWN",
    Direction.LEFT_TO_RIGHT: "RIGHT",
    Direction.BOTTOM_TO_TOP: "UP",
    Direction.RIGHT_TO_LEFT: "LEFT",
}

# elk.layered.thoroughness: how many random restarts of crossing minimisation ELK tries.
ELK_THOROUGHNESS: Mapping[Effort, int] = {
    Effort.DRAFT: 1,
    Effort.BALANCED: 7,
    Effort.BEST: 30,
}


FIXED_DEFAULTS: Mapping[str, str] = {"elk.algorithm": "layered", "elk.edgeRouting": "ORTHOGONAL"}
"""ELK options of ours that no option of the table sets."""


def _spacing(value: float) -> str:
    return format(value, "g")


def elk_layout_options(options: LayoutOptions) -> dict[str, str]:
    """ELK layout options equivalent to ``options``; every value is a string, as ELK's JSON
    importer expects. ELK treats ``elk.randomSeed`` 0 as "seed from the clock", so our
    seed ``s`` becomes ``s + 1`` (our default 0 is ELK's default 1) to stay reproducible.

    >>> mapped = elk_layout_options(LayoutOptions(effort=Effort.DRAFT, node_spacing=25))
    >>> mapped["elk.layered.thoroughness"], mapped["elk.spacing.nodeNode"]
    ('1', '25')
    >>> mapped["elk.randomSeed"]
    '1'
    """
    return {
        "elk.algorithm": "layered",
        "elk.direction": ELK_DIRECTIONS[options.direction],
        "elk.edgeRouting": "ORTHOGONAL",
        "elk.layered.thoroughness": str(ELK_THOROUGHNESS[options.effort]),
        "elk.spacing.nodeNode": _spacing(options.node_spacing),
        "elk.layered.spacing.nodeNodeBetweenLayers": _spacing(options.layer_spacing),
        "elk.spacing.edgeEdge": _spacing(options.edge_spacing),
        "elk.layered.spacing.edgeEdgeBetweenLayers": _spacing(options.edge_spacing),
        "elk.spacing.edgeNode": _spacing(options.clearance),
        "elk.layered.spacing.edgeNodeBetweenLayers": _spacing(options.clearance),
        "elk.randomSeed": str(options.seed + 1),
    }


def _elk_edge(edge: Edge) -> dict[str, Any]:
    """A declared loop-back edge is given to ELK reversed, so ELK's cycle breaking keeps
    every other edge pointing along the layout direction (the route is turned back in
    :mod:`layouts.providers.elkjs_convert`). An end at a port names the port, as ELK
    JSON does."""
    source = edge.source_port or edge.source
    target = edge.target_port or edge.target
    if edge.loop_back:
        source, target = target, source
    elk_edge: dict[str, Any] = {"id": edge.id, "sources": [source], "targets": [target]}
    if edge.label is not None and (edge.extra_labels or (edge.label_width > 0
                                   and edge.label_height > 0)):
        elk_edge["labels"] = _elk_labels(edge.label, edge.label_width, edge.label_height,
                                         edge.extra_labels)
    _put_options(elk_edge, dict(edge.layout_options))
    return elk_edge


def _elk_labels(text: str, width: float, height: float, extra: tuple[Label, ...]
                ) -> list[dict[str, Any]]:
    """ELK ``labels``: the first label, then every extra one with its options."""
    labels: list[dict[str, Any]] = [{"text": text, "width": width, "height": height}]
    for label in extra:
        item: dict[str, Any] = {"text": label.text, "width": label.width,
                                "height": label.height}
        _put_options(item, dict(label.layout_options))
        labels.append(item)
    return labels


def _put_options(owner: dict[str, Any], options: dict[str, Any]) -> None:
    """``options`` as ``owner``'s ``layoutOptions``, without the ELK JSON writer's own
    (:data:`layouts.elk_options.WRITER_OPTIONS`: elkjs answers in its default
    coordinate systems, which is what the result is read in)."""
    kept = {key: value for key, value in options.items() if not is_writer_option(key)}
    if kept:
        owner["layoutOptions"] = kept


def _with_default(options: dict[str, Any], key: str, value: str) -> None:
    """Set ``key`` unless the options already name that ELK option in any spelling."""
    if not any(same_option(existing, key) for existing in options):
        options[key] = value


_CLOCKWISE = (PortSide.NORTH, PortSide.EAST, PortSide.SOUTH, PortSide.WEST)


def _port_index(node: Node, port: Port) -> int | None:
    """ELK's ``elk.port.index``: clockwise from the top-left corner, north ports first."""
    if port.order is None or port.side is PortSide.FREE:
        return None
    before = sum(1 for p in node.ports if p.side in _CLOCKWISE
                 and _CLOCKWISE.index(p.side) < _CLOCKWISE.index(port.side))
    return before + port.order


def _elk_port(node: Node, port: Port) -> dict[str, Any]:
    elk_port: dict[str, Any] = {"id": port.id, "width": port.width, "height": port.height}
    if port.x is not None and port.y is not None:
        elk_port["x"], elk_port["y"] = port.x, port.y
    options = dict(port.layout_options)
    if port.side is not PortSide.FREE:
        _with_default(options, "elk.port.side", port.side.value.upper())
    index = _port_index(node, port)
    if index is not None:
        _with_default(options, "elk.port.index", str(index))
    _put_options(elk_port, options)
    if port.label or port.extra_labels:
        elk_port["labels"] = _elk_labels(port.label, port.label_width, port.label_height,
                                         port.extra_labels)
    return elk_port


LAYER_CONSTRAINTS: Mapping[RankKind, str] = {
    RankKind.MIN: "FIRST", RankKind.MAX: "LAST", RankKind.SOURCE: "FIRST_SEPARATE",
    RankKind.SINK: "LAST_SEPARATE"}
"""ELK's ``elk.layered.layering.layerConstraint`` for each rank group kind it has;
ELK has no constraint for ``same``."""


def layer_constraints(graph: Graph) -> dict[str, str]:
    """Each node of a ``min``/``max``/``source``/``sink`` rank group -> its ELK layer
    constraint (a node in several: the last group's).

    >>> from layouts.graph import Node, RankGroup
    >>> layer_constraints(Graph((Node("a", 9, 9),), rank_groups=(
    ...     RankGroup(("a",), RankKind.SINK),)))
    {'a': 'LAST_SEPARATE'}
    """
    return {node_id: LAYER_CONSTRAINTS[g.kind] for g in graph.rank_groups
            if g.kind in LAYER_CONSTRAINTS for node_id in g.nodes}


def _elk_node(node: Node, edges_in: Mapping[str | None, list[Edge]],
              layers: Mapping[str, str], include_children: bool = False) -> dict[str, Any]:
    elk_node: dict[str, Any] = {"id": node.id, "width": node.width, "height": node.height}
    options = dict(node.layout_options)
    if include_children:   # see hierarchy_fallback: the root's INCLUDE_CHILDREN holds
        options = {k: v for k, v in options.items() if not same_option(k, HIERARCHY_HANDLING)}
    if node.id in layers:
        _with_default(options, "elk.layered.layering.layerConstraint", layers[node.id])
    constraints = node.effective_port_constraints()
    if node.ports and constraints is not PortConstraints.FREE:
        _with_default(options, "elk.portConstraints", constraints.value.upper())
    _put_options(elk_node, options)
    if node.extra_labels or (node.label and node.label_width > 0 and node.label_height > 0):
        elk_node["labels"] = _elk_labels(node.label, node.label_width, node.label_height,
                                         node.extra_labels)
    if node.ports:
        elk_node["ports"] = [_elk_port(node, p) for p in node.ports]
    if node.children:
        elk_node["children"] = [_elk_node(c, edges_in, layers, include_children)
                                for c in node.children]
    if edges_in.get(node.id):
        elk_node["edges"] = [_elk_edge(e) for e in edges_in[node.id]]
    return elk_node


HIERARCHY_HANDLING = "elk.hierarchyHandling"


def _separate(options: EngineOptions) -> bool:
    return any(same_option(key, HIERARCHY_HANDLING)
               and str(value).strip().upper() == "SEPARATE_CHILDREN" for key, value in options)


def hierarchy_fallback(graph: Graph) -> str | None:
    """The warning when ``graph`` asks for ``SEPARATE_CHILDREN`` (at the root or on a
    compound node) but has edges crossing a compound boundary, which ELK then leaves
    unrouted: such a graph is laid out with ``INCLUDE_CHILDREN`` instead (the
    ``SEPARATE_CHILDREN`` options are not sent), so every edge is routed; ``None``
    otherwise.

    >>> from layouts.graph import Node
    >>> g = Graph((Node("g", 9, 9, children=(Node("a", 9, 9),)), Node("b", 9, 9)),
    ...           (Edge("e", "a", "b"),),
    ...           layout_options=(("elk.hierarchyHandling", "SEPARATE_CHILDREN"),))
    >>> hierarchy_fallback(g).split(":")[0]
    'elk.hierarchyHandling=SEPARATE_CHILDREN with 1 edge(s) crossing a compound boundary (e)'
    """
    asked = _separate(graph.layout_options) or any(
        _separate(n.layout_options) for n in graph.all_nodes() if n.children)
    if not asked:
        return None
    parents = graph.parents()
    containers = graph.edge_containers()
    crossing = [e.id for e in graph.edges if parents[e.source] != containers[e.id]
                or parents[e.target] != containers[e.id]]
    if not crossing:
        return None
    shown = ", ".join(crossing[:5]) + (", ..." if len(crossing) > 5 else "")
    return (f"elk.hierarchyHandling=SEPARATE_CHILDREN with {len(crossing)} edge(s) crossing "
            f"a compound boundary ({shown}): laid out with INCLUDE_CHILDREN instead, since "
            "ELK routes such edges only then")


def _crosses_levels(graph: Graph, containers: Mapping[str, str | None]) -> bool:
    parents = graph.parents()
    return any(parents[e.source] != containers[e.id] or parents[e.target] != containers[e.id]
               for e in graph.edges)


def root_layout_options(graph: Graph, options: LayoutOptions,
                        containers: Mapping[str, str | None]) -> dict[str, Any]:
    """The root's ELK options: the graph's own, unchanged, except where our resolved
    options (query/CLI over the document) mean something else, then ours; ELK's algorithm
    and edge routing are ours only where the graph names none; ``INCLUDE_CHILDREN``
    hierarchy handling when an edge crosses a compound boundary and the graph does not
    choose, since ELK routes such edges only then.

    >>> from layouts.graph import Node
    >>> g = Graph((Node("a", 9, 9),), layout_options=(("direction", "UP"), ("x.y", 1)))
    >>> root = root_layout_options(g, LayoutOptions(), {})  # a CLI default over "UP"
    >>> root["x.y"], root["elk.direction"], "direction" in root
    (1, 'DOWN', False)
    >>> root_layout_options(g, LayoutOptions(direction="BottomToTop"), {})["direction"]
    'UP'

    """
    ours = {key: value for key, value in elk_layout_options(options).items()
            if key not in FIXED_DEFAULTS}
    merged: dict[str, Any] = {}
    for key, value in graph.layout_options:
        if is_writer_option(key):
            continue
        mine = next((k for k in ours if same_option(key, k)), None)
        if mine is None:
            merged[key] = value
        elif _reads_as(key, value, options):  # the document's own spelling and value
            merged[key] = value
            del ours[mine]
    merged.update(ours)
    for key, value in FIXED_DEFAULTS.items():
        _with_default(merged, key, value)
    if _crosses_levels(graph, containers):
        if hierarchy_fallback(graph) is not None:
            merged = {k: v for k, v in merged.items() if not same_option(k, HIERARCHY_HANDLING)}
        _with_default(merged, HIERARCHY_HANDLING, "INCLUDE_CHILDREN")
    return merged


def _reads_as(key: str, value: OptionValue, options: LayoutOptions) -> bool:
    """Whether the document's ``key: value`` means what ``options`` resolved to."""
    entry = elk_option(key)
    if entry is None or entry.ours is None or entry.read is None:
        return False
    return bool(entry.read(value) == getattr(options, entry.ours))


def to_elk_graph(graph: Graph, options: LayoutOptions) -> dict[str, Any]:
    """The ELK JSON graph of ``graph``: nodes (with ports, labels and children) and edges in
    model order, each edge declared in its ELK container, loop-back edges reversed, labels
    that have a measured size as ELK labels, every engine option of the graph passed on
    unchanged, and the mapped options on the root (see :func:`root_layout_options`)."""
    node_ids = {node.id for node in graph.all_nodes()}
    root_id = ROOT_ID
    while root_id in node_ids:
        root_id += "_"
    containers = graph.edge_containers()
    layers = layer_constraints(graph)
    fallback = hierarchy_fallback(graph) is not None
    edges_in: dict[str | None, list[Edge]] = {}
    for edge in graph.edges:
        edges_in.setdefault(containers[edge.id], []).append(edge)
    return {
        "id": root_id,
        "layoutOptions": root_layout_options(graph, options, containers),
        "children": [_elk_node(node, edges_in, layers, fallback) for node in graph.nodes],
        "edges": [_elk_edge(edge) for edge in edges_in.get(None, [])],
    }
