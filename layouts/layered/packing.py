"""Disconnected components: split the graph, lay each component out on its own, and pack
the drawings into rows toward a target aspect ratio (as ELK's component packing and
Graphviz's ``pack`` do), instead of standing every component side by side in one row.

:func:`split` gives the weakly connected components in model order (by first node), each
as a :class:`~layouts.graph.Graph` of its own with nodes and edges in input order.
:func:`pack` places drawings of given sizes into shelves: components in model order,
left to right, a new row when the next one would pass the row width; each row is as
tall as its tallest drawing. The row width is chosen among a few candidates around
``sqrt(area * aspect_ratio)``: the one whose packing's width / height is nearest the
target (on a log scale), the smaller area on ties. Drawings are ``gap`` apart.

>>> pack([(100, 100)] * 4, 1.0, 10)          # four squares: two rows of two
[(0.0, 0.0), (110.0, 0.0), (0.0, 110.0), (110.0, 110.0)]
>>> pack([(100, 100)] * 4, 4.0, 10)          # wide: one row
[(0.0, 0.0), (110.0, 0.0), (220.0, 0.0), (330.0, 0.0)]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from layouts.graph import Graph, RankKind
from layouts.layered.layering import components
from layouts.layered.model import Routing
from layouts.result import Box, EdgeRoute, NodeBox, Point, PortBox

__all__ = ["bounds", "merge", "pack", "split", "translate"]

WIDTH_FACTORS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.15, 1.3, 1.5, 1.75, 2.0, 2.5)
"""Row widths tried, as multiples of ``sqrt(area * aspect_ratio)``."""


def split(graph: Graph) -> list[Graph]:
    """The weakly connected components of ``graph``, in model order of their first node.

    >>> from layouts.graph import Edge, Node
    >>> g = Graph(tuple(Node(n, 9, 9) for n in "abc"), (Edge("e", "c", "a"),))
    >>> [[n.id for n in part.nodes] for part in split(g)]
    [['a', 'c'], ['b']]
    """
    index = {n.id: i for i, n in enumerate(graph.nodes)}
    together = _rank_links(graph, index)   # a rank class is laid out whole
    component = components(len(graph.nodes),
                           [(index[e.source], index[e.target]) for e in graph.edges] + together)
    count = max(component, default=-1) + 1
    nodes: list[list[int]] = [[] for _ in range(count)]
    for v, c in enumerate(component):
        nodes[c].append(v)
    edges: list[list[int]] = [[] for _ in range(count)]
    for k, e in enumerate(graph.edges):
        edges[component[index[e.source]]].append(k)
    return [Graph(tuple(graph.nodes[v] for v in nodes[c]),
                  tuple(graph.edges[k] for k in edges[c]),
                  rank_groups=graph.rank_groups_among({graph.nodes[v].id for v in nodes[c]}))
            for c in range(count)]


def _rank_links(graph: Graph, index: dict[str, int]) -> list[tuple[int, int]]:
    """Pairs joining the members of each rank class: a ``same`` group's members; and,
    with any ``min``/``max``/``source``/``sink`` group, every node (the first and last
    ranks are the whole drawing's, as in dot)."""
    anchors: dict[object, int] = {}
    links = []
    for i, g in enumerate(graph.rank_groups):
        key: object = i if g.kind is RankKind.SAME else "ends"   # first/last: global
        for n in g.nodes:
            if n in index:
                links.append((anchors.setdefault(key, index[n]), index[n]))
    if "ends" in anchors:
        links += [(anchors["ends"], v) for v in range(len(graph.nodes))]
    return links


def _shelves(sizes: Sequence[tuple[float, float]], row_width: float, gap: float
             ) -> tuple[list[tuple[float, float]], float, float]:
    """Shelf packing at ``row_width``: positions, total width and height."""
    positions: list[tuple[float, float]] = []
    x = y = row_height = width = 0.0
    for w, h in sizes:
        if x > 0 and x + w > row_width:
            y += row_height + gap
            x = row_height = 0.0
        positions.append((x, y))
        width = max(width, x + w)
        row_height = max(row_height, h)
        x += w + gap
    return positions, width, y + row_height


def pack(sizes: Sequence[tuple[float, float]], aspect_ratio: float, gap: float
         ) -> list[tuple[float, float]]:
    """Top-left corner per drawing of ``sizes`` (width, height); see the module."""
    if not sizes:
        return []
    area = sum((w + gap) * (h + gap) for w, h in sizes)
    ideal = math.sqrt(area * aspect_ratio)
    widest = max(w for w, _ in sizes)
    best: tuple[float, float, list[tuple[float, float]]] | None = None
    for factor in WIDTH_FACTORS:
        positions, width, height = _shelves(sizes, max(widest, ideal * factor), gap)
        score = abs(math.log(max(width, 1.0) / max(height, 1.0) / aspect_ratio))
        candidate = (round(score, 9), width * height, positions)
        if best is None or candidate[:2] < best[:2]:
            best = candidate
    assert best is not None
    return best[2]


def bounds(result: Routing) -> Box:
    """The box holding every node, route point and label of ``result``.

    >>> bounds(Routing((NodeBox("a", 5, 5, 10, 10),), (), 15, 15))
    Box(x=5, y=5, width=10, height=10)
    """
    xs: list[float] = []
    ys: list[float] = []
    for n in result.nodes:
        xs += (n.x, n.x + n.width)
        ys += (n.y, n.y + n.height)
    for e in result.edges:
        xs += (p.x for p in e.points)
        ys += (p.y for p in e.points)
        if e.label_box is not None:
            xs += (e.label_box.x, e.label_box.right)
            ys += (e.label_box.y, e.label_box.bottom)
    if not xs:
        return Box(0.0, 0.0, 0.0, 0.0)
    return Box(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


def translate(result: Routing, dx: float, dy: float
              ) -> tuple[list[NodeBox], list[EdgeRoute]]:
    """The nodes and routes of ``result`` moved by ``(dx, dy)`` (its ports:
    :func:`translate_ports`)."""
    nodes = [replace(n, x=n.x + dx, y=n.y + dy) for n in result.nodes]
    routes = []
    for e in result.edges:
        label = e.label_box
        routes.append(replace(
            e, points=tuple(Point(p.x + dx, p.y + dy) for p in e.points),
            label_box=None if label is None else replace(label, x=label.x + dx,
                                                         y=label.y + dy)))
    return nodes, routes


def translate_ports(result: Routing, dx: float, dy: float) -> list[PortBox]:
    """The ports of ``result`` moved by ``(dx, dy)``."""
    return [moved_port(p, dx, dy) for p in result.ports]


def moved_port(p: PortBox, dx: float, dy: float) -> PortBox:
    """``p`` (and its label) moved by ``(dx, dy)``."""
    label = p.label_box
    return replace(p, x=p.x + dx, y=p.y + dy, label_box=None if label is None else
                   replace(label, x=label.x + dx, y=label.y + dy))


def merge(parts: Sequence[Routing], aspect_ratio: float, gap: float) -> Routing:
    """The drawings of ``parts`` packed into one (see :func:`pack`); nodes and routes in
    the parts' order, the whole moved so its top-left corner is at (0, 0)."""
    boxes = [bounds(part) for part in parts]
    corners = pack([(b.width, b.height) for b in boxes], aspect_ratio, gap)
    nodes: list[NodeBox] = []
    routes: list[EdgeRoute] = []
    ports: list[PortBox] = []
    for part, box, (x, y) in zip(parts, boxes, corners, strict=True):
        moved_nodes, moved_routes = translate(part, x - box.x, y - box.y)
        nodes += moved_nodes
        routes += moved_routes
        ports += translate_ports(part, x - box.x, y - box.y)
    width = max((x + b.width for b, (x, _) in zip(boxes, corners, strict=True)), default=0.0)
    height = max((y + b.height for b, (_, y) in zip(boxes, corners, strict=True)), default=0.0)
    return Routing(tuple(nodes), tuple(routes), width, height, tuple(ports))
