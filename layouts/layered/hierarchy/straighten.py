"""A step of a compound's level layout, before *compact borders*: move each border
dummy over the column its piece's first (last) bend leads to, so the piece runs straight
from the dummy and the edge makes one jog at the border (in the compound's border
strip, :mod:`.jogs`) instead of two (there and again just inside).

Placement centres a dummy over its neighbour, but the neighbour's face slots are spread
along the face, so the piece from an entering dummy is a *Z*: down, across to its slot's
column, down into the node. Moving the dummy to that column leaves the last run alone:
the route becomes that run extended up to the dummy. A move is taken only when the
extended run stays clear: it passes through no node and keeps ``clearance`` from every
node box, meets no other piece's segment (crossing it, or running beside it closer than
half the edge spacing) and no label box, and the dummies keep their order along the
border (the order the parent's routes meet the face, :mod:`.border_order`). Leaving
dummies are the mirror image (the piece's last bend, upwards).

Pre-condition: a routed level in the canonical frame, entering dummies on its first
layer, leaving ones on its last. Post-condition: the same routes, less the Z of every
piece whose dummy moved; every route contract that held still holds.

>>> from layouts.result import EdgeRoute, NodeBox, Point
>>> from layouts.layered.model import Routing
>>> r = Routing((NodeBox("in", 39.5, 0, 1, 1), NodeBox("a", 0, 60, 120, 40)),
...             (EdgeRoute("e", "in", "a", (Point(40, 1), Point(40, 30), Point(30, 30),
...                                         Point(30, 60))),), 120, 100)
>>> s = straighten_borders(r, frozenset({"in"}), frozenset(), 12, 12)
>>> s.nodes[0].x, s.edges[0].points
(29.5, (Point(x=30, y=1), Point(x=30, y=60)))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from layouts.layered.model import Routing
from layouts.result import EdgeRoute, NodeBox, Point

__all__ = ["straighten_borders"]

_EPS = 1e-6


@dataclass(frozen=True, slots=True)
class _Run:
    """A vertical run at ``x`` from ``top`` to ``bottom``."""

    x: float
    top: float
    bottom: float


def straighten_borders(routing: Routing, entering: frozenset[str], leaving: frozenset[str],
                       clearance: float, edge_spacing: float) -> Routing:
    """``routing`` with its border dummies moved over their pieces' bends (see the
    module docstring)."""
    if not entering and not leaving:
        return routing
    nodes = {n.id: n for n in routing.nodes}
    edges = list(routing.edges)
    spans = [_span(e) for e in edges]   # a move only shrinks a route: still a bound
    for dummies, inward in ((entering, True), (leaving, False)):
        order = sorted((nodes[d] for d in dummies if d in nodes), key=lambda n: n.x)
        pieces = _pieces(edges, dummies, inward)
        for i, dummy in enumerate(order):
            k = pieces.get(dummy.id)
            if k is None:
                continue
            moved = _straight(edges[k].points if inward else edges[k].points[::-1])
            if moved is None:
                continue
            points, run = moved
            left = nodes[order[i - 1].id].x if i else None
            right = order[i + 1].x if i + 1 < len(order) else None
            shift = run.x - (dummy.x + dummy.width / 2)
            if not _fits(dummy.x + shift, left, right, edge_spacing) or _blocked(
                    run, k, edges, spans, routing.nodes,
                    {dummy.id, edges[k].source, edges[k].target}, clearance, edge_spacing):
                continue
            nodes[dummy.id] = replace(dummy, x=dummy.x + shift)
            edges[k] = replace(edges[k], points=points if inward else points[::-1])
    return replace(routing, nodes=tuple(nodes[n.id] for n in routing.nodes),
                   edges=tuple(edges))


def _pieces(edges: Sequence[EdgeRoute], dummies: frozenset[str], inward: bool
            ) -> dict[str, int]:
    """Per dummy, the index of the one route that starts (``inward``) or ends at it."""
    found: dict[str, list[int]] = {}
    for i, e in enumerate(edges):
        end = e.source if inward else e.target
        if end in dummies:
            found.setdefault(end, []).append(i)
    return {d: ks[0] for d, ks in found.items() if len(ks) == 1}


def _straight(points: Sequence[Point]) -> tuple[tuple[Point, ...], _Run] | None:
    """A route from its dummy with its first Z taken out (the dummy moved to the Z's
    second column), and the new run from the dummy; ``None`` when it does not start
    with a Z (along the flow, across, along the flow again: down for an entering
    dummy's piece, up for a leaving one's read backwards)."""
    if len(points) < 4:
        return None
    p0, p1, p2, p3 = points[:4]
    sign = 1.0 if p1.y > p0.y else -1.0
    along = abs(p0.x - p1.x) < _EPS and abs(p1.y - p0.y) > _EPS
    across = abs(p1.y - p2.y) < _EPS and abs(p1.x - p2.x) > _EPS
    then_along = abs(p2.x - p3.x) < _EPS and (p3.y - p2.y) * sign > _EPS
    if not (along and across and then_along):
        return None
    start = Point(p2.x, p0.y)
    return (start, *points[3:]), _Run(p2.x, min(p0.y, p2.y), max(p0.y, p2.y))


def _fits(new_x: float, left: float | None, right: float | None, spacing: float) -> bool:
    """Whether the dummy at ``new_x`` keeps its place between its neighbours."""
    return ((left is None or new_x >= left + spacing / 2)
            and (right is None or new_x <= right - spacing / 2))


def _span(route: EdgeRoute) -> tuple[float, float, float, float]:
    """The bounding box of a route's points and label box: (x0, y0, x1, y1)."""
    xs = [p.x for p in route.points]
    ys = [p.y for p in route.points]
    if (b := route.label_box) is not None:
        xs += [b.x, b.right]
        ys += [b.y, b.bottom]
    return min(xs), min(ys), max(xs), max(ys)


def _blocked(run: _Run, own: int, edges: Sequence[EdgeRoute],
             spans: Sequence[tuple[float, float, float, float]], boxes: Sequence[NodeBox],
             ends: set[str], clearance: float, spacing: float) -> bool:
    """Whether the new part of the run meets a node (within ``clearance``), another
    route's segment or label box."""
    for n in boxes:
        if n.id in ends:
            continue
        if (n.x - clearance < run.x < n.x + n.width + clearance
                and n.y - clearance < run.bottom and run.top < n.y + n.height + clearance):
            return True
    reach = spacing / 2 + _EPS
    for i, route in enumerate(edges):
        x0, y0, x1, y1 = spans[i]
        if i == own or x1 < run.x - reach or x0 > run.x + reach or y1 < run.top - _EPS \
                or y0 > run.bottom + _EPS:
            continue
        label = route.label_box
        if label is not None and label.x < run.x < label.right and label.y < run.bottom \
                and run.top < label.bottom:
            return True
        for p, q in zip(route.points, route.points[1:], strict=False):
            if _meets(run, p, q, spacing):
                return True
    return False


def _meets(run: _Run, p: Point, q: Point, spacing: float) -> bool:
    """Whether segment ``p``-``q`` crosses or touches the run, or runs beside it within
    half the edge spacing."""
    if abs(p.y - q.y) < _EPS:   # horizontal
        return (run.top - _EPS <= p.y <= run.bottom + _EPS
                and min(p.x, q.x) - _EPS <= run.x <= max(p.x, q.x) + _EPS)
    top, bottom = min(p.y, q.y), max(p.y, q.y)
    return abs(p.x - run.x) < spacing / 2 and top < run.bottom and run.top < bottom
