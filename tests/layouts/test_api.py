"""The layout entry point: one validation per layout, and no check dropped."""

from __future__ import annotations

import pytest

from layouts.api import layout
from layouts.errors import InvalidGraphError
from layouts.graph import Edge, Graph, Label, Node
from layouts.layered.provider import LayeredProvider
from layouts.options import LayoutOptions


def _graph(*extra: Label) -> Graph:
    return Graph((Node("a", 80, 40), Node("b", 80, 40)),
                 (Edge("e", "a", "b", "x", label_width=20, label_height=10,
                       extra_labels=extra),))


def _count_validations(monkeypatch: pytest.MonkeyPatch) -> list[Graph]:
    seen: list[Graph] = []
    original = Graph.validate

    def counting(self: Graph) -> None:
        seen.append(self)
        original(self)

    monkeypatch.setattr(Graph, "validate", counting)
    return seen


def test_a_layered_layout_validates_its_graph_once(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _count_validations(monkeypatch)
    layout(_graph(), engine="layered")
    assert len(seen) == 1      # the entry point's; the provider does not check again


def test_stacked_labels_are_validated_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # the stacked block is a new graph (one label box as tall as both), checked as such
    seen = _count_validations(monkeypatch)
    layout(_graph(Label("y", 30, 12)), engine="layered")
    assert len(seen) == 2
    assert seen[1].edges[0].label_height == 10 + 12


def test_the_provider_called_directly_still_validates() -> None:
    bad = Graph((Node("a", 80, 40),), (Edge("e", "a", "missing"),))
    with pytest.raises(InvalidGraphError, match="missing"):
        LayeredProvider().layout(bad, LayoutOptions())
    with pytest.raises(InvalidGraphError, match="missing"):
        layout(bad, engine="layered")
