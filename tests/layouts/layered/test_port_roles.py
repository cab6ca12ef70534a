"""Port roles after cycle breaking (layouts/layered/cycles/port_roles.py): a reversed edge
of a mutual pair at a port is drawn beside its partner with its ports' roles swapped,
and a node whose every edge joins one partner goes to the emptier of its two layers.

Defaults: layer spacing 60, node spacing 40, stub margin and spacing 12, so a strip of
``n`` stubs is ``12 + 12 (n - 1)`` px. Slot ``i`` of ``k`` on a face of length ``L`` is
``L (i + 1) / (k + 1)`` from the face's start.
"""

from __future__ import annotations

import pytest

from layouts.api import layout
from layouts.graph import Edge, Graph, Node, Port, PortConstraints, PortSide
from layouts.layered import cycles, layering
from layouts.layered.cycles import port_roles
from layouts.layered.graph import import_graph
from layouts.layered.layering import chains, moves
from layouts.layered.ordering import OrderingResult
from layouts.layered.ordering import ports as port_order
from layouts.layered.ordering.ports import (
    ROUND_FRACTION,
    SIDE_FRACTION,
    port_crossings,
    segments,
)
from layouts.layered.portmap import Insets, Role, port_table
from layouts.options import Direction, LayoutOptions
from layouts.port_corpus import every_side
from layouts.quality import measure
from layouts.result import Point


def _pair_at_south_port() -> Graph:
    """``hub`` (80 x 40) with one south port that its edge to ``b`` leaves and ``b``'s
    edge back enters."""
    hub = Node("hub", 80, 40, ports=(Port("s", PortSide.SOUTH),))
    return Graph((hub, Node("b", 80, 40)), (Edge("out", "hub", "b", source_port="s"),
                                           Edge("back", "b", "hub", target_port="s")))


def test_a_flipped_edge_swaps_its_ports_and_their_roles_in_the_table() -> None:
    graph = _pair_at_south_port()
    plain = port_table(graph, LayoutOptions())
    flipped = port_table(graph, LayoutOptions(), frozenset({"back"}))
    assert plain is not None and flipped is not None
    assert plain.edge_ports["back"] == (None, "s")
    assert flipped.edge_ports["back"] == ("s", None)
    # in the input the port is left (out) and entered (back): the target role on the
    # bottom face needs a stub round the right strip and below the box
    assert plain.nodes["hub"].port("s").roles == {Role.SOURCE, Role.TARGET}
    assert plain.nodes["hub"].insets == Insets(right=12.0, bottom=12.0)
    # flipped, both edges leave the port: a source port on the bottom face, no stub
    assert flipped.nodes["hub"].port("s").roles == {Role.SOURCE}
    assert flipped.nodes["hub"].insets == Insets()
    assert flipped.flipped == {"back"}


def test_the_reversed_edge_of_a_pair_at_a_port_is_drawn_up_into_the_port() -> None:
    result = layout(_pair_at_south_port(), engine="layered")
    # no strip below the hub: b's top at 40 + 60 = 100, the drawing 100 + 40 tall
    assert result.height == 140
    # b's top face holds both ends, at 80/3 and 160/3 from its left; `out` runs straight
    # down from the port at x = 40, so b.x = 40 - 80/3
    b = result.node("b")
    assert b.x == pytest.approx(40 - 80 / 3) and b.y == 100
    out, back = result.edges
    assert out.points == (Point(40, 40), Point(40, 100))
    # `back` leaves b's top face at its second slot, turns in the channel's one track
    # (half way, y = 70) and rises into the port from below: no corridor round the side
    xs = [p.x for p in back.points]
    ys = [p.y for p in back.points]
    assert (xs[0], ys[0]) == (pytest.approx(b.x + 160 / 3), 100)
    assert back.points[-1] == Point(40, 40) and back.loop_back
    assert ys == sorted(ys, reverse=True) and min(xs) == 40
    assert measure(result).crossings == 0


def test_a_pair_whose_port_faces_the_corridor_way_keeps_its_corridor() -> None:
    # `back` enters the hub's north port: in a corridor it enters the top face as a
    # target (no stub); drawn facing it would leave the top face (a stub round): no flip
    hub = Node("hub", 80, 40, ports=(Port("n", PortSide.NORTH),))
    graph = Graph((hub, Node("b", 80, 40)), (Edge("out", "hub", "b"),
                                             Edge("back", "b", "hub", target_port="n")))
    acyclic = cycles.run(import_graph(graph, LayoutOptions()))
    rank = layering.run(acyclic)
    assert port_roles.run(graph, acyclic, rank, LayoutOptions()) == (acyclic, rank)


def _without_layer_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    """The layer moves search off: the drawing on the layers this step leaves (the
    search moves every-side's feed below the drawing: tests/layouts/layered/
    test_layer_moves.py)."""
    monkeypatch.setattr(moves, "MAX_ITEMS", 0)


def test_the_free_node_of_a_pair_goes_to_the_emptier_layer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # every-side: `feed` joins only the hub, both ways. Below the hub it would share a
    # layer with left, down and right (4 nodes); above it, with `top` (1): it goes up,
    # and the hub's north port edge to it (n_out) is the one reversed and drawn facing
    _without_layer_moves(monkeypatch)
    result = layout(every_side(), engine="layered")
    assert result.node("feed").y == result.node("top").y == 0
    assert result.node("hub").y > 0
    n_out = next(e for e in result.edges if e.id == "n_out")
    assert n_out.loop_back and n_out.points[0] == Point(result.port("hn").x, result.node("hub").y)


def test_the_free_node_stays_when_the_other_layer_is_no_emptier() -> None:
    # `a` above the hub (1 node), `b` and `feed` below (2): moving feed up would leave
    # 1 below and make 2 above, no better, so feed stays below
    hub = Node("hub", 120, 60, ports=(Port("n", PortSide.NORTH), Port("s", PortSide.SOUTH)),
               port_constraints=PortConstraints.FIXED_SIDE)
    graph = Graph((Node("a", 100, 40), hub, Node("b", 100, 40), Node("feed", 100, 40)),
                  (Edge("ah", "a", "hub"), Edge("hb", "hub", "b"),
                   Edge("out", "hub", "feed", source_port="n"),
                   Edge("in", "feed", "hub", target_port="s")))
    result = layout(graph, engine="layered")
    assert result.node("feed").y == result.node("b").y > result.node("hub").y
    assert measure(result).crossings == 0


def test_every_side_draws_within_its_widest_layer_and_crosses_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _without_layer_moves(monkeypatch)
    result = layout(every_side(), engine="layered")
    # widest layer: left, down, right packed, 3 * 100 + 2 * 40; the hub's grown box is
    # 120 + 24 + 24 (west port + the stub round; east port used both ways) = 168
    assert result.width == 3 * 100 + 2 * 40
    # layers: top and feed 40; the hub 60; left, down, right 40; two channels of 60
    # (layer spacing: compaction closes each to it). The one below the hub holds the
    # stub round (the south port's edge from feed) and the track of the edges to the
    # layer below, which need 12 + 12 + 12 (edge spacing and clearance) < 60
    assert result.height == 40 + 60 + 60 + 60 + 40
    assert measure(result).crossings <= 1     # was 2: feed's edge round the drawing


def test_every_side_left_to_right_crosses_at_most_once() -> None:
    result = layout(every_side(), engine="layered", direction=Direction.LEFT_TO_RIGHT)
    assert result.node("feed").x == result.node("top").x == 0
    # left to right the layers run across: top/feed 100 wide, the hub 120, then
    # left/down/right 100. The channel before the hub holds five columns 12 (edge
    # spacing, clearance) apart: the tracks of the four edges between top/feed and the
    # hub and the stub round of the west port's edge (it leaves against the flow), so
    # compaction leaves it 6 * 12 = 72 wide. The one after it holds the stub round of
    # the east port's edge from top (it enters against the flow) and the track to the
    # last layer, 12 + 12 + 12 < 60: it closes to layer spacing
    assert result.width == 100 + 6 * 12 + 120 + 60 + 100
    assert measure(result).crossings <= 1     # was 3


def test_a_stub_round_the_node_leaves_outside_the_side_ports_stubs() -> None:
    # the east port's edge and the north port's edge (round the right strip, whose
    # column is outside the east port's) both go to the layer below
    a = Node("a", 80, 40, ports=(Port("e", PortSide.EAST), Port("n", PortSide.NORTH)),
             port_constraints=PortConstraints.FIXED_SIDE)
    graph = Graph((a, Node("b", 40, 40), Node("c", 40, 40)),
                  (Edge("ab", "a", "b", source_port="e"), Edge("ac", "a", "c", source_port="n")))
    layered = import_graph(graph, LayoutOptions())
    assert layered.ports is not None
    # the strip the stub round takes: east has one stub, west none: west
    assert layered.ports.nodes["a"].insets == Insets(left=12.0, top=12.0, right=12.0)
    fractions = sorted(fu for _, _, fu, _ in segments(chains.run(layered, (0, 1, 1)),
                                                       layered.ports))
    assert fractions == [-ROUND_FRACTION, SIDE_FRACTION]
    assert ROUND_FRACTION > SIDE_FRACTION


def _hub_with_stubs_round_both_ways() -> Graph:
    """``hub`` (120 x 60): an east port its edge to ``b`` leaves, a north port its edge
    to ``c`` leaves (a stub round, from the top face) and a south port ``a``'s edge
    enters (a stub round, to the bottom face, from ``a`` above)."""
    hub = Node("hub", 120, 60, ports=(Port("e", PortSide.EAST), Port("n", PortSide.NORTH),
                                      Port("s", PortSide.SOUTH)),
               port_constraints=PortConstraints.FIXED_SIDE)
    return Graph((Node("a", 100, 40), hub, Node("b", 100, 40), Node("c", 100, 40)),
                 (Edge("ah", "a", "hub", target_port="s"),
                  Edge("hb", "hub", "b", source_port="e"),
                  Edge("hc", "hub", "c", source_port="n")))


def test_the_stubs_round_a_node_take_the_strips_where_they_cross_nothing() -> None:
    # the stub to the south face comes down from `a` and turns under the hub: in the
    # east strip it would cross the east port's edge going on down to `b`, so it goes
    # west; the stub from the north face turns over the hub and crosses only edges
    # coming from above, of which the east strip has none: east. (Filling the emptier
    # strip in turn sends the first west and the second east: north west, south east.)
    table = port_table(_hub_with_stubs_round_both_ways(), LayoutOptions())
    assert table is not None
    strips = {(g.port, g.role): g.strip.value for g in table.nodes["hub"].groups}
    assert strips == {("e", Role.SOURCE): "right", ("n", Role.SOURCE): "right",
                      ("s", Role.TARGET): "left"}
    # one stub round either way: rows of 12 above and below; east 12 + 12, west 12
    assert table.nodes["hub"].insets == Insets(left=12.0, top=12.0, right=24.0, bottom=12.0)
    assert measure(layout(_hub_with_stubs_round_both_ways(), engine="layered")).crossings == 0


def test_every_side_bottom_to_top_crosses_at_most_once() -> None:
    # bottom to top the hub's north port is at the bottom of the flow: `top`'s edge to
    # it comes round to the bottom face, `down`'s from the south port round from the
    # top face. The east port has a target (from `top`) and a source; the west port a
    # source. The stub from the top face goes west (no target there); the one to the
    # bottom face crosses one side source either way, east keeps the strips even:
    # one forced crossing, none other (was 3 with the stubs the other way round)
    result = layout(every_side(), engine="layered", direction=Direction.BOTTOM_TO_TOP)
    assert measure(result).crossings <= 1


def test_after_ordering_the_stubs_round_a_node_turn_toward_their_other_ends() -> None:
    # the hub's north port feeds `c`, its south port is fed by `a` (both stubs round),
    # `x` feeds the hub and the hub feeds `y` at their natural faces. The import sends
    # the first stub round the right strip (a tie) and the second left. In the order
    # x a / hub / c y the north stub's edge, leaving right of the hub's edge to y, would
    # cross it to reach c on the left, and the south stub's edge, entering left of x's,
    # would cross it coming from a on the right: turned round, neither crosses, and
    # the hub keeps its insets (one stub round each side, a row above and below)
    hub = Node("hub", 120, 60, ports=(Port("n", PortSide.NORTH), Port("s", PortSide.SOUTH)),
               port_constraints=PortConstraints.FIXED_SIDE)
    graph = Graph((Node("x", 100, 40), Node("a", 100, 40), hub, Node("c", 100, 40),
                   Node("y", 100, 40)),
                  (Edge("xh", "x", "hub"), Edge("ah", "a", "hub", target_port="s"),
                   Edge("hc", "hub", "c", source_port="n"), Edge("hy", "hub", "y")))
    acyclic = cycles.run(import_graph(graph, LayoutOptions()))
    assert acyclic.ports is not None
    proper = chains.run(acyclic, layering.run(acyclic))
    layers = tuple(tuple(proper.index[v] for v in layer)
                   for layer in (("x", "a"), ("hub",), ("c", "y")))
    before = {g.port: g.strip.value for g in acyclic.ports.nodes["hub"].groups}
    assert before == {"n": "right", "s": "left"}
    table = port_order.strips(proper, OrderingResult(layers, 0), acyclic.ports)
    assert table is not None
    after = {g.port: g.strip.value for g in table.nodes["hub"].groups}
    assert after == {"n": "left", "s": "right"}
    assert table.nodes["hub"].insets == acyclic.ports.nodes["hub"].insets
    assert port_crossings(layers, len(proper.nodes), segments(proper, table), proper.rank) == 0
