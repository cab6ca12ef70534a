"""Horizontal geometry of routing: node boxes, slot x positions, self-loop reaches,
label requests and corridor lines, all in the placement's x coordinates (the final shift
that makes room for left corridors comes last).

>>> from layouts.layered.model import PlacedNode, Placement
>>> p = Placement({"a": PlacedNode("a", 0, 0, 5, 7, 50, 30),
...                "d": PlacedNode("d", 0, 1, 90, 0, 0, 0, dummy=True)}, (("a", "d"),), (), 40, 60)
>>> layer_offsets(p)
({'a': 0.0}, (30.0,))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from layouts.layered.labels import LABEL_GAP, LabelRequest
from layouts.layered.loopbacks.corridors import Corridor, CorridorSide
from layouts.layered.model import Placement
from layouts.layered.routing.ends import EdgeKind, EdgePlan, EndSlot
from layouts.layered.routing.label_zones import (
    Anchor,
    anchors_of,
    choose,
    fits_beside_loop,
    side_faced,
    zones_of,
)
from layouts.layered.routing.slots import VERTICAL_SIDES, slot_coordinate
from layouts.result import NodeBox, Side


def placed_boxes(placement: Placement) -> dict[str, NodeBox]:
    """Boxes of the real nodes at their placed coordinates, in layer order."""
    return {
        node_id: NodeBox(node_id, n.x, n.y, n.width, n.height, n.shape)
        for layer in placement.layers for node_id in layer
        if not (n := placement.nodes[node_id]).dummy
    }


def layer_offsets(placement: Placement) -> tuple[dict[str, float], tuple[float, ...]]:
    """Each real node's y offset below the top of its layer, and each layer's height."""
    offsets: dict[str, float] = {}
    heights: list[float] = []
    for layer in placement.layers:
        real = [placement.nodes[i] for i in layer if not placement.nodes[i].dummy]
        top = min((n.y for n in real), default=0.0)
        for n in real:
            offsets[n.id] = float(n.y - top)
        heights.append(float(max((n.y - top + n.height for n in real), default=0.0)))
    return offsets, tuple(heights)


def end_x(boxes: Mapping[str, NodeBox], end: EndSlot) -> float:
    """The x (top/bottom faces) or y (left/right) of an end's slot along its face."""
    return slot_coordinate(boxes[end.node], end.side, end.count, end.index, end.offset)


Along = Sequence[tuple[float, float]]
"""Per plan position, :func:`end_x` of its source and of its target end (computed once:
the label zones, the legs, the labels and the drawing all ask)."""


def ends_along(plans: Sequence[EdgePlan], boxes: Mapping[str, NodeBox]
               ) -> list[tuple[float, float]]:
    """:data:`Along` of ``plans`` (in position order) on ``boxes``."""
    return [(end_x(boxes, plan.source), end_x(boxes, plan.target)) for plan in plans]


def loop_steps(placement: Placement, plans: Sequence[EdgePlan], spacing: float,
               clearance: float) -> dict[str, float]:
    """Per node with self-loops, the x step between its nested loops: ``spacing``, or less
    when the gap to the right neighbour must still leave ``clearance`` beside the loops.

    >>> from layouts.layered.model import ChainEdge, PlacedNode
    >>> from layouts.layered.routing.ends import plan_ends
    >>> nodes = {"a": PlacedNode("a", 0, 0, 0, 0, 50, 30),
    ...          "b": PlacedNode("b", 0, 1, 80, 0, 50, 30)}
    >>> loop = ChainEdge("s", "a", "a", "a", "a", (), False, False)
    >>> p = Placement(nodes, (("a", "b"),), (loop,), 30, 60)
    >>> loop_steps(p, plan_ends(p, {}), 20, 12)      # gap 30 - 12 leaves 18 for one loop
    {'a': 18.0}
    """
    steps: dict[str, float] = {}
    for plan in plans:
        if plan.kind is not EdgeKind.SELF_LOOP or plan.source.node in steps:
            continue
        node = placement.nodes[plan.source.node]
        layer = placement.layers[node.layer]
        step = float(spacing)
        if node.order + 1 < len(layer):
            neighbour = placement.nodes[layer[node.order + 1]]
            room = neighbour.x - (node.x + node.width) - max(clearance, 1.0)
            step = min(step, room / (plan.source.count // 2))
        steps[node.id] = max(step, 1.0)
    return steps


def loop_reach(boxes: Mapping[str, NodeBox], plan: EdgePlan, steps: Mapping[str, float]
               ) -> float:
    """x of a self-loop's outer vertical: loops nest, the outermost slots reach farthest."""
    loops = plan.source.count // 2
    box = boxes[plan.source.node]
    return box.x + box.width + steps[box.id] * (loops - plan.source.index)


def _label_goes_left(plan: EdgePlan, along: Along, placement: Placement,
                     corridors: Mapping[int, Corridor]) -> bool:
    """A label sits on the side its edge turns to, so it covers fewer other edges."""
    if plan.kind is EdgeKind.CORRIDOR:
        return corridors[plan.position].side is CorridorSide.LEFT
    if plan.kind is EdgeKind.LANE and plan.source.side not in VERTICAL_SIDES:
        return along[plan.position][0] < placement.nodes[plan.source.node].x   # off the node
    if plan.kind is EdgeKind.LANE:
        return placement.nodes[plan.edge.chain[-1]].x < along[plan.position][0]
    if plan.kind is EdgeKind.SELF_LOOP:
        return False
    chain = plan.edge.chain
    after = placement.nodes[chain[0]].x if chain else along[plan.position][1]
    return after < along[plan.position][0]


def _loop_anchor(plan: EdgePlan, placement: Placement, along: Along) -> Anchor:
    """The vertical a reversed edge's label sits beside: its first, below its source; or,
    when it leaves its source's side face into its lane (:mod:`.elbows`), the lane's
    vertical climbing out of the source's layer (the bottom zone of the channel above)."""
    layer = placement.nodes[plan.source.node].layer
    if plan.source.side in VERTICAL_SIDES:
        return Anchor(layer + 1, False, along[plan.position][0])
    return Anchor(layer, True, along[plan.position][0])


def _first_ends(plans: Sequence[EdgePlan], along: Along) -> dict[str, float]:
    """Per node, the least x of its ends on a top or bottom face."""
    first: dict[str, float] = {}
    for plan in plans:
        for end, x in zip((plan.source, plan.target), along[plan.position], strict=True):
            if end.side in (Side.TOP, Side.BOTTOM):
                first[end.node] = min(x, first.get(end.node, x))
    return first


def label_requests(plans: Sequence[EdgePlan], boxes: Mapping[str, NodeBox],
                   placement: Placement, steps: Mapping[str, float],
                   corridors: Mapping[int, Corridor], along: Along) -> list[LabelRequest]:
    """One request per labelled edge, in the channel below its source node, beside one of
    the edge's own verticals there where no other edge's vertical runs through the box
    (:mod:`.label_zones`): the first, on the side the edge turns to, when it can;
    self-loops: beside the loop, in the node's layer where that fits
    (:func:`.label_zones.fits_beside_loop`), else in the channel below."""
    requests: list[LabelRequest] = []
    zones = zones_of(plans, along, placement)
    faced = side_faced(plans)
    first_end = _first_ends(plans, along)
    for plan in plans:
        edge = plan.edge
        if edge.label_width <= 0 and edge.label_height <= 0:
            continue
        channel = placement.nodes[plan.source.node].layer + 1
        if plan.kind is EdgeKind.SELF_LOOP:
            reach = loop_reach(boxes, plan, steps)
            beside = fits_beside_loop(plan, placement, reach, edge.label_width,
                                      edge.label_height, faced, first_end)
            requests.append(LabelRequest(plan.position, channel, reach + LABEL_GAP,
                                         edge.label_width, edge.label_height,
                                         beside=plan.source.node if beside else None))
            continue
        anchors = anchors_of(plan, placement, along[plan.position]) \
            if plan.kind is EdgeKind.FORWARD else [_loop_anchor(plan, placement, along)]
        spot, x = choose(zones, plan.position, edge.label_width, anchors,
                         _label_goes_left(plan, along, placement, corridors))
        requests.append(LabelRequest(plan.position, spot.channel, x, edge.label_width,
                                     edge.label_height, spot.bottom))
    return requests


def horizontal_extent(placement: Placement, boxes: Mapping[str, NodeBox],
                      plans: Sequence[EdgePlan], labels: Sequence[LabelRequest],
                      steps: Mapping[str, float]) -> tuple[float, float]:
    """Left-most and right-most x used by nodes, dummies, self-loops and labels."""
    xs = [n.x for n in placement.nodes.values()] + [r.x for r in labels]
    rights = [n.x + n.width for n in placement.nodes.values()]
    rights += [loop_reach(boxes, p, steps) for p in plans if p.kind is EdgeKind.SELF_LOOP]
    rights += [r.x + r.width for r in labels]
    return min(xs, default=0.0), max(rights, default=0.0)
