"""Graphviz provider: option mapping, outline clipping, the hard time limit, dot absent."""

from __future__ import annotations

import math
import os
import stat
import sys
import time
from pathlib import Path

import pytest

from layouts.api import layout
from layouts.errors import LayoutTimeoutError, ProviderFailedError, ProviderUnavailableError
from layouts.graph import Edge, Graph, Node, Shape
from layouts.options import LayoutOptions
from layouts.providers.graphviz import (
    GraphvizProvider,
    build_dot_source,
    dot_graph_attributes,
    flatten_bezier,
)
from layouts.result import NodeBox, Point

pygraphviz = pytest.importorskip("pygraphviz")

needs_dot = pytest.mark.skipif(not GraphvizProvider().availability().available,
                               reason="Graphviz (dot) not installed")


def test_spacings_are_mapped_to_inches() -> None:
    attrs = dot_graph_attributes(LayoutOptions(node_spacing=36.0, layer_spacing=60.0))
    assert float(attrs["ranksep"]) == pytest.approx(60 / 72, abs=1e-6)  # 0.8333 in
    assert float(attrs["nodesep"]) == pytest.approx(36 / 72, abs=1e-6)  # 0.5 in
    assert attrs["rankdir"] == "TB"
    assert attrs["splines"] == "polyline"


def test_direction_and_effort_are_mapped() -> None:
    lr = dot_graph_attributes(LayoutOptions.from_mapping({"direction": "LR", "effort": "best"}))
    draft = dot_graph_attributes(LayoutOptions.from_mapping({"effort": "draft"}))
    assert lr["rankdir"] == "LR"
    assert float(draft["mclimit"]) < float(lr["mclimit"])


def test_dot_source_has_fixed_sizes_shapes_and_reversed_loop_back() -> None:
    graph = Graph(
        (Node("task", 144, 36), Node("gate", 72, 54, Shape.DIAMOND),
         Node("timer", 36, 36, Shape.CIRCLE)),
        (Edge("go", "task", "gate"), Edge("again", "gate", "task", loop_back=True),
         Edge("wait", "gate", "timer", label="later", label_width=30.2, label_height=14)),
    )
    dot = pygraphviz.AGraph(string=build_dot_source(graph, LayoutOptions()))
    task, gate, timer = (dot.get_node(f"n{i}") for i in range(3))
    # 144 / 72 = 2.0 and 36 / 72 = 0.5 in; 72 / 72 = 1.0 and 54 / 72 = 0.75 in
    assert (float(task.attr["width"]), float(task.attr["height"])) == (2.0, 0.5)
    assert (float(gate.attr["width"]), float(gate.attr["height"])) == (1.0, 0.75)
    assert (task.attr["shape"], gate.attr["shape"], timer.attr["shape"]) == (
        "box", "diamond", "ellipse")
    assert dot.node_attr["fixedsize"] == "true"
    again = next(e for e in dot.edges() if e.attr["id"] == "e1")
    # the loop-back gate (n1) -> task (n0) goes to dot reversed, task -> gate, weight 0
    assert (again[0], again[1], again.attr["weight"]) == ("n0", "n1", "0")
    wait = next(e for e in dot.edges() if e.attr["id"] == "e2")
    assert 'WIDTH="31"' in wait.attr["label"] and 'HEIGHT="14"' in wait.attr["label"]


def test_flatten_bezier_keeps_straight_pieces_and_samples_curves() -> None:
    straight = [Point(0, 0), Point(0, 5), Point(0, 10), Point(0, 20)]
    assert flatten_bezier(straight) == [Point(0, 0), Point(0, 20)]
    curve = [Point(0, 0), Point(0, 10), Point(10, 10), Point(10, 0)]
    # B(1/2) = (P0 + 3 P1 + 3 P2 + P3) / 8 = ((0+0+30+10)/8, (0+30+30+0)/8) = (5, 7.5)
    assert flatten_bezier(curve, steps=2) == [Point(0, 0), Point(5, 7.5), Point(10, 0)]


@needs_dot
def test_two_node_chain_is_placed_by_hand_arithmetic() -> None:
    graph = Graph((Node("a", 80, 40), Node("b", 80, 40)), (Edge("e", "a", "b"),))
    result = GraphvizProvider().layout(graph, LayoutOptions(layer_spacing=60))
    a, b = result.node("a"), result.node("b")
    assert a.x == b.x
    assert b.y - a.y == pytest.approx(40 + 60)  # a's height + ranksep
    (start, end) = result.edges[0].points
    assert (start.x, start.y) == pytest.approx((a.x + 40, a.y + 40))  # a's bottom centre
    assert (end.x, end.y) == pytest.approx((b.x + 40, b.y))  # b's top centre
    assert (result.width, result.height) == pytest.approx((80, 40 + 60 + 40))


def _assert_on_circle(node: NodeBox, p: Point) -> None:
    c = node.center
    assert math.hypot(p.x - c.x, p.y - c.y) == pytest.approx(min(node.width, node.height) / 2)


def _assert_on_diamond(node: NodeBox, p: Point) -> None:
    c = node.center
    level = abs(p.x - c.x) / (node.width / 2) + abs(p.y - c.y) / (node.height / 2)
    assert level == pytest.approx(1.0)


@needs_dot
def test_ends_are_clipped_to_true_diamond_and_circle_outlines() -> None:
    # The circle nodes' boxes are wider than tall (radius = min / 2 = 20), so dot's
    # ellipse end points are not on our circle: the provider must re-clip them.
    graph = Graph(
        (Node("gate", 80, 50, Shape.DIAMOND), Node("left", 60, 40, Shape.CIRCLE),
         Node("right", 60, 40, Shape.CIRCLE), Node("mid", 100, 40)),
        (Edge("l", "gate", "left"), Edge("r", "gate", "right"), Edge("m", "gate", "mid")),
    )
    result = GraphvizProvider().layout(graph, LayoutOptions())
    gate = result.node("gate")
    for route in result.edges:
        _assert_on_diamond(gate, route.points[0])
    for edge_id, node_id in (("l", "left"), ("r", "right")):
        route = next(r for r in result.edges if r.id == edge_id)
        _assert_on_circle(result.node(node_id), route.points[-1])
        assert route.target_end.side is not None and route.target_end.slot is None


@needs_dot
def test_label_box_has_the_label_size_and_clears_the_nodes() -> None:
    graph = Graph((Node("a", 80, 40), Node("b", 80, 40)),
                  (Edge("e", "a", "b", label="yes", label_width=50, label_height=20),))
    result = GraphvizProvider().layout(graph, LayoutOptions())
    box = result.edges[0].label_box
    assert box is not None and (box.width, box.height) == (50, 20)
    for n in result.nodes:
        assert box.bottom <= n.y or box.y >= n.y + n.height or box.right <= n.x \
            or box.x >= n.x + n.width


def _script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "fake-dot"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _gone_or_zombie(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


def test_slow_dot_is_killed_with_its_children(tmp_path: Path) -> None:
    fake = _script(tmp_path, f"echo $$ > {tmp_path}/parent\n"
                             f"sleep 30 & echo $! > {tmp_path}/child\nwait\n")
    graph = Graph((Node("a", 10, 10),))
    with pytest.raises(LayoutTimeoutError, match="graphviz"):
        GraphvizProvider(dot_command=fake).layout(graph, LayoutOptions(time_budget=0.5))
    parent = int((tmp_path / "parent").read_text())
    child = int((tmp_path / "child").read_text())
    with pytest.raises(ProcessLookupError):  # our own child: killed and reaped
        os.kill(parent, 0)
    deadline = time.monotonic() + 5  # the orphan is reaped by init; wait for that, not timed
    while not _gone_or_zombie(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone_or_zombie(child)


def test_failing_dot_raises_provider_failed(tmp_path: Path) -> None:
    fake = _script(tmp_path, "echo 'syntax error in line 1' >&2\nexit 3\n")
    with pytest.raises(ProviderFailedError, match=r"status 3.*syntax error"):
        GraphvizProvider(dot_command=fake).layout(Graph((Node("a", 10, 10),)), LayoutOptions())


def test_missing_dot_command_is_unavailable_with_install_hint() -> None:
    provider = GraphvizProvider(dot_command="/nonexistent/bin/dot")
    status = provider.availability()
    assert not status.available
    assert status.reason.startswith("Graphviz (dot) not found;")
    with pytest.raises(ProviderUnavailableError, match="apt-get install graphviz"):
        provider.layout(Graph((Node("a", 10, 10),)), LayoutOptions())


def test_api_fails_closed_without_dot_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    graph = Graph((Node("a", 10, 10),))
    with pytest.raises(ProviderUnavailableError) as caught:
        layout(graph, engine="graphviz")
    message = str(caught.value)
    assert "Graphviz" in message
    assert "apt-get install graphviz libgraphviz-dev" in message


def test_unimportable_pygraphviz_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pygraphviz", None)  # makes `import pygraphviz` fail
    status = GraphvizProvider().availability()
    assert not status.available
    missing, _, hint = status.reason.partition(";")
    assert missing.startswith("pygraphviz not importable")
    assert "pip install pygraphviz" in hint


@needs_dot
def test_diagnostics_name_the_phases_and_the_effort_mapping() -> None:
    graph = Graph((Node("a", 10, 10), Node("b", 10, 10)), (Edge("e", "a", "b"),))
    options = LayoutOptions.from_mapping({"effort": "draft"})
    diagnostics = GraphvizProvider().layout(graph, options).diagnostics
    assert [name for name, _ in diagnostics.phases] == ["build", "dot", "read", "assemble"]
    assert (diagnostics.engine, diagnostics.effort) == ("graphviz", "draft")
    assert diagnostics.notes == ("effort draft -> dot mclimit=0.25",)
