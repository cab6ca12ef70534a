"""Post-routing compaction: close the empty channels and the empty space between layers
of the routed drawing, as ELK layered's post-compaction does, keeping every route contract.

The routed drawing is cut into rigid units (:mod:`.scene`: a node with the runs that end on
it and its ports, a straight chain of nodes with the straight edges between them, a label
with its edge's nearest run); a scan (:mod:`.constraints`) orders every pair of units
that meet on a common line and sets how close they may come; :mod:`.solve` shifts the
units as far as those separations allow, balanced between the left-packed and the
right-packed drawing. The pass runs along x, then along y (layer gaps then shrink to
what their real tracks and labels need, never below ``layer_spacing`` between two nodes
one above the other), both on one set of coordinate lists (:mod:`.drawing`). Moves are
rigid per unit and order-preserving on every line, so segments stay orthogonal, ends
stay on their slots and ports, ports on their nodes, and crossings stay the same.

Each pass then checks its promise on the moved drawing (:mod:`.verify`: every pair of
neighbours on a line, as the constraint scan recorded them, in order and no nearer than
the pass allowed, and every label as near its own route as before), and the compacted
drawing is checked for every route end and every port having moved exactly as its node
did (each end stays on its slot and port, each port on its side, in its order and at its
place on the node); together they imply the drawing breaks no route or port contract it
kept. Only when a check fails is the compacted drawing checked against every route and
port contract (:func:`layouts.layered.contracts.check_layout`); when it breaks one that
the uncompacted drawing kept, or moves an edge label nearer another route than its own
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

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from layouts.graph import Graph
from layouts.layered.budget import COSTS
from layouts.layered.compaction.constraints import Spacing, slacks
from layouts.layered.compaction.drawing import Drawing
from layouts.layered.compaction.labels import misplaced
from layouts.layered.compaction.scene import Scene, build_scene
from layouts.layered.compaction.solve import balanced_shifts, pulled
from layouts.layered.compaction.verify import attached_kept, kept_order, labels_kept
from layouts.layered.contracts import Violation, check_layout
from layouts.layered.model import Deadline, Routing
from layouts.options import Direction, Effort, LayoutOptions
from layouts.result import Diagnostics, LayoutResult

__all__ = ["Attempt", "Compacted", "attempt_compaction", "compact", "run"]

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
    skips the step (it costs about as much as routing), and so does a drawing with
    geometry the step does not move (:func:`_unmoved`)."""
    if not routing.nodes or options.effort is Effort.DRAFT:
        return Compacted(routing)
    unmoved = _unmoved(routing)
    if unmoved:
        return Compacted(routing, f"compaction skipped: the drawing has {unmoved}")
    attempt = attempt_compaction(routing, options)
    if attempt is None:
        return Compacted(routing, "compaction skipped: its constraints did not settle")
    if attempt.verified:
        return Compacted(attempt.routing)
    if deadline.expired() or deadline.remaining() < COSTS.contract_check(routing):
        return Compacted(routing, "compaction skipped: no time left to check it")
    return _checked(routing, attempt.routing, graph, options)


def _unmoved(routing: Routing) -> str | None:
    """What of ``routing`` compaction would not move with its owner (node labels or
    parents, route junctions or extra labels: the flat pipeline draws none of them
    before this step), or ``None``."""
    if any(n.parent is not None or n.label_box is not None or n.extra_label_boxes
           for n in routing.nodes):
        return "node labels or parents"
    if any(r.junction_points or r.extra_label_boxes for r in routing.edges):
        return "route junctions or extra labels"
    return None


def _checked(routing: Routing, compacted: Routing, graph: Graph, options: LayoutOptions
             ) -> Compacted:
    """``compacted`` if the whole-drawing check finds no contract it breaks that
    ``routing`` kept, and no label it moved nearer another edge; else ``routing``."""
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


@dataclass(frozen=True, slots=True)
class Attempt:
    """A compacted drawing, and whether both passes kept their promise
    (:mod:`.verify`): then it keeps every contract the uncompacted drawing kept."""

    routing: Routing
    verified: bool


def compact(routing: Routing, options: LayoutOptions) -> Routing | None:
    """``routing`` compacted along x, then along y (see the module docstring);
    ``None`` if either pass's constraints do not settle."""
    attempt = attempt_compaction(routing, options)
    return None if attempt is None else attempt.routing


def attempt_compaction(routing: Routing, options: LayoutOptions) -> Attempt | None:
    """:func:`compact`, with the result of the checks of :mod:`.verify` (each pass's,
    then the ends' and ports' on the compacted drawing)."""
    across = Spacing(node=options.node_spacing,
                     mixed=max(options.clearance,
                               (options.node_spacing + options.edge_spacing) / 2),
                     run=options.edge_spacing, label=max(options.clearance,
                                                         options.edge_spacing))
    along = Spacing(node=options.layer_spacing,
                    mixed=max(options.clearance, options.edge_spacing),
                    run=options.edge_spacing,
                    label=max(options.clearance, options.edge_spacing))
    drawing = Drawing.of(routing)
    narrow = _pass(drawing, 0, across, options.clearance, rows=False)
    if narrow is None:
        return None
    flat = _pass(drawing, 1, along, options.clearance, rows=True)
    if flat is None:
        return None
    return Attempt(drawing.routing(), narrow and flat and attached_kept(drawing))


def _pass(drawing: Drawing, axis: int, spacing: Spacing, clearance: float, *, rows: bool
          ) -> bool | None:
    """One compaction of ``drawing`` along ``axis`` (``rows``: see
    :func:`.scene.build_scene`), in place; whether the moved drawing passes the pass's
    check (:mod:`.verify`); ``None`` (and ``drawing`` unchanged) when its constraints
    do not settle."""
    scene = build_scene(drawing, axis, clearance, rows=rows)
    joined: list[tuple[int, int]] = []
    apart = slacks(scene, spacing, joined=joined)
    boxes: Sequence[int] = range(len(drawing.nodes))
    if scene.port_elements:
        boxes = [*boxes, *scene.port_elements]
    constraints = [*apart.items(), *slacks(scene, spacing, boxes).items()]
    units = scene.units()
    low, high = _extents(scene, units)
    listed = _arcs(constraints, units)
    order = sorted(low, key=lambda u: (low[u], u))
    shifts = balanced_shifts(order, low, high, listed)
    if shifts is None:
        return None
    left = min(low.values(), default=0.0)
    right = max((high[u] + shifts[u] for u in order), default=0.0)
    bounds = {u: (left - low[u], right - high[u]) for u in order}
    shifts = pulled(order, shifts, listed, bounds, _pulls(drawing, axis, scene, units),
                    PULL_ROUNDS)
    shift = [shifts[u] for u in units]
    _move(drawing, axis, scene, shift)
    return kept_order(scene, shift, spacing, [*apart, *joined]) and \
        labels_kept(scene, drawing.points, drawing.labels, axis)


def _extents(scene: Scene, units: list[int]) -> tuple[dict[int, float], dict[int, float]]:
    """Per unit, the lowest and the highest coordinate of its elements along the axis."""
    low: dict[int, float] = {}
    high: dict[int, float] = {}
    for u, e_low, e_high in zip(units, scene.low, scene.high, strict=True):
        if u not in low:
            low[u], high[u] = e_low, e_high
        else:
            if e_low < low[u]:
                low[u] = e_low
            if e_high > high[u]:
                high[u] = e_high
    return low, high


def _arcs(constraints: list[tuple[tuple[int, int], float]], units: list[int]
          ) -> dict[int, list[tuple[int, float]]]:
    """The constraints between elements as arcs between their units, as
    :func:`.solve.balanced_shifts` takes them (the tightest of parallel ones)."""
    arcs: dict[int, dict[int, float]] = {}
    for (first, second), slack in constraints:
        a, b = units[first], units[second]
        if a != b:
            targets = arcs.get(a)
            if targets is None:
                targets = arcs[a] = {}
            w = -slack
            old = targets.get(b)
            if old is None or w > old:    # slacks are finite: any w beats none
                targets[b] = w
    return {a: sorted(targets.items()) for a, targets in arcs.items()}


def _pulls(drawing: Drawing, axis: int, scene: Scene, units: list[int]
           ) -> dict[int, list[tuple[int, float]]]:
    """Per unit, its segments along the compaction axis to other units, as
    :func:`.solve.pulled` takes them."""
    pulls: dict[int, list[tuple[int, float]]] = {}
    for points, runs in zip(drawing.points, scene.point_runs, strict=True):
        us = points[axis]
        for i in range(len(us) - 1):
            u, v = units[runs[i]], units[runs[i + 1]]
            if u != v:
                offset = us[i + 1] - us[i]
                pulls.setdefault(u, []).append((v, offset))
                pulls.setdefault(v, []).append((u, -offset))
    return pulls


def _move(drawing: Drawing, axis: int, scene: Scene, shift: list[float]) -> None:
    """Every node, route point and label moved by its element's shift ``shift``, every
    port part by its node's; the drawing's size along ``axis`` changes by as much as its
    content's span did."""
    for box, d in zip(drawing.boxes, shift, strict=False):
        box[axis] += d
    for node, parts in zip(drawing.port_nodes, drawing.port_parts, strict=True):
        if node >= 0:
            d = shift[node]
            for part in parts:
                part[axis] += d
    for points, runs, label in zip(drawing.points, scene.point_runs, scene.label_of,
                                   strict=True):
        us = points[axis]
        for i, run in enumerate(runs):
            us[i] += shift[run]
        if label >= 0:
            label_box = drawing.labels[scene.owner[label]]
            assert label_box is not None
            label_box[axis] += shift[label]
    old = max(scene.high) - min(scene.low)
    new = max(h + d for h, d in zip(scene.high, shift, strict=True)) - \
        min(lo + d for lo, d in zip(scene.low, shift, strict=True))
    drawing.size[axis] = drawing.size[axis] - old + new


def _canonical(options: LayoutOptions) -> LayoutOptions:
    return replace(options, direction=Direction.TOP_TO_BOTTOM)


def _result(routing: Routing) -> LayoutResult:
    return LayoutResult(routing.nodes, routing.edges, routing.width, routing.height,
                        Diagnostics("layered", "", Direction.TOP_TO_BOTTOM.value),
                        routing.ports)


def _kinds(violations: Sequence[Violation]) -> Counter[str]:
    return Counter(str(v.kind) for v in violations)
