"""grandalf provider: spacings, directions, components, clipping and the cooperative budget."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from layouts.geometry import on_outline
from layouts.graph import Edge, Graph, Node, Shape
from layouts.options import Effort, LayoutOptions
from layouts.providers.grandalf import GrandalfProvider, components, inverted_edges
from layouts.result import NodeBox, Point

pytest.importorskip("grandalf")


def _chain(direction: str = "TB", **options: object) -> tuple[NodeBox, NodeBox]:
    graph = Graph((Node("a", 80, 40), Node("b", 80, 40)), (Edge("e", "a", "b"),))
    opts = LayoutOptions.from_mapping({"direction": direction, **options})
    result = GrandalfProvider().layout(graph, opts)
    return result.node("a"), result.node("b")


def test_layer_spacing_separates_layers() -> None:
    a, b = _chain(layer_spacing=60)
    assert b.y - a.y == pytest.approx(40 + 60)  # a's height + layer spacing
    a, b = _chain(layer_spacing=30)
    assert b.y - a.y == pytest.approx(40 + 30)
    assert a.x == pytest.approx(b.x)


def test_left_to_right_swaps_the_axes() -> None:
    a, b = _chain("LR", layer_spacing=60)
    assert b.x - a.x == pytest.approx(80 + 60)  # a's width + layer spacing
    assert a.center.y == pytest.approx(b.center.y)


def test_node_spacing_separates_neighbours_in_a_layer() -> None:
    graph = Graph((Node("a", 80, 40), Node("b", 80, 40), Node("c", 80, 40)),
                  (Edge("ab", "a", "b"), Edge("ac", "a", "c")))
    result = GrandalfProvider().layout(graph, LayoutOptions(node_spacing=40))
    b, c = result.node("b"), result.node("c")
    assert abs(c.center.x - b.center.x) == pytest.approx(80 / 2 + 40 + 80 / 2)
    assert b.y == c.y


def test_components_are_placed_side_by_side() -> None:
    graph = Graph((Node("a1", 100, 40), Node("a2", 100, 40), Node("b1", 60, 60),
                   Node("b2", 60, 60)),
                  (Edge("a", "a1", "a2"), Edge("b", "b1", "b2")))
    result = GrandalfProvider().layout(graph, LayoutOptions(node_spacing=40))
    a1, b1 = result.node("a1"), result.node("b1")
    assert b1.x - (a1.x + 100) == pytest.approx(40)  # one node spacing between components
    assert a1.y == b1.y == 0


def test_components_follow_model_order() -> None:
    graph = Graph((Node("x", 1, 1), Node("y", 1, 1), Node("z", 1, 1), Node("w", 1, 1)),
                  (Edge("1", "z", "x"), Edge("2", "w", "y")))
    assert [[n.id for n in nodes] for nodes, _ in components(graph)] == [["x", "z"], ["y", "w"]]


def _ids(nodes: str) -> list[Node]:
    return [Node(n, 1, 1) for n in nodes]


def test_inverted_edges_honour_declared_loop_backs_and_break_other_cycles() -> None:
    cycle = [Edge("ab", "a", "b"), Edge("bc", "b", "c"), Edge("ca", "c", "a")]
    assert inverted_edges(_ids("abc"), cycle) == {"ca"}  # DFS from a: c -> a closes the cycle
    declared = [*cycle[:2], Edge("ca", "c", "a", loop_back=True)]
    assert inverted_edges(_ids("abc"), declared) == {"ca"}  # not reversed twice
    forward = [Edge("ab", "a", "b", loop_back=True), Edge("bc", "b", "c")]
    assert inverted_edges(_ids("abc"), forward) == {"ab"}  # a declaration is honoured


def _on_circle(node: NodeBox, p: Point) -> bool:
    c = node.center
    return math.isclose(math.hypot(p.x - c.x, p.y - c.y), min(node.width, node.height) / 2,
                        abs_tol=1e-6)


def _on_diamond(node: NodeBox, p: Point) -> bool:
    c = node.center
    level = abs(p.x - c.x) / (node.width / 2) + abs(p.y - c.y) / (node.height / 2)
    return math.isclose(level, 1.0, abs_tol=1e-6)


@pytest.mark.parametrize("direction", ["TB", "LR"])
def test_ends_are_clipped_to_true_diamond_and_circle_outlines(direction: str) -> None:
    graph = Graph(
        (Node("gate", 80, 50, Shape.DIAMOND), Node("left", 60, 40, Shape.CIRCLE),
         Node("right", 60, 40, Shape.CIRCLE), Node("mid", 100, 40)),
        (Edge("l", "gate", "left"), Edge("r", "gate", "right"), Edge("m", "gate", "mid")),
    )
    result = GrandalfProvider().layout(graph, LayoutOptions.from_mapping({"direction": direction}))
    gate = result.node("gate")
    assert all(_on_diamond(gate, r.points[0]) for r in result.edges)
    assert _on_circle(result.node("left"), result.edges[0].points[-1])
    assert _on_circle(result.node("right"), result.edges[1].points[-1])


def test_self_loops_and_parallel_edges_end_on_their_nodes() -> None:
    graph = Graph((Node("a", 80, 40), Node("b", 80, 40)),
                  (Edge("self", "a", "a"), Edge("one", "a", "b"), Edge("two", "a", "b"),
                   Edge("back", "b", "a", loop_back=True)))
    result = GrandalfProvider().layout(graph, LayoutOptions(node_spacing=40))
    a, b = result.node("a"), result.node("b")
    for route in result.edges:
        source, target = result.node(route.source), result.node(route.target)
        assert on_outline(source, route.points[0]) and on_outline(target, route.points[-1])
    loop = result.edges[0]
    assert max(p.x for p in loop.points) == pytest.approx(a.x + 80 + 40 / 2)
    assert result.edges[3].points[0].y == pytest.approx(b.y)  # leaves b's top, back up to a


def _counting_clock(step: float) -> tuple[Callable[[], float], list[int]]:
    calls = [0]

    def clock() -> float:
        calls[0] += 1
        return calls[0] * step

    return clock, calls


def _gateway() -> Graph:
    names = ("b1", "b2", "b3")
    nodes = (Node("start", 80, 40), Node("gate", 60, 60, Shape.DIAMOND),
             *(Node(n, 80, 40) for n in names), Node("end", 80, 40))
    edges = [Edge("s", "start", "gate")]
    edges += [Edge(f"o{n}", "gate", n) for n in names] + [Edge(f"i{n}", n, "end") for n in names]
    return Graph(nodes, tuple(edges))


def test_budget_running_out_stops_ordering_and_is_reported() -> None:
    slow_clock, slow_calls = _counting_clock(1.0)  # every reading is 1 s later
    still_clock, still_calls = _counting_clock(0.0)  # time never passes
    options = LayoutOptions(time_budget=0.5, effort=Effort.BEST)
    rushed = GrandalfProvider(clock=slow_clock).layout(_gateway(), options)
    relaxed = GrandalfProvider(clock=still_clock).layout(_gateway(), options)
    assert rushed.diagnostics.budget_exhausted
    assert not relaxed.diagnostics.budget_exhausted
    assert slow_calls[0] < still_calls[0]  # fewer ordering steps were run
    assert [n.id for n in rushed.nodes] == [n.id for n in _gateway().nodes]


def test_effort_sets_the_number_of_ordering_rounds() -> None:
    notes = {effort: GrandalfProvider().layout(_gateway(), LayoutOptions.from_mapping(
        {"effort": effort})).diagnostics.notes for effort in ("draft", "best")}
    assert "1 grandalf ordering rounds" in notes["draft"][0]
    assert "8 grandalf ordering rounds" in notes["best"][0]


def test_diagnostics_name_the_phases() -> None:
    diagnostics = GrandalfProvider().layout(_gateway(), LayoutOptions()).diagnostics
    assert [name for name, _ in diagnostics.phases] == ["sugiyama", "assemble"]
    assert not diagnostics.budget_exhausted
