"""The provider contract, checked for every registered layout engine.

Parametrised over ``layouts.registry.provider_names()``. A provider that cannot run here
(its module does not import yet, or ``availability()`` is false) is skipped with the
reason on a developer's machine; with ``CI=true`` that skip is a failure, so a missing
install step cannot hide behind a green run.
"""

from __future__ import annotations

import copy
import json
import math
import os
from itertools import combinations
from pathlib import Path
from typing import NoReturn

import pytest

from layouts.api import layout
from layouts.errors import InvalidGraphError
from layouts.geometry import on_outline
from layouts.graph import Edge, Graph, Node, Shape
from layouts.mirror import BASE_DIRECTIONS
from layouts.options import Direction
from layouts.registry import get_provider, provider_names
from layouts.result import LayoutResult, NodeBox, Point

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ("document-processing.yaml", "repository-assessment.yaml")


def _unavailable_or_fail(reason: str) -> NoReturn:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true, so this cannot be skipped: {reason}")
    pytest.skip(reason)


def _require(engine: str) -> None:
    """Skip (fail in CI) when the provider cannot run here, naming why."""
    try:
        status = get_provider(engine).availability()
    except (ImportError, AttributeError) as exc:
        _unavailable_or_fail(f"provider '{engine}' cannot be loaded: {exc}")
    if not status.available:
        _unavailable_or_fail(f"provider '{engine}' is unavailable: {status.reason}")


@pytest.fixture(params=provider_names())
def engine(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    _require(name)
    return name


def _rect(node_id: str, width: float = 100, height: float = 40) -> Node:
    return Node(node_id, width, height)


def _diamond(node_id: str) -> Node:
    return Node(node_id, 60, 60, Shape.DIAMOND)


def _chain() -> Graph:
    nodes = (_rect("a"), _rect("b", 140, 50), _rect("c", 80, 30))
    return Graph(nodes, (Edge("ab", "a", "b"), Edge("bc", "b", "c")))


def _gateway(branches: int) -> Graph:
    names = [f"branch{i}" for i in range(branches)]
    nodes = (_rect("start"), _diamond("gate"), *(_rect(n) for n in names), _diamond("merge"),
             Node("end", 40, 40, Shape.CIRCLE))
    edges = [Edge("e-start", "start", "gate"), Edge("e-end", "merge", "end")]
    for n in names:
        edges += [Edge(f"out-{n}", "gate", n), Edge(f"in-{n}", n, "merge")]
    return Graph(nodes, tuple(edges))


def _fanout_join() -> Graph:
    tasks = ("lookup", "validate", "dedupe")
    nodes = (_diamond("fanout"), *(_rect(t, 120, 40) for t in tasks), _diamond("join"),
             _rect("after"))
    edges = [Edge(f"f-{t}", "fanout", t) for t in tasks]
    edges += [Edge(f"j-{t}", t, "join") for t in tasks] + [Edge("j-after", "join", "after")]
    return Graph(nodes, tuple(edges))


def _loop_back() -> Graph:
    nodes = (_rect("receive"), _rect("classify"), _diamond("approved"), _rect("changes"),
             _rect("done"))
    edges = (Edge("e1", "receive", "classify"), Edge("e2", "classify", "approved"),
             Edge("e3", "approved", "changes"), Edge("e4", "approved", "done"),
             Edge("back", "changes", "classify", loop_back=True))
    return Graph(nodes, edges)


def _two_components() -> Graph:
    nodes = (_rect("a1"), _rect("a2"), _rect("b1", 60, 60), Node("b2", 50, 50, Shape.CIRCLE))
    return Graph(nodes, (Edge("a", "a1", "a2"), Edge("b", "b1", "b2")))


def _labelled() -> Graph:
    nodes = (_diamond("check"), _rect("yes-path"), _rect("no-path"))
    edges = (Edge("yes", "check", "yes-path", label="yes", label_width=26, label_height=14),
             Edge("no", "check", "no-path", label="otherwise", label_width=64, label_height=14))
    return Graph(nodes, edges)


def _self_loop_and_parallel() -> Graph:
    nodes = (_rect("retry"), _rect("next"))
    edges = (Edge("again", "retry", "retry"), Edge("first", "retry", "next"),
             Edge("second", "retry", "next"))
    return Graph(nodes, edges)


def _ellipses() -> Graph:
    """DOT's default shape: wide ellipses, where a route ending on the bounding box would
    stop short of the drawn outline everywhere but at the four axis points."""
    nodes = (Node("top", 120, 40, Shape.ELLIPSE), Node("left", 90, 36, Shape.ELLIPSE),
             Node("right", 90, 36, Shape.ELLIPSE), Node("bottom", 160, 50, Shape.ELLIPSE))
    edges = (Edge("tl", "top", "left"), Edge("tr", "top", "right"), Edge("tb", "top", "bottom"),
             Edge("lb", "left", "bottom"), Edge("rb", "right", "bottom"))
    return Graph(nodes, edges)


GRAPHS = {
    "empty": lambda: Graph(()),
    "chain": _chain,
    "gateway-2": lambda: _gateway(2),
    "gateway-3": lambda: _gateway(3),
    "fanout-join": _fanout_join,
    "loop-back": _loop_back,
    "two-components": _two_components,
    "labelled": _labelled,
    "self-loop-and-parallel": _self_loop_and_parallel,
    "ellipses": _ellipses,
}


def _overlap(a: NodeBox, b: NodeBox) -> bool:
    eps = 1e-6
    return (a.x < b.x + b.width - eps and b.x < a.x + a.width - eps
            and a.y < b.y + b.height - eps and b.y < a.y + a.height - eps)


def assert_contract(graph: Graph, result: LayoutResult, direction: Direction) -> None:
    """Everything every provider must guarantee for a valid graph."""
    assert [n.id for n in result.nodes] == [n.id for n in graph.nodes]
    for node in graph.nodes:
        box = result.node(node.id)
        assert (box.width, box.height, box.shape) == (node.width, node.height, node.shape)
        assert all(math.isfinite(v) for v in (box.x, box.y))
    for a, b in combinations(result.nodes, 2):
        assert not _overlap(a, b), f"nodes {a.id} and {b.id} overlap: {a} {b}"
    assert [e.id for e in result.edges] == [e.id for e in graph.edges]
    for edge, route in zip(graph.edges, result.edges, strict=True):
        assert len(route.points) >= 2, edge.id
        source, target = result.node(edge.source), result.node(edge.target)
        assert on_outline(source, route.points[0]), f"{edge.id} starts off {edge.source}"
        assert on_outline(target, route.points[-1]), f"{edge.id} ends off {edge.target}"
        assert route.loop_back == edge.loop_back
        if edge.label is not None:
            assert route.label_box is not None, edge.id
            assert (route.label_box.width, route.label_box.height) == (
                edge.label_width, edge.label_height)
        if edge.loop_back or edge.source == edge.target:
            continue
        s, t = source.center, target.center
        assert _along(direction, s, t) > 0, f"{edge.id}: target {t} not after {s} ({direction})"


def _along(direction: Direction, s: Point, t: Point) -> float:
    """How far ``t`` lies after ``s`` in the flow ``direction``."""
    return {Direction.TOP_TO_BOTTOM: t.y - s.y, Direction.BOTTOM_TO_TOP: s.y - t.y,
            Direction.LEFT_TO_RIGHT: t.x - s.x, Direction.RIGHT_TO_LEFT: s.x - t.x}[direction]


@pytest.mark.parametrize("direction", list(Direction))
@pytest.mark.parametrize("graph_name", list(GRAPHS))
def test_layout_meets_the_contract(engine: str, graph_name: str, direction: Direction) -> None:
    graph = GRAPHS[graph_name]()
    before = copy.deepcopy(graph)
    result = layout(graph, engine=engine, direction=direction)
    assert graph == before, "the caller's graph was changed"
    assert_contract(graph, result, direction)
    assert result.diagnostics.engine == engine
    assert result.diagnostics.direction == direction.value


def _labelled_loop_back() -> Graph:
    graph = _loop_back()
    labels = {"e3": ("changes requested", 110.0), "e4": ("approved", 56.0)}
    edges = tuple(
        Edge(e.id, e.source, e.target, labels[e.id][0], e.loop_back, labels[e.id][1], 14.0)
        if e.id in labels else e
        for e in graph.edges)
    return Graph(graph.nodes, edges)


@pytest.mark.parametrize("effort", ["draft", "best"])
def test_every_effort_is_deterministic_and_meets_the_contract(engine: str, effort: str) -> None:
    first = layout(_labelled_loop_back(), engine=engine, effort=effort, direction="LR")
    second = layout(_labelled_loop_back(), engine=engine, effort=effort, direction="LR")
    assert first.to_json() == second.to_json()
    assert_contract(_labelled_loop_back(), first, Direction.LEFT_TO_RIGHT)
    assert first.diagnostics.effort == effort


INVALID = {
    "duplicate node": (Graph((_rect("a"), _rect("a"))), "a"),
    "duplicate edge": (Graph((_rect("a"), _rect("b")),
                             (Edge("e", "a", "b"), Edge("e", "b", "a"))), "e"),
    "dangling edge": (Graph((_rect("a"),), (Edge("to-nowhere", "a", "ghost"),)),
                      "to-nowhere"),
    "NaN width": (Graph((Node("nan", math.nan, 10),)), "nan"),
    "infinite height": (Graph((Node("tall", 10, math.inf),)), "tall"),
    "zero width": (Graph((Node("flat", 0, 10),)), "flat"),
    "negative height": (Graph((Node("neg", 10, -5),)), "neg"),
}


@pytest.mark.parametrize("engine_name", provider_names())
@pytest.mark.parametrize("case", list(INVALID))
def test_invalid_graph_is_rejected_naming_the_id(engine_name: str, case: str) -> None:
    graph, offending = INVALID[case]
    with pytest.raises(InvalidGraphError, match=f"'{offending}'") as caught:
        layout(graph, engine=engine_name)
    assert caught.value.offending_id == offending


def _fixture_graph(name: str) -> Graph:
    try:
        from renderer.readers import read_diagram_file
    except ImportError as exc:
        _unavailable_or_fail(f"renderer.readers is not importable yet: {exc}")
    graph: Graph = read_diagram_file(ROOT / "fixtures" / name).graph
    return graph


@pytest.mark.parametrize("direction", BASE_DIRECTIONS)  # mirrors: the small graphs above
@pytest.mark.parametrize("fixture", FIXTURES)
def test_fixture_workflow_meets_the_contract(engine: str, fixture: str,
                                             direction: Direction) -> None:
    graph = _fixture_graph(fixture)
    before = copy.deepcopy(graph)
    result = layout(graph, engine=engine, direction=direction)
    assert graph == before, "the caller's graph was changed"
    assert_contract(graph, result, direction)


@pytest.mark.parametrize("fixture", FIXTURES)
def test_result_json_reads_back_exactly(engine: str, fixture: str) -> None:
    result = layout(_fixture_graph(fixture), engine=engine)
    for timings in (False, True):
        written = result.to_dict(timings=timings)
        read = LayoutResult.from_dict(written)
        assert read.to_dict(timings=timings) == written
        # numbers read back are rounded already, so a second round trip changes nothing
        assert LayoutResult.from_dict(read.to_dict(timings=True)) == read
    assert LayoutResult.from_dict(json.loads(result.to_json())).to_json() == result.to_json()


def test_unavailable_provider_skips_locally_and_fails_in_ci(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="dot missing"):
        _unavailable_or_fail("dot missing")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="dot missing"):
        _unavailable_or_fail("dot missing")


# Compound graphs (issue 14): every engine that declares compound nodes keeps the
# hierarchy contract below; every other engine refuses them with a 422-type error.

def assert_hierarchy_contract(graph: Graph, result: LayoutResult) -> None:
    """What every provider of compound layouts must guarantee: every node of the
    hierarchy (parents first) with its parent, leaves at their size, children inside
    their parent with its padding, no two siblings overlapping, every edge routed from
    its source's outline to its target's."""
    from layouts.layered.contracts.hierarchy import check_parents

    parents = graph.parents()
    assert [n.id for n in result.nodes] == [n.id for n in graph.all_nodes()]
    for node in graph.all_nodes():
        box = result.node(node.id)
        assert box.parent == parents[node.id], node.id
        if not node.children:
            assert (box.width, box.height) == (node.width, node.height), node.id
    assert [v.message for v in check_parents(result, parents)] == []
    for a, b in combinations(result.nodes, 2):
        if a.parent == b.parent:
            assert not _overlap(a, b), f"siblings {a.id} and {b.id} overlap"
    assert [e.id for e in result.edges] == [e.id for e in graph.edges]
    for edge, route in zip(graph.edges, result.edges, strict=True):
        assert len(route.points) >= 2, edge.id
        assert on_outline(result.node(edge.source), route.points[0]), edge.id
        assert on_outline(result.node(edge.target), route.points[-1]), edge.id


@pytest.mark.parametrize("direction", BASE_DIRECTIONS)
@pytest.mark.parametrize("graph_name", ["three-levels", "sibling-groups"])
def test_compound_graph_meets_the_hierarchy_contract(engine: str, graph_name: str,
                                                     direction: Direction) -> None:
    from layouts.compound_corpus import SAMPLES
    from layouts.errors import UnsupportedFeatureError
    from layouts.graph import GraphFeature
    from layouts.registry import provider_features

    graph = SAMPLES[graph_name]()
    if GraphFeature.COMPOUND not in provider_features(get_provider(engine)):
        with pytest.raises(UnsupportedFeatureError, match="compound nodes"):
            layout(graph, engine=engine, direction=direction)
        return
    before = copy.deepcopy(graph)
    result = layout(graph, engine=engine, direction=direction)
    assert graph == before, "the caller's graph was changed"
    assert_hierarchy_contract(graph, result)
