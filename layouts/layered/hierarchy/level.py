"""Step 2 of the hierarchical layout: one level through the layered pipeline, with one
extra step, *pin borders*, between layering and dummy chains.

The steps are those of :mod:`layouts.layered.pipeline` (import, cycle breaking,
layering, dummy chains, ordering, loop-back lanes, placement, routing, undo cycle
breaking), named and timed the same way, on the level's flat graph in the canonical
top-to-bottom frame. *Pin borders* moves the level's entering dummies to a first layer
of their own and its leaving dummies to a last layer of their own (every other node one
layer down when there are entering dummies): an entering dummy has only outgoing edges
and a leaving one only incoming edges, so every edge still points down, and nothing but
border dummies lies between them and the compound's top and bottom border.

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.layered.model import Deadline
>>> from layouts.options import LayoutOptions
>>> g = Graph((Node("in", 1, 1), Node("a", 80, 40), Node("b", 80, 40)),
...           (Edge("e0", "in", "b"), Edge("e1", "a", "b")))
>>> level = lay_out_level(g, frozenset({"in"}), frozenset(), LayoutOptions(),
...                       StepRunner(Deadline(5)))
>>> [round(n.y) for n in level.routing.nodes][:3]   # in: 12 px above a's layer
[48, 61, 161]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from layouts.graph import Graph
from layouts.layered import cycles, layering, ordering, placement
from layouts.layered.budget import COSTS, Plan
from layouts.layered.graph import LayeredGraph, ProperGraph, import_graph
from layouts.layered.hierarchy.border_order import BorderOrder, pin_border_order
from layouts.layered.hierarchy.straighten import straighten_borders
from layouts.layered.layering import chains
from layouts.layered.loopbacks import lanes
from layouts.layered.model import Deadline, Routing
from layouts.layered.ordering import OrderingResult
from layouts.layered.ordering import ports as port_order
from layouts.layered.pipeline import Stages, StepRunner, check
from layouts.layered.placement import port_pass
from layouts.layered.routing import route_edges
from layouts.options import LayoutOptions
from layouts.result import Point

__all__ = ["AFTER_ORDERING_SHARE", "LANES_SHARE", "LaidOutLevel", "Minimised", "StepRunner",
           "lay_out_level", "pin_borders"]

LANES_SHARE = 0.25
"""The part of a level's time left after ordering that loop-back lanes may take: on a
level of big compound boxes with long loop-backs their shifts cost seconds per lane
(a 500-node graph of 50 compounds spent 3.6 s of 4.4 at draft effort there), and the
steps after them must not be starved."""


AFTER_ORDERING_SHARE = 0.4
"""The part of a level's time crossing minimisation leaves to the steps after it: the
cost model's reserve for placement and routing alone let a big level's ordering at best
effort take 7.9 s of its 8.3 (a 500-node graph of 50 compounds then took 12 s on a 10 s
budget, its loop-back lanes and routing running past the end)."""


@dataclass(frozen=True, slots=True)
class LaidOutLevel:
    """A level's routing (canonical frame), its crossings after ordering, and its
    crossing minimisation (before the border, port and lane steps), for a later pass
    of the same level to start from."""

    routing: Routing
    crossings: int
    minimised: Minimised | None = None


@dataclass(frozen=True, slots=True)
class Minimised:
    """A level's crossing minimisation and the ids of the proper graph it orders: a
    later pass of the level reuses it when its proper graph has the same nodes (a
    level's layering does not depend on its compounds' sizes, so it does)."""

    nodes: tuple[str, ...]
    order: OrderingResult

    def reuse(self, proper: ProperGraph) -> OrderingResult | None:
        """The order, if ``proper`` has the same nodes in the same places."""
        same = len(proper.nodes) == len(self.nodes) and all(
            n.id == i for n, i in zip(proper.nodes, self.nodes, strict=True))
        return self.order if same else None


def pin_borders(graph: LayeredGraph, rank: tuple[int, ...], entering: frozenset[str],
                leaving: frozenset[str]) -> tuple[int, ...]:
    """Ranks with the entering dummies on layer 0 alone and the leaving dummies on a
    last layer alone (see the module docstring).

    >>> from layouts.graph import Edge, Graph, Node
    >>> from layouts.options import LayoutOptions
    >>> g = import_graph(Graph(tuple(Node(n, 9, 9) for n in ("i", "a", "o")),
    ...                        (Edge("x", "i", "a"), Edge("y", "a", "o"))), LayoutOptions())
    >>> pin_borders(g, (0, 1, 2), frozenset({"i"}), frozenset({"o"}))
    (0, 2, 3)
    """
    inner = [r for n, r in zip(graph.nodes, rank, strict=True)
             if n.id not in entering and n.id not in leaving]
    shift = 1 if entering else 0
    last = (max(inner) if inner else -1) + shift + 1
    out = []
    for n, r in zip(graph.nodes, rank, strict=True):
        if n.id in entering:
            out.append(0)
        elif n.id in leaving:
            out.append(last)
        else:
            out.append(r + shift)
    return tuple(out)


def lay_out_level(graph: Graph, entering: frozenset[str], leaving: frozenset[str],
                  options: LayoutOptions, run: StepRunner, *,
                  check_invariants: bool = False,
                  border: BorderOrder | None = None,
                  minimised: Minimised | None = None,
                  corridors_by_geometry: bool = False) -> LaidOutLevel:
    """Lay out one level (``options.direction`` must be TopToBottom: the caller works in
    the canonical frame); ``run`` times the steps and carries the level's deadline.
    With a ``border`` order (the top-down pass, :mod:`.border_order`) the border dummies
    take that order and the interior is re-ordered around them; an earlier pass's
    ``minimised`` order of the same level stands in for crossing minimisation. With
    ``corridors_by_geometry`` the router puts each loop-back corridor on the side of
    its ends' mean column (:func:`~layouts.layered.loopbacks.corridors.assign_corridors`)
    instead of the side the ordering planned."""
    deadline = run.deadline
    layered = run("import", import_graph, graph, options)
    acyclic = run("cycle breaking", cycles.run, layered)
    rank = run("layering", layering.run, acyclic, deadline)
    rank = run("pin borders", pin_borders, acyclic, rank, entering, leaving)
    proper = run("dummy chains", chains.run, acyclic, rank)
    proper_items = len(proper.nodes) + len(proper.segments)
    deadline.keep(max(COSTS.after_ordering(2 * proper_items),
                      AFTER_ORDERING_SHARE * deadline.remaining()))
    order = minimised.reuse(proper) if minimised is not None else None
    if order is None:
        order = run("ordering", ordering.run, proper, options, deadline)
        minimised = Minimised(tuple(n.id for n in proper.nodes), order)
    fixed: frozenset[int] = frozenset()
    if border is not None:
        order = run("border order", pin_border_order, proper, order, border, options.effort,
                    deadline)
        fixed = frozenset(proper.index[d] for d in (*border.entering, *border.leaving))
    if layered.ports is not None:
        order = run("port order", port_order.run, proper, order, layered.ports, deadline,
                    fixed=fixed)
    reserve = COSTS.after_ordering(2 * proper_items)
    lanes_time = Deadline(max(0.001, LANES_SHARE * (deadline.remaining() - reserve)))
    proper, order = run("loop-back lanes", lanes.run, acyclic, rank, proper, order, options,
                        lanes_time)
    if corridors_by_geometry:
        order = replace(order, corridor_sides=())
    proper_items = len(proper.nodes) + len(proper.segments)
    items = len(graph.nodes) + len(graph.edges)
    plan = Plan.for_remaining(deadline.remaining(), COSTS, items, proper_items)
    if plan is not Plan.FULL:
        deadline.exhausted = True
    placed = run("placement", placement.run, proper, order, options,
                 quick=plan is not Plan.FULL)
    if layered.ports is not None:
        placed = run("port placement", port_pass.run, proper, order, options, placed,
                     layered.ports, quick=plan is not Plan.FULL, deadline=deadline)
    if check_invariants:
        check(Stages(layered, acyclic, rank, proper, order, placed), options)
    deadline.keep(COSTS.routing_per_item * proper_items / 4)
    routed = run("routing", route_edges, placed, options, deadline, layered.ports)
    restored = run("undo cycle breaking", cycles.undo, routed, acyclic)
    straight = run("straighten borders", straighten_borders, restored, entering, leaving,
                   options.clearance, options.edge_spacing)
    compact = run("compact borders", compact_borders, straight, entering, leaving,
                  options.clearance)
    return LaidOutLevel(compact, order.crossings, minimised)


def compact_borders(routing: Routing, entering: frozenset[str], leaving: frozenset[str],
                    gap: float) -> Routing:
    """Move the entering dummies down and the leaving ones up, to ``gap`` from the
    nearest other thing of the level (a node, a route point, a label box), shortening
    the straight first (last) segments of their routes: the layer spacing above the
    first real layer and below the last one is then not spent twice, once as layer
    spacing and once as the compound's border strip.

    >>> from layouts.result import EdgeRoute, NodeBox, Point
    >>> r = Routing((NodeBox("in", 0, 0, 1, 1), NodeBox("a", -40, 61, 80, 40)),
    ...             (EdgeRoute("e", "in", "a", (Point(0.5, 1), Point(0.5, 61))),), 80, 101)
    >>> c = compact_borders(r, frozenset({"in"}), frozenset(), 12)
    >>> c.nodes[0].y, c.edges[0].points
    (48, (Point(x=0.5, y=49), Point(x=0.5, y=61)))
    """
    if not entering and not leaving:
        return routing
    top, bottom = math.inf, -math.inf
    for n in routing.nodes:
        if n.id not in entering and n.id not in leaving:
            top, bottom = min(top, n.y), max(bottom, n.y + n.height)
    for route in routing.edges:
        points = list(route.points)
        if route.source in entering:
            points = points[1:]
        if route.target in leaving:
            points = points[:-1]
        for p in points:
            top, bottom = min(top, p.y), max(bottom, p.y)
        if (b := route.label_box) is not None:
            top, bottom = min(top, b.y), max(bottom, b.y + b.height)
    down = _shift(routing, entering, top - gap, below=True)
    up = _shift(routing, leaving, bottom + gap, below=False)
    nodes = tuple(replace(n, y=n.y + down) if n.id in entering else
                  replace(n, y=n.y + up) if n.id in leaving else n for n in routing.nodes)
    edges = []
    for route in routing.edges:
        points = list(route.points)
        if route.source in entering:
            points[0] = Point(points[0].x, points[0].y + down)
        if route.target in leaving:
            points[-1] = Point(points[-1].x, points[-1].y + up)
        edges.append(replace(route, points=tuple(points)))
    return replace(routing, nodes=nodes, edges=tuple(edges))


def _shift(routing: Routing, dummies: frozenset[str], limit: float, *, below: bool) -> float:
    """How far the ``dummies`` can move towards ``limit`` (down when ``below``): their
    bottom (top) may reach it, never the other way."""
    boxes = [n for n in routing.nodes if n.id in dummies]
    if not boxes or not math.isfinite(limit):
        return 0.0
    if below:
        return max(0.0, limit - max(n.y + n.height for n in boxes))
    return min(0.0, limit - min(n.y for n in boxes))
