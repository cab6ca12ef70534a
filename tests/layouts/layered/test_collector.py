"""The garbage collector's pause around a layered layout: off during the layout, back on
after it (also after an error), left off when it was off, and one pause shared by
overlapping layouts."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from layouts.api import layout
from layouts.errors import InvalidGraphError
from layouts.graph import Edge, Graph, Node
from layouts.layered import pipeline, provider
from layouts.layered.collector import paused
from layouts.options import LayoutOptions
from layouts.result import LayoutResult

GRAPH = Graph((Node("a", 80, 40), Node("b", 80, 40)), (Edge("e", "a", "b"),))


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    """Every test starts and ends with the collector enabled."""
    gc.enable()
    yield
    gc.enable()


def test_the_collector_is_off_during_a_layout_and_on_after_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []

    def spy(graph: Graph, options: LayoutOptions) -> LayoutResult:
        seen.append(gc.isenabled())
        return pipeline.run_layout(graph, options)

    monkeypatch.setattr(provider, "run_layout", spy)
    layout(GRAPH, engine="layered")
    assert seen == [False]
    assert gc.isenabled()


def test_the_collector_is_on_again_after_a_layout_that_raises() -> None:
    bad = Graph((Node("a", 80, 40),), (Edge("e", "a", "missing"),))
    with pytest.raises(InvalidGraphError):
        layout(bad, engine="layered")
    with pytest.raises(InvalidGraphError):
        provider.LayeredProvider().layout(bad, LayoutOptions())
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    layout(GRAPH, engine="layered")
    assert not gc.isenabled()


def test_nested_pauses_enable_the_collector_only_when_the_outermost_ends() -> None:
    with paused():
        with paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_overlapping_layouts_in_threads_share_one_pause() -> None:
    inside = threading.Barrier(2)
    leave = threading.Event()
    states: list[bool] = []

    def first() -> None:
        with paused():
            inside.wait()
            leave.wait()

    thread = threading.Thread(target=first)
    thread.start()
    with paused():
        inside.wait()
    states.append(gc.isenabled())      # the other thread's layout is still running
    leave.set()
    thread.join()
    states.append(gc.isenabled())
    assert states == [False, True]
