"""The layered engine's fallback under a tight time budget: a *staircase* layout that costs
one pass over the graph and keeps every route contract.

When the budget cannot pay for the full pipeline (:mod:`.pipeline` asks
:mod:`.budget` before each step), this lays the graph out in ``O(V + E log E)``:

1. order: nodes in depth-first reverse postorder from the entry (declared loop-backs and
   self-loops ignored), so an edge points down the order unless it closes a cycle;
2. one node per row and one per column band, both in that order, so the drawing is a
   diagonal: a vertical line inside node ``i``'s band meets only node ``i``, a horizontal
   line inside node ``v``'s row meets only node ``v``;
3. each edge leaves its source (bottom face going down, top face for an edge to an
   earlier node), takes its own track in the gap beside the source, turns into a private
   column of the source's band, and runs straight to the target's row, which it follows
   into the target's left face (right face coming from below). Self-loops leave the
   bottom face and come back into the right face.

Every segment is therefore orthogonal, clear of every foreign node by the band and row
gaps, and on a line of its own (bands and rows do not overlap, and tracks and columns in
one band are distinct); ends sit on the slot lattice (:mod:`.routing.slots`); forward
edges never step against the flow. Fans are ordered so that the edges of one face do not
cross each other: slots left to right go to targets from the farthest to the nearest.
A label sits just beside its edge's first vertical, above (below, for an edge going up)
its own track, in a band of the gap no other route enters.

The drawing is large (its width and height grow with the node count): it is the layout
of last resort, chosen only when the budget leaves no time for the layered pipeline.

>>> from layouts.graph import Edge, Graph, Node
>>> g = Graph((Node("a", 80, 40), Node("b", 80, 40)), (Edge("e", "a", "b"),))
>>> routing = staircase(g, LayoutOptions())
>>> [(n.id, n.x, n.y) for n in routing.nodes]
[('a', 0.0, 0.0), ('b', 120.0, 100.0)]
>>> routing.edges[0].points      # down from a's bottom centre, right into b's left face
(Point(x=40.0, y=40.0), Point(x=40.0, y=120.0), Point(x=120.0, y=120.0))
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

from layouts.graph import Graph, Shape
from layouts.layered.labels import LABEL_GAP
from layouts.layered.model import Routing
from layouts.layered.routing.slots import outline_depth, slot_coordinate
from layouts.options import Direction, LayoutOptions
from layouts.result import Box, EdgeEnd, EdgeRoute, NodeBox, Point, Side

__all__ = ["staircase"]


@dataclass(slots=True)
class _Fan:
    """The edges leaving one face of a node, slot order left to right: per edge its
    column offset (from the node's left side) and track depth (from the face)."""

    edges: list[int] = field(default_factory=list)
    offsets: list[float] = field(default_factory=list)
    columns: list[float] = field(default_factory=list)
    depths: list[float] = field(default_factory=list)
    extent: float = 0.0
    """Depth of the fan's tracks and labels beyond the face, margins included."""
    reach: float = 0.0
    """Right-most column offset."""


_NO_FAN = _Fan()


@dataclass(frozen=True, slots=True)
class _Sizes:
    width: list[float]
    height: list[float]
    label_width: list[float]
    label_height: list[float]


def _sizes(graph: Graph, options: LayoutOptions) -> _Sizes:
    """Node and label sizes in the canonical (top-to-bottom) frame."""
    swap = options.direction is Direction.LEFT_TO_RIGHT
    nodes, edges = graph.nodes, graph.edges
    if swap:
        return _Sizes([n.height for n in nodes], [n.width for n in nodes],
                      [e.label_height for e in edges], [e.label_width for e in edges])
    return _Sizes([n.width for n in nodes], [n.height for n in nodes],
                  [e.label_width for e in edges], [e.label_height for e in edges])


def _order(graph: Graph, index: dict[str, int]) -> list[int]:
    """Rank per node: depth-first reverse postorder, the entry first."""
    count = len(graph.nodes)
    successors: list[list[int]] = [[] for _ in range(count)]
    has_incoming = [False] * count
    for e in graph.edges:
        a, b = index[e.source], index[e.target]
        if a != b and not e.loop_back:
            successors[a].append(b)
            has_incoming[b] = True
    entry = next((v for v in range(count) if not has_incoming[v]), 0)
    seen = [False] * count
    postorder: list[int] = []
    for root in [*range(count - 1, -1, -1), entry][::-1]:
        if seen[root]:
            continue
        seen[root] = True
        stack = [(root, 0)]
        while stack:
            v, i = stack[-1]
            if i < len(successors[v]):
                stack[-1] = (v, i + 1)
                w = successors[v][i]
                if not seen[w]:
                    seen[w] = True
                    stack.append((w, 0))
                continue
            stack.pop()
            postorder.append(v)
    rank = [0] * count
    for r, v in enumerate(reversed(postorder)):
        rank[v] = r
    return rank


def _fan(edges: list[int], offsets: list[float], width: float, sizes: _Sizes,
         spacing: float, margin: float, self_loops: int) -> _Fan:
    """Columns and track depths of one face's edges (``offsets``: their slot offsets
    along the face). The right-most slot takes the track nearest the face and the
    right-most column, so the fan does not cross itself; a labelled edge's column leaves
    room for its label beside its first vertical. The last ``self_loops`` edges come back
    up into the node's right face: their columns lie beyond it, nested outermost first."""
    if len(edges) == 1 and not self_loops and sizes.label_height[edges[0]] <= 0:
        # the usual case, the general rule below worked out for one plain edge
        return _Fan(edges, offsets, offsets[:], [margin], 2 * margin, offsets[0])
    fan = _Fan(edges, offsets)
    gap = LABEL_GAP
    column = -float("inf")
    plain = len(edges) - self_loops
    needs = [offsets[j] + (sizes.label_width[e] + 2 * gap if sizes.label_height[e] > 0 else 0.0)
             for j, e in enumerate(edges)]
    for j in range(plain):
        column = max(needs[j], column + spacing)
        fan.columns.append(column)
    if self_loops:
        base = max([column + spacing, width + margin, *needs[plain:]])
        fan.columns.extend(base + (self_loops - 1 - t) * spacing for t in range(self_loops))
    depths = [0.0] * len(edges)
    cursor = margin
    for j in range(len(edges) - 1, -1, -1):
        if sizes.label_height[edges[j]] > 0:
            cursor += sizes.label_height[edges[j]] + gap
        depths[j] = cursor
        cursor += max(spacing, 2 * gap)
    fan.depths = depths
    fan.extent = cursor - max(spacing, 2 * gap) + margin
    fan.reach = fan.columns[-1] if not self_loops else fan.columns[plain]
    return fan


def _face_offsets(width: float, height: float, shape: Shape, count: int) -> list[float]:
    """Slot offsets along a top or bottom face, from the node's left side (the slot
    lattice of :mod:`.routing.slots`: a circle's faces span its diameter).

    >>> _face_offsets(120, 40, Shape.RECT, 3)
    [30.0, 60.0, 90.0]
    """
    if not count:
        return []
    if shape is Shape.CIRCLE:
        box = NodeBox("", 0.0, 0.0, width, height, shape)
        return [slot_coordinate(box, Side.BOTTOM, count, i) for i in range(count)]
    step = width / (count + 1)
    return [step * (i + 1) for i in range(count)]


def _point(box: NodeBox, side: Side, along: float) -> Point:
    """The outline point of ``side`` at coordinate ``along`` (x on top/bottom faces)."""
    if box.shape is Shape.RECT:
        if side is Side.BOTTOM:
            return Point(along, box.y + box.height)
        if side is Side.TOP:
            return Point(along, box.y)
        if side is Side.LEFT:
            return Point(box.x, along)
        return Point(box.x + box.width, along)
    across = outline_depth(box, side, along)
    return Point(along, across) if side in (Side.TOP, Side.BOTTOM) else Point(across, along)


@dataclass(frozen=True, slots=True)
class _Faces:
    """Edge indices per node and face: ``down``/``up`` leave the bottom/top face (self-
    loops last in ``down``), ``left``/``right`` enter those faces, each in slot order."""

    down: list[list[int]]
    up: list[list[int]]
    left: list[list[int]]
    right: list[list[int]]
    loops: list[int]
    """Self-loops per node."""


def _faces(ends: Sequence[tuple[int, int]], rank: Sequence[int]) -> _Faces:
    """Which face each end takes, and the slot order of every face (see the module)."""
    count = len(rank)
    down: list[list[int]] = [[] for _ in range(count)]
    up: list[list[int]] = [[] for _ in range(count)]
    left: list[list[int]] = [[] for _ in range(count)]
    right: list[list[int]] = [[] for _ in range(count)]
    loops: dict[int, list[int]] = {}
    for k, (a, b) in enumerate(ends):
        if a == b:
            loops.setdefault(a, []).append(k)
        elif rank[a] < rank[b]:
            down[a].append(k)
            left[b].append(k)
        else:
            up[a].append(k)
            right[b].append(k)
    far_first = lambda k: (-rank[ends[k][1]], k)   # noqa: E731 - a sort key
    near_first = lambda k: (-rank[ends[k][0]], k)  # noqa: E731
    for lists, key in ((down, far_first), (up, far_first), (left, near_first),
                       (right, near_first)):
        for edges in lists:
            if len(edges) > 1:
                edges.sort(key=key)
    counts = [0] * count
    for v, mine in loops.items():
        down[v].extend(mine)
        right[v].extend(mine)
        counts[v] = len(mine)
    return _Faces(down, up, left, right, counts)


def staircase(graph: Graph, options: LayoutOptions) -> Routing:
    """The staircase layout of ``graph`` in the canonical frame; see the module."""
    index = {n.id: i for i, n in enumerate(graph.nodes)}
    count = len(graph.nodes)
    sizes = _sizes(graph, options)
    rank = _order(graph, index)
    spacing = options.edge_spacing
    margin = max(options.clearance, spacing, 2 * LABEL_GAP)
    ends = [(index[e.source], index[e.target]) for e in graph.edges]
    faces = _faces(ends, rank)
    shapes = [n.shape for n in graph.nodes]
    width, height = sizes.width, sizes.height
    down_fans = [_fan(faces.down[v], _face_offsets(width[v], height[v], shapes[v],
                                                   len(faces.down[v])),
                      width[v], sizes, spacing, margin, faces.loops[v])
                 if faces.down[v] else _NO_FAN for v in range(count)]
    up_fans = [_fan(faces.up[v], _face_offsets(width[v], height[v], shapes[v],
                                               len(faces.up[v])),
                    width[v], sizes, spacing, margin, 0)
               if faces.up[v] else _NO_FAN for v in range(count)]
    by_rank = sorted(range(count), key=rank.__getitem__)
    x = [0.0] * count
    y = [0.0] * count
    band_gap = max(options.node_spacing, margin)
    next_x = 0.0
    next_y = up_fans[by_rank[0]].extent if count else 0.0
    for r, v in enumerate(by_rank):
        x[v], y[v] = next_x, next_y
        band = max(sizes.width[v], down_fans[v].reach, up_fans[v].reach)
        next_x += band + band_gap
        following = up_fans[by_rank[r + 1]].extent if r + 1 < count else 0.0
        next_y += sizes.height[v] + max(options.layer_spacing, down_fans[v].extent + following)
    entry_slot = [0] * len(ends)
    for lists in (faces.left, faces.right):
        for slots in lists:
            for slot, k in enumerate(slots):
                entry_slot[k] = slot
    boxes = [NodeBox(n.id, x[v], y[v], sizes.width[v], sizes.height[v], n.shape)
             for v, n in enumerate(graph.nodes)]
    routes: list[EdgeRoute | None] = [None] * len(ends)
    for v in range(count):
        for fan, side in ((down_fans[v], Side.BOTTOM), (up_fans[v], Side.TOP)):
            _draw_fan(v, fan, side, boxes, ends, faces, entry_slot, sizes, graph, routes)
    last = by_rank[-1] if count else 0
    bottom = y[last] + height[last] + down_fans[last].extent if count else 0.0
    return Routing(tuple(boxes), tuple(r for r in routes if r is not None),
                   max(0.0, next_x - band_gap), bottom)


def _draw_fan(v: int, fan: _Fan, side: Side, boxes: Sequence[NodeBox],
              ends: Sequence[tuple[int, int]], faces: _Faces,
              entry_slot: Sequence[int], sizes: _Sizes, graph: Graph,
              routes: list[EdgeRoute | None]) -> None:
    """The routes of one fan (``side`` is the face it leaves)."""
    if not fan.edges:
        return
    box = boxes[v]
    going_down = side is Side.BOTTOM
    face = box.y + box.height if going_down else box.y
    rect = box.shape is Shape.RECT
    label_height, edges = sizes.label_height, graph.edges
    for j, (k, offset, depth, column_offset) in enumerate(
            zip(fan.edges, fan.offsets, fan.depths, fan.columns, strict=True)):
        b = ends[k][1]
        x = box.x + offset
        start = Point(x, face) if rect else _point(box, side, x)
        column = box.x + column_offset
        entry_side = Side.LEFT if going_down and b != v else Side.RIGHT
        slot = entry_slot[k]
        end = _entry(boxes[b], entry_side, slot,
                     len(faces.left[b] if entry_side is Side.LEFT else faces.right[b]))
        track = face + depth if going_down else face - depth
        if column == x:
            points: tuple[Point, ...] = (start, Point(column, end.y), end)
        else:
            points = (start, Point(x, track), Point(column, track), Point(column, end.y), end)
        label = None
        edge = edges[k]
        if label_height[k] > 0:
            lh = label_height[k]
            top = track - LABEL_GAP - lh if going_down else track + LABEL_GAP
            label = Box(x + LABEL_GAP, top, sizes.label_width[k], lh)
        routes[k] = EdgeRoute(edge.id, edge.source, edge.target, points,
                              _end(side, j), _end(entry_side, slot), label,
                              edge.loop_back or not going_down)


def _entry(target: NodeBox, side: Side, slot: int, count: int) -> Point:
    """Slot ``slot`` of ``count`` on the left or right face of ``target``."""
    if target.shape is Shape.RECT:
        along = target.y + target.height * (slot + 1) / (count + 1)
        return Point(target.x if side is Side.LEFT else target.x + target.width, along)
    return _point(target, side, slot_coordinate(target, side, count, slot))


@functools.lru_cache(maxsize=4096)
def _end(side: Side, slot: int) -> EdgeEnd:
    """One shared (immutable) :class:`EdgeEnd` per face and slot."""
    return EdgeEnd(side, slot)
