"""Quality metrics of a layout, computed from the :class:`LayoutResult` alone.

The metrics are the usual aesthetic criteria of layered drawings (Purchase, "Which
aesthetic has the greatest effect on human understanding?", Graph Drawing 1997; Di
Battista, Eades, Tamassia, Tollis, "Graph Drawing", 1999, ch. 2) plus the routing
contracts of PRODUCT.md: crossings, collinear shared stretches, node overlaps, edges
passing under nodes, endpoints off the outline, non-orthogonal segments, bends, length,
area and the clearance between edges and nodes.

The defect counts are those of the one defect model, the route contracts' engine-neutral
checker :func:`layouts.layered.contracts.check_drawing` (its ``EVERY_ENGINE`` kinds, the
same for every engine's drawing): ``shared_segments`` counts ``shared-stretch``
violations, ``node_overlaps`` ``node-overlap``, and so on (:data:`DEFECT_FIELDS`). The
aesthetic measures (crossings, bends, length, area, the smallest clearance) are
computed here. Pairs are pruned with a uniform grid (:mod:`layouts.quality_grid`), so a
layout of 1000 nodes and ~1300 edges measures in about a second in pure Python.

>>> from layouts.graph import Shape
>>> from layouts.result import Diagnostics, EdgeRoute, LayoutResult, NodeBox, Point
>>> r = LayoutResult(
...     nodes=(NodeBox("a", 0, 0, 40, 20), NodeBox("b", 0, 60, 40, 20)),
...     edges=(EdgeRoute("e", "a", "b", (Point(20, 20), Point(20, 60))),),
...     width=40, height=80,
...     diagnostics=Diagnostics(engine="demo", effort="draft", direction="TopToBottom"),
... )
>>> q = measure(r)
>>> q.crossings, q.bends, q.total_edge_length, q.area, q.min_clearance
(0, 0, 40.0, 3200.0, inf)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from layouts.errors import LayoutError
from layouts.layered.contracts import ViolationKind, check_drawing, count_kinds
from layouts.options import camel_case
from layouts.quality_geometry import (
    Segment,
    bend_count,
    route_segments,
    segment_box_distance,
)
from layouts.quality_grid import Grid, crossings_of
from layouts.result import LayoutResult, NodeBox

DEFECT_FIELDS: dict[str, ViolationKind] = {
    "shared_segments": ViolationKind.SHARED_STRETCH,
    "node_overlaps": ViolationKind.NODE_OVERLAP,
    "edge_node_intrusions": ViolationKind.INTRUSION,
    "own_end_intrusions": ViolationKind.OWN_INTRUSION,
    "endpoints_off_outline": ViolationKind.OFF_OUTLINE,
    "non_orthogonal_segments": ViolationKind.NOT_ORTHOGONAL,
    "clearance_violations": ViolationKind.CLEARANCE,
    "label_overlaps": ViolationKind.LABEL_OVERLAP,
    "labels_astray": ViolationKind.LABEL_ASTRAY,
}
"""Each defect count of :class:`QualityReport` and the kind of violation it counts."""


class InvalidLayoutResultError(LayoutError, ValueError):
    """A result cannot be measured (unknown node, short route, non-finite number)."""


@dataclass(frozen=True, slots=True)
class QualityReport:
    """Metrics of one layout. Crossings are counted over pairs of segments of different
    edges, bends over interior route vertices where the direction changes; segments are
    those of the routes without repeated points and straight pass-through vertices. The
    defect counts are the defect model's violations (:data:`DEFECT_FIELDS`): pairs of
    edges sharing a stretch of line (a fan's trunk, two edges leaving or entering a node
    at one point, is exempt), pairs of nodes overlapping by more than 0.5 px, edge-node
    pairs for intrusions (through a foreign node, or back through an own end) and for
    clearance violations (a foreign node closer than ``clearance`` - 0.5 px, and not
    passed through), edge ends off the outline, slanted segments, labels overlapping a
    node or label, and labels astray (nearer another route than their own).
    ``min_clearance`` is ``inf`` when no edge segment has a foreign node to keep clear
    of."""

    crossings: int
    shared_segments: int
    node_overlaps: int
    edge_node_intrusions: int
    own_end_intrusions: int
    endpoints_off_outline: int
    non_orthogonal_segments: int
    bends: int
    total_edge_length: float
    area: float
    min_clearance: float
    clearance_violations: int
    clearance: float
    label_overlaps: int = 0
    labels_astray: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready values (camelCase keys; an infinite clearance becomes ``None``).

        >>> QualityReport(0, 0, 0, 0, 0, 0, 0, 0, 0.0, 0.0, math.inf, 0, 12.0
        ...               ).to_dict()["minClearance"] is None
        True
        """
        out: dict[str, Any] = {}
        for name, value in asdict(self).items():
            if isinstance(value, float):
                value = round(value, 3) if math.isfinite(value) else None
            out[camel_case(name)] = value
        return out


def measure(result: LayoutResult, *, clearance: float = 12.0) -> QualityReport:
    """Measure ``result``; ``clearance`` is the gap (px) below which a segment and a
    foreign node count as a clearance violation.

    >>> from layouts.result import Diagnostics, LayoutResult, NodeBox
    >>> empty = LayoutResult((NodeBox("a", 0, 0, 10, 10),), (), 10, 10,
    ...                      Diagnostics("demo", "draft", "TopToBottom"))
    >>> measure(empty).node_overlaps
    0
    """
    if not isinstance(result, LayoutResult):
        raise InvalidLayoutResultError(
            f"measure needs a LayoutResult, not {type(result).__name__}")
    if isinstance(clearance, bool) or not isinstance(clearance, int | float) \
            or not math.isfinite(clearance) or clearance < 0:
        raise InvalidLayoutResultError(f"clearance {clearance!r} must be a finite number >= 0")
    nodes = _checked_nodes(result)
    segments = _checked_segments(result, nodes)
    grid = Grid.for_items(nodes.values(), segments)
    found = count_kinds(check_drawing(result, float(clearance)))
    return QualityReport(
        crossings=crossings_of(segments, grid),
        bends=sum(bend_count(e.points) for e in result.edges),
        total_edge_length=sum(s.length for s in segments),
        area=float(result.width) * float(result.height),
        min_clearance=_min_clearance(nodes, segments, grid, float(clearance)),
        clearance=float(clearance),
        **{name: found[kind] for name, kind in DEFECT_FIELDS.items()},
    )


def _checked_nodes(result: LayoutResult) -> dict[str, NodeBox]:
    nodes: dict[str, NodeBox] = {}
    for n in result.nodes:
        if n.id in nodes:
            raise InvalidLayoutResultError(f"duplicate node id '{n.id}' in the result")
        if not all(math.isfinite(v) for v in (n.x, n.y, n.width, n.height)):
            raise InvalidLayoutResultError(f"node '{n.id}' has a non-finite box")
        nodes[n.id] = n
    if not (math.isfinite(result.width) and math.isfinite(result.height)):
        raise InvalidLayoutResultError("the drawing size is not finite")
    return nodes


def _checked_segments(result: LayoutResult, nodes: dict[str, NodeBox]) -> list[Segment]:
    """The segments of every simplified route (no repeated points, no straight
    pass-through vertices), tagged with their edge."""
    segments: list[Segment] = []
    for index, e in enumerate(result.edges):
        for end in (e.source, e.target):
            if end not in nodes:
                raise InvalidLayoutResultError(f"edge '{e.id}' ends at unknown node '{end}'")
        if len(e.points) < 2:
            raise InvalidLayoutResultError(f"edge '{e.id}' has fewer than 2 route points")
        if not all(math.isfinite(p.x) and math.isfinite(p.y) for p in e.points):
            raise InvalidLayoutResultError(f"edge '{e.id}' has a non-finite point")
        segments += route_segments(e.points, index, e.source, e.target)
    return segments


def _min_clearance(nodes: dict[str, NodeBox], segments: list[Segment], grid: Grid,
                   clearance: float) -> float:
    """The smallest segment-to-foreign-box distance. The search radius doubles until the
    nearest pair is inside it."""
    radius = max(clearance, 1.0)
    while True:
        minimum = math.inf
        for s in segments:
            for node_id in grid.nodes_near(s, radius):
                if node_id in (s.source, s.target):
                    continue
                n = nodes[node_id]
                minimum = min(minimum, segment_box_distance(
                    s, n.x, n.y, n.x + n.width, n.y + n.height))
        if minimum <= radius or radius > grid.diagonal:
            return minimum
        radius *= 2
