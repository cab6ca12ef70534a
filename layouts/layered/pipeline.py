"""The layered engine, top to bottom: a list of named, timed steps (like dagre's
``runLayout``).

1. import: copy the caller's graph into the typed layered graph (canonical frame);
2. cycle breaking: loop-backs first, then a small feedback set;
3. layering: network simplex ranks;
4. dummy chains: long edges split at every layer they cross;
5. ordering: crossing minimisation; loop-back lanes: loop-backs whose corridors beside
   the drawing would cross drawn between the columns instead, when that crosses less;
6. placement: Brandes-Koepf coordinates, layers stacked;
7. routing: orthogonal routes on the boundary-slot lattice (:mod:`.routing`);
8. undo cycle breaking: every route runs from its input source to its input target;
9. frame restore: transpose back for LeftToRight;
10. export: a :class:`LayoutResult` with the per-step timings in its diagnostics.

Steps 1-6 are :func:`prepare`, callable on their own (tests run the invariant checkers of
:mod:`.invariants` after each of them). The deadline from ``options.time_budget`` is a
safety net checked inside the iterative steps; when it runs out they keep their best
result and the diagnostics say so.

>>> from layouts.graph import Edge, Graph, Node
>>> g = Graph((Node("a", 80, 40), Node("b", 80, 40)), (Edge("e", "a", "b"),))
>>> result = run_layout(g, LayoutOptions())
>>> result.node("a").y < result.node("b").y, [name for name, _ in result.diagnostics.phases][:3]
(True, ['import', 'cycle breaking', 'layering'])
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

from layouts.errors import LayoutError
from layouts.graph import Graph
from layouts.layered import cycles, frame, invariants, lanes, layering, ordering, placement
from layouts.layered.graph import LayeredGraph, ProperGraph, import_graph
from layouts.layered.layering import chains
from layouts.layered.model import Deadline, Placement, Routing
from layouts.layered.routing import route_edges
from layouts.options import LayoutOptions
from layouts.result import Diagnostics, LayoutResult

ENGINE_NAME = "layered"

P = ParamSpec("P")
R = TypeVar("R")


class InvariantViolationError(LayoutError):
    """A phase broke its post-condition (raised only when invariant checks are on)."""


class StepRunner:
    """Runs named steps, timing each (the ``phases`` of the diagnostics); after each
    step it asks the deadline, so a budget that ran out is always reported."""

    def __init__(self, deadline: Deadline) -> None:
        self.deadline = deadline
        self.timings: list[tuple[str, float]] = []
        self.started = time.perf_counter()

    def __call__(self, name: str, step: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        start = time.perf_counter()
        result = step(*args, **kwargs)
        self.timings.append((name, time.perf_counter() - start))
        self.deadline.expired()
        return result


@dataclass(frozen=True, slots=True)
class Stages:
    """The result of every step up to placement, for tests and debugging."""

    layered: LayeredGraph
    acyclic: LayeredGraph
    rank: tuple[int, ...]
    proper: ProperGraph
    order: ordering.OrderingResult
    placement: Placement


def prepare(graph: Graph, options: LayoutOptions, run: StepRunner | None = None, *,
            check_invariants: bool = False) -> Stages:
    """Steps 1-6, import to placement; with ``check_invariants`` every phase's
    post-condition is checked and :class:`InvariantViolationError` names the first
    broken one."""
    run = run or StepRunner(Deadline(options.time_budget))
    layered = run("import", import_graph, graph, options)
    acyclic = run("cycle breaking", cycles.run, layered)
    rank = run("layering", layering.run, acyclic, run.deadline)
    proper = run("dummy chains", chains.run, acyclic, rank)
    order = run("ordering", ordering.run, proper, options, run.deadline)
    proper, order = run("loop-back lanes", lanes.run, acyclic, rank, proper, order, options,
                        run.deadline)
    placed = run("placement", placement.run, proper, order, options)
    stages = Stages(layered, acyclic, rank, proper, order, placed)
    if check_invariants:
        check(stages, options)
    return stages


def run_layout(graph: Graph, options: LayoutOptions, *,
               check_invariants: bool = False) -> LayoutResult:
    """Lay out ``graph`` with the layered engine; the caller's graph is not changed."""
    run = StepRunner(Deadline(options.time_budget))
    stages = prepare(graph, options, run, check_invariants=check_invariants)
    routed = run("routing", route_edges, stages.placement, options, run.deadline)
    restored = run("undo cycle breaking", cycles.undo, routed, stages.acyclic)
    final = run("frame restore", frame.restore, restored, options.direction)
    return run("export", export, graph, final, options, run, stages.order.crossings)


def check(stages: Stages, options: LayoutOptions) -> None:
    """Run the invariant checkers after each named phase; raise on the first failure."""
    checks = (
        ("cycle breaking", invariants.after_cycle_breaking(stages.acyclic)),
        ("layering", invariants.after_layering(stages.acyclic, stages.rank)),
        ("dummy chains", invariants.after_dummy_chains(stages.proper)),
        ("ordering", invariants.after_ordering(stages.proper, stages.order)),
        ("placement", invariants.after_placement(stages.proper, stages.placement, options)),
    )
    for phase, problems in checks:
        if problems:
            raise InvariantViolationError(f"after {phase}: {'; '.join(problems)}")


def export(graph: Graph, routing: Routing, options: LayoutOptions, run: StepRunner,
           crossings: int) -> LayoutResult:
    """The :class:`LayoutResult`: real nodes in input order and routes in input order,
    with the timings so far and whether the deadline ran out."""
    position = {n.id: i for i, n in enumerate(graph.nodes)}
    nodes = tuple(sorted((n for n in routing.nodes if n.id in position),
                         key=lambda n: position[n.id]))
    notes = [f"crossings after ordering: {crossings}"]
    if run.deadline.exhausted:
        notes.append("time budget ran out; the layout is the best found so far")
    return LayoutResult(
        nodes=nodes,
        edges=routing.edges,
        width=routing.width,
        height=routing.height,
        diagnostics=Diagnostics(
            engine=ENGINE_NAME,
            effort=options.effort.value,
            direction=options.direction.value,
            seconds=time.perf_counter() - run.started,
            budget_exhausted=run.deadline.exhausted,
            phases=tuple(run.timings),
            notes=tuple(notes),
        ),
    )
