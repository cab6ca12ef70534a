"""The defect model's checks that any engine's drawing can be given
(:data:`~.violations.Scope.EVERY_ENGINE`): they read the :class:`LayoutResult` alone, so
:mod:`layouts.quality` counts the same defects for the layered engine, Graphviz, ELK and
grandalf. Routes are taken as drawn: orthogonal or not, on slots or not.

>>> from layouts.result import Diagnostics, EdgeRoute, LayoutResult, NodeBox, Point
>>> nodes = (NodeBox("a", 0, 0, 100, 40), NodeBox("b", 0, 100, 100, 40),
...          NodeBox("m", 40, 60, 20, 20))
>>> through = EdgeRoute("e", "a", "b", (Point(50, 40), Point(50, 100)))
>>> result = LayoutResult(nodes, (through,), 100, 140, Diagnostics("dot", "draft", "TopToBottom"))
>>> [v.kind.value for v in check_drawing(result)]
['intrusion']
"""

from __future__ import annotations

from layouts.layered.contracts.boxes import check_label_overlaps, check_node_overlaps
from layouts.layered.contracts.ends import check_outline_ends
from layouts.layered.contracts.labels import check_labels_nearest
from layouts.layered.contracts.segments import (
    check_intrusions,
    check_orthogonal,
    check_shared_stretches,
)
from layouts.layered.contracts.violations import Violation
from layouts.result import LayoutResult

DEFAULT_CLEARANCE = 12.0
"""The clearance (px) :class:`~layouts.options.LayoutOptions` defaults to."""


def check_drawing(result: LayoutResult, clearance: float = DEFAULT_CLEARANCE
                  ) -> list[Violation]:
    """Every ``EVERY_ENGINE`` defect of ``result``: slanted segments, shared stretches
    (fan trunks exempt), intrusions and clearance (``clearance`` px), ends off the true
    outline, node overlaps, label overlaps and labels astray. Routes of fewer than two
    points or naming an unknown node are left out (callers that must refuse them, such
    as :func:`layouts.quality.measure`, check them first)."""
    nodes = {n.id: n for n in result.nodes}
    routes = [r for r in result.edges if len(r.points) >= 2 and r.source in nodes
              and r.target in nodes]
    return [
        *check_orthogonal(routes),
        *check_shared_stretches(routes),
        *check_intrusions(routes, nodes, clearance),
        *check_outline_ends(routes, nodes),
        *check_node_overlaps(result.nodes),
        *check_label_overlaps(result),
        *check_labels_nearest(routes),
    ]
