"""The layered engine's typed internal graph, and the one function that copies the
caller's graph into it.

:func:`import_graph` is the only place that shows what can influence the layered layout:
node sizes and shapes, edge ends, the declared loop-back flag and label sizes, all in model
order. It never changes the caller's graph. For LeftToRight it swaps every width and height
(nodes and labels), so the phases always work in the canonical TopToBottom frame.

Nodes are referred to by their index (model order); scratch state of later phases lives in
their own result types (:class:`ProperGraph`, orders, placements), never on these objects.

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.options import Direction, LayoutOptions
>>> g = Graph((Node("a", 120, 40), Node("b", 80, 30)), (Edge("e", "a", "b"),))
>>> lg = import_graph(g, LayoutOptions(direction=Direction.LEFT_TO_RIGHT))
>>> (lg.nodes[0].width, lg.nodes[0].height), lg.edges[0].source, lg.edges[0].target
((40, 120), 0, 1)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from layouts.graph import Graph, RankKind, Shape
from layouts.layered.model import ChainEdge
from layouts.layered.portmap import PortTable, port_table
from layouts.options import Direction, LayoutOptions

if TYPE_CHECKING:
    from layouts.layered.label_room import Room

EngineRankGroup = tuple[RankKind, tuple[int, ...]]
"""A rank group as the layered graph holds it: its kind and member node indices."""


@dataclass(frozen=True, slots=True)
class EngineNode:
    """A node as the phases see it (canonical frame). Dummies have zero size."""

    id: str
    width: float
    height: float
    shape: Shape = Shape.RECT
    dummy: bool = False


@dataclass(frozen=True, slots=True)
class EngineEdge:
    """An edge between node indices. ``source``/``target`` are in the current
    orientation: after cycle breaking, ``reversed`` edges point against their input.
    ``position`` is the edge's index in the caller's edge tuple."""

    id: str
    source: int
    target: int
    position: int
    loop_back: bool = False
    reversed: bool = False
    label_width: float = 0.0
    label_height: float = 0.0
    weight: float = 1.0
    min_length: int = 1

    @property
    def is_self_loop(self) -> bool:
        return self.source == self.target


@dataclass(frozen=True, slots=True)
class LayeredGraph:
    """Nodes and edges by index, in model order. ``self_loops`` holds the edges cycle
    breaking set aside (they take no part in layering or ordering); ``entry`` is the
    entry node cycle breaking chose (no incoming edges; layering puts it on rank 0)."""

    nodes: tuple[EngineNode, ...]
    edges: tuple[EngineEdge, ...]
    self_loops: tuple[EngineEdge, ...] = ()
    entry: int = 0
    index: Mapping[str, int] = field(default_factory=dict)
    ports: PortTable | None = None
    """The canonical ports (:mod:`.portmap`), ``None`` without any; a node with stubs is
    already as big as its box plus its insets here."""
    rank_groups: tuple[EngineRankGroup, ...] = ()
    """The graph's rank groups by node index, members of other levels left out."""


@dataclass(frozen=True, slots=True)
class ProperGraph:
    """The layered graph after layering and dummy chains: every segment joins two
    consecutive layers. Real nodes keep their indices; dummies follow them.

    ``segments`` are ``(upper, lower)`` index pairs, one per unit-length piece of an edge,
    in edge order; ``chain_edges`` are the routing hand-off, in input edge order;
    ``component`` numbers the weakly connected components in model order."""

    nodes: tuple[EngineNode, ...]
    rank: tuple[int, ...]
    layer_count: int
    segments: tuple[tuple[int, int], ...]
    chain_edges: tuple[ChainEdge, ...]
    component: tuple[int, ...]
    index: Mapping[str, int] = field(default_factory=dict)
    label_room: Mapping[int, Room] | None = None
    """The room placement keeps for labels (:func:`layouts.layered.label_room.rooms`),
    worked out once by :func:`layouts.layered.layering.chains.run`; ``None``: not yet."""


def import_graph(graph: Graph, options: LayoutOptions) -> LayeredGraph:
    """Copy ``graph`` into a :class:`LayeredGraph` in the canonical frame.

    >>> from layouts.graph import Edge, Graph, Node
    >>> g = Graph((Node("a", 10, 20),), (Edge("s", "a", "a", loop_back=True),))
    >>> import_graph(g, LayoutOptions()).edges[0].is_self_loop
    True
    """
    swap = options.direction is Direction.LEFT_TO_RIGHT
    ports = port_table(graph, options)
    nodes = tuple(
        EngineNode(n.id, n.height if swap else n.width, n.width if swap else n.height, n.shape)
        for n in graph.nodes
    )
    if ports is not None:
        nodes = tuple(with_insets(node, ports) for node in nodes)
    index = {n.id: i for i, n in enumerate(graph.nodes)}
    edges = tuple(
        EngineEdge(
            id=e.id,
            source=index[e.source],
            target=index[e.target],
            position=position,
            loop_back=e.loop_back,
            label_width=e.label_height if swap else e.label_width,
            label_height=e.label_width if swap else e.label_height,
        )
        for position, e in enumerate(graph.edges)
    )
    groups = tuple((g.kind, tuple(index[n] for n in g.nodes if n in index))
                   for g in graph.rank_groups)
    return LayeredGraph(nodes=nodes, edges=edges, index=index, ports=ports,
                        rank_groups=groups)


def with_insets(node: EngineNode, ports: PortTable) -> EngineNode:
    """A node with ports as the phases see it: its box grown by its stubs' strips."""
    own = ports.nodes.get(node.id)
    if own is None or not own.insets.any:
        return node
    i = own.insets
    return EngineNode(node.id, node.width + i.left + i.right, node.height + i.top + i.bottom,
                      own.engine_shape)


def sized_by(node: EngineNode, ports: PortTable) -> EngineNode:
    """``node`` sized again from its entry in ``ports`` (a table built again, or with
    other strips): the entry's own box and shape grown by its strips
    (:func:`with_insets`); a node without an entry as it is."""
    own = ports.nodes.get(node.id)
    if own is None:
        return node
    return with_insets(replace(node, width=own.width, height=own.height, shape=own.shape),
                       ports)


def layer_positions(layers: Sequence[Sequence[int]], node_count: int) -> list[int]:
    """Each node's 0-based slot in its layer, by node index (0 for nodes in no layer).

    >>> layer_positions([[2, 0], [1]], 3)
    [1, 0, 0]
    """
    pos = [0] * node_count
    for layer in layers:
        for p, v in enumerate(layer):
            pos[v] = p
    return pos


def adjacency(node_count: int, edges: tuple[EngineEdge, ...]) -> tuple[list[list[int]],
                                                                        list[list[int]]]:
    """Successor and predecessor lists (edge indices) per node, in edge order.

    >>> succ, pred = adjacency(2, (EngineEdge("e", 0, 1, 0),))
    >>> succ, pred
    ([[0], []], [[], [0]])
    """
    successors: list[list[int]] = [[] for _ in range(node_count)]
    predecessors: list[list[int]] = [[] for _ in range(node_count)]
    for i, e in enumerate(edges):
        successors[e.source].append(i)
        predecessors[e.target].append(i)
    return successors, predecessors
