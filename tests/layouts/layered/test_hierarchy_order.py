"""The top-down half of the compound ordering (layouts/layered/hierarchy/border_order.py,
passes.py): border dummies in the order the parent's routes meet the compound, the
interior re-ordered around them, and the drawn crossings that saves."""

from __future__ import annotations

import pytest

from layouts.api import layout
from layouts.compound_corpus import SAMPLES
from layouts.graph import Edge, Graph, Node
from layouts.layered.graph import ProperGraph, import_graph
from layouts.layered.hierarchy.border_order import (
    BorderOrder,
    border_orders,
    jog_inversions_of,
    pin_border_order,
)
from layouts.layered.hierarchy.plan import split
from layouts.layered.layering import chains
from layouts.layered.model import Routing
from layouts.layered.ordering import OrderingResult
from layouts.options import Direction, Effort, LayoutOptions
from layouts.quality import measure
from layouts.registry import get_provider
from layouts.result import EdgeRoute, NodeBox, Point


def _crossed_group() -> Graph:
    """``s1`` left of ``s2`` at the root (model order); inside ``G`` the edge from ``s2``
    comes first, so laid out alone ``G`` puts its dummy (and ``a``) on the left: the
    two jogs in ``G``'s border strip then cross once. Drawn with the parent's order,
    ``b`` (fed from ``s1``) stands left of ``a`` and nothing crosses."""
    group = Node("G", 20, 20, label="G", children=(Node("a", 80, 40), Node("b", 80, 40)))
    return Graph((Node("s1", 80, 40), Node("s2", 80, 40), group),
                 (Edge("e1", "s2", "a"), Edge("e2", "s1", "b")))


@pytest.mark.parametrize("effort", list(Effort))
@pytest.mark.parametrize("direction", [Direction.TOP_TO_BOTTOM, Direction.LEFT_TO_RIGHT])
def test_a_group_is_ordered_as_its_parent_reaches_it(direction: Direction,
                                                     effort: Effort) -> None:
    result = layout(_crossed_group(), engine="layered", direction=direction, effort=effort)
    across = "x" if direction is Direction.TOP_TO_BOTTOM else "y"
    s1, s2 = (getattr(result.node(n), across) for n in ("s1", "s2"))
    a, b = (getattr(result.node(n), across) for n in ("a", "b"))
    assert s1 < s2, "the root keeps its model order"
    assert b < a, "b, fed from the left source, stands left (above) of a"
    assert measure(result).crossings == 0


def _proper(ids: str, edges: tuple[tuple[str, str], ...], rank: tuple[int, ...]
            ) -> ProperGraph:
    graph = Graph(tuple(Node(i, 9, 9) for i in ids),
                  tuple(Edge(f"{s}{t}", s, t) for s, t in edges))
    return chains.run(import_graph(graph, LayoutOptions()), rank)


def test_pinning_the_top_layer_reorders_the_layer_below() -> None:
    # nodes 0 = p, 1 = q (border dummies, layer 0), 2 = a, 3 = b; edges p-b and q-a.
    # Wanted top order (q, p): then a (under q at 0) sorts before b (under p at 1), and
    # the two edges no longer cross.
    proper = _proper("pqab", (("p", "b"), ("q", "a")), (0, 0, 1, 1))
    start = OrderingResult(((0, 1), (2, 3)), crossings=1)
    pinned = pin_border_order(proper, start, BorderOrder(("q", "p"), ()), Effort.BALANCED)
    assert pinned.layers == ((1, 0), (2, 3))
    assert pinned.crossings == 0


def test_a_node_under_both_pinned_nodes_sorts_between_their_children() -> None:
    # p-a, q-b, p-c, q-c with the top pinned to (q, p): barycentres b 0, c 0.5, a 1
    # give (b, c, a), where no two edges cross.
    proper = _proper("pqabc", (("p", "a"), ("q", "b"), ("p", "c"), ("q", "c")),
                     (0, 0, 1, 1, 1))
    start = OrderingResult(((0, 1), (2, 4, 3)), crossings=0)
    pinned = pin_border_order(proper, start, BorderOrder(("q", "p"), ()), Effort.DRAFT)
    assert pinned.layers == ((1, 0), (3, 4, 2))
    assert pinned.crossings == 0


def test_an_order_already_as_wanted_is_returned_unchanged() -> None:
    proper = _proper("pqab", (("p", "a"), ("q", "b")), (0, 0, 1, 1))
    start = OrderingResult(((0, 1), (2, 3)), crossings=0)
    assert pin_border_order(proper, start, BorderOrder(("p", "q"), ()), Effort.BEST) is start


def test_border_orders_sort_the_crossings_by_the_parents_face_columns() -> None:
    graph = Graph((Node("s", 9, 9), Node("t", 9, 9), Node("u", 9, 9),
                   Node("G", 9, 9, children=(Node("a", 9, 9),)), Node("z", 9, 9)),
                  (Edge("1", "s", "a"), Edge("2", "t", "a"), Edge("3", "u", "a"),
                   Edge("4", "a", "z")))
    plan = split(graph)
    inner = plan.levels[0]
    dummy = {c.edge: c.dummy for c in (*inner.entering, *inner.leaving)}

    def route(edge: str, source: str, target: str, x0: float, x1: float) -> EdgeRoute:
        return EdgeRoute(edge, source, target, (Point(x0, 0), Point(x1, 50)))

    # the root's pieces meet G's top face at x = 40 (1), 10 (2), 25 (3): order 2, 3, 1
    root = Routing((NodeBox("G", 0, 50, 60, 40),),
                   (route("1", "s", "G", 40, 40), route("2", "t", "G", 10, 10),
                    route("3", "u", "G", 25, 25), route("4", "G", "z", 30, 30)), 60, 90)
    orders = border_orders(plan, {None: root})
    assert orders == {"G": BorderOrder((dummy["2"], dummy["3"], dummy["1"]), (dummy["4"],))}


def test_jog_inversions_count_pairs_in_opposite_orders() -> None:
    assert jog_inversions_of([(0, 0), (10, 10), (20, 20)]) == 0
    assert jog_inversions_of([(0, 20), (10, 10), (20, 0)]) == 3     # every pair swaps
    assert jog_inversions_of([(0, 5), (10, 5)]) == 0                # a tie is no swap


@pytest.mark.parametrize("name", ["three-levels", "generated-60"])
def test_compound_graphs_cross_no_more_than_elkjs(name: str) -> None:
    """Issue 14's target: three levels of nesting with edges into and out of every
    level, and 60 leaves in 8 groups."""
    from pg_testing import skip_or_fail

    status = get_provider("elkjs").availability()
    if not status.available:
        skip_or_fail(f"elkjs unavailable: {status.reason}")
    graph = SAMPLES[name]()
    ours = measure(layout(graph, engine="layered")).crossings
    theirs = measure(layout(graph, engine="elkjs")).crossings
    assert ours <= theirs


def test_passes_the_budget_cannot_pay_for_are_skipped_and_the_layout_says_so(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Skipping the top-down passes changes the drawing, so it must be flagged like any
    other cut the time budget makes (else two runs differ with no flag)."""
    from dataclasses import replace as with_costs

    from layouts.layered.hierarchy import passes

    slow = with_costs(passes.COSTS, front_per_item=1e3)   # no pass 2 is ever affordable
    monkeypatch.setattr(passes, "COSTS", slow)
    result = layout(_crossed_group(), engine="layered")
    assert result.diagnostics.budget_exhausted
    assert "compound top-down passes skipped: not enough time left" in result.diagnostics.notes


@pytest.mark.parametrize("effort", [Effort.BALANCED, Effort.BEST])
@pytest.mark.parametrize("direction", [Direction.TOP_TO_BOTTOM, Direction.LEFT_TO_RIGHT])
def test_sibling_groups_cross_once(direction: Direction, effort: Effort) -> None:
    # The root holds src, a-outer, b-outer, sink on four layers, with the loop-back
    # b2 -> a3 (b-outer back up into a-outer, drawn around one side), src -> b0 passing
    # a-outer's layer and a3 -> sink passing b-outer's. Whichever side src -> b0 and
    # a3 -> sink pass on, one of them meets the other or the loop-back: one crossing
    # at the root. Inside a-mid, a3 (fed by b2 -> a3, feeding a3 -> sink) and a-core
    # (src -> a1, a0 -> a1 in, a2 -> b1 out) need not cross when a3 -> sink leaves
    # a-outer on the side where b2 -> a3 enters it: one crossing in all, as elkjs draws.
    result = layout(SAMPLES["sibling-groups"](), engine="layered", direction=direction,
                    effort=effort)
    assert measure(result).crossings == 1
