"""Compound nodes in the layered engine: a hierarchical, bottom-up layout.

Each compound node is laid out on its own with the flat pipeline (its children as
nodes), boxed with padding and room for its label, and its parent's layout treats it as
one node of the size that results, to any depth. The steps, one module each:

1. :mod:`.plan`: one flat *level* per compound (and the root); every edge becomes one
   *piece* per level it passes. An edge that leaves (enters) a compound is, inside it,
   a piece to (from) a *border dummy*, a one-pixel node standing for the point where the
   edge crosses the border;
2. :mod:`.level`: each level through the layered pipeline, children's levels first, in
   the canonical top-to-bottom frame (the levels inside compounds with ELK's default
   spacings where the caller's are larger, :data:`.passes.COMPOUND_NODE_SPACING`), with
   one more step: *pin borders* puts the
   entering dummies on a first layer and the leaving ones on a last layer of their own,
   so between a dummy and its border there is nothing to cross. :mod:`.passes` runs
   that bottom-up pass, then a top-down one and a second bottom-up one in which every
   compound's border dummies take the order its parent's routes meet its faces
   (:mod:`.border_order`), and keeps the pass that crosses less; on small graphs
   :mod:`.swaps` then tries the root's order with one adjacent pair swapped, which
   the root alone cannot tell apart but its compounds' interiors can;
3. :mod:`.frames`: each compound's box around its laid-out interior: padding, one
   track per crossing edge between the border and the interior, the label below the
   entering tracks (so no jog runs across it); :mod:`.across` then closes the box's
   empty bands across the flow, children moving as rigid units, before the parent is
   laid out around it;
4. :mod:`.jogs`: the track order of the short jogs that join a piece ending at a
   compound's face slot (the parent's routing puts it there, like any edge end) to the
   piece inside, which starts at the border dummy's column;
5. :mod:`.assemble`: every level drawn in its box, top down; each edge's pieces joined
   through their jogs into one route;
6. :mod:`.squeeze`: the empty horizontal bands of the whole drawing closed by one
   order-keeping map of y (tracks whose jogs ran straight, padding wider than needed);
7. frame restore (LeftToRight) and export, as in the flat pipeline.

Each piece is routed by the flat router, so it keeps every route contract on its level
(orthogonal, slots, 12 px clearance, no node crossed); the parent's pieces treat the
compound as a solid node, so no edge passes through a compound box it does not enter,
and an edge enters or leaves each compound at most once, straight through a slot of the
face (the slot lattice of a compound's face counts those crossings like edge ends).
Forward edges stay forward: crossings leave through the bottom face and enter through
the top one, as the router does for every edge.

Why not ELK's ``INCLUDE_CHILDREN`` (one layering and one crossing minimisation across
all levels)? It lets an edge into a compound bend freely to reach its child and can
save crossings between levels, but the boxes then depend on every other level, each
compound's interior is no longer one piece the budget can cut short, and the route
contracts would have to be re-proved for boxes that grow while the layers are placed.
Laid out bottom-up, every level is a plain flat layout, the budget and invariant checks
apply per level, and the only new geometry is the jogs in each compound's border strip.
The cost: the order of crossings at a border is decided by the parent's slots, not
jointly with the interior; the top-down pass (:mod:`.passes`) carries that order into
the interior, so jogs cross in the strip only where the parent's later frame sizes
moved a slot.

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.options import LayoutOptions
>>> g = Graph((Node("g", 10, 10, label="group", children=(Node("a", 80, 40),)),
...            Node("c", 80, 40)), (Edge("e", "a", "c"),))
>>> result = run_hierarchy(g, LayoutOptions())
>>> [(n.id, n.parent) for n in result.nodes]
[('g', None), ('a', 'g'), ('c', None)]
>>> outer, inner = result.node("g"), result.node("a")
>>> outer.x < inner.x and inner.y + inner.height < outer.y + outer.height
True
"""

from __future__ import annotations

import time

from layouts.graph import Graph
from layouts.layered.frame import TRANSPOSED_SIDE
from layouts.layered.hierarchy.assemble import Drawing, assemble
from layouts.layered.hierarchy.level import Minimised
from layouts.layered.hierarchy.passes import DUMMY_SIZE, Pass, lay_out_levels
from layouts.layered.hierarchy.plan import split
from layouts.layered.hierarchy.squeeze import COMPOUND_LAYER_SPACING, rigid_nodes, squeeze
from layouts.layered.hierarchy.swaps import drawn_crossings, try_swaps
from layouts.layered.model import Deadline
from layouts.layered.pipeline import ENGINE_NAME, StepRunner
from layouts.options import Direction, Effort, LayoutOptions
from layouts.result import (
    Box,
    Diagnostics,
    EdgeEnd,
    EdgeRoute,
    LayoutResult,
    NodeBox,
    Point,
    PortBox,
)

__all__ = ["CORRIDOR_TRIAL_ITEMS", "DUMMY_SIZE", "run_hierarchy"]


def _transpose_box(b: Box | None) -> Box | None:
    return None if b is None else Box(b.y, b.x, b.height, b.width)


def _transpose_end(end: EdgeEnd) -> EdgeEnd:
    return EdgeEnd(None if end.side is None else TRANSPOSED_SIDE[end.side], end.slot)


def _restore(drawing: Drawing, direction: Direction) -> Drawing:
    """The drawing in the caller's (base) direction: LeftToRight transposes it."""
    if direction is Direction.TOP_TO_BOTTOM:
        return drawing
    nodes = tuple(NodeBox(n.id, n.y, n.x, n.height, n.width, n.shape, n.parent,
                          _transpose_box(n.label_box)) for n in drawing.nodes)
    edges = tuple(EdgeRoute(e.id, e.source, e.target, tuple(Point(p.y, p.x) for p in e.points),
                            _transpose_end(e.source_end), _transpose_end(e.target_end),
                            _transpose_box(e.label_box), e.loop_back)
                  for e in drawing.edges)
    ports = tuple(PortBox(p.id, p.node, p.y, p.x, p.height, p.width,
                          None if p.side is None else TRANSPOSED_SIDE[p.side],
                          _transpose_box(p.label_box), p.slot)
                  for p in drawing.ports)
    return Drawing(nodes, edges, drawing.height, drawing.width, ports)


def run_hierarchy(graph: Graph, options: LayoutOptions, *,
                  check_invariants: bool = False) -> LayoutResult:
    """Lay out a compound graph (``options.direction`` TopToBottom or LeftToRight; the
    provider mirrors the other two); see the module docstring."""
    started = time.perf_counter()
    overall = Deadline(options.time_budget)
    run = StepRunner(overall)
    plan = run("split levels", split, graph)
    chosen = lay_out_levels(graph, plan, options, run, check_invariants)
    drawing = run("assemble", assemble, graph, plan, chosen.routings, chosen.frames)
    by_geometry = False
    if _corridor_trial(chosen, options, graph, overall, started):
        other = lay_out_levels(graph, plan, options, run, check_invariants,
                               corridors_by_geometry=True)
        other_drawing = run("assemble", assemble, graph, plan, other.routings, other.frames)
        if drawn_crossings(other_drawing) < drawn_crossings(drawing):
            chosen, drawing, by_geometry = other, other_drawing, True

    def swapped(order: Minimised) -> tuple[Pass, Drawing]:
        laid = lay_out_levels(graph, plan, options, run, check_invariants,
                              corridors_by_geometry=by_geometry, orders={None: order})
        return laid, run("assemble", assemble, graph, plan, laid.routings, laid.frames)

    chosen, drawing = try_swaps(graph, options, chosen, drawing, swapped, overall, started)
    drawing = run("squeeze", squeeze, drawing, layer_spacing=options.layer_spacing,
                  spacing=max(options.clearance, options.edge_spacing),
                  clearance=options.clearance, rigid=rigid_nodes(graph, drawing),
                  inner_layer_spacing=min(options.layer_spacing, COMPOUND_LAYER_SPACING))
    final = run("frame restore", _restore, drawing, options.direction)
    notes = [f"compound layout: {len(plan.levels)} levels",
             f"crossings after ordering: {chosen.crossings} (sum over levels)"]
    notes += run.notes
    if overall.exhausted:
        notes.append("time budget ran out; the layout is the best found so far")
    return LayoutResult(
        nodes=final.nodes, edges=final.edges, width=final.width, height=final.height,
        diagnostics=Diagnostics(
            engine=ENGINE_NAME, effort=options.effort.value,
            direction=options.direction.value, seconds=time.perf_counter() - started,
            budget_exhausted=overall.exhausted, phases=_phases(run.timings),
            notes=tuple(notes)), ports=final.ports)


CORRIDOR_TRIAL_ITEMS = 100
"""Compound graphs of up to this many nodes and edges (at balanced and best effort)
are laid out a second time with every loop-back corridor on the side of its ends'
mean column rather than the side each level's ordering planned, and the drawing of
fewer crossings is kept: a level plans its corridors knowing only its own nodes, and a
corridor that enters a compound may be better off on the side its target is."""


def _corridor_trial(chosen: Pass, options: LayoutOptions, graph: Graph,
                    overall: Deadline, started: float) -> bool:
    """Whether to try the corridors by geometry (see :data:`CORRIDOR_TRIAL_ITEMS`); a
    trial the time left cannot pay for marks the deadline exhausted."""
    if options.effort is Effort.DRAFT or overall.exhausted:
        return False
    items = sum(1 for _ in graph.all_nodes()) + len(graph.edges)
    if items > CORRIDOR_TRIAL_ITEMS or not any(
            route.loop_back for routing in chosen.routings.values() for route in routing.edges):
        return False
    if overall.remaining() > 2 * (time.perf_counter() - started):
        return True
    overall.exhausted = True   # the budget cut the layout short: the diagnostics say so
    return False


def _phases(timings: list[tuple[str, float]]) -> tuple[tuple[str, float], ...]:
    """Per-step seconds summed over the levels, in first-run order."""
    total: dict[str, float] = {}
    for name, seconds in timings:
        total[name] = total.get(name, 0.0) + seconds
    return tuple(total.items())
