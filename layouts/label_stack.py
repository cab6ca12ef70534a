"""Several labels on one edge, for engines that place one label box per edge: the
labels are stacked into one block (as wide as the widest, as tall as all of them, as ELK
stacks an edge's labels), the engine places the block, and the block is cut back into
one box per label, each centred across the block, in order, top to bottom.

>>> from layouts.graph import Edge, Graph, Label, Node
>>> from layouts.result import Box, Diagnostics, EdgeRoute, LayoutResult, Point
>>> e = Edge("e", "a", "b", "one", label_width=20, label_height=10,
...          extra_labels=(Label("two", 30, 12),))
>>> g = Graph((Node("a", 9, 9), Node("b", 9, 9)), (e,))
>>> block = stacked(g).edges[0]
>>> block.label_width, block.label_height
(30.0, 22.0)
>>> route = EdgeRoute("e", "a", "b", (Point(0, 0), Point(0, 99)), label_box=Box(0, 40, 30, 22))
>>> r = unstacked(g, LayoutResult((), (route,), 99, 99, Diagnostics("x", "draft", "TB")))
>>> r.edges[0].label_box, r.edges[0].extra_label_boxes
(Box(x=5.0, y=40, width=20, height=10), (Box(x=0.0, y=50, width=30, height=12),))
"""

from __future__ import annotations

from dataclasses import replace

from layouts.graph import Edge, Graph
from layouts.result import Box, EdgeRoute, LayoutResult


def _sizes(edge: Edge) -> list[tuple[float, float]]:
    return [(edge.label_width, edge.label_height),
            *((label.width, label.height) for label in edge.extra_labels)]


def stacked(graph: Graph) -> Graph:
    """``graph`` with each edge of several labels carrying their stacked block's size."""
    if not any(e.extra_labels for e in graph.edges):
        return graph
    edges = []
    for e in graph.edges:
        if e.extra_labels:
            sizes = _sizes(e)
            e = replace(e, label=e.label if e.label is not None else "",
                        label_width=float(max(w for w, _ in sizes)),
                        label_height=float(sum(h for _, h in sizes)))
        edges.append(e)
    return replace(graph, edges=tuple(edges))


def unstacked(graph: Graph, result: LayoutResult) -> LayoutResult:
    """``result`` with each stacked block cut into its labels' boxes."""
    by_id = {e.id: e for e in graph.edges if e.extra_labels}
    if not by_id:
        return result
    return replace(result, edges=tuple(_cut(route, by_id[route.id]) if route.id in by_id
                                       and route.label_box is not None else route
                                       for route in result.edges), _index={})


def _cut(route: EdgeRoute, edge: Edge) -> EdgeRoute:
    block = route.label_box
    assert block is not None
    boxes = []
    top = block.y
    for width, height in _sizes(edge):
        boxes.append(Box(block.center.x - width / 2, top, width, height))
        top += height
    return replace(route, label_box=boxes[0], extra_label_boxes=tuple(boxes[1:]))
