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

from layouts.graph import Edge, Graph
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
    :mod:`layouts.providers.elkjs_convert`)."""
    source, target = (edge.target, edge.source) if edge.loop_back else (edge.source, edge.target)
    elk_edge: dict[str, Any] = {"id": edge.id, "sources": [source], "targets": [target]}
    if edge.label is not None and edge.label_width > 0 and edge.label_height > 0:
        elk_edge["labels"] = [
            {"text": edge.label, "width": edge.label_width, "height": edge.label_height}
        ]
    return elk_edge


def to_elk_graph(graph: Graph, options: LayoutOptions) -> dict[str, Any]:
    """The ELK JSON graph of ``graph``: nodes and edges in model order, loop-back edges
    reversed, labels that have a measured size as ELK edge labels, and the mapped options
    on the root."""
    node_ids = {node.id for node in graph.nodes}
    root_id = ROOT_ID
    while root_id in node_ids:
        root_id += "_"
    return {
        "id": root_id,
        "layoutOptions": elk_layout_options(options),
        "children": [
            {"id": node.id, "width": node.width, "height": node.height}
            for node in graph.nodes
        ],
        "edges": [_elk_edge(edge) for edge in graph.edges],
    }
