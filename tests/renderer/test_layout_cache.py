"""The layout cache: memory LRU, the store behind it, one layout per key at a time."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from layouts.errors import LayoutTimeoutError
from layouts.graph import Edge, Graph, Node
from layouts.options import LayoutOptions
from layouts.result import Diagnostics, LayoutResult, NodeBox
from renderer.layout_cache import LayoutCache, layout_key
from workflow.sqlite_store import SqliteStore

GRAPH = Graph((Node("a", 30, 20), Node("b", 30, 20)), (Edge("e", "a", "b"),))


class Runner:
    """Counts layouts; each puts node ``a`` at x = 1/3, which JSON rounds to 0.333."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def __call__(self, graph: Graph, engine: str, options: LayoutOptions) -> LayoutResult:
        self.calls.append((graph.nodes[0].id, engine))
        boxes = tuple(NodeBox(n.id, 1 / 3 if i == 0 else 0.0, 50.0 * i, n.width, n.height)
                      for i, n in enumerate(graph.nodes))
        return LayoutResult(boxes, (), 40, 100, Diagnostics(engine, "draft", "TopToBottom",
                                                              seconds=0.25))


def _graph(first: str) -> Graph:
    return Graph((Node(first, 30, 20),))


@pytest.fixture
def store(tmp_path: Path):
    found = SqliteStore(tmp_path / "w.db")
    yield found
    found.close()


def test_a_second_request_takes_the_first_layout() -> None:
    runner = Runner()
    cache = LayoutCache(runner)
    first = cache.layout(GRAPH, "hand", LayoutOptions(), tenant="t")
    assert cache.layout(GRAPH, "hand", LayoutOptions(), tenant="t") is first
    assert len(runner.calls) == 1


def test_what_the_layout_depends_on_makes_another_key() -> None:
    runner = Runner()
    cache = LayoutCache(runner)
    for graph, engine, options, tenant in (
            (GRAPH, "hand", LayoutOptions(), "t"),
            (GRAPH, "other", LayoutOptions(), "t"),
            (GRAPH, "hand", LayoutOptions(node_spacing=41), "t"),
            (Graph((Node("a", 31, 20), Node("b", 30, 20)), GRAPH.edges), "hand",
             LayoutOptions(), "t"),
            (GRAPH, "hand", LayoutOptions(), "another tenant")):
        cache.layout(graph, engine, options, tenant=tenant)
    assert len(runner.calls) == 5 and len(cache) == 5


def test_the_key_is_the_content_not_the_objects() -> None:
    copy = Graph(tuple(Node(n.id, n.width, n.height) for n in GRAPH.nodes), GRAPH.edges)
    assert copy is not GRAPH
    assert layout_key(copy, "e", LayoutOptions()) == layout_key(GRAPH, "e", LayoutOptions())
    # options given by alias are the same options
    assert layout_key(GRAPH, "e", LayoutOptions.from_mapping({"direction": "TB"})) == \
        layout_key(GRAPH, "e", LayoutOptions())


def test_a_layout_is_returned_as_it_reads_back_from_its_json() -> None:
    result = LayoutCache(Runner()).layout(GRAPH, "hand", LayoutOptions(), tenant="t")
    assert result.node("a").x == 0.333  # 1/3 rounded to 3 decimals, as the JSON holds it
    assert result.diagnostics.seconds == 0.25  # stored with its timings


def test_a_new_cache_on_the_same_store_lays_out_nothing(tmp_path: Path) -> None:
    first_store = SqliteStore(tmp_path / "w.db")
    first = LayoutCache(Runner(), first_store).layout(GRAPH, "hand", LayoutOptions(),
                                                       tenant="t")
    first_store.close()
    runner = Runner()
    again_store = SqliteStore(tmp_path / "w.db")  # as after a restart
    again = LayoutCache(runner, again_store).layout(GRAPH, "hand", LayoutOptions(),
                                                    tenant="t")
    again_store.close()
    assert again == first and runner.calls == []


def test_memory_keeps_the_layouts_used_last() -> None:
    runner = Runner()
    cache = LayoutCache(runner, capacity=2)
    for name in ("a", "b", "a", "c"):  # c pushes out b, the one used longest ago
        cache.layout(_graph(name), "hand", LayoutOptions(), tenant="t")
    assert [first for first, _ in runner.calls] == ["a", "b", "c"]
    cache.layout(_graph("a"), "hand", LayoutOptions(), tenant="t")
    cache.layout(_graph("b"), "hand", LayoutOptions(), tenant="t")
    assert [first for first, _ in runner.calls] == ["a", "b", "c", "b"]
    assert len(cache) == 2


def test_an_unreadable_stored_layout_is_laid_out_again(store: SqliteStore) -> None:
    key = layout_key(GRAPH, "hand", LayoutOptions())
    store.save_layout("t", key, '{"width": "oops"}', at=0.0)
    runner = Runner()
    result = LayoutCache(runner, store).layout(GRAPH, "hand", LayoutOptions(), tenant="t")
    assert len(runner.calls) == 1 and result.node("a").x == 0.333
    assert store.cached_layout("t", key, at=1.0) == result.to_json(timings=True)


def test_a_store_that_cannot_write_still_gives_the_layout(
        store: SqliteStore, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(store, "save_layout", refuse)
    result = LayoutCache(Runner(), store).layout(GRAPH, "hand", LayoutOptions(), tenant="t")
    assert result.node("b").y == 50.0


def test_a_failed_layout_is_not_kept() -> None:
    calls = []

    def slow(graph: Graph, engine: str, options: LayoutOptions) -> LayoutResult:
        calls.append(engine)
        raise LayoutTimeoutError(engine, 1.0)

    cache = LayoutCache(slow)
    for _ in range(2):
        with pytest.raises(LayoutTimeoutError):
            cache.layout(GRAPH, "hand", LayoutOptions(), tenant="t")
    assert calls == ["hand", "hand"] and len(cache) == 0


def test_callers_of_one_key_wait_for_one_layout() -> None:
    started, release = threading.Event(), threading.Event()
    runner = Runner()

    def held(graph: Graph, engine: str, options: LayoutOptions) -> LayoutResult:
        started.set()
        assert release.wait(10)
        return runner(graph, engine, options)

    cache = LayoutCache(held)
    results: list[LayoutResult] = []
    first = threading.Thread(target=lambda: results.append(
        cache.layout(GRAPH, "hand", LayoutOptions(), tenant="t")))
    first.start()
    assert started.wait(10)
    second = threading.Thread(target=lambda: results.append(
        cache.layout(GRAPH, "hand", LayoutOptions(), tenant="t")))
    second.start()
    second.join(0.2)
    assert second.is_alive()  # waiting for the first caller's layout, not running its own
    release.set()
    first.join(10)
    second.join(10)
    assert len(runner.calls) == 1 and results[0] is results[1]


def test_the_store_keeps_the_layouts_of_a_tenant_used_last(store: SqliteStore) -> None:
    for at, key in enumerate(("k1", "k2", "k3")):
        store.save_layout("t", key, f"doc-{key}", at=float(at), keep=2)
    store.save_layout("other", "k1", "theirs", at=0.0, keep=2)
    assert store.cached_layout("t", "k1", at=5.0) is None  # the oldest of three went
    assert store.cached_layout("t", "k2", at=5.0) == "doc-k2"
    store.save_layout("t", "k4", "doc-k4", at=6.0, keep=2)  # k2 was used at 5, k3 at 2
    assert store.cached_layout("t", "k3", at=7.0) is None
    assert store.cached_layout("t", "k2", at=7.0) == "doc-k2"
    assert store.cached_layout("other", "k1", at=7.0) == "theirs"  # another tenant's rows stay
