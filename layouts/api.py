"""The one entry point: ``layout(graph, engine=..., direction=..., ...)``.

>>> from layouts.graph import Graph, Node, Edge
>>> g = Graph((Node("a", 80, 40), Node("b", 80, 40)), (Edge("e", "a", "b"),))
>>> result = layout(g, engine="grandalf", direction="TB")
>>> result.node("a").y < result.node("b").y
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from layouts.collapse import collapse
from layouts.elk_options import unhonoured
from layouts.graph import Graph
from layouts.label_stack import stacked, unstacked
from layouts.options import LayoutOptions
from layouts.rank_check import rank_group_warnings
from layouts.registry import (
    DEFAULT_ENGINE,
    Availability,
    LayoutProvider,
    get_provider,
    provider_names,
    require_features,
)
from layouts.result import LayoutResult


def layout(
    graph: Graph,
    *,
    engine: str = DEFAULT_ENGINE,
    options: LayoutOptions | None = None,
    **option_values: object,
) -> LayoutResult:
    """Lay out ``graph`` with the named engine.

    Options come from ``options`` updated by ``option_values`` (any name or alias of
    :data:`layouts.options.OPTION_TABLE`). Raises :class:`InvalidGraphError`,
    :class:`InvalidOptionError`, :class:`UnknownEngineError`,
    :class:`ProviderUnavailableError` or :class:`LayoutTimeoutError`; never falls back
    to another engine. A graph with ports or compound nodes given to an engine that lacks
    them is an :class:`UnsupportedFeatureError` naming the engines that have them.
    Collapsed compound nodes are drawn as one node each (:mod:`layouts.collapse`), by
    every engine. An edge's several labels are stacked for engines that place one label
    box per edge (:mod:`layouts.label_stack`). The caller's graph is never changed.
    """
    graph.validate()
    graph = collapse(graph)
    base = options or LayoutOptions()
    resolved = base.with_changes(**option_values) if option_values else base
    provider = get_provider(engine)
    require_features(graph, engine, provider)
    provider.availability().require(engine)
    if getattr(provider, "places_every_label", False):
        result = _validated_layout(provider, graph, graph, resolved)
    else:
        blocks = stacked(graph)
        result = unstacked(graph, _validated_layout(provider, graph, blocks, resolved))
    return with_option_warnings(graph, engine, provider, result)


def _validated_layout(provider: LayoutProvider, checked: Graph, graph: Graph,
                      options: LayoutOptions) -> LayoutResult:
    """``provider.layout(graph, options)``; through the provider's
    ``layout_validated`` when it has one and ``graph`` is ``checked``, the graph this
    call validated and collapsed already (so a layout validates its graph once; a
    graph changed since, such as stacked labels, is validated again)."""
    validated = getattr(provider, "layout_validated", None)
    if validated is not None and graph is checked:
        result: LayoutResult = validated(graph, options)
        return result
    return provider.layout(graph, options)


def with_option_warnings(graph: Graph, engine: str, provider: LayoutProvider,
                         result: LayoutResult) -> LayoutResult:
    """``result`` with a warning for each engine option of ``graph`` (ELK's
    ``layoutOptions``) the provider cannot honour, unless it reads them itself
    (``reads_elk_options``, as elkjs does), and for each rank group the drawing does not
    keep (:mod:`layouts.rank_check`)."""
    lines = rank_group_warnings(graph, result, getattr(provider, "rank_groups_limit", ""))
    if not getattr(provider, "reads_elk_options", False):
        lines = (*unhonoured(graph, engine), *lines)
    if not lines:
        return result
    diagnostics = replace(result.diagnostics, warnings=result.diagnostics.warnings + lines)
    return replace(result, diagnostics=diagnostics, _index={})


@dataclass(frozen=True, slots=True)
class EngineInfo:
    """One row of :func:`engines`."""

    name: str
    available: bool
    reason: str


def engines() -> list[EngineInfo]:
    """Every registered engine, available or not and why."""
    rows = []
    for name in provider_names():
        try:
            status = get_provider(name).availability()
        except Exception as exc:  # a broken third-party provider is reported, not raised
            status = Availability(False, f"cannot load provider: {exc}")
        rows.append(EngineInfo(name, status.available, status.reason))
    return rows
