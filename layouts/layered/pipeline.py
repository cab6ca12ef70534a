"""The layered engine, top to bottom: a list of named, timed steps (like dagre's
``runLayout``).

1. import: copy the caller's graph into the typed layered graph (canonical frame);
2. cycle breaking: loop-backs first, then a small feedback set (a port graph without a
   source is drawn with the first node and with the greedy entry, keeping the drawing
   that crosses less: :mod:`.cycles.entry`); label ranks: the labelled edges named by
   the label check below get two layers (:mod:`.label_ranks`);
3. layering: network simplex ranks; with ports, each port then takes the role its
   edges have in the drawing (:mod:`.cycles.port_roles`); a small component with ports
   whose kept drawing crosses is drawn again on layerings one node moved, keeping a
   move while the drawing crosses less within 1.2 times the area it started from
   (:mod:`.layering.moves`, once per layout, after
   the trials of the free port sides, the entry rule and the effort chose theirs);
4. dummy chains: long edges split at every layer they cross (the reversed edge of a
   mutual pair too, beside its partner: :mod:`.loopbacks.facing`);
5. ordering: crossing minimisation (then, with ports, port-aware reordering, the
   strips of the stubs round each node chosen again, and bundles against the flow split
   between both strips where that crosses less: :mod:`.ordering.ports`);
   loop-back lanes: loop-backs whose corridors beside the drawing would cross drawn
   between the columns instead, when that crosses less;
6. placement: Brandes-Koepf coordinates, layers stacked;
7. routing: orthogonal routes on the boundary-slot lattice (:mod:`.routing`);
8. undo cycle breaking: every route runs from its input source to its input target; then
   fans and compaction (ports move with their node); the label check: where a label
   of an edge of one layer sits nearer another route than its own, steps 1-8 run again
   with that edge two layers long, while that puts fewer labels astray
   (:func:`.label_ranks.roomiest`);
9. frame restore: transpose back for LeftToRight;
10. export: a :class:`LayoutResult` with the per-step timings in its diagnostics.

A graph of several weakly connected components runs steps 1-9 once per component, and a
``packing`` step packs their drawings into rows toward ``options.aspect_ratio``
(:mod:`.packing`) before the export.

Steps 1-6 are :func:`prepare`, callable on their own (tests run the invariant checkers of
:mod:`.invariants` after each of them). The deadline from ``options.time_budget`` is
checked inside the iterative steps (sweeps, transpose rounds, restarts, sifting,
network simplex pivots, lanes, repairs); when it runs out they keep their best result
and the diagnostics say so. Before each step the deadline holds back a reserve for the
steps every layout needs (:mod:`.budget`'s cost model); the optional steps after
ordering (routing's side-face elbows, fans, compaction) run only when the time left pays
for them; when placement and routing do not fit at all, the layout is the one-pass
:mod:`.staircase` layout instead, which keeps every route contract.

>>> from layouts.graph import Edge, Graph, Node
>>> g = Graph((Node("a", 80, 40), Node("b", 80, 40)), (Edge("e", "a", "b"),))
>>> result = run_layout(g, LayoutOptions())
>>> result.node("a").y < result.node("b").y, [name for name, _ in result.diagnostics.phases][:3]
(True, ['import', 'cycle breaking', 'label ranks'])
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import ParamSpec, TypeVar

from layouts.errors import LayoutError
from layouts.graph import Graph
from layouts.layered import (
    compaction,
    cycles,
    fans,
    frame,
    invariants,
    label_ranks,
    layering,
    ordering,
    packing,
)
from layouts.layered.budget import COSTS, Extra, OutOfTimeError
from layouts.layered.contracts.labels import misplaced_labels
from layouts.layered.cycles import entry, port_roles
from layouts.layered.cycles.entry import EntryRule
from layouts.layered.graph import LayeredGraph, ProperGraph, import_graph
from layouts.layered.layering import chains, moves
from layouts.layered.loopbacks import facing, lanes
from layouts.layered.model import Deadline, Placement, Routing
from layouts.layered.ordering import ports as port_order
from layouts.layered.ordering.drawn_check import Drawing, drawn_crossings, fewer_crossings
from layouts.layered.placement import port_pass
from layouts.layered.routing import route_edges
from layouts.layered.staircase import staircase
from layouts.layered.staircase_ports import staircase_ports
from layouts.options import Effort, LayoutOptions
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
        self.notes: list[str] = []
        self.started = time.perf_counter()

    def absorb(self, child: StepRunner) -> None:
        """Add a child runner's timings (per step name) and notes, and its deadline's
        state, to this one's (components laid out one by one)."""
        totals = dict(self.timings)
        for name, seconds in child.timings:
            totals[name] = totals.get(name, 0.0) + seconds
        self.timings = list(totals.items())
        self.notes += [note for note in child.notes if note not in self.notes]
        self.deadline.exhausted |= child.deadline.exhausted

    def apart(self, deadline: Deadline, step: Callable[[StepRunner], R]
              ) -> tuple[R, tuple[str, ...]]:
        """``step`` on a child runner of ``deadline``, and the child's notes: its timings
        and its deadline's state join this runner's (:meth:`absorb`), its notes do not,
        so a caller that draws several times keeps the notes of the drawing it keeps."""
        child = StepRunner(deadline)
        result = step(child)
        notes, child.notes = tuple(child.notes), []
        self.absorb(child)
        return result, notes

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
            check_invariants: bool = False, two_layers: frozenset[int] = frozenset(),
            entry_rule: EntryRule = EntryRule.FIRST_NODE,
            layers: tuple[int, ...] | None = None) -> Stages:
    """Steps 1-6, import to placement; with ``check_invariants`` every phase's
    post-condition is checked and :class:`InvariantViolationError` names the first
    broken one. The edges at the input positions ``two_layers`` get label ranks: at
    least two layers each (:mod:`.label_ranks`); ``entry_rule`` is cycle breaking's
    (:mod:`.cycles.entry`); ``layers``, when given, is the rank per node to draw
    instead of network simplex's (a valid layering of the acyclic graph: the layer
    moves search's, :mod:`.layering.moves`).

    Before each step the deadline keeps a reserve for the steps a layout cannot do
    without (:mod:`.budget`), so optimisation stops in time;
    :class:`~.budget.OutOfTimeError` says when only the staircase layout would fit."""
    run = run or StepRunner(Deadline(options.time_budget))
    deadline = run.deadline
    items = len(graph.nodes) + len(graph.edges)
    layered = run("import", import_graph, graph, options)
    acyclic = run("cycle breaking", cycles.run, layered, entry_rule)
    acyclic = run("label ranks", label_ranks.lengthen, acyclic, two_layers)
    guess = round(COSTS.proper_per_item * items)
    deadline.keep(COSTS.after_layering(items, guess, COSTS.speed(deadline.elapsed() * 2, items),
                                     quick=False))
    rank = layers if layers is not None else run("layering", layering.run, acyclic, deadline)
    if layered.ports is not None:
        acyclic, rank = run("port roles", port_roles.run, graph, acyclic, rank, options)
    proper = run("dummy chains", chains.run, acyclic, rank, facing=facing.pairs(acyclic, options))
    speed = COSTS.speed(_measured(run, FRONT_STEPS), items)
    proper_items = len(proper.nodes) + len(proper.segments)
    least = COSTS.ordering_per_item * proper_items * speed + COSTS.after_ordering(
        proper_items, speed=speed)
    if least > deadline.remaining() and COSTS.staircase(items, speed) < least:
        raise OutOfTimeError(f"{proper_items} items left to order, place and route")
    # lanes may add up to as many dummies again: keep room for placing those too
    deadline.keep(COSTS.after_ordering(2 * proper_items, speed=speed))
    order = run("ordering", ordering.run, proper, options, deadline)
    if acyclic.ports is not None:
        order = run("port order", port_order.run, proper, order, acyclic.ports, deadline)
        ports = run("port strips", port_order.strips, proper, order, acyclic.ports)
        ports = run("port splits", port_order.splits, proper, order, ports, deadline)
        if ports is not None and ports is not acyclic.ports:
            acyclic, proper = port_order.resized(acyclic, proper, ports)
            order = run("port order", port_order.run, proper, order, ports, deadline)
    lane = run("loop-back lanes", lanes.choose, acyclic, rank, proper, order, options, deadline)
    proper, order = lane.proper, lane.order
    proper_items = len(proper.nodes) + len(proper.segments)
    if not COSTS.carry_on(deadline.remaining(), items, proper_items, speed):
        raise OutOfTimeError(f"{proper_items} items left to place and route")
    placed = run("placement", lane.place, options)
    if acyclic.ports is not None:
        placed = run("port placement", port_pass.run, proper, order, options, placed,
                     acyclic.ports, deadline=deadline)
    stages = Stages(layered, acyclic, rank, proper, order, placed)
    if check_invariants:
        check(stages, options)
    return stages


def run_layout(graph: Graph, options: LayoutOptions, *, check_invariants: bool = False,
               layer_moves: int = 0) -> LayoutResult:
    """Lay out ``graph`` with the layered engine; the caller's graph is not changed.
    Disconnected components are laid out one by one, each with the time the later
    ones' least layouts leave (at least its share by size), and packed into rows toward
    ``options.aspect_ratio`` (:mod:`.packing`). When the budget cannot pay for the
    layered pipeline, the result is the :mod:`.staircase` layout (flagged
    budget-exhausted, with a note saying so). With ``layer_moves`` (the number of
    layouts of ``graph`` made before this one, at least 1), each small component with
    ports searches its layering too (:func:`_moved`), with about as many drawings as
    those layouts made; the provider asks for it once, on the layout its free port sides
    trials kept."""
    run = StepRunner(Deadline(options.time_budget))
    parts = packing.split(graph)
    if len(parts) <= 1:
        routing, crossings = _connected(graph, options, run, check_invariants, layer_moves)
        return routed_check(run("export", export, graph, routing, options, run, crossings),
                            graph, options, check_invariants)
    sizes = [len(part.nodes) + len(part.edges) for part in parts]
    left = sum(sizes)
    drawings: list[Routing] = []
    counts: list[int] = []
    for part, size in zip(parts, sizes, strict=True):
        left -= size
        remaining = run.deadline.remaining()
        # all the time the later components' least layouts leave, at least their fair share
        share = max(0.001, remaining * size / (left + size),
                    remaining - COSTS.pipeline(left, quick=False))
        child = StepRunner(Deadline(share))
        routing, crossings = _connected(part, replace(options, time_budget=share), child,
                                        check_invariants, layer_moves)
        run.absorb(child)
        drawings.append(routing)
        counts += [] if crossings is None else [crossings]
    gap = max(options.node_spacing, 2 * options.clearance)
    packed = run("packing", packing.merge, drawings, options.aspect_ratio, gap)
    run.notes.append(f"{len(parts)} components packed")
    return routed_check(run("export", export, graph, packed, options, run,
                            sum(counts) if counts else None), graph, options, check_invariants)


@dataclass(frozen=True, slots=True)
class Recipe:
    """How a drawing of a component was made: the options (the effort of the
    ``best`` check), the entry rule and the edges given label ranks."""

    options: LayoutOptions
    entry_rule: EntryRule
    two_layers: frozenset[int]


def _connected(graph: Graph, options: LayoutOptions, run: StepRunner,
               check_invariants: bool, layer_moves: int = 0
               ) -> tuple[Routing, int | None]:
    """:func:`_drawn` of a connected ``graph``; at ``best`` effort the one of the
    ``balanced`` and ``best`` drawings that crosses less (:mod:`.ordering.drawn_check`);
    with ``layer_moves`` (layouts made before), the one these trials kept, after the
    layer moves search (:func:`_moved`) with at most ``layer_moves`` times as many
    drawings as these trials made (at least :data:`LEAST_MOVES`, at most
    :data:`~.layering.moves.MAX_DRAWS`): the search costs about what the layouts did."""
    made: list[tuple[Routing, Recipe]] = []

    def entered(chosen: LayoutOptions, deadline: Deadline, rule: EntryRule) -> Drawing:
        (routing, crossings, two_layers), notes = run.apart(deadline, partial(
            _drawn_lengthened, graph, chosen, check_invariants=check_invariants,
            entry_rule=rule))
        made.append((routing, Recipe(chosen, rule, two_layers)))
        return Drawing(routing, crossings, notes)

    def draw(chosen: LayoutOptions, deadline: Deadline) -> Drawing:
        return entry.fewer_crossings(partial(entered, chosen, deadline), graph,
                                     chosen.effort, deadline)

    drawing = fewer_crossings(draw, options, run.deadline, len(graph.nodes) + len(graph.edges))
    if layer_moves:
        recipe = next(r for routing, r in made if routing is drawing.routing)
        draws = min(moves.MAX_DRAWS, max(LEAST_MOVES, layer_moves * len(made)))
        drawing = _moved(graph, drawing, recipe, run, check_invariants, draws)
    run.notes += [note for note in drawing.notes if note not in run.notes]
    return drawing.routing, drawing.order_crossings


LEAST_MOVES = 2
"""The layer moves search may always draw this many layerings (a layout whose trials
drew the graph once: every-side's move that pays is the second it tries)."""


def _moved(graph: Graph, drawing: Drawing, recipe: Recipe, run: StepRunner,
           check_invariants: bool, draws: int) -> Drawing:
    """``drawing`` of the connected ``graph``, or a drawing of it on a layering that the
    layer moves search (:mod:`.layering.moves`) found to cross less: only for a graph
    with ports above draft effort whose drawing crosses and whose layering has at most
    :data:`~.layering.moves.MAX_ITEMS` nodes and dummies; each move is drawn as
    ``recipe`` says (every step after layering), at most ``draws`` of them."""
    chosen = recipe.options
    if chosen.effort is Effort.DRAFT or drawing.order_crossings is None or \
            not _searchable(graph) or run.deadline.exhausted:
        return drawing
    acyclic = label_ranks.lengthen(cycles.run(import_graph(graph, chosen), recipe.entry_rule),
                                   recipe.two_layers)
    rank = layering.run(acyclic, run.deadline)
    if _items(acyclic, rank) > moves.MAX_ITEMS:
        return drawing
    start = moves.Trial(rank, drawn_crossings(drawing.routing),
                        len(misplaced_labels(drawing.routing.edges)),
                        moves.length(acyclic, rank), drawing,
                        moves.crossed_nodes(acyclic, drawing.routing),
                        drawing.routing.width * drawing.routing.height)
    if start.crossings == 0:
        return drawing

    def draw(layers: tuple[int, ...]) -> moves.Trial[Drawing]:
        drawn, notes = run.apart(run.deadline, partial(
            _drawn_once, graph, chosen, check_invariants=check_invariants,
            two_layers=recipe.two_layers, entry_rule=recipe.entry_rule, layers=layers))
        routing = frame.restore(drawn.routing, chosen.direction)
        crossings = drawn_crossings(routing) if drawn.order_crossings is not None \
            else _NEVER
        return moves.Trial(layers, crossings, len(misplaced_labels(routing.edges)),
                           moves.length(acyclic, layers),
                           Drawing(routing, drawn.order_crossings, notes),
                           moves.crossed_nodes(acyclic, routing),
                           routing.width * routing.height)

    was_exhausted = run.deadline.exhausted
    kept = run("layer moves", moves.search, acyclic, start, draw, run.deadline, draws)
    if kept is start:
        run.deadline.exhausted = was_exhausted   # the drawing kept was not cut short
        return drawing
    note = f"layer moves: {start.crossings} drawn crossings -> {kept.crossings}"
    return replace(kept.drawing, notes=(*drawing.notes, note))


def _searchable(component: Graph) -> bool:
    """Whether a component may have a layering to search: it has ports, and no more
    nodes than the search takes items (so that a large one is not ranked for nothing)."""
    return len(component.nodes) <= moves.MAX_ITEMS and any(n.ports for n in component.nodes)


def _items(acyclic: LayeredGraph, rank: tuple[int, ...]) -> int:
    """Nodes and dummies of the layering: an edge ``k`` layers long has ``k - 1``
    dummies."""
    return len(rank) + moves.length(acyclic, rank) - len(acyclic.edges)


def layer_moves_apply(graph: Graph, options: LayoutOptions,
                      crossing: frozenset[str] | None = None) -> bool:
    """Whether :func:`run_layout` with ``layer_moves`` may search a layering of
    ``graph``: above draft effort, for a component with ports of at most
    :data:`~.layering.moves.MAX_ITEMS` nodes and dummies on the layering of the
    first-node entry without label ranks (the search itself checks the layering of the
    drawing it starts from), and with one of the edges of the ids ``crossing`` when
    given (those that cross in a drawing of it). For a caller that lays out again only
    for the search.

    >>> from layouts.graph import Edge, Node, Port
    >>> g = Graph((Node("a", 9, 9, ports=(Port("p"),)), Node("b", 9, 9)),
    ...           (Edge("e", "a", "b", source_port="p"),))
    >>> layer_moves_apply(g, LayoutOptions()), layer_moves_apply(g, LayoutOptions(
    ...     effort=Effort.DRAFT))
    (True, False)
    """
    if options.effort is Effort.DRAFT:
        return False
    for part in packing.split(graph):
        if _searchable(part) and \
                (crossing is None or any(e.id in crossing for e in part.edges)):
            acyclic = cycles.run(import_graph(part, options))
            if _items(acyclic, layering.run(acyclic)) <= moves.MAX_ITEMS:
                return True
    return False


_NEVER = 1 << 30
"""The crossings a staircase drawing counts for in the layer moves search: more than
any drawing's, so it is never kept."""


def _drawn(graph: Graph, options: LayoutOptions, run: StepRunner, check_invariants: bool,
           entry_rule: EntryRule = EntryRule.FIRST_NODE) -> tuple[Routing, int | None]:
    """The routed drawing of a connected ``graph`` in the caller's frame, and the
    ordering's crossing count (``None`` for the staircase layout). Where labels of edges
    of one layer sit astray and the time budget affords more layouts, the graph is drawn
    again with those edges two layers long, keeping the drawing with the fewest astray
    labels (:func:`.label_ranks.roomiest`)."""
    routing, crossings, _ = _drawn_lengthened(graph, options, run, check_invariants,
                                              entry_rule)
    return routing, crossings


def _drawn_lengthened(graph: Graph, options: LayoutOptions, run: StepRunner,
                      check_invariants: bool, entry_rule: EntryRule = EntryRule.FIRST_NODE
                      ) -> tuple[Routing, int | None, frozenset[int]]:
    """:func:`_drawn`, and the input positions of the edges its drawing gave label
    ranks (for the layer moves search to draw as it did)."""
    def draw(two_layers: frozenset[int]) -> label_ranks.Labelled:
        drawn, notes = run.apart(run.deadline, partial(
            _drawn_once, graph, options, check_invariants=check_invariants,
            two_layers=two_layers, entry_rule=entry_rule))
        return replace(drawn, notes=notes)

    kept = label_ranks.roomiest(draw, run.deadline)
    run.notes += [note for note in kept.notes if note not in run.notes]
    return run("frame restore", frame.restore, kept.routing, options.direction), \
        kept.order_crossings, kept.lengthened


def _drawn_once(graph: Graph, options: LayoutOptions, run: StepRunner, check_invariants: bool,
                two_layers: frozenset[int], entry_rule: EntryRule = EntryRule.FIRST_NODE,
                layers: tuple[int, ...] | None = None) -> label_ranks.Labelled:
    """The routed drawing of a connected ``graph`` in the canonical frame, the edges at
    ``two_layers`` at least two layers long (on the ranks ``layers`` when given, see
    :func:`prepare`), with its astray labels
    (:func:`.label_ranks.crowded`) and the ordering's crossing count. The optional steps
    (:class:`~.budget.Extra`) run only when the time left pays for them, at the speed
    measured so far: the front steps' before routing, the slower of theirs and
    routing's after it."""
    items = len(graph.nodes) + len(graph.edges)
    least = COSTS.pipeline(items, quick=False)
    if least > run.deadline.remaining() and COSTS.staircase(items) < least:
        return _staircase(graph, options, run)
    try:
        stages = prepare(graph, options, run, check_invariants=check_invariants,
                         two_layers=two_layers, entry_rule=entry_rule, layers=layers)
    except OutOfTimeError:
        return _staircase(graph, options, run)
    proper_items = len(stages.proper.nodes) + len(stages.proper.segments)
    speed = COSTS.speed(_measured(run, FRONT_STEPS), items)
    elbows = _affordable(run, Extra.ELBOWS, proper_items, speed,
                         stages.acyclic.ports is None)
    run.deadline.keep(COSTS.routing_per_item * proper_items / 4)
    routed = run("routing", route_edges, stages.placement, options, run.deadline,
                 stages.acyclic.ports, elbows=elbows)
    with_elbows = elbows and stages.acyclic.ports is None
    modelled = (COSTS.routing_per_item + (COSTS.elbows_per_item if with_elbows else 0.0)) \
        * proper_items
    speed = max(speed, COSTS.slowdown(_measured(run, ("routing",)), modelled))
    drawn = run("undo cycle breaking", cycles.undo, routed, stages.acyclic)
    if _affordable(run, Extra.FANS, proper_items, speed, not drawn.ports):
        drawn = run("fans", fans.run, drawn, options.clearance)
    if _affordable(run, Extra.COMPACTION, proper_items, speed,
                   options.effort is not Effort.DRAFT):
        compacted = run("compaction", compaction.run, drawn, graph, options, run.deadline)
        run.notes += [compacted.note] if compacted.note else []
        drawn = compacted.routing
    astray, crowded = run("label check", label_ranks.crowded, stages.proper, drawn.edges)
    if two_layers:
        run.notes.append(f"label ranks: {len(two_layers)} labelled edges two layers long")
    return label_ranks.Labelled(drawn, astray, crowded, stages.order.crossings,
                                lengthened=two_layers)


FRONT_STEPS = ("import", "cycle breaking", "dummy chains")
"""The steps :meth:`.budget.CostModel.speed` times: the ones before ordering whose work
the time budget does not cut short (network simplex stops at the deadline)."""


def _measured(run: StepRunner, names: tuple[str, ...]) -> float:
    """Seconds ``run`` spent in the steps called ``names``."""
    return sum(seconds for name, seconds in run.timings if name in names)


def _affordable(run: StepRunner, step: Extra, proper_items: int, speed: float,
                applies: bool = True) -> bool:
    """Whether to run the optional ``step``: yes when it ``applies`` to the drawing and
    the time left pays for it (:meth:`.budget.CostModel.affords`), and when it does not
    apply (the step then returns at once, as it always did); else the budget is flagged
    exhausted and a note says the step was skipped."""
    if not applies or COSTS.affords(step, proper_items, run.deadline.remaining(), speed):
        return True
    run.deadline.exhausted = True
    run.notes.append(f"time budget short: {step.value} skipped")
    return False


def _staircase(graph: Graph, options: LayoutOptions, run: StepRunner) -> label_ranks.Labelled:
    """The fallback layout of last resort (see :mod:`.staircase`), in the canonical frame."""
    run.deadline.exhausted = True
    run.notes.append("time budget too short for the layered pipeline: staircase layout")
    drawn = run("staircase", staircase, graph, options)
    drawn = staircase_ports(graph, drawn, options, run.notes)
    return label_ranks.Labelled(drawn, frozenset(), frozenset())


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


def routed_check(result: LayoutResult, graph: Graph, options: LayoutOptions,
                 check_invariants: bool) -> LayoutResult:
    """``result``, after the invariant check after routing when ``check_invariants``."""
    problems = invariants.after_routing(graph, result, options) if check_invariants else []
    if problems:
        raise InvariantViolationError(f"after routing: {'; '.join(problems[:5])}")
    return result


def export(graph: Graph, routing: Routing, options: LayoutOptions, run: StepRunner,
           crossings: int | None) -> LayoutResult:
    """The :class:`LayoutResult`: real nodes in input order and routes in input order,
    with the timings so far and whether the deadline ran out (``crossings`` is
    ``None`` for the staircase layout, which has no ordering step)."""
    position = {n.id: i for i, n in enumerate(graph.nodes)}
    nodes = tuple(sorted((n for n in routing.nodes if n.id in position),
                         key=lambda n: position[n.id]))
    notes = [] if crossings is None else [f"crossings after ordering: {crossings}"]
    notes.extend(run.notes)
    if run.deadline.exhausted:
        notes.append("time budget ran out; the layout is the best found so far")
    edge_position = {e.id: i for i, e in enumerate(graph.edges)}
    return LayoutResult(
        nodes=nodes,
        edges=tuple(sorted(routing.edges, key=lambda e: edge_position[e.id])),
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
        ports=routing.ports,
    )
