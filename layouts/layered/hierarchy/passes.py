"""Steps 2-3 of the hierarchical layout: every level laid out (:mod:`.level`) and framed
(:mod:`.frames`), in up to three passes so that a compound's interior is ordered knowing
where its parent's edges meet its border.

1. *bottom-up*: each level, children's levels first, with no knowledge of the outside;
   each compound's frame is then known;
2. *top-down*: the levels that hold compound nodes, the root first, each with its
   compounds at their pass-1 frames and its own border dummies in the order its
   parent's routes of this pass meet its faces (:func:`.border_order.border_orders`):
   so every compound gets the border order of a parent that was itself ordered
   knowing the outside (ELK's hierarchical sweep, one level at a time);
3. *bottom-up again*, every compound's border dummies pinned in the order pass 2 found
   (:func:`.border_order.pin_border_order`), so the frames fit what is drawn.

Ordering does not look at node sizes, so in pass 3 a parent orders its layers as in
pass 2 and its routes meet each compound's faces in the order that compound was given,
unless a changed frame size moves a slot past another. The pass drawn is the one of
fewer crossings after ordering plus jog pairs that swap in a border strip
(:func:`.border_order.jog_inversions`); pass 1 on ties, and pass 1 alone when no jog
swaps or the time left cannot pay for passes 2 and 3 (estimated from pass 1's own
speed, and at least :meth:`.budget.CostModel.pipeline`'s least work; a note says so).
Passes 2 and 3 start each level from its pass-1 crossing minimisation (ordering does
not look at sizes, so it is the same), which makes them cheaper
(:data:`LATER_PASS_COST`). Pass 1 shares the time budget among its levels as if it
were the only pass (:func:`share`), so the optional passes never starve it; passes 2
and 3 share what is left by that cost.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from layouts.graph import Edge, Graph, Node, Shape
from layouts.layered.budget import COSTS
from layouts.layered.hierarchy.across import squeeze_across
from layouts.layered.hierarchy.border_order import (
    BorderOrder,
    border_orders,
    jog_inversions,
    own_border,
    parent_border,
)
from layouts.layered.hierarchy.frames import Frame, Interior, frame_for
from layouts.layered.hierarchy.level import LaidOutLevel, Minimised, lay_out_level
from layouts.layered.hierarchy.plan import Level, Plan
from layouts.layered.hierarchy.port_room import port_room
from layouts.layered.hierarchy.squeeze import COMPOUND_LAYER_SPACING
from layouts.layered.model import Deadline, Routing
from layouts.layered.pipeline import StepRunner
from layouts.layered.portmap import transpose_port
from layouts.options import Direction, Effort, LayoutOptions

__all__ = ["DUMMY_SIZE", "LATER_PASS_COST", "Pass", "lay_out_levels", "share"]

DUMMY_SIZE = 1.0
"""Width and height of a border dummy, in px."""

LATER_PASS_COST = {Effort.DRAFT: 1.0, Effort.BALANCED: 0.5, Effort.BEST: 0.4}
"""A level's layout in passes 2 and 3, as a part of its first, per effort: they reuse
the first pass's crossing minimisation (re-sweeping only around the pinned borders),
which is most of a level's time at balanced and best effort and little at draft."""


@dataclass(frozen=True, slots=True)
class Pass:
    """A bottom-up pass: every level's routing, every compound's frame, the sum of the
    levels' crossings after ordering and the jog pairs that swap in border strips."""

    laid: dict[str | None, LaidOutLevel]
    frames: dict[str, Frame]
    crossings: int
    inversions: int

    @property
    def routings(self) -> dict[str | None, Routing]:
        """Every level's routing, by owner."""
        return {owner: laid.routing for owner, laid in self.laid.items()}

    @property
    def score(self) -> int:
        """The crossings the drawing will show, as far as the orders tell."""
        return self.crossings + self.inversions


COMPOUND_NODE_SPACING = 20.0
"""The node spacing inside compounds, in px, when the caller's is larger: ELK's default
``spacing.nodeNode``, which elkjs uses inside every compound node that sets no spacing
of its own (a caller's spacings on the root do not reach them). The root keeps the
caller's node spacing; the layers inside compounds are laid out
:data:`~.squeeze.COMPOUND_LAYER_SPACING` apart the same way (the routes between them
still get the tracks they need: the router widens a layer gap for its tracks)."""


@dataclass(slots=True)
class _Context:
    """What every level layout of one hierarchical layout shares; ``later`` counts the
    items (nodes and edges) of the level layouts still to come, for :func:`share`."""

    graph: Graph
    plan: Plan
    options: LayoutOptions
    run: StepRunner
    check_invariants: bool
    later: float = 0.0
    weight: float = 1.0
    """The part of a level's full cost its layouts in this pass take."""
    first: Pass | None = None
    corridors_by_geometry: bool = False
    canonical: LayoutOptions = field(init=False)
    inner: LayoutOptions = field(init=False)
    """The canonical options of the levels inside compounds (:data:`COMPOUND_NODE_SPACING`,
    :data:`~.squeeze.COMPOUND_LAYER_SPACING`)."""

    def __post_init__(self) -> None:
        self.canonical = self.options.with_changes(direction=Direction.TOP_TO_BOTTOM)
        self.inner = self.canonical.with_changes(
            node_spacing=min(self.options.node_spacing, COMPOUND_NODE_SPACING),
            layer_spacing=min(self.options.layer_spacing, COMPOUND_LAYER_SPACING))

    @property
    def transposed(self) -> bool:
        return self.options.direction is Direction.LEFT_TO_RIGHT

    minimised: dict[str | None, Minimised] = field(default_factory=dict)
    """Per level owner, the first pass's crossing minimisation (later passes start
    from it instead of minimising again)."""

    def lay_out(self, level: Level, frames: Mapping[str, Frame],
                border: BorderOrder | None) -> LaidOutLevel:
        """One level with its compound children at their ``frames``' sizes."""
        overall = self.run.deadline
        items = _items(level) * self.weight
        self.later -= items
        level_run = StepRunner(Deadline(share(overall.remaining(), items, self.later)))
        level_graph = _level_graph(level, frames, self.transposed)
        level_graph = replace(level_graph, rank_groups=self.graph.rank_groups_among(
            {n.id for n in level_graph.nodes}))
        laid = lay_out_level(level_graph, frozenset(c.dummy for c in level.entering),
                             frozenset(c.dummy for c in level.leaving),
                             self.canonical if level.owner is None else self.inner,
                             level_run, check_invariants=self.check_invariants,
                             border=border, minimised=self.minimised.get(level.owner),
                             corridors_by_geometry=self.corridors_by_geometry)
        if laid.minimised is not None:
            self.minimised.setdefault(level.owner, laid.minimised)
        self.run.timings.extend(level_run.timings)
        overall.exhausted = overall.exhausted or level_run.deadline.exhausted
        return laid

    def lay_out_again(self, level: Level, frames: Mapping[str, Frame],
                      border: BorderOrder | None) -> LaidOutLevel:
        """:meth:`lay_out` in passes 2 and 3, or the first pass's layout of the level
        when its compounds have the same frames and it drew ``border`` already (the
        layout would come out the same)."""
        first = self.first
        if first is not None and level.owner in first.laid:
            before = first.laid[level.owner]
            same = all(frames.get(n.id) == first.frames.get(n.id)
                       for n in level.children if n.children)
            if same and (border is None or border == own_border(level, before.routing)):
                self.later -= _items(level) * self.weight
                return before
        return self.lay_out(level, frames, border)

    def frame(self, level: Level, routing: Routing) -> tuple[Frame, Routing]:
        """The frame of the compound that owns ``level``, around its ``routing``, and
        the routing squeezed across the flow in it (:mod:`.across`; not for a compound
        with ports of its own, whose faces keep their port labels' bands)."""
        assert level.owner is not None
        node = self.graph.node(level.owner)
        room = port_room(node, self.graph.edges, transposed=self.transposed,
                         entering=len(level.entering), leaving=len(level.leaving))
        frame = frame_for(node, Interior.of(routing),
                          entering=len(level.entering), leaving=len(level.leaving),
                          edge_spacing=self.options.edge_spacing, transposed=self.transposed,
                          room=room, entering_columns=_entering_columns(level, routing))
        if node.ports:
            return frame, routing
        return squeeze_across(
            node, frame, routing, frozenset(c.dummy for c in level.entering),
            frozenset(c.dummy for c in level.leaving), node_spacing=self.inner.node_spacing,
            spacing=max(self.options.clearance, self.options.edge_spacing),
            clearance=self.options.clearance,
            min_width=node.height if self.transposed else node.width)


def _entering_columns(level: Level, routing: Routing) -> tuple[float, ...]:
    """The x where each edge entering ``level``'s compound starts inside it: the first
    point of its piece from the entering dummy."""
    dummies = {c.dummy for c in level.entering}
    return tuple(r.points[0].x for r in routing.edges if r.source in dummies and r.points)


def lay_out_levels(graph: Graph, plan: Plan, options: LayoutOptions, run: StepRunner,
                   check_invariants: bool = False, *,
                   corridors_by_geometry: bool = False,
                   orders: Mapping[str | None, Minimised] | None = None) -> Pass:
    """Every level laid out and framed, in the passes of the module docstring; the pass
    to draw (``corridors_by_geometry``: see :func:`.level.lay_out_level`; ``orders``:
    the crossing minimisation of some levels, by owner, given instead of searched)."""
    context = _Context(graph, plan, options, run, check_invariants,
                       corridors_by_geometry=corridors_by_geometry)
    context.minimised.update(orders or {})
    crossing = any(level.entering or level.leaving for level in plan.levels)
    holders = [level for level in plan.levels if _holds_compounds(level)]
    extra = sum(_items(level) for level in (*plan.levels, *holders)) if crossing else 0
    all_items = sum(_items(level) for level in plan.levels)
    cost = LATER_PASS_COST[options.effort]
    context.later = all_items   # passes 2 and 3 are optional: pass 1 gets its full share
    started = time.perf_counter()
    first = _bottom_up(context, {})
    # what passes 2 and 3 will take, from what pass 1 took here and now
    per_item = (time.perf_counter() - started) * cost / max(1, all_items)
    context.weight, context.first, context.later = cost, first, cost * extra
    if not first.inversions:
        return first
    if not _affordable(run, per_item * extra, COSTS.pipeline(extra)):
        return first
    borders = _top_down(context, holders, first.frames)
    if not _affordable(run, per_item * all_items, COSTS.pipeline(all_items // 2)):
        return first
    third = _bottom_up(context, borders)
    return third if third.score < first.score else first


def _affordable(run: StepRunner, measured: float, least: float) -> bool:
    """Whether the time left pays for work estimated at ``measured`` seconds (from the
    first pass's speed, with a quarter more in reserve) and at least ``least``; when
    not, the deadline is marked exhausted (the drawing is not the one a longer budget
    gives, and the diagnostics must say so) with a note."""
    if run.deadline.remaining() >= max(1.25 * measured, least):
        return True
    run.deadline.exhausted = True   # the budget cut the layout short: say so
    run.notes.append("compound top-down passes skipped: not enough time left")
    return False


def _bottom_up(context: _Context, borders: Mapping[str, BorderOrder]) -> Pass:
    """Passes 1 and 3: every level, children first, each compound's border dummies in
    its ``borders`` order when it has one."""
    frames: dict[str, Frame] = {}
    done: dict[str | None, LaidOutLevel] = {}
    first = context.first
    for level in context.plan.levels:
        laid = context.lay_out_again(level, frames, borders.get(level.owner or ""))
        done[level.owner] = laid
        if level.owner is None:
            continue
        if first is not None and first.laid.get(level.owner) is laid:
            frames[level.owner] = first.frames[level.owner]   # framed and squeezed already
            continue
        frames[level.owner], routing = context.frame(level, laid.routing)
        done[level.owner] = replace(laid, routing=routing)
    routings = {owner: laid.routing for owner, laid in done.items()}
    return Pass(done, frames, sum(laid.crossings for laid in done.values()),
                jog_inversions(context.plan, routings))


def _top_down(context: _Context, holders: list[Level], frames: Mapping[str, Frame]
              ) -> dict[str, BorderOrder]:
    """Pass 2: the levels that hold compounds, parents first, each in the border order
    its parent's routing of this pass gives; every compound's border order."""
    plan = context.plan
    routings: dict[str | None, Routing] = {}
    borders: dict[str, BorderOrder] = {}
    for level in reversed(holders):
        if level.owner is not None:
            border = parent_border(plan, level, routings)
            if border is not None:
                borders[level.owner] = border
        routings[level.owner] = context.lay_out_again(
            level, frames, borders.get(level.owner or "")).routing
    return border_orders(plan, routings)


def _holds_compounds(level: Level) -> bool:
    return any(n.children for n in level.children)


def _level_graph(level: Level, frames: Mapping[str, Frame], transposed: bool) -> Graph:
    """The level as a flat graph in the canonical frame: entering dummies, children
    (compounds at their frame's size), leaving dummies."""
    def child(n: Node) -> Node:
        ports = tuple(transpose_port(p) for p in n.ports) if transposed else n.ports
        if n.id in frames:   # its port labels stand in the bands its frame keeps
            f = frames[n.id]
            return Node(n.id, f.width, f.height, Shape.RECT, ports=ports,
                        port_constraints=n.port_constraints)
        if transposed:
            return Node(n.id, n.height, n.width, n.shape, ports=ports,
                        port_constraints=n.port_constraints)
        return Node(n.id, n.width, n.height, n.shape, ports=ports,
                    port_constraints=n.port_constraints)

    def edge(e: Edge) -> Edge:
        if transposed:
            return Edge(e.id, e.source, e.target, e.label, e.loop_back, e.label_height,
                        e.label_width, e.source_port, e.target_port)
        return Edge(e.id, e.source, e.target, e.label, e.loop_back, e.label_width,
                    e.label_height, e.source_port, e.target_port)

    nodes = (*(Node(c.dummy, DUMMY_SIZE, DUMMY_SIZE) for c in level.entering),
             *(child(n) for n in level.children),
             *(Node(c.dummy, DUMMY_SIZE, DUMMY_SIZE) for c in level.leaving))
    return Graph(nodes, tuple(edge(e) for e in level.edges))


def share(remaining: float, items: float, later_items: float) -> float:
    """Seconds for a level of ``items`` with ``later_items`` still to lay out after it:
    its part, by size, of what is left once the later levels' least work is held back
    (time a level does not use passes on to the next).

    >>> share(10.0, 100, 0), round(share(10.0, 100, 300), 3)
    (10.0, 2.494)
    """
    reserve = min(remaining / 2, COSTS.pipeline(round(later_items)))
    return max(0.001, (remaining - reserve) * items / (items + later_items))


def _items(level: Level) -> int:
    """Nodes and edges of a level's flat graph (what the cost model counts)."""
    return len(level.children) + len(level.entering) + len(level.leaving) + len(level.edges)


