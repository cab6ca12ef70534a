"""Post-routing compaction: close the empty channels and the empty space between layers
of the routed drawing, as ELK layered's post-compaction does, keeping every route contract.

The routed drawing is cut into rigid units (:mod:`.scene`: a node with the runs that end on
it, a straight chain of nodes with the straight edges between them, a label with its
edge's nearest run); a scan (:mod:`.constraints`) orders every pair of units that meet on
a common line and sets how close they may come; :mod:`.solve` shifts the units as far as
those separations allow, balanced between the left-packed and the right-packed drawing.
The pass runs along x, then along y on the transposed drawing (layer gaps then shrink to
what their real tracks and labels need, never below ``layer_spacing`` between two nodes
one above the other). Moves are rigid per unit and order-preserving on every line, so
segments stay orthogonal, ends stay on their slots and crossings stay the same.

The compacted drawing is then checked against every route contract
(:func:`layouts.layered.contracts.check_layout`); when it breaks one that the uncompacted
drawing kept, or moves an edge label nearer another route than its own
(:mod:`.labels`), the uncompacted drawing is the result (and the diagnostics say so).

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.layered.model import Deadline
>>> from layouts.options import LayoutOptions
>>> from layouts.result import EdgeRoute, NodeBox, Point
>>> g = Graph((Node("a", 100, 40), Node("b", 100, 40)), (Edge("e", "a", "b"),))
>>> boxes = (NodeBox("a", 0, 0, 100, 40), NodeBox("b", 0, 200, 100, 40))
>>> e = EdgeRoute("e", "a", "b", (Point(50, 40), Point(50, 200)))
>>> out = run(Routing(boxes, (e,), 100, 240), g, LayoutOptions(), Deadline(5))
>>> out.routing.nodes[1].y, out.routing.height    # 200 - 40 - 60 (layer_spacing) = 100
(100.0, 140.0)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from layouts.graph import Graph
from layouts.layered import frame
from layouts.layered.compaction.constraints import Spacing, separations
from layouts.layered.compaction.labels import misplaced
from layouts.layered.compaction.scene import Scene, build_scene
from layouts.layered.compaction.solve import balanced_shifts, pulled
from layouts.layered.contracts import Violation, check_layout
from layouts.layered.model import Deadline, Routing
from layouts.options import Direction, Effort, LayoutOptions
from layouts.result import Box, Diagnostics, EdgeRoute, LayoutResult, NodeBox, Point

__all__ = ["Compacted", "compact", "run"]

PULL_ROUNDS = 2
"""Sweeps of :func:`.solve.pulled` per pass."""


@dataclass(frozen=True, slots=True)
class Compacted:
    """The step's result: the drawing, and a note when compaction was given up."""

    routing: Routing
    note: str | None = None


def run(routing: Routing, graph: Graph, options: LayoutOptions, deadline: Deadline
        ) -> Compacted:
    """The compacted ``routing`` (canonical frame) when it keeps every contract the
    uncompacted one keeps; else ``routing`` itself with a note. The ``draft`` effort
    skips the step (it costs about as much as routing), and so does a drawing with ports
    (its rigid units do not yet hold a port's stub with its node)."""
    if not routing.nodes or options.effort is Effort.DRAFT:
        return Compacted(routing)
    if routing.ports:
        return Compacted(routing, "compaction skipped: the drawing has ports")
    compacted = compact(routing, options)
    if compacted is None:
        return Compacted(routing, "compaction skipped: its constraints did not settle")
    if deadline.expired():
        return Compacted(routing, "compaction skipped: no time left to check it")
    after = _kinds(check_layout(graph, _result(compacted), _canonical(options)))
    broken = after - _kinds(check_layout(graph, _result(routing), _canonical(options))) \
        if after else after
    if broken:
        return Compacted(routing, "compaction undone: it broke "
                         + ", ".join(sorted(broken)))
    moved = misplaced(compacted.edges)
    if moved and moved - misplaced(routing.edges):
        return Compacted(routing, "compaction undone: it moved a label nearer another edge")
    return Compacted(compacted)


def compact(routing: Routing, options: LayoutOptions) -> Routing | None:
    """``routing`` compacted along x, then along y (see the module docstring);
    ``None`` if either pass's constraints do not settle."""
    across = Spacing(node=options.node_spacing,
                     mixed=max(options.clearance,
                               (options.node_spacing + options.edge_spacing) / 2),
                     run=options.edge_spacing, label=max(options.clearance,
                                                         options.edge_spacing))
    along = Spacing(node=options.layer_spacing,
                    mixed=max(options.clearance, options.edge_spacing),
                    run=options.edge_spacing,
                    label=max(options.clearance, options.edge_spacing))
    narrow = _pass(routing, across, options.clearance, rows=False)
    if narrow is None:
        return None
    flat = _pass(frame.restore(narrow, Direction.LEFT_TO_RIGHT), along, options.clearance,
                 rows=True)
    return None if flat is None else frame.restore(flat, Direction.LEFT_TO_RIGHT)


def _pass(routing: Routing, spacing: Spacing, clearance: float, *, rows: bool
          ) -> Routing | None:
    """One compaction along x (``rows``: see :func:`.scene.build_scene`)."""
    scene = build_scene(routing, clearance, rows=rows)
    constraints = separations(scene, spacing) + separations(scene, spacing,
                                                            scene.node_elements)
    low: dict[int, float] = {}
    high: dict[int, float] = {}
    units = [scene.unit(i) for i in range(len(scene.elements))]
    for u, e in zip(units, scene.elements, strict=True):
        if u not in low:
            low[u], high[u] = e.low, e.high
        else:
            if e.low < low[u]:
                low[u] = e.low
            if e.high > high[u]:
                high[u] = e.high
    arcs: dict[int, dict[int, float]] = {}
    for c in constraints:
        a, b = units[c.left], units[c.right]
        if a != b:
            targets = arcs.setdefault(a, {})
            w = -c.slack
            if w > targets.get(b, -math.inf):
                targets[b] = w
    order = sorted(low, key=lambda u: (low[u], u))
    listed = {a: sorted(targets.items()) for a, targets in arcs.items()}
    shifts = balanced_shifts(order, low, high, listed)
    if shifts is None:
        return None
    left = min(low.values(), default=0.0)
    right = max((high[u] + shifts[u] for u in order), default=0.0)
    bounds = {u: (left - low[u], right - high[u]) for u in order}
    shifts = pulled(order, shifts, listed, bounds, _pulls(scene, routing), PULL_ROUNDS)
    return _moved(routing, scene, shifts)


def _pulls(scene: Scene, routing: Routing) -> dict[int, list[tuple[int, float]]]:
    """Per unit, its segments along the compaction axis to other units, as
    :func:`.solve.pulled` takes them."""
    pulls: dict[int, list[tuple[int, float]]] = {}
    for route, runs in zip(routing.edges, scene.routes, strict=True):
        points = route.points
        for i in range(len(points) - 1):
            u, v = scene.unit(runs.point_runs[i]), scene.unit(runs.point_runs[i + 1])
            if u != v:
                offset = points[i + 1].x - points[i].x
                pulls.setdefault(u, []).append((v, offset))
                pulls.setdefault(v, []).append((u, -offset))
    return pulls


def _moved(routing: Routing, scene: Scene, shifts: dict[int, float]) -> Routing:
    """Every node, route point and label moved by its unit's shift; the drawing's width
    changes by as much as its content's span did."""
    dx = [shifts[scene.unit(i)] for i in range(len(scene.elements))]
    nodes = []
    for box, element in zip(routing.nodes, scene.node_elements, strict=True):
        nodes.append(NodeBox(box.id, box.x + dx[element], box.y, box.width, box.height,
                             box.shape, box.parent, _shifted(box.label_box, dx[element])))
    edges = []
    for route, runs in zip(routing.edges, scene.routes, strict=True):
        points = tuple(Point(p.x + dx[run], p.y)
                       for p, run in zip(route.points, runs.point_runs, strict=True))
        label = route.label_box if runs.label < 0 else _shifted(route.label_box,
                                                                dx[runs.label])
        edges.append(EdgeRoute(route.id, route.source, route.target, points,
                               route.source_end, route.target_end, label, route.loop_back,
                               route.source_port, route.target_port))
    elements = scene.elements
    old = max(e.high for e in elements) - min(e.low for e in elements)
    new = max(e.high + d for e, d in zip(elements, dx, strict=True)) - \
        min(e.low + d for e, d in zip(elements, dx, strict=True))
    return Routing(tuple(nodes), tuple(edges), routing.width - old + new, routing.height)


def _shifted(box: Box | None, dx: float) -> Box | None:
    return None if box is None else Box(box.x + dx, box.y, box.width, box.height)


def _canonical(options: LayoutOptions) -> LayoutOptions:
    return replace(options, direction=Direction.TOP_TO_BOTTOM)


def _result(routing: Routing) -> LayoutResult:
    return LayoutResult(routing.nodes, routing.edges, routing.width, routing.height,
                        Diagnostics("layered", "", Direction.TOP_TO_BOTTOM.value))


def _kinds(violations: Sequence[Violation]) -> Counter[str]:
    return Counter(str(v.kind) for v in violations)
