"""Fans: a gateway's outgoing edges share one short trunk from the bottom tip of the
diamond and split there symmetrically, on one line; a join's incoming edges meet on one
line and share one trunk into its top tip (the merged edges of ELK and dot). Canonical
frame (top to bottom), after cycle breaking is undone.

A diamond's bottom face is *fanned* when every end on it is a forward edge leaving the
diamond that runs straight down from its slot and then turns along a channel track (or
already leaves from the tip, straight down). Each such route then starts at the tip
(slot 0 of the one slot the face now uses: the tip is on the true outline), runs down
the trunk to the nearest of their tracks (the split line) and along that line to where
it turned before. The top face of a join is fanned in the mirror image. A fan is kept
only when its routes cross and overlap no more of the other routes than before, clear
every node by ``clearance`` and leave each of their labels nearer its own route than any
other (checked against the routes whose bounding boxes meet the fan's; only the
segments the fan changes are compared, since the others meet the other routes as
before); otherwise the diamond keeps its spread ends.

>>> from layouts.graph import Shape
>>> from layouts.result import EdgeEnd, Side
>>> g = NodeBox("g", 80, 0, 80, 40, Shape.DIAMOND)
>>> b, c = NodeBox("b", 0, 100, 100, 40), NodeBox("c", 140, 100, 100, 40)
>>> e1 = EdgeRoute("e1", "g", "b", (Point(106.7, 33.3), Point(106.7, 70), Point(50, 70),
...                Point(50, 100)), EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0))
>>> e2 = EdgeRoute("e2", "g", "c", (Point(133.3, 33.3), Point(133.3, 70), Point(190, 70),
...                Point(190, 100)), EdgeEnd(Side.BOTTOM, 1), EdgeEnd(Side.TOP, 0))
>>> fanned = run(Routing((g, b, c), (e1, e2), 240, 140), clearance=12)
>>> [r.points for r in fanned.edges][0]     # tip (120, 40), trunk of 30, split at y = 70
(Point(x=120.0, y=40), Point(x=120.0, y=70), Point(x=50, y=70), Point(x=50, y=100))
>>> [(r.source_end.slot, r.points[0]) for r in fanned.edges][1]
(0, Point(x=120.0, y=40))
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import pairwise

from layouts.graph import Shape
from layouts.layered.contracts.segments import on_one_line
from layouts.layered.contracts.violations import TOLERANCE
from layouts.layered.fan_rule import FanEnd, fannable
from layouts.layered.model import Routing
from layouts.layered.routing.node_bands import ID, NodeBands
from layouts.layered.routing.segment_index import HAIR, polyline_segments
from layouts.quality_geometry import Segment, intrudes, segment_box_distance, segment_relation
from layouts.result import Box, EdgeEnd, EdgeRoute, NodeBox, Point, Side

SAME = 1e-6
_Bounds = tuple[float, float, float, float]

__all__ = ["FanEnd", "fannable", "run"]


def run(routing: Routing, clearance: float) -> Routing:
    """``routing`` with every diamond face that can be fanned fanned (see the module); a
    drawing with ports keeps its routes (their ends are the ports' points and stubs)."""
    if routing.ports:
        return routing
    boxes = {n.id: n for n in routing.nodes}
    ends: dict[tuple[str, Side | None], list[tuple[int, bool]]] = defaultdict(list)
    for i, route in enumerate(routing.edges):
        ends[(route.source, route.source_end.side)].append((i, True))
        ends[(route.target, route.target_end.side)].append((i, False))
    near = _Near(list(routing.edges), routing.nodes)
    routes = near.routes
    for node in routing.nodes:
        if node.shape is not Shape.DIAMOND:
            continue
        for side, outgoing in ((Side.BOTTOM, True), (Side.TOP, False)):
            members = ends.get((node.id, side), [])
            if len(members) < 2 or any(leaving != outgoing for _, leaving in members):
                continue
            keys = [i for i, _ in members]
            fanned = _fan(node, [routes[i] for i in keys], outgoing)
            if fanned is not None and _acceptable(keys, routes, fanned, near, boxes,
                                                  clearance):
                for key, route in zip(keys, fanned, strict=True):
                    near.replace(key, route)
    return replace(routing, edges=tuple(routes))


class _Near:
    """The other routes a fan is weighed against, found by their bounding boxes, filed
    in horizontal bands (a fan and its labels are local; most drawings have no diamond
    face to fan, so nothing is filed before a fan is first weighed), and the nodes'
    bands."""

    def __init__(self, routes: list[EdgeRoute], nodes: Sequence[NodeBox]) -> None:
        self.routes = routes
        self._nodes = nodes
        self._bounds: list[tuple[float, float, float, float]] = []
        self._bands: dict[int, list[int]] = {}
        self._band = 0.0
        self._first, self._last = 0, -1
        self._pieces: dict[int, list[tuple[Segment, _Bounds]]] = {}
        self._node_bands: NodeBands | None = None

    def node_bands(self) -> NodeBands:
        """The nodes filed in bands (a filter: the tests on what it finds are exact)."""
        if self._node_bands is None:
            self._node_bands = NodeBands(self._nodes)
        return self._node_bands

    def replace(self, key: int, route: EdgeRoute) -> None:
        """Route ``key`` is now ``route``."""
        self.routes[key] = route
        self._pieces.pop(key, None)
        if self._band:
            for band in self._spanned(self._bounds[key]):
                self._bands[band].remove(key)
            self._bounds[key] = _bounds(route.points)
            self._file(key)

    def segments(self, key: int) -> list[tuple[Segment, _Bounds]]:
        """Route ``key``'s segments, each with its bounds."""
        pieces = self._pieces.get(key)
        if pieces is None:
            pieces = self._pieces[key] = [(t, t.bounds()) for t in
                                          polyline_segments(self.routes[key].points)]
        return pieces

    def routes_meeting(self, box: tuple[float, float, float, float], skip: set[int]
                       ) -> list[int]:
        """Keys of the routes not in ``skip`` whose bounding box meets ``box`` (closed,
        grown by a hair), in order."""
        if not self._band:
            self._filed()
        found = {k for band in self._spanned(box) for k in self._bands.get(band, ())}
        x0, y0, x1, y1 = box
        bounds = self._bounds
        return [k for k in sorted(found) if k not in skip and _meet(bounds[k], x0, y0, x1, y1)]

    def segments_meeting(self, box: tuple[float, float, float, float], skip: set[int]
                         ) -> list[Segment]:
        """The segments of the routes not in ``skip`` whose bounds meet ``box``."""
        x0, y0, x1, y1 = box
        return [t for k in self.routes_meeting(box, skip) for t, b in self.segments(k)
                if _meet(b, x0, y0, x1, y1)]

    def _filed(self) -> None:
        self._bounds = [_bounds(r.points) for r in self.routes]
        top = min((b[1] for b in self._bounds), default=0.0)
        bottom = max((b[3] for b in self._bounds), default=1.0)
        self._band = max(1.0, (bottom - top) / math.sqrt(max(1, len(self._bounds))))
        self._first = self._last = math.floor(top / self._band)
        for key in range(len(self._bounds)):
            self._file(key)

    def _file(self, key: int) -> None:
        for band in self._spanned(self._bounds[key], clamp=False):
            self._bands.setdefault(band, []).append(key)
            self._first, self._last = min(self._first, band), max(self._last, band)

    def _spanned(self, box: tuple[float, float, float, float], *, clamp: bool = True
                 ) -> range:
        """The bands ``box`` spans (``clamp``: only those that may hold a route)."""
        low, high = box[1] - HAIR, box[3] + HAIR
        first = math.floor(low / self._band) if math.isfinite(low) else self._first
        last = math.floor(high / self._band) if math.isfinite(high) else self._last
        if clamp:
            first, last = max(first, self._first), min(last, self._last)
        return range(first, last + 1)


def _bounds(points: Sequence[Point]) -> tuple[float, float, float, float]:
    xs, ys = [p.x for p in points], [p.y for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def _meet(b: tuple[float, float, float, float], x0: float, y0: float, x1: float, y1: float
          ) -> bool:
    return b[0] <= x1 + HAIR and x0 <= b[2] + HAIR and b[1] <= y1 + HAIR and \
        y0 <= b[3] + HAIR


def _fan_end(route: EdgeRoute, path: Sequence[Point], tip: Point, outgoing: bool) -> FanEnd:
    """The :class:`FanEnd` of ``route`` (``path`` runs from its end on the face)."""
    if route.loop_back or len(path) < 2:
        return FanEnd(False, False, False)
    first, second = path[0], path[1]
    straight = abs(second.x - first.x) <= SAME and (second.y - first.y) * \
        (1 if outgoing else -1) > SAME
    turns = len(path) >= 4 and abs(path[2].y - second.y) <= SAME
    return FanEnd(straight, abs(first.x - tip.x) <= SAME, turns)


def _fan(node: NodeBox, members: Sequence[EdgeRoute], outgoing: bool
         ) -> list[EdgeRoute] | None:
    """The members routed through one trunk at ``node``'s tip, or ``None`` when the face
    is not :func:`fannable`."""
    tip = Point(node.x + node.width / 2, node.y + node.height if outgoing else node.y)
    paths = [list(r.points) if outgoing else list(reversed(r.points)) for r in members]
    ends = [_fan_end(r, path, tip, outgoing) for r, path in zip(members, paths, strict=True)]
    if any(r.loop_back for r in members) or not fannable(ends):
        return None
    turns = [path[1].y for path, end in zip(paths, ends, strict=True) if not end.at_tip]
    split = min(turns) if outgoing else max(turns)
    fanned = []
    for route, path in zip(members, paths, strict=True):
        if abs(path[0].x - tip.x) <= SAME:
            new = [tip, *path[1:]]
        else:
            new = [tip, Point(tip.x, split), Point(path[2].x, split), *path[3:]]
        points = tuple(_simplified(new if outgoing else list(reversed(new))))
        end = EdgeEnd(Side.BOTTOM if outgoing else Side.TOP, 0)
        fanned.append(replace(route, points=points, source_end=end) if outgoing
                      else replace(route, points=points, target_end=end))
    return fanned


def _simplified(points: list[Point]) -> list[Point]:
    """Without repeated points and without middle points of straight runs."""
    out: list[Point] = []
    for p in points:
        if out and abs(p.x - out[-1].x) <= SAME and abs(p.y - out[-1].y) <= SAME:
            continue
        if len(out) >= 2 and ((abs(out[-2].x - out[-1].x) <= SAME and
                               abs(out[-1].x - p.x) <= SAME) or
                              (abs(out[-2].y - out[-1].y) <= SAME and
                               abs(out[-1].y - p.y) <= SAME)):
            out[-1] = p
            continue
        out.append(p)
    return out


def _acceptable(keys: Sequence[int], routes: Sequence[EdgeRoute],
                fanned: Sequence[EdgeRoute], near: _Near,
                boxes: Mapping[str, NodeBox], clearance: float) -> bool:
    """The fan keeps its flow (every step down the layers), clears every foreign node,
    crosses and overlaps no more other routes than the spread ends did, and leaves every
    label of its edges nearer its own route than any other."""
    bands = near.node_bands()
    for route in fanned:
        if any(b.y < a.y - SAME for a, b in zip(route.points, route.points[1:],
                                                 strict=False)):
            return False
        for s in polyline_segments(route.points):
            for entry in bands.near(*s.bounds(), reach=clearance):
                box = boxes[entry[ID]]
                if box.id in (route.source, route.target) or _apart(s, box, clearance):
                    continue
                if intrudes(s, box) or segment_box_distance(
                        s, box.x, box.y, box.x + box.width, box.y + box.height) < \
                        clearance - SAME:
                    return False
    members = set(keys)
    before, after = _changed([routes[k].points for k in keys], [r.points for r in fanned])
    counts_before = _meetings(before, near, members)
    counts_after = _meetings(after, near, members)
    if counts_after[0] > counts_before[0] or counts_after[1] > counts_before[1]:
        return False
    return all(_label_beside_own(route, fanned, near, members) for route in fanned)


def _apart(s: Segment, box: NodeBox, clearance: float) -> bool:
    """Whether axis-parallel ``s`` is more than 0 and at least ``clearance`` -
    :data:`SAME` from ``box`` (its distance is then the gap between its bounds and the
    box, computed as :func:`~layouts.quality_geometry.segment_box_distance` does), so it
    neither enters the box nor comes too near."""
    if s.x1 != s.x2 and s.y1 != s.y2:
        return False
    x0, y0, x1, y1 = s.bounds()
    bx1, by1 = box.x + box.width, box.y + box.height
    dx, dy = max(box.x - x1, 0.0, x0 - bx1), max(box.y - y1, 0.0, y0 - by1)
    return (dx > 0 or dy > 0) and math.hypot(dx, dy) >= clearance - SAME


def _changed(before: Sequence[Sequence[Point]], after: Sequence[Sequence[Point]]
             ) -> tuple[list[Segment], list[Segment]]:
    """The segments of the polylines ``before`` that are not in ``after`` and those of
    ``after`` not in ``before`` (as multisets): the fan's trunk, split and the stretches
    it replaced. A segment in both meets the other routes the same way before and after,
    so comparing the meetings of these alone compares those of the whole routes."""
    old = Counter(_pieces(before))
    new = Counter(_pieces(after))
    return (_segments(old - new), _segments(new - old))


def _pieces(polylines: Sequence[Sequence[Point]]) -> list[tuple[float, float, float, float]]:
    return [(a.x, a.y, b.x, b.y) for points in polylines for a, b in pairwise(points)
            if a != b]


def _segments(pieces: Counter[tuple[float, float, float, float]]) -> list[Segment]:
    return [Segment(x1, y1, x2, y2, 0, "", "") for (x1, y1, x2, y2), n in
            sorted(pieces.items()) for _ in range(n)]


def _meetings(segments: Sequence[Segment], near: _Near, skip: set[int]) -> tuple[int, int]:
    """(crossings, shared stretches) of ``segments`` with the routes not in ``skip``
    (only segments whose bounds meet can cross; a shared stretch is what the contracts
    call one, :func:`~layouts.layered.contracts.segments.on_one_line`: two lines up to
    :data:`~layouts.layered.contracts.violations.TOLERANCE` apart, so bounds that come
    that near count as meeting)."""
    if not segments:
        return 0, 0
    bounds = [s.bounds() for s in segments]
    region = (min(b[0] for b in bounds) - TOLERANCE, min(b[1] for b in bounds) - TOLERANCE,
              max(b[2] for b in bounds) + TOLERANCE, max(b[3] for b in bounds) + TOLERANCE)
    others = [piece for k in near.routes_meeting(region, skip) for piece in near.segments(k)]
    cross = shared = 0
    reach = TOLERANCE + HAIR
    for s, (x0, y0, x1, y1) in zip(segments, bounds, strict=True):
        high_x, high_y = x1 + reach, y1 + reach
        for t, b in others:     # _meet(b, x0, y0, x1, y1) grown by reach, inlined
            if b[0] <= high_x and x0 <= b[2] + reach and b[1] <= high_y and \
                    y0 <= b[3] + reach:
                cross += segment_relation(s, t) == "cross"
                shared += on_one_line(s, t)
    return cross, shared


def _distance(segments: Sequence[Segment], box: Box) -> float:
    return min((segment_box_distance(s, box.x, box.y, box.x + box.width, box.y + box.height)
                for s in segments), default=math.inf)


def _label_beside_own(route: EdgeRoute, fanned: Sequence[EdgeRoute], near: _Near,
                      members: set[int]) -> bool:
    """``route``'s label (if any) strictly nearer its own route than any other route:
    the other fan edges and every other route near the box (one farther from the box
    than the label's own route along either axis cannot be nearer)."""
    box = route.label_box
    if box is None:
        return True
    own = _distance(polyline_segments(route.points), box)
    reach = (box.x - own, box.y - own, box.x + box.width + own, box.y + box.height + own)
    others = near.segments_meeting(reach, members)
    others += [s for r in fanned if r is not route for s in polyline_segments(r.points)]
    return own < _distance(others, box)
