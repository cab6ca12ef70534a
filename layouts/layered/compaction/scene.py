"""The routed drawing as rigid *units* for one-dimensional compaction along x.

Every object that occupies room across the compaction axis is an :class:`Element`: a
node box (grown by ``clearance`` along y, so nothing may slide into a node's clearance
band), a *run* (the points of one route that share an x: a vertical segment, or the
single point where a route turns between two horizontal segments) and a label box.
Elements that must keep their relative x are joined into one unit (union-find):

* a route's first run and its source node, its last run and its target node (so every
  end stays on its slot of the true outline), and every run of a self-loop with its node;
* a label and the run of its own route nearest to it (the label stays beside its edge).

Horizontal segments are not elements: they stretch or shrink as the runs at their two
ends move, and the scan of :mod:`.constraints` keeps every element that meets their line
on the same side of each end, so no crossing appears or disappears.

>>> from layouts.layered.model import Routing
>>> from layouts.result import EdgeRoute, NodeBox, Point
>>> a, b = NodeBox("a", 0, 0, 100, 40), NodeBox("b", 0, 100, 100, 40)
>>> e = EdgeRoute("e", "a", "b", (Point(50, 40), Point(50, 100)))
>>> scene = build_scene(Routing((a, b), (e,), 100, 140), clearance=12)
>>> [(el.kind.value, el.low, el.high) for el in scene.elements]
[('node', 0, 100), ('node', 0, 100), ('run', 50, 50)]
>>> len({scene.unit(i) for i in range(3)})    # a straight edge: one rigid unit
1
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from layouts.layered.model import Routing
from layouts.layered.routing.segment_index import polyline_segments
from layouts.quality_geometry import segment_box_distance
from layouts.result import Box, EdgeRoute

SAME = 1e-6


class Kind(StrEnum):
    """What an element is; the spacing between two elements depends on their kinds."""

    NODE = "node"
    RUN = "run"
    LABEL = "label"


@dataclass(frozen=True, slots=True)
class Element:
    """An x interval ``[low, high]`` occupied over the y interval ``[start, end]``;
    ``owner`` is the index of the route a run or label belongs to (-1 for a node). A
    label's ``reach`` is its distance to its own route: its y interval is grown by that
    much, and other routes keep farther than that from it (the label stays nearest its
    own edge)."""

    kind: Kind
    low: float
    high: float
    start: float
    end: float
    owner: int = -1
    reach: float = 0.0


@dataclass(frozen=True, slots=True)
class RouteRuns:
    """Per route point, the element index of the run it belongs to; and the index of
    the route's label element (``-1``: no label)."""

    point_runs: tuple[int, ...]
    label: int


class Scene:
    """Elements, their union-find units, and where each route's points and each node
    and label sit among the elements."""

    def __init__(self) -> None:
        self.elements: list[Element] = []
        self._parent: list[int] = []
        self.node_elements: list[int] = []
        self.routes: list[RouteRuns] = []

    def add(self, element: Element) -> int:
        self.elements.append(element)
        self._parent.append(len(self._parent))
        return len(self.elements) - 1

    def unit(self, i: int) -> int:
        """The representative of element ``i``'s unit."""
        parent = self._parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(self, a: int, b: int) -> None:
        """Make ``a`` and ``b`` one rigid unit (the smaller index represents it)."""
        ra, rb = self.unit(a), self.unit(b)
        if ra != rb:
            self._parent[max(ra, rb)] = min(ra, rb)


def build_scene(routing: Routing, clearance: float, *, rows: bool = False) -> Scene:
    """The elements and units of ``routing`` (see the module docstring). With ``rows``,
    nodes whose centres share an x are one unit too (the y pass, on the transposed
    drawing: each layer moves as a whole and stays a straight row)."""
    scene = Scene()
    node_index: dict[str, int] = {}
    row_of: dict[float, int] = {}
    for box in routing.nodes:
        node_index[box.id] = scene.add(Element(Kind.NODE, box.x, box.x + box.width,
                                               box.y - clearance,
                                               box.y + box.height + clearance))
        scene.node_elements.append(node_index[box.id])
        if rows:
            centre = round(box.x + box.width / 2, 3)
            scene.join(node_index[box.id], row_of.setdefault(centre, node_index[box.id]))
    for number, route in enumerate(routing.edges):
        scene.routes.append(_route_runs(scene, number, route, node_index))
    return scene


def _route_runs(scene: Scene, number: int, route: EdgeRoute, node_index: dict[str, int]
                ) -> RouteRuns:
    points = route.points
    runs: list[int] = []
    first = 0
    for i in range(1, len(points) + 1):
        if i == len(points) or abs(points[i].x - points[first].x) > SAME:
            ys = [p.y for p in points[first:i]]
            run = scene.add(Element(Kind.RUN, points[first].x, points[first].x,
                                    min(ys), max(ys), number))
            runs.extend([run] * (i - first))
            first = i
    if runs:
        source, target = node_index.get(route.source), node_index.get(route.target)
        if source is not None:
            scene.join(runs[0], source)
        if target is not None:
            scene.join(runs[-1], target)
        if route.source == route.target and source is not None:
            for run in runs:
                scene.join(run, source)
    label = -1
    if route.label_box is not None:
        box = route.label_box
        reach = min((segment_box_distance(s, box.x, box.y, box.x + box.width,
                                          box.y + box.height)
                     for s in polyline_segments(points)), default=0.0)
        label = scene.add(Element(Kind.LABEL, box.x, box.x + box.width, box.y - reach,
                                  box.y + box.height + reach, number, reach))
        if runs:
            scene.join(label, _nearest_run(scene, sorted(set(runs)), box))
    return RouteRuns(tuple(runs), label)


def _nearest_run(scene: Scene, runs: list[int], box: Box) -> int:
    """The run nearest to ``box`` (Euclidean distance from box to segment), first wins."""
    def distance(i: int) -> float:
        e = scene.elements[i]
        dx = max(box.x - e.high, e.low - (box.x + box.width), 0.0)
        dy = max(box.y - e.end, e.start - (box.y + box.height), 0.0)
        return dx * dx + dy * dy

    return min(runs, key=lambda i: (distance(i), i))
