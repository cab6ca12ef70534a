"""The elkjs provider against real Node.js and elkjs 0.12.1, in both modes.

The reference numbers of the ELK example come from the issue (elkjs 0.12.1 run by hand
with ELK's defaults: nodeNode 20, nodeNodeBetweenLayers 20, edgeNode 10, edgeEdge 10),
not from this code.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from layouts.errors import ProviderFailedError, ProviderUnavailableError
from layouts.graph import Edge, Graph, Node, Shape
from layouts.options import Direction, LayoutOptions
from layouts.providers.elkjs import ElkjsProvider, ElkMode
from layouts.providers.elkjs_install import default_install_dir
from layouts.providers.elkjs_options import to_elk_graph
from layouts.registry import LayoutProvider

pytestmark = pytest.mark.skipif(shutil.which("node") is None,
                                reason="Node.js (node) not found; apt-get install nodejs npm")

ELK_EXAMPLE = Graph(
    nodes=(Node("a", 120, 40), Node("gw", 40, 40, Shape.DIAMOND), Node("b", 120, 40),
           Node("c", 120, 40)),
    edges=(Edge("a-gw", "a", "gw"), Edge("gw-b", "gw", "b"), Edge("gw-c", "gw", "c")),
)
ELK_DEFAULT_SPACING = LayoutOptions(direction=Direction.TOP_TO_BOTTOM, node_spacing=20,
                                    layer_spacing=20, edge_spacing=10, clearance=10)


@pytest.fixture(scope="module")
def providers() -> Iterator[dict[ElkMode, ElkjsProvider]]:
    """One provider per mode for the whole module, so the worker stays warm."""
    both = {mode: ElkjsProvider(mode=mode) for mode in ElkMode}
    yield both
    for elk in both.values():
        elk.close()


@pytest.fixture(params=list(ElkMode), ids=str)
def provider(request: pytest.FixtureRequest,
             providers: dict[ElkMode, ElkjsProvider]) -> ElkjsProvider:
    return providers[request.param]


@pytest.fixture
def worker(providers: dict[ElkMode, ElkjsProvider]) -> ElkjsProvider:
    """Worker mode only: both modes hand ELK's answer to the same conversion (the ELK
    example checks each mode), and the contract tests run per-call mode."""
    return providers[ElkMode.WORKER]


def test_is_a_layout_provider_named_elkjs() -> None:
    elk = ElkjsProvider()
    assert isinstance(elk, LayoutProvider)
    assert elk.name == "elkjs" and elk.mode is ElkMode.PER_CALL
    assert elk.availability().available


def test_elk_example_matches_elk_coordinates(provider: ElkjsProvider) -> None:
    result = provider.layout(ELK_EXAMPLE, ELK_DEFAULT_SPACING)
    expected = {"a": (18.67, 12), "gw": (58.67, 72), "b": (12, 132), "c": (152, 132)}
    for node_id, (x, y) in expected.items():
        box = result.node(node_id)
        assert box.x == pytest.approx(x, abs=0.01), node_id
        assert box.y == pytest.approx(y, abs=0.01), node_id
    # a (x 18.67, w 120) sits centred over gw (58.67 + 40 / 2 = 78.67 = 18.67 + 120 / 2):
    # one straight segment from a's bottom (y 12 + 40) to gw's top tip (y 72).
    first = result.edges[0].points
    assert [(round(p.x, 2), round(p.y, 2)) for p in first] == [(78.67, 52), (78.67, 72)]
    assert result.diagnostics.engine == "elkjs"
    assert f"mode {provider.mode.value}" in result.diagnostics.notes


def test_diamond_exits_lie_on_the_true_outline(worker: ElkjsProvider) -> None:
    result = worker.layout(ELK_EXAMPLE, ELK_DEFAULT_SPACING)
    gateway = result.node("gw")
    cx, cy = gateway.x + 20, gateway.y + 20  # centre; half sizes 20 and 20
    for route in result.edges[1:]:
        start = route.points[0]
        assert abs(start.x - cx) / 20 + abs(start.y - cy) / 20 == pytest.approx(1, abs=1e-6)
        assert start.y > cy  # leaves through the lower half, straight down
        assert route.points[1].x == start.x
    # gw-b leaves at x = b's centre 12 + 60 = 72: |72 - 78.67| = 6.67, y = 92 + 20 * (1 - 6.67/20)
    assert result.edges[1].points[0].y == pytest.approx(92 + 20 - 6.6667, abs=0.01)


def test_left_to_right_puts_successors_to_the_right(worker: ElkjsProvider) -> None:
    options = LayoutOptions(direction=Direction.LEFT_TO_RIGHT, layer_spacing=50)
    result = worker.layout(ELK_EXAMPLE, options)
    a, gw, b = result.node("a"), result.node("gw"), result.node("b")
    assert gw.x >= a.x + a.width + 50 and b.x >= gw.x + gw.width + 50


def test_same_input_gives_identical_json(worker: ElkjsProvider) -> None:
    first = worker.layout(ELK_EXAMPLE, LayoutOptions(seed=3)).to_json()
    assert worker.layout(ELK_EXAMPLE, LayoutOptions(seed=3)).to_json() == first


def test_caller_graph_is_unchanged(worker: ElkjsProvider) -> None:
    before = ELK_EXAMPLE.to_dict()
    worker.layout(ELK_EXAMPLE, LayoutOptions())
    assert ELK_EXAMPLE.to_dict() == before


def test_worker_keeps_serving_after_elk_rejects_a_graph() -> None:
    elk = ElkjsProvider(mode="worker", workers=1)
    try:
        elk.layout(ELK_EXAMPLE, LayoutOptions())
        pool = elk._worker_pool("node", default_install_dir() / "layout.js")
        elk_graph = to_elk_graph(ELK_EXAMPLE, LayoutOptions())
        elk_graph["edges"].append({"id": "bad", "sources": ["a"], "targets": ["missing"]})
        before = elk.worker_pids()
        with pytest.raises(ProviderFailedError, match="missing"):
            pool.layout(elk_graph, 30)
        assert elk.worker_pids() == before
        assert elk.layout(ELK_EXAMPLE, LayoutOptions()).node("a").width == 120
    finally:
        elk.close()
    assert elk.worker_pids() == ()


def test_missing_node_names_it_and_the_install_command(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    elk = ElkjsProvider()
    status = elk.availability()
    assert not status.available
    assert status.reason == "Node.js (node) not found; apt-get install nodejs npm"
    with pytest.raises(ProviderUnavailableError, match=r"Node\.js \(node\) not found.*nodejs"):
        elk.layout(ELK_EXAMPLE, LayoutOptions())


def test_unknown_mode_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WFR_ELK_MODE", "threads")
    with pytest.raises(ValueError, match="'threads' is not one of per-call, worker"):
        ElkjsProvider()
    monkeypatch.setenv("WFR_ELK_MODE", "worker")
    assert ElkjsProvider().mode is ElkMode.WORKER
    with pytest.raises(ValueError, match="workers 0 must be an integer >= 1"):
        ElkjsProvider(mode="worker", workers=0)


def test_worker_that_died_while_idle_is_replaced_silently() -> None:
    elk = ElkjsProvider(mode="worker", workers=1)
    try:
        elk.layout(ELK_EXAMPLE, LayoutOptions())
        (first,) = elk.worker_pids()
        os.kill(first, signal.SIGKILL)
        os.waitid(os.P_PID, first, os.WEXITED | os.WNOWAIT)  # dead, not yet reaped
        assert elk.layout(ELK_EXAMPLE, LayoutOptions()).node("c").width == 120
        (second,) = elk.worker_pids()
        assert second != first
    finally:
        elk.close()


def test_threads_share_the_pool_without_mixing_answers() -> None:
    elk = ElkjsProvider(mode="worker", workers=2)
    # the same chain of n rectangles 100 px tall is laid out by 6 threads at once; ELK puts
    # layer k at y = padding 12 + k * (100 + layer spacing 30), so answers cannot be mixed up
    def chain(n: int) -> Graph:
        nodes = tuple(Node(f"n{i}", 60, 100) for i in range(n))
        edges = tuple(Edge(f"e{i}", f"n{i}", f"n{i + 1}") for i in range(n - 1))
        return Graph(nodes, edges)

    options = LayoutOptions(layer_spacing=30, clearance=10, time_budget=60)
    try:
        with ThreadPoolExecutor(6) as pool:
            results = list(pool.map(lambda n: elk.layout(chain(n), options), range(2, 8)))
        assert len(elk.worker_pids()) <= 2
    finally:
        elk.close()
    for n, result in zip(range(2, 8), results, strict=True):
        assert len(result.nodes) == n
        assert result.node(f"n{n - 1}").y == pytest.approx(12 + (n - 1) * 130, abs=0.01)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_forked_child_leaves_the_parents_workers_alone() -> None:
    elk = ElkjsProvider(mode="worker", workers=1)
    try:
        elk.layout(ELK_EXAMPLE, LayoutOptions())
        (parent_worker,) = elk.worker_pids()
        child = multiprocessing.get_context("fork").Process(target=_child_lays_out, args=(elk,))
        child.start()
        child.join(60)
        assert child.exitcode == 0
        assert elk.worker_pids() == (parent_worker,)
        assert elk.layout(ELK_EXAMPLE, LayoutOptions()).node("a").height == 40
    finally:
        elk.close()


def _child_lays_out(elk: ElkjsProvider) -> None:
    elk.layout(ELK_EXAMPLE, LayoutOptions())
    elk.close()
