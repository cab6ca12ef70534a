"""Placement: coordinates worked out by hand for small graphs, straight dummy chains,
gateways centred over their branches, and the no-overlap/spacing invariant over the
generator corpus."""

from __future__ import annotations

from itertools import pairwise

import pytest

from layouts.graph import Edge, Graph, Node, Shape
from layouts.layered import cycles, invariants, layering, ordering, placement
from layouts.layered.graph import import_graph
from layouts.layered.layering import chains
from layouts.layered.model import Placement
from layouts.layered.pipeline import run_layout
from layouts.layered.placement.ports import port_offsets
from layouts.mirror import BASE_DIRECTIONS
from layouts.options import Direction, Effort, LayoutOptions
from renderer.corpus import reference_graph
from renderer.from_definition import diagram_from_definition
from workflow.generate import generate_definition


def place(graph: Graph, options: LayoutOptions | None = None) -> Placement:
    options = options or LayoutOptions()
    acyclic = cycles.run(import_graph(graph, options))
    proper = chains.run(acyclic, layering.run(acyclic))
    placed = placement.run(proper, ordering.run(proper, options), options)
    assert invariants.after_placement(proper, placed, options) == []
    return placed


def centre_x(p: Placement, node_id: str) -> float:
    n = p.nodes[node_id]
    return n.x + n.width / 2


def test_a_parent_keeps_one_edge_straight_between_its_slots() -> None:
    # Children 100 wide, node_spacing 40: centres 100 + 40 = 140 apart, at 50 and 190
    # (the left box starts at 0). The parent (80 wide) has two ends on its bottom face,
    # at 80/3 and 160/3, i.e. 40/3 left and right of its centre; each child has one end,
    # at its centre. Centring the parent bends both edges; the first alignment that
    # keeps p -> a straight puts p's centre at 50 + 40/3.
    g = Graph((Node("p", 80, 40), Node("a", 100, 40), Node("b", 100, 40)),
              (Edge("1", "p", "a"), Edge("2", "p", "b")))
    placed = place(g)
    assert (centre_x(placed, "a"), centre_x(placed, "b")) == (50.0, 190.0)
    assert centre_x(placed, "p") == pytest.approx(50 + 40 / 3)


def test_gateway_without_a_parent_is_centred_over_its_branches() -> None:
    # A diamond (60 wide) with three branches 100 wide: centres 50, 190, 330 -> 190.
    g = Graph((Node("g", 60, 60, Shape.DIAMOND), *(Node(n, 100, 40) for n in "abc")),
              tuple(Edge(n, "g", n) for n in "abc"))
    placed = place(g)
    assert centre_x(placed, "g") == 190.0


def test_layers_stack_with_spacing_and_nodes_centre_on_the_layer_axis() -> None:
    # Layer 0: a (height 40). Layer 1: b (height 30) and c (height 50): the layer is 50
    # high, its top at 40 + 60 = 100, so b's top is 100 + (50 - 30) / 2 = 110 and c's 100.
    # Layer 2: d, top at 100 + 50 + 60 = 210.
    g = Graph((Node("a", 50, 40), Node("b", 50, 30), Node("c", 50, 50), Node("d", 50, 20)),
              (Edge("1", "a", "b"), Edge("2", "a", "c"), Edge("3", "b", "d"),
               Edge("4", "c", "d")))
    placed = place(g)
    assert [placed.nodes[n].y for n in "abcd"] == [0.0, 110.0, 100.0, 210.0]


def test_long_edge_dummies_stay_in_one_straight_column() -> None:
    # a -> b -> c -> d and a -> d: the long edge's two dummies share one x.
    g = Graph(tuple(Node(n, 80, 40) for n in "abcd"),
              (Edge("1", "a", "b"), Edge("2", "b", "c"), Edge("3", "c", "d"),
               Edge("long", "a", "d")))
    placed = place(g)
    chain = next(e for e in placed.edges if e.id == "long").chain
    assert len(chain) == 2
    assert placed.nodes[chain[0]].x == placed.nodes[chain[1]].x


def test_a_chain_is_one_straight_column() -> None:
    g = Graph(tuple(Node(n, 60 + 20 * i, 40) for i, n in enumerate("abcd")),
              tuple(Edge(a + b, a, b) for a, b in ("ab", "bc", "cd")))
    placed = place(g)
    assert len({centre_x(placed, n) for n in "abcd"}) == 1


def test_dummy_beside_a_node_keeps_clearance() -> None:
    # Node spacing 40 and edge spacing 12: a dummy stands (40 + 12) / 2 = 26 >= 12 px
    # from a neighbouring box; with edge spacing 2 and clearance 30, the clearance wins.
    g = Graph(tuple(Node(n, 80, 40) for n in "abc"),
              (Edge("1", "a", "b"), Edge("2", "b", "c"), Edge("3", "a", "c")))
    for options, gap in ((LayoutOptions(), 26.0),
                         (LayoutOptions(edge_spacing=2, clearance=30), 30.0)):
        placed = place(g, options)
        dummy = placed.nodes[next(e for e in placed.edges if e.id == "3").chain[0]]
        b = placed.nodes["b"]
        assert min(abs(dummy.x - b.x), abs(dummy.x - (b.x + b.width))) >= gap


def test_port_offsets_follow_the_slot_lattice() -> None:
    # A diamond 60 wide with three branches: bottom slots at 60 * i / 4 for i = 1, 2, 3,
    # i.e. -15, 0, +15 from its centre, in the order of the branches' layer positions.
    # A circle 80 x 40 has faces as long as its diameter, 40: one end at its centre.
    # A loop-back leaving b for a right-side corridor takes b's right-most bottom slot.
    g = Graph((Node("g", 60, 60, Shape.DIAMOND), Node("a", 90, 40),
               Node("b", 90, 40), Node("c", 80, 40, Shape.CIRCLE), Node("z", 90, 40)),
              (Edge("ga", "g", "a"), Edge("gb", "g", "b"), Edge("gc", "g", "c"),
               Edge("bz", "b", "z"), Edge("bg", "b", "g", loop_back=True)))
    acyclic = cycles.run(import_graph(g, LayoutOptions()))
    proper = chains.run(acyclic, layering.run(acyclic))
    order = ordering.run(proper, LayoutOptions())
    ports = port_offsets(proper, order.layers, (0, 0, 0, 0, 1))   # bg's corridor: right
    index = proper.index
    g_, a, b, c, z = (index[n] for n in "gabcz")
    layer = list(order.layers[1])
    expected = {layer[i]: offset for i, offset in enumerate((-15.0, 0.0, 15.0))}
    for child in (a, b, c):
        assert ports.bottom[(g_, child)] == expected[child]
        assert ports.top[(g_, child)] == 0.0
    # b's bottom face: the segment to z, then the corridor run: slots at 90/3 and 2*90/3.
    assert ports.bottom[(b, z)] == 30.0 - 45.0


def test_left_to_right_swaps_sizes_into_the_canonical_frame() -> None:
    g = Graph((Node("a", 120, 40), Node("b", 120, 40)), (Edge("1", "a", "b"),))
    placed = place(g, LayoutOptions(direction=Direction.LEFT_TO_RIGHT))
    a, b = placed.nodes["a"], placed.nodes["b"]
    assert (a.width, a.height) == (40, 120)
    assert b.y == 120 + 60


@pytest.mark.parametrize("direction", list(BASE_DIRECTIONS))
@pytest.mark.parametrize("effort", list(Effort))
@pytest.mark.parametrize("size", [10, 90, 200])
def test_generated_graphs_have_no_overlaps(direction: Direction, effort: Effort,
                                            size: int) -> None:
    graph = diagram_from_definition(generate_definition(size, 7)).graph
    place(graph, LayoutOptions(direction=direction, effort=effort))


def test_the_middle_branches_of_two_fans_in_a_row_are_one_column() -> None:
    # a -> {b0, b1, b2} -> c -> {d0, d1, d2} -> e, all rectangles; b widths 150, 100, 100
    # and d widths 100, 100, 150, node spacing 40. a's and c's bottom faces and c's and
    # e's top faces have three ends each, the middle one at the face's centre, so the
    # middle path a, b1, c, d1, e is one column. Its x: b0's centre is 75, b1's
    # 75 + 150/2 + 40 + 100/2 = 240, b2's 240 + 100 + 40 = 380; below, d0's centre is
    # 240 - 140 = 100 and d2's 240 + 100/2 + 40 + 150/2 = 405; the left-most box, b0,
    # starts at 0. Plain Brandes-Koepf gave each middle block to an outer branch in every
    # alignment: a, c and e came out at 455, 335 and 190.
    widths = {"b0": 150, "b1": 100, "b2": 100, "d0": 100, "d1": 100, "d2": 150}
    g = Graph((*(Node(n, 80, 40) for n in "ace"), *(Node(n, w, 40) for n, w in widths.items())),
              (*(Edge(f"a{i}", "a", f"b{i}") for i in range(3)),
               *(Edge(f"{i}c", f"b{i}", "c") for i in range(3)),
               *(Edge(f"c{i}", "c", f"d{i}") for i in range(3)),
               *(Edge(f"{i}e", f"d{i}", "e") for i in range(3))))
    placed = place(g)
    assert [centre_x(placed, n) for n in ("b0", "b1", "b2", "d0", "d1", "d2")] == \
        [75.0, 240.0, 380.0, 100.0, 240.0, 405.0]
    assert [centre_x(placed, n) for n in "ace"] == [240.0, 240.0, 240.0]


def test_the_reference_graphs_main_chain_is_drawn_straight() -> None:
    # Its heaviest path, 17 steps from receive to audit-trail: every edge one vertical
    # segment (before alignment priority the column drifted about 360 px sideways).
    chain = ("receive", "virus-scan", "is-clean", "classify", "doc-type", "extract-contract",
             "enrich", "validate-tax", "enrich-join", "confident", "review", "approved",
             "settle-window", "post-to-erp", "archive", "notify", "audit-trail")
    for effort in Effort:
        result = run_layout(reference_graph(), LayoutOptions(effort=effort))
        routes = {(r.source, r.target): r.points for r in result.edges}
        for pair in pairwise(chain):
            points = routes[pair]
            assert len(points) == 2 and points[0].x == pytest.approx(points[1].x), pair
