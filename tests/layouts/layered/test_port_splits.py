"""Bundles against the flow split between the two strips round their node
(:func:`layouts.layered.ordering.ports.splits`).

The hand-built graph (TopToBottom): ``src`` has three ``fixed_order`` ports on its
bottom face, ``pa``, ``pd``, ``pb`` in ELK's clockwise order (on the bottom face it runs
right to left, so ``pa`` is rightmost), with edges to ``a``, to ``sink`` (two
layers down, so through a dummy ``d``) and to ``b``; ``a`` and ``b`` both enter ``sink``
at its port ``in`` on the bottom face, against the flow, so their ends share one stub
round a side of ``sink``. Layer 1 holds ``a``, ``d`` and ``b``:

* in any order other than ``[b, d, a]`` two of src's three edges swap against the fixed
  port order: at least one crossing between layers 0 and 1;
* in ``[b, d, a]``, with the bundle round one side (say left), ``a``'s edge runs from
  right of ``d`` to ``sink``'s left strip while ``d``'s edge enters ``sink``'s top in
  the middle: one crossing (round the right, ``b``'s edge crosses it instead).

So a whole bundle costs at least one crossing; split, ``b``'s edge goes round the left
and ``a``'s round the right, and ``[b, d, a]`` has none.
"""

from __future__ import annotations

import pytest

from layouts.api import layout
from layouts.graph import Edge, Graph, Node, Port, PortConstraints, PortSide
from layouts.layered.contracts import check_layout, check_port_sides_and_order
from layouts.layered.graph import ProperGraph
from layouts.layered.ordering import ports as port_order
from layouts.layered.portmap import Insets, PortTable, Role, StubGroup, StubKind, insets
from layouts.mirror import base_direction, mirror_result
from layouts.options import Direction, Effort, LayoutOptions
from layouts.port_corpus import SAMPLES
from layouts.quality import measure
from layouts.result import Side


def pinned() -> Graph:
    src = Node("src", 140, 40, ports=(Port("pa", PortSide.SOUTH, 0),
                                      Port("pd", PortSide.SOUTH, 1),
                                      Port("pb", PortSide.SOUTH, 2)),
               port_constraints=PortConstraints.FIXED_ORDER)
    sink = Node("sink", 140, 40, ports=(Port("in", PortSide.SOUTH),))
    return Graph((src, Node("a", 60, 30), Node("b", 60, 30), sink),
                 (Edge("e0", "src", "a", source_port="pa"),
                  Edge("t", "src", "sink", source_port="pd"),
                  Edge("e1", "src", "b", source_port="pb"),
                  Edge("j0", "a", "sink", target_port="in"),
                  Edge("j1", "b", "sink", target_port="in")))


def whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every bundle in one strip (the rule before splits)."""
    monkeypatch.setattr(port_order, "splits",
                        lambda graph, order, ports, deadline: ports)


def test_split_bundle_removes_the_forced_crossing() -> None:
    result = layout(pinned())
    assert measure(result).crossings == 0
    sink = next(n for n in result.nodes if n.id == "sink")
    routes = {e.id: e for e in result.edges}
    # each edge of the bundle comes up beside the side of sink nearer where it starts
    assert min(p.x for p in routes["j1"].points) < sink.x               # b, left
    assert max(p.x for p in routes["j0"].points) > sink.x + sink.width  # a, right
    assert routes["j0"].points[-1] == routes["j1"].points[-1]   # one port point


def test_whole_bundle_keeps_one_crossing(monkeypatch: pytest.MonkeyPatch) -> None:
    whole(monkeypatch)
    assert measure(layout(pinned())).crossings == 1


@pytest.mark.parametrize("direction", [Direction.BOTTOM_TO_TOP, Direction.RIGHT_TO_LEFT])
def test_bundles_against_the_flow_meet_elkjs(direction: Direction) -> None:
    """``bundles`` in the reverse directions: elkjs draws 0 crossings by splitting;
    the lead's brute force over every order of the middle layer found no order
    below 3 with whole bundles."""
    assert measure(layout(SAMPLES["bundles"](),
                          options=LayoutOptions(direction=direction))).crossings == 0


@pytest.mark.parametrize("direction", list(Direction))
@pytest.mark.parametrize("effort", list(Effort))
def test_split_drawings_keep_the_contracts(direction: Direction, effort: Effort) -> None:
    for graph in (pinned(), SAMPLES["bundles"]()):
        result = layout(graph, options=LayoutOptions(direction=direction, effort=effort))
        base = mirror_result(result, direction)
        options = LayoutOptions(direction=base_direction(direction))
        assert [v.message for v in check_layout(graph, base, options)] == []
        assert [v.message for v in check_port_sides_and_order(graph, result)] == []


def test_splits_are_deterministic() -> None:
    runs = {repr(layout(pinned()).edges) for _ in range(3)}
    runs |= {repr(layout(pinned()).edges)}
    assert len(runs) == 1


def test_halves_widen_both_strips() -> None:
    """Two stubs from the top face, one round each side: a 12 px column in each side
    strip and one 12 px row above (the halves' rows sit side by side)."""
    left = StubGroup("p", Role.SOURCE, StubKind.INVERTED, Side.LEFT, frozenset({"x"}))
    right = StubGroup("p", Role.SOURCE, StubKind.INVERTED, Side.RIGHT, frozenset({"y"}))
    assert insets((left, right), 12, 12) == Insets(left=12.0, top=12.0, right=12.0)
    assert left.holds("p", Role.SOURCE, "x") and not left.holds("p", Role.SOURCE, "y")


def lone() -> Graph:
    """:func:`pinned` with ``a`` entering ``sink`` at the node: ``b``'s is a lone stub."""
    graph = pinned()
    edges = tuple(Edge("j0", "a", "sink") if e.id == "j0" else e for e in graph.edges)
    return Graph(graph.nodes, edges)


def test_lone_stub_moves_round_the_nearer_side() -> None:
    """With no side stubs the import sends ``b``'s stub round the right (the tie goes
    right, :func:`layouts.layered.portmap._filled_in_turn`), before ordering puts ``b``
    left of ``d`` and ``a`` ([b, d, a], as in :func:`pinned`): from there it crosses
    both their edges into ``sink``, 2 crossings. Round the left it crosses none."""
    result = layout(lone())
    assert measure(result).crossings == 0
    sink = next(n for n in result.nodes if n.id == "sink")
    j1 = next(e for e in result.edges if e.id == "j1")
    assert min(p.x for p in j1.points) < sink.x


def test_lone_stub_kept_round_the_right_crosses_twice(monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    whole(monkeypatch)
    assert measure(layout(lone())).crossings == 2


def test_a_port_on_the_natural_face_has_nothing_to_split() -> None:
    graph = Graph((Node("a", 80, 40, ports=(Port("p", PortSide.SOUTH),)), Node("b", 80, 40),
                   Node("c", 80, 40)),
                  (Edge("e", "a", "b", source_port="p"), Edge("f", "a", "c", source_port="p")))
    calls: list[bool] = []
    original = port_order._split_choices

    def spy(graph: ProperGraph, table: PortTable, node: str) -> list[PortTable]:
        out = original(graph, table, node)
        calls.append(bool(out))
        return out

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(port_order, "_split_choices", spy)
        layout(graph)
    assert calls == [False]
