"""Free ports on the side that draws the fewest crossings.

A free port (its node's constraints ``free``, or its own side ``free``) first takes the
face of the flow its edges use most (:mod:`.portmap`): no stub for those edges, but one
round the node for each edge of the other role, and no say in where its edges' other
ends are. This step tries the other faces too: for each free port in turn (model order)
it lays the graph out again with that port fixed on each other face (the node's other
ports fixed where they are) and keeps the face of fewest drawn crossings
(:func:`layouts.quality.measure`; the first face on ties, so a change always pays).

The trials are whole layouts, so they are bounded: none at draft effort, at most
:data:`TRIALS` per effort otherwise and :data:`WORK` over the graph's size, only on
graphs of up to :data:`MAX_NODES` nodes, and only while half the time budget is left
(a short budget is the one thing that can cut them short). The result's diagnostics
count the whole time and say how many trials ran and how many ports moved.

>>> from layouts.graph import Edge, Graph, Node, Port
>>> g = Graph((Node("a", 80, 40, ports=(Port("p"),)), Node("b", 80, 40)),
...           (Edge("e", "a", "b", source_port="p"),))
>>> [(n, p, side.value) for n, p, side in free_ports(g, Direction.TOP_TO_BOTTOM)]
[('a', 'p', 'south')]
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from layouts.graph import Graph, Node, PortConstraints, PortSide
from layouts.layered.port_fit import FLOW_FACES, face_of
from layouts.options import Direction, Effort, LayoutOptions
from layouts.quality import measure
from layouts.result import LayoutResult

__all__ = ["MAX_NODES", "TRIALS", "WORK", "choose_free_sides", "free_ports"]

TRIALS = {Effort.DRAFT: 0, Effort.BALANCED: 6, Effort.BEST: 24}
"""Most trial layouts per effort."""

WORK = {Effort.DRAFT: 0, Effort.BALANCED: 300, Effort.BEST: 2_000}
"""Trials times the graph's items (nodes and edges) allowed per effort: a count, not a
clock, so the same input always gets the same trials (and the same drawing)."""

MAX_NODES = 200
"""Larger graphs keep the flow rule for free ports."""

_FACES = (PortSide.NORTH, PortSide.EAST, PortSide.SOUTH, PortSide.WEST)


def free_ports(graph: Graph, direction: Direction) -> list[tuple[str, str, PortSide]]:
    """``(node, port, face it takes by the flow rule)`` of every free port of a leaf
    node, in model order."""
    flow = FLOW_FACES[direction]
    uses: dict[tuple[str, str], list[PortSide]] = {}
    for e in graph.edges:
        for node, port, face in ((e.source, e.source_port, flow[0]),
                                 (e.target, e.target_port, flow[1])):
            if port is not None:
                uses.setdefault((node, port), []).append(face)
    out = []
    for n in graph.all_nodes():
        constraints = n.effective_port_constraints()
        if n.children or constraints is PortConstraints.FIXED_POS:
            continue
        for p in n.ports:
            if constraints is PortConstraints.FREE or p.side is PortSide.FREE:
                out.append((n.id, p.id, face_of(PortSide.FREE, uses.get((n.id, p.id), []),
                                                flow)))
    return out


def _fixed(n: Node, port: str, face: PortSide, sides: dict[tuple[str, str], PortSide]
           ) -> Node:
    """``n`` with ``port`` on ``face`` and its other ports on the faces they have now,
    under fixed-side constraints (fixed-order ones stay)."""
    ports = tuple(replace(p, side=face if p.id == port else sides.get((n.id, p.id), p.side))
                  for p in n.ports)
    constraints = n.port_constraints
    if n.effective_port_constraints() is PortConstraints.FREE:
        constraints = PortConstraints.FIXED_SIDE
    return replace(n, ports=ports, port_constraints=constraints)


def _with_node(graph: Graph, node: Node) -> Graph:
    """``graph`` with the node of ``node``'s id replaced by it (at any depth)."""
    def swap(n: Node) -> Node:
        if n.id == node.id:
            return node
        if not n.children:
            return n
        children = tuple(swap(c) for c in n.children)
        return n if children == n.children else replace(n, children=children)

    return replace(graph, nodes=tuple(swap(n) for n in graph.nodes))


def choose_free_sides(graph: Graph, options: LayoutOptions,
                      lay_out: Callable[[Graph], LayoutResult],
                      refine: Callable[[Graph, int, LayoutResult | None],
                                       LayoutResult | None] | None = None
                      ) -> LayoutResult:
    """The layout of ``graph`` (by ``lay_out``) with each free port on the face of
    fewest crossings; see the module docstring. ``refine`` lays out the graph with the
    sides kept once more, with a costlier search (the layer moves of
    :mod:`layouts.layered.layering.moves`), when the kept layout crosses and the trials
    ran in time, told how many layouts the trials made (to spend about as much) and
    the layout kept: its layout is kept when it crosses less (``None``: it has no
    search to add). Without trials to run, ``refine`` lays out ``graph`` in
    ``lay_out``'s stead (told 1 and no layout)."""
    started = time.perf_counter()
    left = TRIALS[options.effort]
    candidates = free_ports(graph, options.direction) if left else []
    if not candidates or sum(1 for _ in graph.all_nodes()) > MAX_NODES:
        return (refine and refine(graph, 1, None)) or lay_out(graph)
    best, current, trials, moved, exhausted = _trials(graph, options, lay_out, candidates)
    if refine is not None and not exhausted and (count := measure(best).crossings) > 0:
        refined = refine(current, trials + 1, best)
        best = refined if refined and measure(refined).crossings < count else best
    return _noted(best, started, trials, moved, exhausted=exhausted)


def _trials(graph: Graph, options: LayoutOptions, lay_out: Callable[[Graph], LayoutResult],
            candidates: list[tuple[str, str, PortSide]]
            ) -> tuple[LayoutResult, Graph, int, int, bool]:
    """The trials of :func:`choose_free_sides`: the layout of fewest crossings, the graph
    with the sides it was drawn with, how many trials ran, how many ports moved off the
    flow face, and whether the time budget cut the trials short."""
    started = time.perf_counter()
    best = lay_out(graph)
    left = TRIALS[options.effort]
    items = sum(1 for _ in graph.all_nodes()) + len(graph.edges)
    left = min(left, WORK[options.effort] // max(1, items))
    allowed = options.time_budget / 2
    count = measure(best).crossings
    trials = moved = 0
    sides = {(n, p): face for n, p, face in candidates}
    nodes = graph.node_index()
    current = graph
    for node_id, port, natural in candidates:
        for face in (f for f in _FACES if f is not natural):
            if count == 0 or trials == left:
                return best, current, trials, moved, False
            if time.perf_counter() - started > allowed:   # the budget cut the trials short
                return best, current, trials, moved, True
            trials += 1
            trial_node = _fixed(nodes[node_id], port, face, sides)
            trial = _with_node(current, trial_node)
            result = lay_out(trial)
            crossings = measure(result).crossings
            if crossings < count:
                moved += sides[(node_id, port)] == natural
                best, count, current = result, crossings, trial
                sides[(node_id, port)] = face
                nodes[node_id] = trial_node
    return best, current, trials, moved, False


def _noted(result: LayoutResult, started: float, trials: int, moved: int, *,
           exhausted: bool = False) -> LayoutResult:
    """``result`` with the whole time spent and a note on the trials (and flagged
    budget-exhausted when the time budget cut them short)."""
    note = f"free port sides: {trials} trial layouts, {moved} ports moved off the flow face"
    diagnostics = replace(result.diagnostics, seconds=time.perf_counter() - started,
                          notes=(*result.diagnostics.notes, note),
                          budget_exhausted=result.diagnostics.budget_exhausted or exhausted)
    return replace(result, diagnostics=diagnostics)
