"""Route contract checkers of the layered engine (PRODUCT.md, "Edge-routing contracts").

:func:`check_layout` runs every checker over a finished :class:`LayoutResult`, in its final
frame (TopToBottom or LeftToRight), and returns typed :class:`Violation` records; an empty
list means the layout keeps every contract:

* ``off-slot``: an end not on a slot point of its own node's face (:mod:`.routing.slots`,
  counting the ends the result attaches to that face);
* ``not-orthogonal``: a segment neither horizontal nor vertical;
* ``boundary-angle``: an end whose segment does not leave (or enter) its face straight
  along the face's outward normal;
* ``shared-stretch``: two edges running along the same line over a positive length (two
  edges of one fan, leaving or entering one node at one point, may share their trunk);
* ``intrusion`` / ``own-intrusion``: a segment through a foreign node, or back through
  its own source or target beyond its endpoint;
* ``clearance``: a segment closer than ``options.clearance`` to a foreign node's box (the
  box is never farther than the true outline, so this is the stricter reading);
* ``gateway-source-tip`` / ``gateway-tip-entry``: a diamond's side tips are the two
  across the flow (left/right in TopToBottom, top/bottom in LeftToRight): no source exit
  there, and a target entry there only along the tip's axis from outside;
* ``against-flow``: a segment of a forward edge pointing against the layout direction
  (loop-backs, edges drawn as loop-backs and self-loops are exempt);
* ``label-overlap``: an edge label box overlapping a node or another label box;
* ``off-port``: an edge end at a port not on the port's point (its centre, on its node's
  outline), or a port not on its node's outline (:mod:`.ports`; its ``port-side`` and
  ``port-order`` checks of declared sides and ``fixed_order`` are run on a result in its
  own direction, since a reflection turns the clockwise order round). Ends at a port share
  its slot; edges at one port may share their way (a bundle), and an edge with an end at a
  port across or against the flow is exempt from ``against-flow``, an end at a port from
  the gateway rules (the port is where the caller put it);
* ``node-overlap``: two node boxes overlapping; ``missing-route``: an edge without a
  route of at least two points.

* ``off-outline``: an end off its node's true outline; ``label-astray``: a label box not
  strictly nearer its own route than every other route (:mod:`.labels`).

This is the one defect model (:mod:`.violations`: the kinds and the scope of each).
:func:`find_defects` checks every kind and is what the invariant check after routing
asks (:func:`layouts.layered.invariants.after_routing`); :func:`check_layout` checks the
kinds compaction keeps (all but ``off-outline``, ``label-astray``, which compaction
judges its own way, and ``port-side``/``port-order``, which need the result in its own
direction, not the canonical frame compaction works in);
:func:`check_drawing` checks the kinds any engine's drawing can be given, and is what
:mod:`layouts.quality` counts; the routing repairs count a route's defects with the same
checkers (:func:`layouts.layered.routing.repair.route_defects`).

The checkers live in :mod:`.ends` (routes present, slots, boundary angles, gateways,
outline), :mod:`.segments` (orthogonality, shared stretches, intrusions and clearance,
flow), :mod:`.boxes` (node and label overlaps), :mod:`.labels` (labels on their own
edge) and :mod:`.drawing` (the engine-neutral set).

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.options import LayoutOptions
>>> from layouts.result import (Diagnostics, EdgeEnd, EdgeRoute, LayoutResult, NodeBox, Point,
...                             Side)
>>> g = Graph((Node("a", 100, 40), Node("b", 100, 40)), (Edge("e", "a", "b"),))
>>> route = EdgeRoute("e", "a", "b", (Point(50, 40), Point(50, 100)),
...                   EdgeEnd(Side.BOTTOM, 0), EdgeEnd(Side.TOP, 0))
>>> result = LayoutResult((NodeBox("a", 0, 0, 100, 40), NodeBox("b", 0, 100, 100, 40)),
...                       (route,), 100, 140, Diagnostics("layered", "draft", "TopToBottom"))
>>> check_layout(g, result, LayoutOptions())
[]
"""

from __future__ import annotations

from layouts.graph import Graph
from layouts.layered.contracts.angles import check_boundary_angles
from layouts.layered.contracts.boxes import check_label_overlaps, check_node_overlaps
from layouts.layered.contracts.drawing import check_drawing
from layouts.layered.contracts.ends import (
    check_gateways,
    check_outline_ends,
    check_routes_present,
    check_slots,
)
from layouts.layered.contracts.labels import check_labels_nearest, misplaced_labels
from layouts.layered.contracts.ports import (
    PortFacts,
    check_port_ends,
    check_port_sides_and_order,
)
from layouts.layered.contracts.segments import (
    check_flow,
    check_intrusions,
    check_orthogonal,
    check_shared_stretches,
    route_intrusions,
    segments_of,
)
from layouts.layered.contracts.violations import (
    EVERY_ENGINE_KINDS,
    SCOPE,
    TOLERANCE,
    Scope,
    Violation,
    ViolationKind,
    count_kinds,
)
from layouts.options import LayoutOptions
from layouts.result import LayoutResult

__all__ = [
    "EVERY_ENGINE_KINDS",
    "SCOPE",
    "TOLERANCE",
    "Scope",
    "Violation",
    "ViolationKind",
    "check_boundary_angles",
    "check_drawing",
    "check_flow",
    "check_gateways",
    "check_intrusions",
    "check_label_overlaps",
    "check_labels_nearest",
    "check_layout",
    "check_node_overlaps",
    "check_orthogonal",
    "check_outline_ends",
    "check_port_ends",
    "check_port_sides_and_order",
    "check_routes_present",
    "check_shared_stretches",
    "check_slots",
    "count_kinds",
    "find_defects",
    "misplaced_labels",
    "route_intrusions",
    "segments_of",
]


def check_layout(graph: Graph, result: LayoutResult, options: LayoutOptions) -> list[Violation]:
    """Every contract violation of ``result`` (a layout of ``graph``); see the module."""
    nodes = {n.id: n for n in result.nodes}
    routes = [r for r in result.edges if len(r.points) >= 2 and r.source in nodes
              and r.target in nodes]
    facts = PortFacts.of(graph, result, options.direction)
    return [
        *check_routes_present(graph, result),
        *check_slots(routes, nodes, result.ports, facts.unslotted),
        *check_port_ends(graph, result),
        *check_orthogonal(routes),
        *check_boundary_angles(routes, nodes),
        *check_shared_stretches(routes, facts.bundled),
        *check_intrusions(routes, nodes, options.clearance),
        *check_gateways(routes, nodes, options.direction, facts.at_port.keys()),
        *check_flow(graph, routes, options.direction, facts.stubbed),
        *check_node_overlaps(result.nodes),
        *check_label_overlaps(result),
    ]


def find_defects(graph: Graph, result: LayoutResult, options: LayoutOptions
                 ) -> list[Violation]:
    """Every defect of ``result`` (a layered layout of ``graph``, in ``options``'s own
    direction) of every kind: those of :func:`check_layout`, then ends off the true
    outline, labels astray, and declared port sides and orders."""
    nodes = {n.id: n for n in result.nodes}
    routes = [r for r in result.edges if len(r.points) >= 2 and r.source in nodes
              and r.target in nodes]
    return [*check_layout(graph, result, options), *check_outline_ends(routes, nodes),
            *check_labels_nearest(routes), *check_port_sides_and_order(graph, result)]
