"""Facing routes: the reversed edge of a mutual pair (``a -> b`` and ``b -> a``) runs
beside its partner, from its source's face towards its target to the target's face
towards it, instead of around the side.

Expected geometry is worked out by hand. Defaults: layer_spacing 60 (an inner channel
holding only straight verticals is 60 high), edge_spacing 12. A face of length L with k
ends has slot i at L * (i + 1) / (k + 1); ends on a face sort by where their edges go,
ties in input order.
"""

from __future__ import annotations

import itertools

import pytest

from layouts.graph import Edge, Graph, Node
from layouts.layered import cycles
from layouts.layered.contracts import find_defects
from layouts.layered.graph import import_graph
from layouts.layered.layering import chains
from layouts.layered.loopbacks import facing, lanes
from layouts.layered.ordering import OrderingResult
from layouts.layered.pipeline import prepare, run_layout
from layouts.mirror import BASE_DIRECTIONS
from layouts.options import Direction, Effort, LayoutOptions, LoopBackRoute
from layouts.quality import measure
from layouts.result import EdgeRoute, NodeBox, Point, Side

OUTSIDE = LoopBackRoute.OUTSIDE


def pair() -> Graph:
    """a -> b and b -> a; cycle breaking reverses b -> a (a is the entry)."""
    return Graph((Node("a", 90, 40), Node("b", 90, 40)),
                 (Edge("ab", "a", "b"), Edge("ba", "b", "a")))


def chain_of_pairs(count: int) -> Graph:
    """s0 -> s1 -> ... and back s1 -> s0, s2 -> s1, ...: a mutual pair per step."""
    names = [f"s{i}" for i in range(count)]
    edges = [Edge(f"{a}-{b}", a, b) for a, b in itertools.pairwise(names)]
    edges += [Edge(f"{b}-{a}", b, a) for a, b in itertools.pairwise(names)]
    return Graph(tuple(Node(n, 80, 40) for n in names), tuple(edges))


def passing_x(route: EdgeRoute, node: NodeBox) -> float:
    """The x of the vertical segment of ``route`` that spans ``node``'s height."""
    return next(p.x for p, q in zip(route.points, route.points[1:], strict=False)
                if p.x == q.x and min(p.y, q.y) <= node.y
                and max(p.y, q.y) >= node.y + node.height)


def test_a_mutual_pair_runs_as_two_straight_verticals_between_the_facing_faces() -> None:
    result = run_layout(pair(), LayoutOptions())
    a, b = result.node("a"), result.node("b")
    assert (a.x, b.x, b.y - (a.y + a.height)) == (a.x, a.x, 60)   # one column, one gap
    ab, ba = (next(r for r in result.edges if r.id == i) for i in ("ab", "ba"))
    # a's bottom face and b's top face hold two ends each: slots at 90/3 and 2 * 90/3;
    # both edges go straight, so input order: ab takes slot 0, ba slot 1
    assert ab.points == (Point(a.x + 90 / 3, a.y + 40), Point(a.x + 90 / 3, b.y))
    assert ba.points == (Point(a.x + 2 * 90 / 3, b.y), Point(a.x + 2 * 90 / 3, a.y + 40))
    assert (ba.source_end.side, ba.target_end.side) == (Side.TOP, Side.BOTTOM)
    assert ba.loop_back


def test_under_outside_the_reversed_edge_still_runs_round_the_side() -> None:
    options = LayoutOptions(loop_back_route=OUTSIDE)
    result = run_layout(pair(), options)
    ba = next(r for r in result.edges if r.id == "ba")
    # a and b are alone in their layers: ba leaves b's side face facing the corridor
    # straight out to it, climbs it and turns straight into a's same side face
    assert ba.source_end.side == ba.target_end.side
    assert ba.source_end.side in (Side.LEFT, Side.RIGHT)
    assert len(ba.points) == 4                       # out, up the corridor, back in
    assert not any(e.facing for e in prepare(pair(), options).proper.chain_edges)


def test_a_declared_loop_back_over_two_layers_runs_up_beside_its_partner() -> None:
    """a -> b -> c, a -> c, and the declared loop-back c -> a: c -> a climbs from c's
    top to a's bottom beside a -> c, its vertical in layer 1 one edge spacing from
    a -> c's (two dummies of one layer stand edge_spacing apart)."""
    graph = Graph(tuple(Node(n, 90, 40) for n in "abc"),
                  (Edge("ab", "a", "b"), Edge("bc", "b", "c"), Edge("ac", "a", "c"),
                   Edge("ca", "c", "a", loop_back=True)))
    options = LayoutOptions()
    result = run_layout(graph, options)
    a, b, c = (result.node(n) for n in "abc")
    ac, ca = (next(r for r in result.edges if r.id == i) for i in ("ac", "ca"))
    assert (ca.source_end.side, ca.target_end.side) == (Side.TOP, Side.BOTTOM)
    assert ca.points[0].y == c.y and ca.points[-1].y == a.y + a.height
    assert all(q.y <= p.y for p, q in zip(ca.points, ca.points[1:], strict=False))
    assert abs(passing_x(ca, b) - passing_x(ac, b)) == options.edge_spacing
    assert find_defects(graph, result, options) == []


@pytest.mark.parametrize("direction", list(BASE_DIRECTIONS))
@pytest.mark.parametrize("effort", list(Effort))
def test_a_chain_of_mutual_pairs_draws_straight_with_every_contract_kept(
        direction: Direction, effort: Effort) -> None:
    """Five pairs in one column: each of the ten edges is one straight 60 px segment
    (no crossings, no bends). Round the side, every node alone in its layer, each
    reversed edge leaves its source's side face straight out to its corridor and turns
    into its target's (two bends; neighbouring pairs' corridors, which share a node,
    go round opposite sides, so no face holds two ends)."""
    graph = chain_of_pairs(6)
    auto = LayoutOptions(direction=direction, effort=effort)
    outside = LayoutOptions(direction=direction, effort=effort, loop_back_route=OUTSIDE)
    drawn, around = measure(run_layout(graph, auto)), measure(run_layout(graph, outside))
    assert (drawn.crossings, drawn.bends, drawn.total_edge_length) == (0, 0, 10 * 60)
    assert around.bends == 5 * 2
    assert find_defects(graph, run_layout(graph, auto), auto) == []


def test_a_facing_edge_that_crosses_more_than_a_corridor_would_goes_back_to_one() -> None:
    """Layers [a, c], [b, d] with a -> b, b -> a (facing) and c -> d, handed to the lane
    step in the order [a, c], [d, b]: each segment of the pair crosses c -> d (2 in all),
    while a corridor for b -> a would run below the last layer and above the first,
    where nothing is. The step moves it back; refined, that order crosses nothing."""
    graph = Graph(tuple(Node(n, 60, 30) for n in "abcd"),
                  (Edge("ab", "a", "b"), Edge("ba", "b", "a"), Edge("cd", "c", "d")))
    options = LayoutOptions()
    acyclic = cycles.run(import_graph(graph, options))
    rank = (0, 1, 0, 1)
    proper = chains.run(acyclic, rank, facing=facing.pairs(acyclic, options))
    assert [e.id for e in proper.chain_edges if e.facing] == ["ba"]
    bad = OrderingResult(((0, 2), (3, 1)), 2)
    choice = lanes.choose(acyclic, rank, proper, bad, options)
    assert not any(e.facing for e in choice.proper.chain_edges)
    assert choice.order.crossings + choice.order.corridor_crossings == 0
