"""The routed drawing as rigid *units* for one-dimensional compaction along one axis.

Every object that occupies room across the compaction axis is an *element*: a node box
(grown by ``clearance`` across the axis, so nothing may slide into a node's clearance
band), a *run* (the points of one route that share a coordinate along the axis: a
segment across it, or the single point where a route turns between two segments along
it) and a label box. Elements that must keep their relative place are joined into one
unit (union-find):

* a route's first run and its source node, its last run and its target node (so every
  end stays on its slot of the true outline), and every run of a self-loop with its node;
* a label and the run of its own route nearest to it (the label stays beside its edge);
* a port and its node: every part of a port (its box, its labels) moves by its node's
  shift, so it keeps its side, its order and its place on the node, and the ends at it
  (joined with the node as every end is) stay on its point. A part that lies inside its
  node's element adds nothing the node does not already hold and is no element (a
  port's point on the outline, a label inside the node); one that reaches out of it is
  an element of kind ``NODE``, joined with its node.

Segments along the axis are not elements: they stretch or shrink as the runs at their
two ends move, and the scan of :mod:`.constraints` keeps every element that meets their
line on the same side of each end, so no crossing appears or disappears.

A scene is built over a :class:`.drawing.Drawing` for one axis (``axis`` 0: along x,
rows of the drawing are lines; 1: along y) and holds its elements as parallel lists
(element ``i`` is ``kind[i]``, ``low[i]`` ... ``high[i]`` along the axis, over
``start[i]`` ... ``end[i]`` across it), without copying the drawing.

>>> from layouts.layered.compaction.drawing import Drawing
>>> from layouts.layered.model import Routing
>>> from layouts.result import EdgeRoute, NodeBox, Point
>>> a, b = NodeBox("a", 0, 0, 100, 40), NodeBox("b", 0, 100, 100, 40)
>>> e = EdgeRoute("e", "a", "b", (Point(50, 40), Point(50, 100)))
>>> scene = build_scene(Drawing.of(Routing((a, b), (e,), 100, 140)), 0, clearance=12)
>>> [(Kind(k).name, lo, hi) for k, lo, hi in zip(scene.kind, scene.low, scene.high)]
[('NODE', 0, 100), ('NODE', 0, 100), ('RUN', 50, 50)]
>>> len({scene.unit(i) for i in range(3)})    # a straight edge: one rigid unit
1
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import IntEnum

from layouts.layered.compaction.drawing import Drawing
from layouts.layered.contracts.violations import TOLERANCE
from layouts.quality_geometry import Segment, segment_box_distance

SAME = 1e-6

HALF_LINE = TOLERANCE / 2
"""How far, in px, each element's extent across the axis reaches past its own in the scan:
two elements closer than the contracts' :data:`~layouts.layered.contracts.violations.TOLERANCE`
across the axis meet a common line, so the pass keeps their order and gap along it (two
verticals 0.33 px apart whose extents did not meet would otherwise be free to slide into
one shared stretch, which the route contracts count as overlapping)."""


class Kind(IntEnum):
    """What an element is; the spacing between two elements depends on their kinds."""

    NODE = 0
    RUN = 1
    LABEL = 2


class Scene:
    """Elements as parallel lists, their union-find units, and where each route's points
    and label sit among the elements (``point_runs[r][i]``: the run of point ``i`` of
    route ``r``; ``label_of[r]``: its label element or -1). Nodes are elements
    ``0 .. n - 1`` in the drawing's order. A label's ``reach`` is its distance to its own
    route: its extent across the axis is grown by that much, and other routes keep
    farther than that from it (the label stays nearest its own edge); ``owner`` is the
    route of a run or label (-1 for a node or a port part); ``port_elements`` are the
    elements of port parts (after every node, run and label)."""

    def __init__(self) -> None:
        self.kind: list[Kind] = []
        self.low: list[float] = []
        self.high: list[float] = []
        self.start: list[float] = []
        self.end: list[float] = []
        self.owner: list[int] = []
        self.reach: list[float] = []
        self._parent: list[int] = []
        self.point_runs: list[list[int]] = []
        self.label_of: list[int] = []
        self.port_elements: list[int] = []
        self._events: list[tuple[float, int, int]] | None = None

    def add(self, kind: Kind, low: float, high: float, start: float, end: float,
            owner: int = -1, reach: float = 0.0) -> int:
        """A new element of its own unit; its index."""
        index = len(self._parent)
        self.kind.append(kind)
        self.low.append(low)
        self.high.append(high)
        self.start.append(start)
        self.end.append(end)
        self.owner.append(owner)
        self.reach.append(reach)
        self._parent.append(index)
        return index

    def add_runs(self, owner: int, us: Sequence[float], vs: Sequence[float]) -> list[int]:
        """One run element of route ``owner`` per stretch of its points with one
        coordinate ``us`` along the axis (``vs`` across it), each its own unit; per
        point, its run."""
        count = len(us)
        if not count:
            return []
        index = len(self._parent)
        runs: list[int] = []
        along: list[float] = []
        starts: list[float] = []
        ends: list[float] = []
        first, u = 0, us[0]
        for i in range(1, count + 1):
            if i < count and abs(us[i] - u) <= SAME:
                continue
            if i - first == 1:
                low = high = vs[first]
            else:
                stretch = vs[first:i]
                low, high = min(stretch), max(stretch)
            along.append(u)
            starts.append(low)
            ends.append(high)
            runs.extend([index + len(along) - 1] * (i - first))
            if i < count:
                first, u = i, us[i]
        made = len(along)
        self.kind.extend([Kind.RUN] * made)
        self.low.extend(along)
        self.high.extend(along)
        self.start.extend(starts)
        self.end.extend(ends)
        self.owner.extend([owner] * made)
        self.reach.extend([0.0] * made)
        self._parent.extend(range(index, index + made))
        return runs

    def __len__(self) -> int:
        return len(self._parent)

    def events(self, only: Sequence[int] | None = None) -> list[tuple[float, int, int]]:
        """The scan's events across the axis, in order: ``(start, 0, i)`` where element
        ``i`` begins and ``(end, 1, i)`` where it ends (of the elements ``only``; all of
        them, computed once, by default). Moves along the axis do not change them."""
        if only is None and self._events is not None:
            return self._events
        if isinstance(only, range) and only.start == 0 and only.step == 1:
            # the first elements (the nodes): the full scan's events, filtered in order
            stop = only.stop
            return [event for event in self.events() if event[2] < stop]
        chosen = range(len(self._parent)) if only is None else only
        start, end = self.start, self.end
        events = sorted([(start[i] - HALF_LINE, 0, i) for i in chosen]
                        + [(end[i] + HALF_LINE, 1, i) for i in chosen])
        if only is None:
            self._events = events
        return events

    def unit(self, i: int) -> int:
        """The representative of element ``i``'s unit."""
        parent = self._parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def units(self) -> list[int]:
        """Every element's unit representative (in one pass: a unit is represented by
        its smallest element, so every parent index is at most its child's and each
        element's root is known by the time it is reached); the paths are compressed."""
        roots: list[int] = []
        for i, parent in enumerate(self._parent):
            roots.append(i if parent == i else roots[parent])
        self._parent[:] = roots
        return roots

    def join(self, a: int, b: int) -> None:
        """Make ``a`` and ``b`` one rigid unit (the smaller index represents it)."""
        ra, rb = self.unit(a), self.unit(b)
        if ra != rb:
            self._parent[max(ra, rb)] = min(ra, rb)


def build_scene(drawing: Drawing, axis: int, clearance: float, *, rows: bool = False
                ) -> Scene:
    """The elements and units of ``drawing`` for compaction along ``axis`` (see the
    module docstring). With ``rows``, nodes whose centres along the axis agree (to three
    decimals) are one unit too (the y pass: each layer moves as a whole and stays a
    straight row)."""
    scene = Scene()
    along, across = drawing.nodes_along(axis), drawing.nodes_along(1 - axis)
    row_of: dict[float, int] = {}
    for i, ((low, size), (cross, cross_size)) in enumerate(zip(along, across, strict=True)):
        scene.add(Kind.NODE, low, low + size, cross - clearance, cross + cross_size + clearance)
        if rows:
            scene.join(i, row_of.setdefault(round(low + size / 2, 3), i))
    node_index = drawing.node_index
    for number, route in enumerate(drawing.edges):
        runs = scene.add_runs(number, drawing.points[number][axis],
                              drawing.points[number][1 - axis])
        scene.point_runs.append(runs)
        if runs:
            source, target = node_index.get(route.source), node_index.get(route.target)
            if source is not None:
                scene.join(runs[0], source)
            if target is not None:
                scene.join(runs[-1], target)
            if route.source == route.target and source is not None:
                for run in runs:
                    scene.join(run, source)
        scene.label_of.append(_add_label(scene, drawing, number, axis, runs))
    scene.port_elements = _add_ports(scene, drawing, axis)
    return scene


def _add_ports(scene: Scene, drawing: Drawing, axis: int) -> list[int]:
    """An element of kind ``NODE`` joined with its node for every port part (box or
    label) of ``drawing`` that reaches out of its node's element; their indices.

    >>> from layouts.layered.model import Routing
    >>> from layouts.result import NodeBox, PortBox, Side
    >>> a = NodeBox("a", 0, 0, 100, 40)
    >>> on = PortBox("p", "a", 100, 20, side=Side.RIGHT)          # a point on the outline
    >>> out = PortBox("q", "a", 96, 26, 8, 8, side=Side.RIGHT)    # 4 px out of the face
    >>> scene = build_scene(Drawing.of(Routing((a,), (), 100, 40, (on, out))), 0, 12)
    >>> scene.port_elements, scene.low[1], scene.high[1], scene.unit(1)
    ([1], 96, 104, 0)
    """
    added: list[int] = []
    for node, parts in zip(drawing.port_nodes, drawing.port_parts, strict=True):
        if node < 0:
            continue
        for part in parts:
            low, high = part[axis], part[axis] + part[2 + axis]
            start, end = part[1 - axis], part[1 - axis] + part[3 - axis]
            if _inside(scene, node, low, high, start, end):
                continue
            element = scene.add(Kind.NODE, low, high, start, end)
            scene.join(element, node)
            added.append(element)
    return added


def _inside(scene: Scene, i: int, low: float, high: float, start: float, end: float
            ) -> bool:
    """Whether ``[low, high] x [start, end]`` lies inside element ``i`` (to :data:`SAME`)."""
    return scene.low[i] - SAME <= low and high <= scene.high[i] + SAME and \
        scene.start[i] - SAME <= start and end <= scene.end[i] + SAME


def _add_label(scene: Scene, drawing: Drawing, number: int, axis: int, runs: list[int]
               ) -> int:
    """The label element of route ``number`` (joined with its nearest run), or -1."""
    box = drawing.labels[number]
    if box is None:
        return -1
    u0, v0 = box[axis], box[1 - axis]
    u1, v1 = u0 + box[2 + axis], v0 + box[3 - axis]
    distance = reach(drawing.points[number][axis], drawing.points[number][1 - axis],
                     u0, v0, u1, v1)
    label = scene.add(Kind.LABEL, u0, u1, v0 - distance, v1 + distance, number, distance)
    if runs:
        scene.join(label, _nearest_run(scene, sorted(set(runs)), u0, v0, u1, v1))
    return label


def reach(us: Sequence[float], vs: Sequence[float], u0: float, v0: float, u1: float, v1: float
           ) -> float:
    """The distance from the box ``[u0, u1] x [v0, v1]`` to the polyline (0 for a single
    point), computed as :func:`~layouts.quality_geometry.segment_box_distance` does."""
    best = math.inf
    for i in range(len(us) - 1):
        a, b, c, d = us[i], vs[i], us[i + 1], vs[i + 1]
        if a == c and b == d:
            continue
        if a == c or b == d:
            # the gap per axis, max(u0 - max(a, c), 0, min(a, c) - u1), without calls
            low, high = (a, c) if a <= c else (c, a)
            du = u0 - high if u0 - high > low - u1 else low - u1
            low, high = (b, d) if b <= d else (d, b)
            dv = v0 - high if v0 - high > low - v1 else low - v1
            distance = math.hypot(du if du > 0.0 else 0.0, dv if dv > 0.0 else 0.0)
        else:
            distance = segment_box_distance(Segment(a, b, c, d, 0, "", ""), u0, v0, u1, v1)
        if distance < best:
            best = distance
    return 0.0 if best == math.inf else best


def _nearest_run(scene: Scene, runs: list[int], u0: float, v0: float, u1: float, v1: float
                 ) -> int:
    """The run nearest to the box (Euclidean distance from box to segment), first wins."""
    def distance(i: int) -> float:
        du = max(u0 - scene.high[i], scene.low[i] - u1, 0.0)
        dv = max(v0 - scene.end[i], scene.start[i] - v1, 0.0)
        return du * du + dv * dv

    return min(runs, key=lambda i: (distance(i), i))
