"""Phase 5 of the layered engine: orthogonal edge routing on the boundary-slot lattice.

Pre-condition: a :class:`~layouts.layered.model.Placement` in the canonical top-to-bottom
frame (layers ordered, every forward edge split into a chain of dummies, one per layer it
passes). Post-condition: a :class:`~layouts.layered.model.Routing` in which every edge end
lies on a slot point of its node's outline (:mod:`.slots`), every segment is vertical or
horizontal, horizontal segments sit on separate tracks of the channels between layers,
reversed edges run round the side in corridors of their own (or up lanes between the
columns), and layers have moved down (never reordered) to make room for tracks and labels.

The steps, one module each:

1. :mod:`layouts.layered.loopbacks.corridors`: a corridor beside the drawing for every
   reversed edge;
2. :mod:`.ends`: a face and a slot for every edge end, ordered by where edges go, and
   :mod:`.elbows`: side faces for the ends whose route turns past their node;
3. :mod:`.legs`: columns and the horizontal legs between them (doglegs for swaps);
4. :mod:`.tracks`: tracks for the legs of each channel (ELK's orthogonal routing
   generator, Sander 2003);
5. :mod:`layouts.layered.labels`: label rows; :mod:`.frame`: the vertical frame;
6. :mod:`.draw`: the polylines, then :mod:`.repair`: checked safety-net repairs.

>>> from layouts.layered.model import ChainEdge, Deadline, PlacedNode, Placement
>>> from layouts.options import LayoutOptions
>>> nodes = {"a": PlacedNode("a", 0, 0, 0, 0, 100, 40),
...          "b": PlacedNode("b", 1, 0, 0, 100, 100, 40)}
>>> edge = ChainEdge("e", "a", "b", "a", "b", (), False, False)
>>> routing = route_edges(Placement(nodes, (("a",), ("b",)), (edge,), 40, 60),
...                       LayoutOptions(), Deadline(5))
>>> routing.edges[0].points      # bottom centre of a straight down to top centre of b
(Point(x=50.0, y=40.0), Point(x=50.0, y=100.0))
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from itertools import pairwise

from layouts.layered.labels import arrange_labels
from layouts.layered.loopbacks.corridors import assign_corridors, corridor_lines
from layouts.layered.loopbacks.legs import corridor_legs, lane_legs
from layouts.layered.model import Deadline, Placement, Routing
from layouts.layered.portmap import PortTable
from layouts.layered.routing.draw import EdgeGeometry, draw_routes, final_boxes, shift_right
from layouts.layered.routing.elbows import choose as choose_elbows
from layouts.layered.routing.elbows import column_along, reserved
from layouts.layered.routing.ends import EdgeKind, EdgePlan, plan_ends
from layouts.layered.routing.frame import vertical_frame
from layouts.layered.routing.geometry import (
    Along,
    horizontal_extent,
    label_requests,
    layer_offsets,
    loop_steps,
    placed_boxes,
)
from layouts.layered.routing.legs import (
    Leg,
    forward_legs,
    snap_columns,
    split_swaps,
)
from layouts.layered.routing.port_ends import NodeAssignment, plan_port_ends
from layouts.layered.routing.port_stubs import attach_ports
from layouts.layered.routing.repair import repair_routes
from layouts.layered.routing.slots import VERTICAL_SIDES
from layouts.layered.routing.tracks import assign_tracks
from layouts.layered.routing.validate import RoutingInputError, validate_placement
from layouts.options import LayoutOptions
from layouts.result import Side

__all__ = ["RoutingInputError", "route_edges"]


def _edge_legs(plans: Sequence[EdgePlan], placement: Placement, along: Along,
               corridor_x: Mapping[int, float]) -> tuple[list[Leg], list[EdgeGeometry]]:
    per_edge: list[list[Leg]] = []
    straight: dict[int, list[float]] = defaultdict(list)
    ends: list[tuple[float, float]] = []
    for plan in plans:
        source_x, target_x = along[plan.position]
        source_layer = placement.nodes[plan.source.node].layer
        target_layer = placement.nodes[plan.target.node].layer
        if plan.kind is EdgeKind.FORWARD:
            nodes = placement.nodes
            columns = snap_columns([source_x, *(nodes[d].x + nodes[d].width / 2
                                                for d in plan.edge.chain), target_x])
            channels = range(source_layer + 1, target_layer + 1)
            per_edge.append(forward_legs(plan.position, tuple(channels), columns))
            for channel, (x0, x1) in zip(channels, pairwise(columns), strict=True):
                if x0 == x1:
                    straight[channel].append(x0)
            source_x, target_x = columns[0], columns[-1]
        elif plan.kind is EdgeKind.LANE:
            columns = snap_columns([placement.nodes[d].x for d in plan.edge.chain])
            if plan.source.side not in VERTICAL_SIDES:     # an elbow into its lane
                source_x = columns[-1]
            if plan.target.side not in VERTICAL_SIDES:
                target_x = columns[0]
            upper = target_layer
            per_edge.append(lane_legs(plan.position, source_layer + 1, upper,
                                      source_x, columns, target_x))
            for channel, (x0, x1) in enumerate(pairwise(columns), start=upper + 1):
                if x0 == x1:
                    straight[channel].append(x0)
        elif plan.kind is EdgeKind.CORRIDOR:
            if plan.source.side not in VERTICAL_SIDES:     # an elbow out to its corridor
                source_x = corridor_x[plan.position]
            if plan.target.side not in VERTICAL_SIDES:
                target_x = corridor_x[plan.position]
            per_edge.append(corridor_legs(plan.position, source_layer + 1,
                                          target_layer, source_x,
                                          corridor_x[plan.position], target_x))
        else:
            per_edge.append([])
        ends.append((source_x, target_x))
    legs: list[Leg] = []
    geometries: list[EdgeGeometry] = []
    for mine, (source_x, target_x) in zip(split_swaps(per_edge, straight), ends, strict=True):
        keys = tuple(range(len(legs), len(legs) + len(mine)))
        legs.extend(mine)
        geometries.append(EdgeGeometry(keys, source_x, target_x))
    return legs, geometries


def route_edges(placement: Placement, options: LayoutOptions, deadline: Deadline,
                ports: PortTable | None = None, *, elbows: bool = False) -> Routing:
    """Route every edge of ``placement``; see the module docstring for the steps. With
    ``ports``, ends at ports get their fixed slots (:mod:`.port_ends`) and their stubs
    (:mod:`.port_stubs`); without, and with ``elbows``, ends whose route turns past their
    node leave (or enter) from its side face (:mod:`.elbows`)."""
    validate_placement(placement)
    spacing, clearance = options.edge_spacing, options.clearance
    margin = max(clearance, spacing)   # between nodes and the nearest track or corridor
    corridors = assign_corridors(placement)
    assigned: dict[str, NodeAssignment] = {}
    lattices: dict[tuple[str, Side], int] = {}
    if ports is None and elbows:
        plans = choose_elbows(placement, corridors, options)
        lattices = reserved(plans)
    elif ports is None:
        plans = plan_ends(placement, corridors)
    else:
        plans, assigned = plan_port_ends(placement, corridors, ports)
    boxes = placed_boxes(placement)
    steps = loop_steps(placement, plans, spacing, clearance)
    along = column_along(plans, placement, boxes)
    labels = label_requests(plans, boxes, placement, steps, corridors, along)
    extent = horizontal_extent(placement, boxes, plans, labels, steps)
    corridor_x = corridor_lines(corridors, extent, margin, spacing)
    legs, geometries = _edge_legs(plans, placement, along, corridor_x)
    tracks, counts = assign_tracks([leg.run(k) for k, leg in enumerate(legs)], spacing,
                                   deadline)
    rows = arrange_labels(labels)
    offsets, heights = layer_offsets(placement)
    frame = vertical_frame(heights, counts, rows.heights, placement.layer_spacing, spacing,
                           margin, rows.bottom_heights)
    track_y = {k: frame.track_starts[leg.channel] + tracks[k] * spacing
               for k, leg in enumerate(legs)}
    final = final_boxes(placement, frame, offsets)
    routes = draw_routes(plans, geometries, legs, track_y, final,
                         {r.key: r for r in labels}, rows, frame, steps, along, lattices)
    routes = repair_routes(routes, final, options, deadline)
    left = min([extent[0], *corridor_x.values()])
    right = max([extent[1], *corridor_x.values()])
    moved_boxes, moved_routes = shift_right(tuple(final.values()), routes, -left)
    if ports is None:
        return Routing(moved_boxes, moved_routes, right - left, frame.height)
    own_boxes, joined, port_boxes = attach_ports(moved_routes, moved_boxes, plans, ports,
                                                 assigned)
    return Routing(own_boxes, joined, right - left, frame.height, port_boxes)
