"""Sub-step 1b of routing: side-face ends (*elbows*) for forward edges whose route turns
past their node.

A forward edge leaves its source's bottom face and enters its target's top face. When the
column its route continues in (the x of its first dummy, or of its target's slot for an
edge between neighbouring layers) lies beside the source, beyond its side, the route drops
from the slot, jogs along a channel track to that column and turns down again: two bends.
Leaving from the source's side face instead, straight across to the column at the height
of the side slot and down, takes one. The same at the target in the mirror image: an edge
coming down a column beside its target turns straight into its side face. Orthogonal
routers (ELK's, dot's ``splines=ortho``) draw such L-shaped ends.

In the canonical top-to-bottom frame an end moves to the side face facing its column when

* the column lies at least ``clearance`` beyond that side (for a diamond: half of it
  beyond a third of its width, where the off-tip slots of its side faces lie, so a
  column under the outer third of its bottom face, beside a sibling straight under the
  other slot, turns out of the side face too: :func:`side_reach`), and the first node or dummy
  of the layer past it lies beyond it (a node by ``clearance``, a dummy's vertical by
  ``edge_spacing``); the horizontal may pass dummies between, when their chains run
  straight through the channel the edge jogged in or jog there away from the column
  (that jog crossed them too);
* nothing else uses that face but other forward edges' elbows on a node that is not a
  diamond (:func:`side_slots` orders the ends of such a face: entries above exits, so no
  two of their routes cross), and no other node's elbow runs in that gap of the layer;
* a gateway's exit takes the lower of two slots on its diamond's side face (exits may
  not use the side tips; the lattice keeps the upper slot empty), an entry the tip, or,
  from a column over the top face (which would reach the tip from inside), the upper
  of two slots; an end that leaves a
  diamond's face (a gateway's exit, a join's entry, or the other end of such an edge
  between neighbouring layers, whose route changes there) does so only where the face
  will not be fanned anyway (fewer than two ends, an end of a reversed edge, or one
  running straight through from off the tip), so fans keep their trunks
  (:mod:`layouts.layered.fans`);
* the edge is not a mutual pair's reversed edge drawn beside its partner
  (:mod:`layouts.layered.loopbacks.facing`) (an edge's label then sits beside its column
  below the source, its first vertical there);
* the column, whose vertical now runs down the whole channel beside the end, keeps clear
  of where the labels of that channel may go (beside their edges' slots, or beside the
  columns of labelled edges whose exit moved; a labelled exit's own label, beside its
  column then, keeps clear of the other elbows' columns there) and no other
  edge's leg in that channel spans it but not the end's slot, unless one of that leg's
  verticals on the column's side of the channel (down for a source end, up for a
  target end) lies between the slot and the column, so the jog crossed the leg on any
  track too (the elbow adds no crossing);
* an edge between neighbouring layers moves one end at most (the other end is its column).

The greedy takes the plans in order, then, round after round, the ends whose elbow was
blocked by what may yet go: another edge's leg, whose end then moved off its face (a
moved end's leg is gone from that channel), or a face that then stops being fanned.

The ends left on a face an end moved off keep their slots: the face's lattice keeps the
empty slot (:func:`reserved`; the route's :class:`~layouts.result.EdgeEnd` says how many
slots its face's lattice has), so an edge that ran straight from its slot still does.

>>> from layouts.layered.model import ChainEdge, PlacedNode, Placement
>>> from layouts.options import LayoutOptions
>>> nodes = {"a": PlacedNode("a", 0, 0, 0, 0, 100, 40),
...          "b": PlacedNode("b", 1, 0, 200, 100, 100, 40)}
>>> edge = ChainEdge("e", "a", "b", "a", "b", (), False, False)
>>> plan = choose(Placement(nodes, (("a",), ("b",)), (edge,), 40, 60), {}, LayoutOptions())[0]
>>> plan.source.side.value, plan.target.side.value   # out of a's right face, down into b
('right', 'top')
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum

from layouts.graph import Shape
from layouts.layered.fan_rule import FanEnd, fannable
from layouts.layered.labels import LABEL_GAP
from layouts.layered.loopbacks.corridors import Corridor, CorridorSide
from layouts.layered.loopbacks.legs import corridor_legs, lane_legs
from layouts.layered.model import Placement
from layouts.layered.portmap import Role
from layouts.layered.routing.ends import (
    FAR,
    EdgeKind,
    EdgePlan,
    EndSlot,
    centre_x,
    plan_ends,
)
from layouts.layered.routing.geometry import ends_along, placed_boxes
from layouts.layered.routing.legs import SNAP, Leg, forward_legs
from layouts.layered.routing.slots import VERTICAL_SIDES, slot_coordinate
from layouts.options import LayoutOptions
from layouts.result import NodeBox, Side

EndKey = tuple[int, Role]
"""An edge end: the plan position and which end (:class:`~layouts.layered.portmap.Role`)."""

Face = tuple[str, Side]

ROUNDS = 64
"""At most this many rounds of the greedy over the ends still waiting (see
:meth:`_Greedy.run`; the corpus of bench/compare.py needs up to 25)."""


@dataclass(frozen=True, slots=True)
class _Room:
    """What an elbow needs around it: the two spacings it keeps."""

    clearance: float
    spacing: float


def _end(plan: EdgePlan, role: Role) -> EndSlot:
    return plan.source if role is Role.SOURCE else plan.target


class _Faces:
    """The ends on every face, in slot order, and each end's x along its top or bottom
    face; updated as ends move to side faces."""

    def __init__(self, plans: Sequence[EdgePlan], boxes: Mapping[str, NodeBox]) -> None:
        self.boxes = boxes
        self.members: dict[Face, list[EndKey]] = defaultdict(list)
        ordered = sorted((_end(p, role).node, _end(p, role).side.value, _end(p, role).index,
                           p.position, role is Role.TARGET, role)
                          for p in plans for role in (Role.SOURCE, Role.TARGET))
        for node, _, _, position, _, role in ordered:
            end = _end(plans[position], role)
            self.members[(node, end.side)].append((position, role))
        self.face_of = {key: face for face, keys in self.members.items() for key in keys}
        self.planned = {(p.position, role): _end(p, role) for p in plans
                        for role in (Role.SOURCE, Role.TARGET)}
        self._x: dict[EndKey, float] = {}

    def x(self, key: EndKey) -> float:
        """The slot x of ``key`` on its face as first planned (the ends left on a face
        keep their slots)."""
        x = self._x.get(key)
        if x is None:
            end = self.planned[key]
            x = self._x[key] = slot_coordinate(self.boxes[end.node], end.side, end.count,
                                               end.index)
        return x

    def move(self, key: EndKey, side: Side) -> None:
        face = self.face_of[key]
        self.members[face].remove(key)
        self.members[(face[0], side)].append(key)
        self.face_of[key] = (face[0], side)


def _column(plan: EdgePlan, role: Role, placement: Placement, faces: _Faces) -> float:
    """The x of the column the edge's route runs in next to its ``role`` end: the first
    (last) dummy's, or the other end's slot x for an edge between neighbouring layers."""
    chain = plan.edge.chain
    if chain:
        return centre_x(placement, chain[0] if role is Role.SOURCE else chain[-1])
    other = (plan.position, Role.TARGET if role is Role.SOURCE else Role.SOURCE)
    return faces.x(other)


def side_reach(shape: Shape, width: float, clearance: float) -> float:
    """How far beside its centre a column must lie for an end on a side face of a node
    of ``shape`` and ``width`` to turn into it: ``clearance`` beyond the node's side;
    for a diamond half that beyond a third of its width, where the side faces' off-tip
    slots lie on its outline (the lower of two for an exit, the upper for an entry):
    the route leaves the slot across, away from the diamond's slanted edge, and turns
    down beside it.

    >>> side_reach(Shape.RECT, 90, 12), side_reach(Shape.DIAMOND, 90, 12)  # 45 + 12, 30 + 6
    (57.0, 36.0)
    """
    if shape is Shape.DIAMOND:
        return width / 3 + clearance / 2
    return width / 2 + clearance


def _past_box(box: NodeBox, column: float, clearance: float) -> bool:
    """Whether ``column`` lies ``clearance`` beyond ``box``'s left or right side."""
    return column >= box.x + box.width + clearance or column <= box.x - clearance


def _side_towards(box: NodeBox, column: float, clearance: float) -> Side | None:
    """The side face towards ``column`` when it lies far enough beside the box
    (:func:`side_reach`): for a diamond that may be under (over) its bottom (top)
    face, beside the side tip, where a route from that face would jog twice."""
    centre, reach = box.x + box.width / 2, side_reach(box.shape, box.width, clearance)
    if column >= centre + reach:
        return Side.RIGHT
    if column <= centre - reach:
        return Side.LEFT
    return None


Straight = Mapping[str, tuple[float, float]]
"""Per dummy, the x its chain's route runs in through the channel above it, coming
down, and through the channel below it, going on: where it comes from and goes to
(``nan`` where a lane turns into its column, never straight)."""


def _straight(plans: Sequence[EdgePlan], placement: Placement, faces: _Faces
              ) -> dict[str, tuple[float, float]]:
    out: dict[str, tuple[float, float]] = {}
    for plan in plans:
        chain = plan.edge.chain
        if plan.kind not in (EdgeKind.FORWARD, EdgeKind.LANE) or not chain:
            continue
        xs = [centre_x(placement, d) for d in chain]
        if plan.kind is EdgeKind.FORWARD:
            xs = [faces.x((plan.position, Role.SOURCE)), *xs,
                  faces.x((plan.position, Role.TARGET))]
        else:                       # a lane's ends turn into it: never straight there
            xs = [math.nan, *xs, math.nan]
        for i, d in enumerate(chain, start=1):
            out[d] = (xs[i - 1], xs[i + 1])
    return out


def _passed(placement: Placement, node_id: str, side: Side, column: float, room: _Room,
            straight: Straight, role: Role) -> list[int] | None:
    """The orders of the dummies the elbow's horizontal passes between the node and its
    column, or ``None`` when it may not: in the channel the edge jogged in, each one's
    chain must run on (come from) an x at least ``edge_spacing`` short of the column, on
    the node's side: straight through, or jogging away from the column (the jog crossed
    it too, on any track: above its leg it crossed the dummy's vertical, below it its
    other vertical or its leg; the elbow crosses the vertical once). The first element of
    the layer past the column must lie beyond it (a node by ``clearance``, a dummy by
    ``edge_spacing``).
    """
    node = placement.nodes[node_id]
    layer = placement.layers[node.layer]
    step = 1 if side is Side.RIGHT else -1
    passed: list[int] = []
    order = node.order + step
    while 0 <= order < len(layer):
        other = placement.nodes[layer[order]]
        if not other.dummy:
            gap = other.x - column if side is Side.RIGHT else column - (other.x + other.width)
            return passed if gap >= room.clearance else None
        beyond = (centre_x(placement, other.id) - column) * step
        if beyond >= room.spacing:
            return passed
        runs_on = straight[other.id][role is Role.SOURCE]
        if beyond > -room.spacing or not (column - runs_on) * step >= room.spacing:
            return None
        passed.append(order)
        order += step
    return passed


def _holds(key: EndKey, plan: EdgePlan, placement: Placement, faces: _Faces, room: _Room,
           straight: Straight) -> tuple[Side, list[int]] | None:
    """The side face ``key`` may move to and the dummies its elbow passes, if any."""
    node = _end(plan, key[1]).node
    box = faces.boxes[node]
    column = _column(plan, key[1], placement, faces)
    side = _side_towards(box, column, room.clearance)
    if side is None:
        return None
    passed = _passed(placement, node, side, column, room, straight, key[1])
    return None if passed is None else (side, passed)


def _gaps(placement: Placement, node_id: str, side: Side, passed: Sequence[int]
          ) -> set[tuple[int, int]]:
    """The gaps of the node's layer its elbow's horizontal runs in (gap ``i`` lies
    between orders ``i`` and ``i + 1``)."""
    node = placement.nodes[node_id]
    orders = [node.order, *passed]
    if side is Side.RIGHT:
        return {(node.layer, o) for o in orders}
    return {(node.layer, o - 1) for o in orders}


def _candidate(plan: EdgePlan) -> bool:
    return plan.kind is EdgeKind.FORWARD and not plan.edge.facing


def _label_spans(plans: Sequence[EdgePlan], placement: Placement, faces: _Faces,
                 room: _Room) -> dict[int, list[tuple[float, float, int]]]:
    """Per channel, the x spans where the labels of edges leaving the layer above may
    go (beside the edge's slot on either side, :mod:`.label_zones`)."""
    spans: dict[int, list[tuple[float, float, int]]] = defaultdict(list)
    for plan in plans:
        width = plan.edge.label_width
        if width <= 0 and plan.edge.label_height <= 0:
            continue
        box = faces.boxes[plan.source.node]
        reach = width + 2 * LABEL_GAP + room.clearance
        if plan.source.side in VERTICAL_SIDES:
            x = faces.x((plan.position, Role.SOURCE))
            low, high = x - reach, x + reach
        else:                                   # a self-loop's label, beside the loop
            low, high = box.x, box.x + box.width + room.spacing * plan.source.count + reach
        spans[placement.nodes[plan.source.node].layer + 1].append((low, high, plan.position))
    return spans


def _label_reach(plan: EdgePlan, room: _Room) -> float | None:
    """How far either side of its first vertical ``plan``'s label may reach (``None``
    without a label; as :func:`_label_spans`)."""
    if plan.edge.label_width <= 0 and plan.edge.label_height <= 0:
        return None
    return plan.edge.label_width + 2 * LABEL_GAP + room.clearance


def _clear_of_labels(key: EndKey, plan: EdgePlan, placement: Placement, faces: _Faces,
                     spans: Mapping[int, Sequence[tuple[float, float, int]]]) -> bool:
    """The column the elbow's vertical now runs down the whole channel beside its end
    passes no other edge's label span there (its own label goes beside that vertical)."""
    layer = placement.nodes[_end(plan, key[1]).node].layer
    channel = layer + 1 if key[1] is Role.SOURCE else layer
    column = _column(plan, key[1], placement, faces)
    return not any(low <= column <= high and position != plan.position
                   for low, high, position in spans.get(channel, ()))


def _plan_legs(plan: EdgePlan, placement: Placement, faces: _Faces,
               corridors: Mapping[int, Corridor]) -> list[Leg]:
    """The legs ``plan`` has with every end on its first planned face (:mod:`.legs`;
    a corridor as far out as can be)."""
    source_x = faces.x((plan.position, Role.SOURCE))
    target_x = faces.x((plan.position, Role.TARGET))
    below = placement.nodes[plan.source.node].layer + 1
    above = placement.nodes[plan.target.node].layer
    chain = plan.edge.chain
    if plan.kind is EdgeKind.FORWARD:
        columns = [source_x, *(centre_x(placement, d) for d in chain), target_x]
        return forward_legs(plan.position, range(below, above + 1), columns)
    if plan.kind is EdgeKind.LANE:
        return lane_legs(plan.position, below, above, source_x,
                         [placement.nodes[d].x for d in chain], target_x)
    far = -FAR if corridors[plan.position].side is CorridorSide.LEFT else FAR
    return corridor_legs(plan.position, below, above, source_x, far, target_x)


@dataclass(frozen=True, slots=True)
class _LegSpan:
    """A leg as the elbow test sees it: its x span, the x of the verticals leaving it
    up and down, and its edge's position."""

    low: float
    high: float
    ups: tuple[float, ...]
    downs: tuple[float, ...]
    position: int


def _leg_spans(plans: Sequence[EdgePlan], placement: Placement, faces: _Faces,
               corridors: Mapping[int, Corridor]) -> dict[int, list[_LegSpan]]:
    """Per channel, every leg in it (:class:`_LegSpan`)."""
    spans: dict[int, list[_LegSpan]] = defaultdict(list)
    for plan in plans:
        if plan.kind is EdgeKind.SELF_LOOP:
            continue
        for leg in _plan_legs(plan, placement, faces, corridors):
            spans[leg.channel].append(_LegSpan(min(leg.start, leg.end), max(leg.start, leg.end),
                                               leg.ups, leg.downs, plan.position))
    return spans


def _crossed_anyway(leg: _LegSpan, slot: float, column: float, role: Role) -> bool:
    """Whether the jog of the end's route from ``slot`` to ``column`` crosses ``leg``
    on whichever track it takes, when ``leg`` spans the column but not the slot.

    Below the other leg, the source end's jog crosses each of the leg's down verticals
    between the slot and the column (above it, the column's vertical down crosses the
    leg itself); a target end's jog, above the other leg, each of its up verticals
    there. So with one such vertical the jog crosses the leg once on either track, as
    the elbow's column, running down the whole channel, does.

    >>> leg = _LegSpan(50.0, 200.0, (200.0,), (50.0,), 1)     # from 200 left to 50
    >>> _crossed_anyway(leg, 0.0, 100.0, Role.SOURCE), _crossed_anyway(leg, 0.0, 100.0, Role.TARGET)
    (True, False)
    """
    low, high = min(slot, column), max(slot, column)
    verticals = leg.downs if role is Role.SOURCE else leg.ups
    return any(low < x < high for x in verticals)


def _crosses_no_leg(key: EndKey, plan: EdgePlan, placement: Placement, faces: _Faces,
                    legs: Mapping[int, Sequence[_LegSpan]]) -> bool:
    """No other edge's leg in the channel beside the end spans the column but not the
    end's slot, unless the route's jog crossed it on every track too: the elbow's
    vertical, now running down the whole channel, crosses no leg there that the edge's
    route need not cross (a leg spanning both the slot and the column crossed one of
    the route's two verticals there, whatever its track; see :func:`_crossed_anyway`).
    """
    layer = placement.nodes[_end(plan, key[1]).node].layer
    channel = layer + 1 if key[1] is Role.SOURCE else layer
    column = _column(plan, key[1], placement, faces)
    slot = faces.x(key)
    return not any(leg.low < column < leg.high and not leg.low < slot < leg.high
                   and leg.position != plan.position
                   and not _crossed_anyway(leg, slot, column, key[1])
                   for leg in legs.get(channel, ()))


def key_of(plan: EdgePlan, node: str) -> EndKey:
    """The end of ``plan`` at ``node``."""
    return (plan.position, Role.SOURCE if plan.source.node == node else Role.TARGET)


def _straight_through(plan: EdgePlan, placement: Placement, faces: _Faces) -> bool:
    """The edge's planned route is one vertical from end to end."""
    xs = [faces.x((plan.position, Role.SOURCE)),
          *(centre_x(placement, d) for d in plan.edge.chain),
          faces.x((plan.position, Role.TARGET))]
    return max(xs) - min(xs) < SNAP


def _unfannable(end: EndSlot, plans: Sequence[EdgePlan], placement: Placement,
                faces: _Faces) -> bool:
    """A diamond's face that :mod:`layouts.layered.fans` will not fan, as planned
    (:func:`~layouts.layered.fans.fannable` of its ends: a plain forward edge's end runs
    straight off the face; it turns along a track unless its planned route is one
    vertical to the other node)."""
    box = faces.boxes[end.node]
    tip = box.x + box.width / 2
    ends = []
    for key in faces.members[(end.node, end.side)]:
        plan = plans[key[0]]
        plain = plan.kind is EdgeKind.FORWARD and not (
            plan.edge.reversed or plan.edge.loop_back or plan.edge.facing)
        ends.append(FanEnd(plain, abs(faces.x(key) - tip) <= SNAP,
                           plain and not _straight_through(plan, placement, faces)))
    return not fannable(ends)


@dataclass(slots=True)
class _Taken:
    """What the elbows chosen so far hold: each moved end's side face and the distance
    from that face to its column (``reach``), and the gaps of the layers their
    horizontals run in, with the node each runs from."""

    sides: dict[EndKey, Side]
    reach: dict[EndKey, float]
    gaps: dict[tuple[int, int], str]

    def take(self, key: EndKey, side: Side, node: str, gaps: set[tuple[int, int]],
             reach: float = 0.0) -> None:
        self.sides[key] = side
        self.reach[key] = reach
        self.gaps.update(dict.fromkeys(gaps, node))

    def gaps_free(self, node: str, gaps: set[tuple[int, int]]) -> bool:
        """No other node's elbow runs in ``gaps`` (a node's own elbows share theirs)."""
        return all(self.gaps.get(gap, node) == node for gap in gaps)


def _shareable(plans: Sequence[EdgePlan], faces: _Faces, taken: _Taken, face: Face,
               diamonds: frozenset[str]) -> bool:
    """A side face a forward edge's end may move to: empty, or holding only other
    forward edges' elbows on a node that is not a diamond (:func:`side_slots` orders
    them so their routes do not cross; a gateway's side face keeps one exit, below
    its tip)."""
    members = faces.members.get(face)
    if not members:
        return True
    return face[0] not in diamonds and all(
        key in taken.sides and plans[key[0]].kind is EdgeKind.FORWARD for key in members)


def _drop_legs(legs: dict[int, list[_LegSpan]], plan: EdgePlan, role: Role,
               placement: Placement) -> None:
    """Forget ``plan``'s leg in the channel beside its ``role`` end, which now moved to
    a side face: its route runs down (up) that channel in its column."""
    layer = placement.nodes[_end(plan, role).node].layer
    channel = layer + 1 if role is Role.SOURCE else layer
    legs[channel] = [leg for leg in legs.get(channel, ()) if leg.position != plan.position]


class _Outcome(Enum):
    """What became of an end the greedy looked at."""

    MOVED = "moved"
    NEVER = "never"         # it stays: what blocks it does not go away
    LATER = "later"         # blocked by a leg or a fan that may yet go


class _Greedy:
    """Chooses the elbows plan by plan (see the module); the straight dummies, label
    spans and legs are built once some end gets past the side test."""

    def __init__(self, plans: Sequence[EdgePlan], placement: Placement, faces: _Faces,
                 room: _Room, corridors: Mapping[int, Corridor]) -> None:
        self.plans, self.placement, self.faces = plans, placement, faces
        self.room, self.corridors = room, corridors
        self.diamonds = frozenset(b.id for b in faces.boxes.values()
                                  if b.shape is Shape.DIAMOND)
        self.taken = _Taken({}, {}, {})
        self._unfannable: dict[tuple[Face, int], bool] = {}
        self._columns: dict[int, list[tuple[float, int]]] = defaultdict(list)
        self._built: tuple[Straight, dict[int, list[tuple[float, float, int]]],
                           dict[int, list[_LegSpan]]] | None = None

    def run(self) -> _Taken:
        """Every plan in order; then, round after round until none moves, the forward
        edges' ends whose elbow waited on something that may clear (a leg of an edge
        whose end then moved, a face that then stopped being fanned): at most one
        round per end that moved, and at most :data:`ROUNDS` rounds."""
        waiting: list[EndKey] = []
        for plan in self.plans:
            if plan.kind is EdgeKind.LANE and not plan.edge.facing:
                self._lane(plan)
            elif plan.kind is EdgeKind.CORRIDOR and not plan.edge.facing:
                self._corridor(plan)
            elif _candidate(plan):
                waiting += [(plan.position, role) for role in (Role.SOURCE, Role.TARGET)
                            if self._forward(plan, role) is _Outcome.LATER]
        for _ in range(ROUNDS - 1):
            if not waiting:
                break
            outcomes = [self._forward(self.plans[key[0]], key[1]) for key in waiting]
            if _Outcome.MOVED not in outcomes:
                break
            waiting = [key for key, outcome in zip(waiting, outcomes, strict=True)
                       if outcome is _Outcome.LATER]
        return self.taken

    def _lane(self, plan: EdgePlan) -> None:
        for key, side, gap in _lane_elbows(plan, self.placement, self.faces, self.room):
            node = _end(plan, key[1]).node
            if not self.faces.members.get((node, side)) and gap not in self.taken.gaps:
                self.taken.take(key, side, node, {gap})
                self.faces.move(key, side)

    def _corridor(self, plan: EdgePlan) -> None:
        for key, side in _corridor_elbows(plan, self.placement, self.corridors):
            node = _end(plan, key[1]).node
            if not self.faces.members.get((node, side)):
                self.taken.take(key, side, node, set())
                self.faces.move(key, side)

    def _fan_free(self, end: EndSlot) -> bool:
        face = (end.node, end.side)
        state = (face, len(self.faces.members[face]))   # faces only lose ends
        if state not in self._unfannable:
            self._unfannable[state] = _unfannable(end, self.plans, self.placement, self.faces)
        return self._unfannable[state]

    def _build(self) -> tuple[Straight, dict[int, list[tuple[float, float, int]]],
                              dict[int, list[_LegSpan]]]:
        if self._built is None:
            plans, placement, faces = self.plans, self.placement, self.faces
            legs = _leg_spans(plans, placement, faces, self.corridors)
            for moved in self.taken.sides:
                _drop_legs(legs, plans[moved[0]], moved[1], placement)
            self._built = (_straight(plans, placement, faces),
                           _label_spans(plans, placement, faces, self.room), legs)
        return self._built

    def _forward(self, plan: EdgePlan, role: Role) -> _Outcome:
        """Move ``plan``'s ``role`` end to a side face if it may (an edge between
        neighbouring layers moves one end at most)."""
        sides = self.taken.sides
        if (plan.position, role) in sides or (not plan.edge.chain and any(
                (plan.position, r) in sides for r in (Role.SOURCE, Role.TARGET))):
            return _Outcome.NEVER
        placement, faces, key = self.placement, self.faces, (plan.position, role)
        node = _end(plan, role).node
        column = _column(plan, role, placement, faces)
        if _side_towards(faces.boxes[node], column, self.room.clearance) is None:
            return _Outcome.NEVER               # the usual case: the route turns below
        touched = {node} if plan.edge.chain else {plan.source.node, plan.target.node}
        if any(not self._fan_free(faces.planned[key_of(plan, n)])
               for n in sorted(touched & self.diamonds)):
            return _Outcome.LATER
        straight, spans, legs = self._build()
        held = _holds(key, plan, placement, faces, self.room, straight)
        if held is None:
            return _Outcome.NEVER
        side, passed = held
        spanned = _gaps(placement, node, side, passed)
        if not _shareable(self.plans, faces, self.taken, (node, side), self.diamonds) or \
                not self.taken.gaps_free(node, spanned) or \
                not _clear_of_labels(key, plan, placement, faces, spans):
            return _Outcome.NEVER               # faces and gaps only fill up
        channel = placement.nodes[node].layer + (1 if role is Role.SOURCE else 0)
        reach = _label_reach(plan, self.room) if role is Role.SOURCE else None
        if reach is not None and any(
                column - reach <= x <= column + reach and position != plan.position
                for x, position in self._columns[channel]):
            return _Outcome.NEVER               # columns only come
        if not _crosses_no_leg(key, plan, placement, faces, legs):
            return _Outcome.LATER
        box = faces.boxes[node]
        self.taken.take(key, side, node, spanned,
                        column - box.x - box.width if side is Side.RIGHT else box.x - column)
        faces.move(key, side)
        _drop_legs(legs, plan, role, placement)
        self._columns[channel].append((column, plan.position))
        if reach is not None:                   # its label now goes beside the column
            spans[channel].append((column - reach, column + reach, plan.position))
        return _Outcome.MOVED


def _greedy(plans: Sequence[EdgePlan], placement: Placement, faces: _Faces, room: _Room,
            corridors: Mapping[int, Corridor]) -> _Taken:
    return _Greedy(plans, placement, faces, room, corridors).run()


def side_slots(ends: Sequence[tuple[EndKey, float]]) -> dict[EndKey, tuple[int, int]]:
    """Slot index and count of the forward edges' ends moved to one side face, each
    given with its reach (the distance from the face to its column): entries on top,
    the nearest column first; exits below them, the farthest first. So no route
    crosses another there: an exit's vertical runs down from its slot, past the exits
    below it only where their columns lie farther out; an entry's runs down into its
    slot, past the entries above only where theirs lie nearer.

    >>> slots = side_slots([((0, Role.SOURCE), 40.0), ((1, Role.TARGET), 90.0),
    ...                     ((2, Role.SOURCE), 70.0), ((3, Role.TARGET), 20.0)])
    >>> [slots[(3, Role.TARGET)], slots[(1, Role.TARGET)], slots[(2, Role.SOURCE)],
    ...  slots[(0, Role.SOURCE)]]
    [(0, 4), (1, 4), (2, 4), (3, 4)]
    """
    entries = sorted((reach, key) for key, reach in ends if key[1] is Role.TARGET)
    exits = sorted((-reach, key) for key, reach in ends if key[1] is Role.SOURCE)
    ordered = [key for _, key in entries + exits]
    return {key: (index, len(ordered)) for index, key in enumerate(ordered)}


def _lane_column(plan: EdgePlan, role: Role, placement: Placement) -> str:
    """The lane's dummy in the layer of its ``role`` end's node: a lane runs up beside
    its source (the last dummy) and its target (the first)."""
    return plan.edge.chain[-1] if role is Role.SOURCE else plan.edge.chain[0]


def _lane_elbows(plan: EdgePlan, placement: Placement, faces: _Faces, room: _Room
                 ) -> list[tuple[EndKey, Side, tuple[int, int]]]:
    """The ends of lane ``plan`` that may turn straight into the lane from their node's
    side face, each with that face and the gap of the layer its horizontal runs in.

    A lane's dummies sit in every layer from its target's to its source's, so beside
    each end its route drops (or climbs) into the channel, jogs to the lane and turns
    up it: two bends. From the side face facing the lane, straight across to it in
    the node's own layer, it takes one. An end moves when its lane dummy is the next
    element of the layer on that side, at least ``clearance`` beyond the face (the
    label of a lane leaving its source's side face sits beside the lane in the channel
    above the source, :func:`~.geometry.label_requests`).
    """
    out: list[tuple[EndKey, Side, tuple[int, int]]] = []
    for role in (Role.SOURCE, Role.TARGET):
        end = _end(plan, role)
        node = placement.nodes[end.node]
        dummy = placement.nodes[_lane_column(plan, role, placement)]
        if dummy.layer != node.layer or abs(dummy.order - node.order) != 1:
            continue
        side = _side_towards(faces.boxes[end.node], dummy.x, room.clearance)
        if side is None or (side is Side.RIGHT) != (dummy.order > node.order):
            continue
        gap = (node.layer, min(node.order, dummy.order))
        out.append(((plan.position, role), side, gap))
    return out


def _corridor_elbows(plan: EdgePlan, placement: Placement,
                     corridors: Mapping[int, Corridor]) -> list[tuple[EndKey, Side]]:
    """The ends of corridor ``plan`` that may run straight out of their node's side face
    to the corridor beside the drawing: the node is the last element of its layer on
    the corridor's side (nothing of the layer lies between it and the corridor), and no
    corridor inside this one on that side runs past the node's layer (its vertical
    would cross the end's horizontal). Such an end drops (or climbs) into the channel
    and runs out along it to the corridor in the drawing: two bends; from the side
    face, one. The source end only when the edge has no label (its label sits beside
    the edge's first vertical, in the channel below the source).
    """
    corridor = corridors[plan.position]
    side = Side.LEFT if corridor.side is CorridorSide.LEFT else Side.RIGHT
    labelled = plan.edge.label_width > 0 or plan.edge.label_height > 0
    out: list[tuple[EndKey, Side]] = []
    for role in (Role.SOURCE, Role.TARGET):
        node = placement.nodes[_end(plan, role).node]
        layer = placement.layers[node.layer]
        outermost = node.order == (0 if side is Side.LEFT else len(layer) - 1)
        if (role is Role.SOURCE and labelled) or not outermost:
            continue
        if any(other.side is corridor.side and other.index < corridor.index
               and other.first_channel <= node.layer < other.last_channel
               for other in corridors.values()):
            continue
        out.append(((plan.position, role), side))
    return out


def column_along(plans: Sequence[EdgePlan], placement: Placement,
                 boxes: Mapping[str, NodeBox]) -> list[tuple[float, float]]:
    """:func:`~.geometry.ends_along`, but for an end on a side face the x of the column
    its route turns into (where its vertical runs)."""
    along = ends_along(plans, boxes)
    for plan in plans:
        if plan.kind is EdgeKind.LANE:
            source_x, target_x = along[plan.position]
            if plan.source.side not in VERTICAL_SIDES:
                source_x = placement.nodes[plan.edge.chain[-1]].x
            if plan.target.side not in VERTICAL_SIDES:
                target_x = placement.nodes[plan.edge.chain[0]].x
            along[plan.position] = (source_x, target_x)
            continue
        if plan.kind is not EdgeKind.FORWARD:
            continue
        source_x, target_x = along[plan.position]
        chain = plan.edge.chain
        if plan.source.side not in VERTICAL_SIDES:
            source_x = centre_x(placement, chain[0]) if chain else target_x
        if plan.target.side not in VERTICAL_SIDES:
            target_x = centre_x(placement, chain[-1]) if chain else source_x
        along[plan.position] = (source_x, target_x)
    return along


def choose(placement: Placement, corridors: dict[int, Corridor],
           options: LayoutOptions) -> tuple[EdgePlan, ...]:
    """The plans of :func:`~.ends.plan_ends`, with the ends that can on side faces (see
    the module); the ends left on the faces they leave keep their slots."""
    plans = plan_ends(placement, corridors)
    boxes = placed_boxes(placement)
    room = _Room(options.clearance, options.edge_spacing)
    faces = _Faces(plans, boxes)
    taken = _greedy(plans, placement, faces, room, corridors)
    sides = taken.sides
    if not sides:
        return plans
    diamonds = frozenset(b.id for b in boxes.values() if b.shape is Shape.DIAMOND)
    on_face: dict[Face, list[tuple[EndKey, float]]] = defaultdict(list)
    for key, side in sides.items():
        on_face[(_end(plans[key[0]], key[1]).node, side)].append((key, taken.reach[key]))
    slots = {key: slot for ends in on_face.values() for key, slot in side_slots(ends).items()}

    def moved(plan: EdgePlan, role: Role) -> EndSlot:
        end, side = _end(plan, role), sides.get((plan.position, role))
        if side is None:
            return end
        if role is Role.SOURCE and end.node in diamonds:
            return EndSlot(end.node, side, 1, 2)    # below the side tip
        if end.node in diamonds:
            if not _past_box(boxes[end.node], _column(plan, role, placement, faces),
                             room.clearance):
                return EndSlot(end.node, side, 0, 2)    # column over the top face: above the tip
            return EndSlot(end.node, side, 0, 1)        # the side tip
        return EndSlot(end.node, side, *slots[(plan.position, role)])

    return tuple(replace(plan, source=moved(plan, Role.SOURCE), target=moved(plan, Role.TARGET))
                 if (plan.position, Role.SOURCE) in sides or (plan.position, Role.TARGET) in sides
                 else plan for plan in plans)


def reserved(plans: Sequence[EdgePlan]) -> dict[Face, int]:
    """The faces whose slot lattice has slots left empty (by ends moved to a side face),
    with the lattice's size.

    >>> from layouts.layered.model import ChainEdge
    >>> edge = ChainEdge("e", "a", "b", "a", "b", (), False, False)
    >>> plan = EdgePlan(0, edge, EdgeKind.FORWARD, EndSlot("a", Side.BOTTOM, 1, 2),
    ...                 EndSlot("b", Side.TOP, 0, 1))
    >>> reserved([plan])
    {('a', <Side.BOTTOM: 'bottom'>): 2}
    """
    used: Counter[Face] = Counter()
    size: dict[Face, int] = {}
    for plan in plans:
        for end in (plan.source, plan.target):
            used[(end.node, end.side)] += 1
            size[(end.node, end.side)] = end.count
    return {face: count for face, count in size.items() if count > used[face]}
