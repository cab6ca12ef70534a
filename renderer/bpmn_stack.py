"""BPMN scopes stacked after the layout: pools one under the other, as BPMN tools draw
them, then the content of each sub-process, every frame starting at the same x.

The layout sees one flat graph in which each scope is a component (message flows tie
pools together), so frames laid out side by side may overlap. Here each scope's nodes
and the routes inside it move as one block below the previous frame
(:data:`SCOPE_GAP` apart); a message flow between two pools is routed again: out of
its source's bottom (top), across in the gap under (over) the source's pool, and into
its target's top (bottom).

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.result import Diagnostics, LayoutResult, NodeBox
>>> from renderer.bpmn_model import BpmnModel, Scope, ScopeKind
>>> pools = (Scope("A", ScopeKind.PARTICIPANT, "A", ("a",)),
...          Scope("B", ScopeKind.PARTICIPANT, "B", ("b",)))
>>> model = BpmnModel(b"", pools, collaboration_id="c", flow_ends={"m": ("a", "b")})
>>> graph = Graph((Node("a", 100, 80), Node("b", 100, 80)), (Edge("m", "a", "b"),))
>>> result = LayoutResult((NodeBox("a", 0, 0, 100, 80), NodeBox("b", 0, 40, 100, 80)),
...     (), 100, 120, Diagnostics("hand", "draft", "LeftToRight"))
>>> stacked = stack_scopes(Diagram("d", graph, bpmn=model), result)
>>> stacked.node("a").y, stacked.node("b").y   # b: below a's frame (0 + 80 + 30) + 40 + 30
(0.0, 180.0)
"""

from __future__ import annotations

from dataclasses import replace

from layouts.geometry import side_of
from layouts.graph import Edge
from layouts.providers._common import label_box
from layouts.result import Box, EdgeEnd, EdgeRoute, LayoutResult, NodeBox, Point
from renderer.bpmn_frames import scope_frame
from renderer.bpmn_lanes import GAP_FALLBACK, free_gaps
from renderer.bpmn_model import Scope, expanded_ids
from renderer.diagram import Diagram

SCOPE_GAP = 40.0


def stack_scopes(diagram: Diagram, result: LayoutResult) -> LayoutResult:
    """``result`` with the scopes of a BPMN ``diagram`` stacked (unchanged otherwise)."""
    model = diagram.bpmn
    if model is None:
        return result
    expanded = expanded_ids(diagram.graph.all_nodes())
    scopes = (*model.main_scopes, *(s for s in model.sub_scopes if s.id not in expanded))
    if len(scopes) < 2:
        return result
    scope_of = {node_id: i for i, s in enumerate(scopes) for node_id in s.node_ids}
    scope_of.update({lane.id: i for i, s in enumerate(scopes) for lane in s.all_lanes()})
    parents = {n.id: n.parent for n in result.nodes}
    for node_id in parents:  # an expanded sub-process's content moves with its scope
        ancestor = node_id
        while ancestor not in scope_of and parents.get(ancestor) is not None:
            ancestor = str(parents[ancestor])
        if ancestor in scope_of:
            scope_of[node_id] = scope_of[ancestor]
    boxes = {n.id: n for n in result.nodes}
    moves: dict[int, Point] = {}
    frames: dict[int, Box] = {}
    left, top = None, 0.0
    for i, scope in enumerate(scopes):
        frame = scope_frame(scope, boxes, result.edges)
        if frame is None:
            continue
        left = frame.box.x if left is None else left
        move = Point(left - frame.box.x, top - frame.box.y if frames else 0.0)
        moves[i] = move
        frames[i] = _moved_box(frame.box, move)
        top = frames[i].bottom + SCOPE_GAP
    nodes = tuple(_moved_node(n, moves.get(scope_of.get(n.id, -1), Point(0, 0)))
                  for n in result.nodes)
    nodes = _widened(nodes, {s.id for s in scopes if s.black_box}, list(frames.values()))
    placed = {n.id: n for n in nodes}
    edges = tuple(_moved_route(route, diagram, scope_of, moves, frames, placed)
                  for route in result.edges)
    edges += tuple(_detached_route(edge, scope_of, frames, placed, model.main_scopes)
                   for edge in model.detached_edges
                   if edge.source in placed and edge.target in placed)
    xs = [v for n in nodes for v in (n.x, n.x + n.width)] + [p.x for e in edges for p in e.points]
    ys = [v for n in nodes for v in (n.y, n.y + n.height)] + [p.y for e in edges for p in e.points]
    return replace(result, nodes=nodes, edges=edges, width=max(xs) - min(0.0, min(xs)),
                   height=max(ys) - min(0.0, min(ys)))


def _widened(nodes: tuple[NodeBox, ...], black_boxes: set[str], frames: list[Box]
             ) -> tuple[NodeBox, ...]:
    """Black-box pools as wide as the stack of frames, from its left edge."""
    others = [f for f in frames if f.width > 0]
    if not black_boxes or not others:
        return nodes
    left = min(f.x for f in others)
    right = max(f.right for f in others)
    return tuple(replace(n, x=left, width=max(n.width, right - left)) if n.id in black_boxes
                 else n for n in nodes)


def _moved_box(box: Box, move: Point) -> Box:
    return Box(box.x + move.x, box.y + move.y, box.width, box.height)


def _moved_node(node: NodeBox, move: Point) -> NodeBox:
    return replace(node, x=node.x + move.x, y=node.y + move.y)


def _moved_route(route: EdgeRoute, diagram: Diagram, scope_of: dict[str, int],
                 moves: dict[int, Point], frames: dict[int, Box],
                 placed: dict[str, NodeBox]) -> EdgeRoute:
    source_scope = scope_of.get(route.source, -1)
    target_scope = scope_of.get(route.target, -1)
    if source_scope == target_scope:
        move = moves.get(source_scope, Point(0, 0))
        box = route.label_box
        return replace(route, points=tuple(Point(p.x + move.x, p.y + move.y)
                                           for p in route.points),
                       label_box=None if box is None else _moved_box(box, move))
    source, target = placed[route.source], placed[route.target]
    frame = frames.get(source_scope)
    pools = {s.id for s in (diagram.bpmn.main_scopes if diagram.bpmn else ()) if s.black_box}
    points = between_scopes(source, target, frame, source.id in pools, target.id in pools)
    edge = next(e for e in diagram.graph.edges if e.id == route.id)
    return replace(route, points=points, source_end=EdgeEnd(side_of(source, points[0])),
                   target_end=EdgeEnd(side_of(target, points[-1])),
                   label_box=label_box(edge, None, points))


def _detached_route(edge: Edge, scope_of: dict[str, int], frames: dict[int, Box],
                    placed: dict[str, NodeBox], scopes: tuple[Scope, ...]) -> EdgeRoute:
    """The route of a message flow to or from a black-box pool, between the pools."""
    pools = {s.id for s in scopes if s.black_box}
    source, target = placed[edge.source], placed[edge.target]
    if (source.id in pools) != (target.id in pools):
        node = target if source.id in pools else source
        lanes = {lane.id for s in scopes for lane in s.all_lanes()}
        home = scope_of.get(node.id, -1)
        neighbours = [b for b in placed.values() if scope_of.get(b.id) == home
                      and b.parent is None and b.id not in lanes]
        points = pool_route(node, source if source.id in pools else target, neighbours,
                            leaving=node is source)
    else:
        points = between_scopes(source, target, frames.get(scope_of.get(edge.source, -1)),
                                source.id in pools, target.id in pools)
    return EdgeRoute(edge.id, edge.source, edge.target, points,
                     EdgeEnd(side_of(source, points[0])), EdgeEnd(side_of(target, points[-1])),
                     label_box(edge, None, points))


def pool_route(node: NodeBox, pool: NodeBox, neighbours: list[NodeBox], *, leaving: bool
               ) -> tuple[Point, ...]:
    """A message flow between ``node`` and a black-box ``pool`` that crosses no node of
    ``node``'s pool (``neighbours``): out of the node's right side (``leaving``) or into
    its left side, turning in the free column gap next to it (:func:`free_gaps`; no node
    covers those x), and straight on to the pool's border.

    >>> from layouts.result import NodeBox
    >>> a, b = NodeBox("a", 0, 0, 100, 80), NodeBox("b", 0, 120, 100, 80)
    >>> pool_route(a, NodeBox("p", -50, 300, 600, 60), [a, b, NodeBox("c", 150, 0, 50, 50)],
    ...            leaving=True)   # b is under a: the flow turns in the gap 100..150
    (Point(x=100, y=40.0), Point(x=125.0, y=40.0), Point(x=125.0, y=300))
    """
    gaps = free_gaps(neighbours)
    below = pool.y >= node.y + node.height
    border = pool.y if below else pool.y + pool.height
    if leaving:
        after = [(g0 + g1) / 2 for g0, g1 in gaps if g0 >= node.x + node.width - 0.01]
        x = after[0] if after else node.x + node.width + GAP_FALLBACK
        start = Point(node.x + node.width, node.center.y)
        return (start, Point(x, start.y), Point(x, border))
    before = [(g0 + g1) / 2 for g0, g1 in gaps if g1 <= node.x + 0.01]
    x = before[-1] if before else node.x - GAP_FALLBACK
    end = Point(node.x, node.center.y)
    return (Point(x, border), Point(x, end.y), end)


def between_scopes(source: NodeBox, target: NodeBox, frame: Box | None,
                   source_pool: bool = False, target_pool: bool = False
                   ) -> tuple[Point, ...]:
    """An orthogonal route from ``source`` to ``target`` in another pool, turning in the
    gap next to the source's pool ``frame``. An end at a black-box pool (``source_pool``,
    ``target_pool``) meets the pool's border straight across from the other end.

    >>> from layouts.result import NodeBox
    >>> between_scopes(NodeBox("a", 0, 0, 100, 80), NodeBox("p", -50, 200, 600, 60), None,
    ...                target_pool=True)
    (Point(x=50.0, y=80), Point(x=50.0, y=200))
    """
    down = target.center.y >= source.center.y
    source_x, target_x = source.center.x, target.center.x
    if target_pool:
        target_x = min(max(source_x, target.x), target.x + target.width)
    elif source_pool:
        source_x = min(max(target_x, source.x), source.x + source.width)
    start = Point(source_x, source.y + source.height if down else source.y)
    end = Point(target_x, target.y if down else target.y + target.height)
    if frame is None:
        middle = (start.y + end.y) / 2
    else:
        middle = frame.bottom + SCOPE_GAP / 2 if down else frame.y - SCOPE_GAP / 2
    if abs(start.x - end.x) < 1e-9:
        return (start, end)
    return (start, Point(start.x, middle), Point(end.x, middle), end)
