from dataclasses import dataclass

import pytest

from layouts import registry
from layouts.api import engines, layout
from layouts.errors import ProviderUnavailableError, UnknownEngineError
from layouts.graph import Edge, Graph, Node
from layouts.options import LayoutOptions
from layouts.registry import Availability
from layouts.result import Diagnostics, LayoutResult, NodeBox

GRAPH = Graph((Node("a", 10, 10), Node("b", 10, 10)), (Edge("e", "a", "b"),))


@dataclass
class _Unavailable:
    name: str = "test-unavailable"

    def availability(self) -> Availability:
        return Availability(False, "frobnicator not found; pip install frobnicator")

    def layout(self, graph: Graph, options: LayoutOptions) -> LayoutResult:
        raise AssertionError("must not be called")


@dataclass
class _Recording:
    name: str = "test-recording"
    seen: LayoutOptions | None = None

    def availability(self) -> Availability:
        return Availability(True)

    def layout(self, graph: Graph, options: LayoutOptions) -> LayoutResult:
        self.seen = options
        boxes = tuple(NodeBox(n.id, 0, 20 * i, n.width, n.height) for i, n in
                      enumerate(graph.nodes))
        return LayoutResult(boxes, (), 10, 30, Diagnostics(self.name, options.effort.value,
                                                           options.direction.value))


@pytest.fixture
def temporary_providers() -> object:
    recording = _Recording()
    registry.register("test-unavailable", _Unavailable)
    registry.register("test-recording", lambda: recording)
    yield recording
    for name in ("test-unavailable", "test-recording"):
        registry.unregister(name)


def test_unknown_engine_lists_known_ones() -> None:
    with pytest.raises(UnknownEngineError, match=r"'nope'.*graphviz"):
        layout(GRAPH, engine="nope")


def test_unavailable_provider_fails_closed(temporary_providers: object) -> None:
    with pytest.raises(ProviderUnavailableError) as info:
        layout(GRAPH, engine="test-unavailable")
    assert "frobnicator not found" in str(info.value)
    assert "pip install frobnicator" in str(info.value)


def test_options_reach_the_provider(temporary_providers: _Recording) -> None:
    layout(GRAPH, engine="test-recording", direction="LR", nodeSpacing=17)
    assert temporary_providers.seen is not None
    assert temporary_providers.seen.direction.value == "LeftToRight"
    assert temporary_providers.seen.node_spacing == 17


def test_engines_reports_registered_providers(temporary_providers: object) -> None:
    rows = {row.name: row for row in engines()}
    assert rows["test-unavailable"].available is False
    assert "frobnicator" in rows["test-unavailable"].reason
    assert rows["test-recording"].available is True
    assert list(rows)[:4] == ["layered", "graphviz", "elkjs", "grandalf"]


def test_entry_point_providers_are_found(monkeypatch: pytest.MonkeyPatch) -> None:
    class _EntryPoint:
        name = "test-entry"
        value = "tests_entry_provider:Provider"

    monkeypatch.setattr(registry, "entry_points", lambda group: [_EntryPoint()]
                        if group == registry.ENTRY_POINT_GROUP else [])
    assert "test-entry" in registry.provider_names()
    with pytest.raises(ModuleNotFoundError, match="tests_entry_provider"):
        registry.get_provider("test-entry")
