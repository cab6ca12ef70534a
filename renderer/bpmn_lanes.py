"""BPMN lanes as bands of their pool, after the layout, as BPMN tools draw them.

The engine lays a pool's flow nodes out as usual (left to right); then every leaf lane
becomes a band across the whole pool, stacked in document order, and each lane's nodes
move as one block (their relative places kept) into the middle of their band:

- band height = the lane's content height + 2 x :data:`LANE_PADDING`, at least
  :data:`MIN_LANE_HEIGHT` (an empty lane gets that);
- a lane at nesting depth ``d`` (1 = top level) starts ``d`` name bands
  (:data:`~renderer.bpmn_frames.NAME_BAND`) right of the pool's left edge and ends at the
  pool's right edge; a parent lane spans its children's bands;
- every lane's box is added to the result as a node (id = the lane's id), so the pool
  frame, the SVG and the BPMN DI writer all read the same boxes.

A flow whose ends stay in one lane keeps its route (moved with the lane) when that route
stays inside the band and crosses no node; every other flow of the pool is routed again
orthogonally: out of its source's right side into the first free column gap, along a
lane border (where no node can be: nodes keep :data:`LANE_PADDING` from it), down the
free column gap before its target and into the target's left side. Column gaps are the
x ranges no node of the pool covers, so those vertical legs cross no node. For
TopToBottom and BottomToTop drawings the same is done transposed (lanes are columns).

Nodes in no lane of a pool that has lanes (data objects, annotations) go to the lane of
the first node they are joined to, else the first lane.

>>> from layouts.graph import Graph, Node
>>> from layouts.result import Diagnostics, LayoutResult, NodeBox
>>> from renderer.bpmn_model import BpmnModel, Lane, Scope, ScopeKind
>>> lanes = (Lane("L1", "Sales", ("a",)), Lane("L2", "Billing", ("b",)))
>>> model = BpmnModel(b"", (Scope("P", ScopeKind.PARTICIPANT, "Shop", ("a", "b"),
...                           lanes=lanes),), collaboration_id="c")
>>> result = LayoutResult((NodeBox("a", 0, 0, 100, 80), NodeBox("b", 150, 0, 100, 80)),
...                       (), 250, 80, Diagnostics("hand", "draft", "LeftToRight"))
>>> graph = Graph((Node("a", 100, 80), Node("b", 100, 80)))
>>> banded = band_lanes(Diagram("d", graph, bpmn=model), result)
>>> [(n.id, n.y) for n in banded.nodes]   # b below a's band (0 - 30 + 140) + 30
[('a', 0.0), ('b', 140.0), ('L1', -30.0), ('L2', 110.0)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from layouts.graph import Edge
from layouts.layered.frame import TRANSPOSED_SIDE
from layouts.providers._common import label_box
from layouts.result import Box, EdgeEnd, EdgeRoute, LayoutResult, NodeBox, Point, Side
from renderer.bpmn_frames import FRAME_MARGIN, NAME_BAND
from renderer.bpmn_model import Lane, Scope
from renderer.diagram import Diagram

LANE_PADDING = 30.0
MIN_LANE_HEIGHT = 100.0
GAP_FALLBACK = 20.0
"""How far past the last column (or before the first) a route turns when no gap is free."""

_VERTICAL = frozenset({"TopToBottom", "BottomToTop"})


@dataclass(frozen=True, slots=True)
class _Band:
    lane: Lane
    top: float
    height: float
    move: float


def band_lanes(diagram: Diagram, result: LayoutResult) -> LayoutResult:
    """``result`` with the lanes of every scope of a BPMN ``diagram`` drawn as bands (see
    the module docstring); unchanged for other diagrams."""
    model = diagram.bpmn
    if model is None or not any(scope.lanes for scope in model.main_scopes):
        return result
    edges = diagram.graph.edges
    vertical = result.diagnostics.direction in _VERTICAL
    work = _transposed(result) if vertical else result
    for scope in model.main_scopes:
        if scope.lanes:
            work = _band_scope(scope, edges, work)
    return _transposed(work) if vertical else work


def _lane_of(scope: Scope, result: LayoutResult) -> dict[str, int]:
    """Each root-level node of the scope -> the index of its leaf lane."""
    leaves = [leaf for top in scope.lanes for leaf in top.leaves()]
    home = {node_id: i for i, leaf in enumerate(leaves) for node_id in leaf.node_ids}
    members = set(scope.node_ids)
    for _ in range(2):   # artifacts: the lane of a node they are joined to
        for route in result.edges:
            for a, b in ((route.source, route.target), (route.target, route.source)):
                if a in members and a not in home and b in home:
                    home[a] = home[b]
    return {node_id: home.get(node_id, 0) for node_id in scope.node_ids}


def _descendants(result: LayoutResult) -> dict[str, str]:
    """Each node inside a compound node -> its root-level ancestor."""
    parents = {n.id: n.parent for n in result.nodes}
    out = {}
    for node_id in parents:
        at = node_id
        while parents.get(at) is not None:
            at = str(parents[at])
        out[node_id] = at
    return out


def _band_scope(scope: Scope, edges: Sequence[Edge], result: LayoutResult) -> LayoutResult:
    lane_of = _lane_of(scope, result)
    root_of = _descendants(result)
    boxes = {n.id: n for n in result.nodes}
    leaves = [leaf for top in scope.lanes for leaf in top.leaves()]
    placed = [n for n in result.nodes if root_of[n.id] in lane_of]
    if not placed:
        return result
    bands = _bands(leaves, lane_of, boxes, min(n.y for n in placed) - LANE_PADDING)
    nodes = tuple(replace(n, y=n.y + bands[lane_of[root_of[n.id]]].move)
                  if root_of[n.id] in lane_of else n for n in result.nodes)
    moved = {n.id: n for n in nodes}
    scope_boxes = [moved[n.id] for n in placed]
    left = min(n.x for n in scope_boxes) - FRAME_MARGIN
    right = max(n.x + n.width for n in scope_boxes) + FRAME_MARGIN
    lane_boxes = _lane_boxes(scope.lanes, bands, left, right)
    by_edge = {e.id: e for e in edges}
    routes = tuple(_route(r, lane_of, root_of, bands, moved, scope_boxes, by_edge)
                   for r in result.edges)
    all_nodes = (*nodes, *lane_boxes)
    return replace(result, nodes=all_nodes, edges=routes,
                   width=max(result.width, max(n.x + n.width for n in all_nodes)),
                   height=max(result.height, max(n.y + n.height for n in all_nodes)),
                   _index={})


def _bands(leaves: list[Lane], lane_of: Mapping[str, int], boxes: Mapping[str, NodeBox],
           top: float) -> list[_Band]:
    bands = []
    for i, leaf in enumerate(leaves):
        content = [boxes[n] for n, lane in lane_of.items() if lane == i and n in boxes]
        if content:
            low, high = min(b.y for b in content), max(b.y + b.height for b in content)
        else:
            low = high = 0.0
        height = max(high - low + 2 * LANE_PADDING, MIN_LANE_HEIGHT)
        move = top + (height - (high - low)) / 2 - low
        bands.append(_Band(leaf, top, height, move))
        top += height
    return bands


def _lane_boxes(lanes: Sequence[Lane], bands: list[_Band], left: float, right: float
                ) -> list[NodeBox]:
    """A node box per lane (parents first), parents spanning their children's bands."""
    pool_x = left - NAME_BAND * (_max_depth(lanes) + 1)
    spans = {band.lane.id: (band.top, band.top + band.height) for band in bands}
    out: list[NodeBox] = []

    def span(lane: Lane) -> tuple[float, float]:
        if not lane.children:
            return spans[lane.id]
        parts = [span(child) for child in lane.children]
        return min(p[0] for p in parts), max(p[1] for p in parts)

    def visit(lane: Lane, level: int) -> None:
        top, bottom = span(lane)
        x = pool_x + NAME_BAND * level
        out.append(NodeBox(lane.id, x, top, right - x, bottom - top))
        for child in lane.children:
            visit(child, level + 1)

    for lane in lanes:
        visit(lane, 1)
    return out


def _max_depth(lanes: Iterable[Lane]) -> int:
    return max((1 + _max_depth(lane.children) for lane in lanes), default=0)


def _route(route: EdgeRoute, lane_of: Mapping[str, int], root_of: Mapping[str, str],
           bands: list[_Band], moved: Mapping[str, NodeBox], scope_boxes: list[NodeBox],
           edges: Mapping[str, Edge]) -> EdgeRoute:
    source, target = root_of.get(route.source, ""), root_of.get(route.target, "")
    if source not in lane_of or target not in lane_of:   # another pool's, or leaves it
        return route
    a, b = lane_of[source], lane_of[target]
    if a == b:
        shifted = _shifted(route, bands[a].move)
        if _stays(shifted, bands[a], moved, scope_boxes):
            return shifted
    points = _gap_route(moved[route.source], moved[route.target], bands[a], bands[b],
                        scope_boxes)
    edge = edges.get(route.id)
    return replace(route, points=points, source_end=EdgeEnd(Side.RIGHT),
                   target_end=EdgeEnd(Side.LEFT),
                   label_box=label_box(edge, None, points) if edge is not None else None)


def _shifted(route: EdgeRoute, dy: float) -> EdgeRoute:
    box = route.label_box
    return replace(route, points=tuple(Point(p.x, p.y + dy) for p in route.points),
                   label_box=None if box is None else Box(box.x, box.y + dy, box.width,
                                                          box.height))


def _stays(route: EdgeRoute, band: _Band, moved: Mapping[str, NodeBox],
           scope_boxes: list[NodeBox]) -> bool:
    """Whether the route stays in its band and crosses no node but its ends."""
    if any(not band.top <= p.y <= band.top + band.height for p in route.points):
        return False
    others = [b for b in scope_boxes if b.id not in (route.source, route.target)
              and b.parent is None]
    return not any(_crosses(p, q, box) for p, q in zip(route.points, route.points[1:], strict=False)
                   for box in others)


def _crosses(p: Point, q: Point, box: NodeBox) -> bool:
    """Whether the axis-parallel segment ``p``-``q`` enters ``box``'s interior."""
    x0, x1 = sorted((p.x, q.x))
    y0, y1 = sorted((p.y, q.y))
    return x0 < box.x + box.width and x1 > box.x and y0 < box.y + box.height and y1 > box.y


def free_gaps(boxes: list[NodeBox]) -> list[tuple[float, float]]:
    """The x ranges between the boxes' x extents, left to right."""
    spans = sorted((b.x, b.x + b.width) for b in boxes)
    gaps = []
    reach = spans[0][1]
    for x0, x1 in spans[1:]:
        if x0 > reach:
            gaps.append((reach, x0))
        reach = max(reach, x1)
    return gaps


def _gap_route(source: NodeBox, target: NodeBox, from_band: _Band, to_band: _Band,
               boxes: list[NodeBox]) -> tuple[Point, ...]:
    gaps = free_gaps([b for b in boxes if b.parent is None])
    start = Point(source.x + source.width, source.center.y)
    end = Point(target.x, target.center.y)
    after = [(g0 + g1) / 2 for g0, g1 in gaps if g0 >= start.x - 0.01]
    before = [(g0 + g1) / 2 for g0, g1 in gaps if g1 <= end.x + 0.01]
    x1 = after[0] if after else start.x + GAP_FALLBACK
    x2 = before[-1] if before else end.x - GAP_FALLBACK
    if abs(x1 - x2) < 0.01 and (after or before):
        points = [start, Point(x1, start.y), Point(x1, end.y), end]
    else:
        if to_band is from_band:
            border = to_band.top + to_band.height - LANE_PADDING / 2
        elif to_band.top > from_band.top:
            border = to_band.top
        else:
            border = to_band.top + to_band.height
        points = [start, Point(x1, start.y), Point(x1, border), Point(x2, border),
                  Point(x2, end.y), end]
    return _simplified(points)


def _simplified(points: list[Point]) -> tuple[Point, ...]:
    """Without repeated points and the middle of three collinear ones."""
    out: list[Point] = []
    for p in points:
        if out and abs(out[-1].x - p.x) < 1e-9 and abs(out[-1].y - p.y) < 1e-9:
            continue
        if len(out) >= 2 and _collinear(out[-2], out[-1], p):
            out[-1] = p
            continue
        out.append(p)
    return tuple(out)


def _collinear(a: Point, b: Point, c: Point) -> bool:
    return (abs(a.x - b.x) < 1e-9 and abs(b.x - c.x) < 1e-9) or \
        (abs(a.y - b.y) < 1e-9 and abs(b.y - c.y) < 1e-9)


def _transposed(result: LayoutResult) -> LayoutResult:
    """``result`` mirrored on its diagonal (x and y swapped everywhere)."""
    def box(b: Box | None) -> Box | None:
        return None if b is None else Box(b.y, b.x, b.height, b.width)

    def end(e: EdgeEnd) -> EdgeEnd:
        return EdgeEnd(None if e.side is None else TRANSPOSED_SIDE[e.side], e.slot)

    nodes = tuple(replace(n, x=n.y, y=n.x, width=n.height, height=n.width,
                          label_box=box(n.label_box)) for n in result.nodes)
    edges = tuple(replace(r, points=tuple(Point(p.y, p.x) for p in r.points),
                          source_end=end(r.source_end), target_end=end(r.target_end),
                          label_box=box(r.label_box),
                          junction_points=tuple(Point(p.y, p.x) for p in r.junction_points))
                  for r in result.edges)
    return replace(result, nodes=nodes, edges=edges, width=result.height,
                   height=result.width, _index={})
