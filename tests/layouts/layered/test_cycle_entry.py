"""The entry rule of cycle breaking (:mod:`layouts.layered.cycles.entry`): a port graph in
which every node has an incoming edge is drawn with the greedy entry too, and the
drawing that crosses less is kept; graphs without ports keep the first node.

The expected feedback sets are worked by hand from the Eades-Lin-Smyth rules (sources
first, sinks last, else the largest out-degree minus in-degree first), the crossing
counts from the drawings' topology."""

from __future__ import annotations

import pytest

from layouts.api import layout
from layouts.graph import Edge, Graph, Node, Port, PortConstraints, PortSide
from layouts.layered import cycles
from layouts.layered.contracts import check_layout, check_port_sides_and_order
from layouts.layered.cycles.entry import EntryRule, open_entry
from layouts.layered.graph import import_graph
from layouts.layered.pipeline import prepare
from layouts.mirror import base_direction, mirror_result
from layouts.options import Direction, Effort, LayoutOptions
from layouts.port_corpus import mixed_constraints
from layouts.quality import measure


def _ring_with_a_chord() -> Graph:
    """``a -> b -> c -> d -> a`` and the chord ``d -> b``; ``d``'s north port takes
    ``c``'s edge in and sends the one to ``a`` out. No node is free of incoming edges."""
    d = Node("d", 80, 40, ports=(Port("dp", PortSide.NORTH),),
             port_constraints=PortConstraints.FIXED_SIDE)
    return Graph((Node("a", 80, 40), Node("b", 80, 40), Node("c", 80, 40), d),
                 (Edge("ab", "a", "b"), Edge("bc", "b", "c"),
                  Edge("cd", "c", "d", target_port="dp"),
                  Edge("da", "d", "a", source_port="dp"), Edge("db", "d", "b")))


def _reversed(graph: Graph, rule: EntryRule) -> tuple[list[str], str]:
    layered = import_graph(graph, LayoutOptions())
    acyclic = cycles.run(layered, rule)
    return [e.id for e in acyclic.edges if e.reversed], layered.nodes[acyclic.entry].id


def test_the_first_node_rule_turns_both_edges_into_the_first_node_and_its_cycle() -> None:
    # a enters first: da turns round; left is the cycle b -> c -> d -> b, every node
    # one in and one out, so the discovery order (a, b, c, d) puts b first and db turns
    assert _reversed(_ring_with_a_chord(), EntryRule.FIRST_NODE) == (["da", "db"], "a")


def test_the_greedy_rule_starts_at_the_node_with_most_out_over_in() -> None:
    # out - in: a 1 - 1 = 0, b 1 - 2 = -1, c 1 - 1 = 0, d 2 - 1 = +1: d goes first,
    # then a is a source, then b, then c; only cd points back
    assert _reversed(_ring_with_a_chord(), EntryRule.GREEDY) == (["cd"], "d")


def test_a_graph_with_a_source_or_without_ports_has_no_open_entry() -> None:
    ring = _ring_with_a_chord()
    assert open_entry(ring)
    assert not open_entry(Graph(ring.nodes, tuple(e for e in ring.edges if e.id != "da")))
    plain = tuple(Node(n.id, n.width, n.height) for n in ring.nodes)
    assert not open_entry(Graph(plain, tuple(Edge(e.id, e.source, e.target)
                                             for e in ring.edges)))


def _violations(graph: Graph, direction: Direction, effort: Effort) -> tuple[int, list[str]]:
    result = layout(graph, engine="layered", direction=direction, effort=effort)
    base = mirror_result(result, direction)
    problems = [v.message for v in check_layout(graph, base, LayoutOptions(
        direction=base_direction(direction)))]
    problems += [v.message for v in check_port_sides_and_order(graph, result)]
    return measure(result).crossings, problems


@pytest.mark.parametrize("effort", [Effort.BALANCED, Effort.BEST])
@pytest.mark.parametrize("direction", list(Direction))
def test_the_ring_with_a_chord_is_drawn_without_crossings(direction: Direction,
                                                          effort: Effort) -> None:
    # greedy: the layers d, a, b, c with the chord d -> b beside a and one edge back,
    # c -> d, which can run round the side away from the chord: a drawing without
    # crossings. With a first, da and db both run back from d and LeftToRight crossed
    # them once (the feedback set nested round the port on d's side face)
    assert _violations(_ring_with_a_chord(), direction, effort) == (0, [])


def test_mixed_constraints_left_to_right_crosses_no_more_than_elkjs() -> None:
    # elkjs (tools/elk-layout) draws this graph LeftToRight with 1 crossing; with node 0
    # (free) forced first, the edge back into it ran round the whole drawing (4)
    crossings, problems = _violations(mixed_constraints(), Direction.LEFT_TO_RIGHT,
                                      Effort.BALANCED)
    assert problems == []
    assert crossings <= 1


def test_mixed_constraints_top_to_bottom_cannot_avoid_one_crossing_on_its_layers() -> None:
    """The cycle C = order -oe-> fixed -fx3-> c <-o2- order is a closed curve (with the
    three boxes). With none of its edges reversed it spans the layers from order's to
    c's, its forward routes running down. Round order, clockwise: the top face (free's
    edge in), the east port oe, the south ports o0, o1, o2 (east to west, ELK's order):
    C leaves at oe and o2, so o0 and the top face lie on different sides of C. free sits
    above C, outside it, so o0's edge leads inside: a is in C's bounded side. But on
    network simplex's layers a -> gate -> ring ends below c's layer, outside C: some
    edge of that path crosses C, so every drawing on these layers crosses at least
    once."""
    graph = mixed_constraints()
    stages = prepare(graph, LayoutOptions())
    rank = {n.id: r for n, r in zip(stages.acyclic.nodes, stages.rank, strict=True)}
    turned = {e.id for e in stages.acyclic.edges if e.reversed}
    assert not turned & {"oe_fixed", "fx3", "o2c", "free_order", "o0a", "a_gate",
                         "gate_ring"}
    assert rank["free"] < rank["order"] < rank["fixed"] < rank["c"] < rank["ring"]


def test_mixed_constraints_top_to_bottom_draws_c_below_ring_and_crosses_as_elkjs() -> None:
    """The layer moves search (:mod:`layouts.layered.layering.moves`) escapes the
    forced crossing above: c, a sink, may go down to one layer below the deepest
    (ring's), and there C spans ring's layer too, so a -> gate -> ring can stay inside
    C (fx2 leaves x_s, on C, into it). Moving c one layer (to ring's) is not enough:
    C then closes at c's box on ring's layer, and ring, beside c, is outside it. So
    the drawing kept puts c below ring and crosses 0 times, as elkjs does."""
    graph = mixed_constraints()
    result = layout(graph, engine="layered", direction=Direction.TOP_TO_BOTTOM,
                    effort=Effort.BALANCED)
    assert result.node("c").y > result.node("ring").y + result.node("ring").height
    assert _violations(graph, Direction.TOP_TO_BOTTOM, Effort.BALANCED) == (0, [])
