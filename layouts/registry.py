"""Providers behind one narrow protocol, found through a registry.

Built-in providers are registered here by import path, so importing the registry never
imports an optional dependency. Third-party packages add providers through the
entry-point group ``workflow_renderer.layouts``; the entry point names a provider class
or a zero-argument factory.

>>> "graphviz" in provider_names()
True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Protocol, runtime_checkable

from layouts.errors import ProviderUnavailableError, UnknownEngineError, UnsupportedFeatureError
from layouts.graph import Graph, GraphFeature
from layouts.options import LayoutOptions
from layouts.result import LayoutResult

ENTRY_POINT_GROUP = "workflow_renderer.layouts"
DEFAULT_ENGINE = "layered"


@dataclass(frozen=True, slots=True)
class Availability:
    """Whether a provider can run here. When it cannot, ``reason`` is
    ``"<what is missing>; <how to install it>"``, e.g.
    ``"Graphviz (dot) not found; apt-get install graphviz libgraphviz-dev"``."""

    available: bool
    reason: str = ""

    def require(self, engine: str) -> None:
        """Raise :class:`ProviderUnavailableError` for ``engine`` unless available.

        >>> Availability(True).require("demo")
        >>> Availability(False, "dot not found; apt-get install graphviz").require("demo")
        Traceback (most recent call last):
        ...
        layouts.errors.ProviderUnavailableError: layout engine 'demo' is unavailable: \
dot not found (apt-get install graphviz)
        """
        if not self.available:
            missing, _, hint = self.reason.partition(";")
            raise ProviderUnavailableError(engine, missing.strip(), hint.strip() or "see README")


@runtime_checkable
class LayoutProvider(Protocol):
    """The one protocol every layout engine implements.

    ``layout`` receives a validated graph and options, must not mutate the graph, must
    raise :class:`layouts.errors.ProviderUnavailableError` when its dependency is
    missing (never fall back to another engine), and must respect
    ``options.time_budget``: return the best layout so far with
    ``diagnostics.budget_exhausted`` set, or raise :class:`LayoutTimeoutError`.
    """

    name: str

    def availability(self) -> Availability: ...

    def layout(self, graph: Graph, options: LayoutOptions) -> LayoutResult: ...


ProviderFactory = Callable[[], LayoutProvider]

BUILTIN_PROVIDERS: dict[str, str] = {
    "layered": "layouts.layered.provider:LayeredProvider",
    "graphviz": "layouts.providers.graphviz:GraphvizProvider",
    "elkjs": "layouts.providers.elkjs:ElkjsProvider",
    "grandalf": "layouts.providers.grandalf:GrandalfProvider",
}

_registered: dict[str, ProviderFactory] = {}
_instances: dict[str, LayoutProvider] = {}


def register(name: str, factory: ProviderFactory) -> None:
    """Register a provider factory under ``name`` (replacing any earlier one)."""
    _registered[name] = factory
    _instances.pop(name, None)


def unregister(name: str) -> None:
    """Forget a provider added with :func:`register` (and its cached instance).

    >>> register("demo-engine", lambda: get_provider("grandalf"))
    >>> unregister("demo-engine")
    >>> "demo-engine" in provider_names()
    False
    """
    _registered.pop(name, None)
    _instances.pop(name, None)


def runtime_registrations() -> dict[str, ProviderFactory]:
    """The factories added with :func:`register`, by name (not built-ins or entry points).

    Worker processes re-register these so they see the same engines as their caller.
    """
    return dict(_registered)


def _load_path(path: str) -> ProviderFactory:
    module_name, _, attribute = path.partition(":")
    module = importlib.import_module(module_name)
    factory: ProviderFactory = getattr(module, attribute)
    return factory


def _entry_point_factories() -> dict[str, str]:
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def provider_names() -> list[str]:
    """Every known engine name: built-ins first (in a fixed order), then the rest sorted."""
    names = list(BUILTIN_PROVIDERS)
    extra = set(_registered) | set(_entry_point_factories())
    names.extend(sorted(extra - set(names)))
    return names


def get_provider(name: str) -> LayoutProvider:
    """The provider registered under ``name``; :class:`UnknownEngineError` if none is."""
    if name in _instances:
        return _instances[name]
    factory: ProviderFactory | None = _registered.get(name)
    if factory is None:
        path = BUILTIN_PROVIDERS.get(name) or _entry_point_factories().get(name)
        if path is None:
            raise UnknownEngineError(
                f"unknown layout engine {name!r}; known engines: {', '.join(provider_names())}"
            )
        factory = _load_path(path)
    provider = factory()
    _instances[name] = provider
    return provider


def provider_features(provider: LayoutProvider) -> frozenset[GraphFeature]:
    """The graph features a provider lays out, from its optional ``features`` attribute
    (a provider without one supports flat graphs only).

    >>> sorted(provider_features(get_provider("grandalf")))
    []
    """
    declared: frozenset[str] = getattr(provider, "features", frozenset())
    return frozenset(GraphFeature(f) for f in declared)


def require_features(graph: Graph, engine: str, provider: LayoutProvider) -> None:
    """Raise :class:`UnsupportedFeatureError` (an invalid-graph error: HTTP 422, exit code
    2) when ``graph`` uses a feature ``provider`` lacks, naming the engines that have it.

    >>> from layouts.graph import Node
    >>> flat = Graph((Node("a", 9, 9),))
    >>> require_features(flat, "grandalf", get_provider("grandalf"))
    >>> nested = Graph((Node("g", 9, 9, children=(Node("a", 9, 9),)),))
    >>> require_features(nested, "grandalf", get_provider("grandalf"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    layouts.errors.UnsupportedFeatureError: layout engine 'grandalf' does not support \
compound nodes (children) yet; ...
    """
    missing = sorted(graph.features() - provider_features(provider))
    if not missing:
        return
    feature = missing[0]
    supported = tuple(name for name in provider_names() if name != engine
                      and feature in _features_of(name))
    raise UnsupportedFeatureError(FEATURE_NAMES[feature], engine, supported)


FEATURE_NAMES: dict[GraphFeature, str] = {
    GraphFeature.PORTS: "ports",
    GraphFeature.COMPOUND: "compound nodes (children)",
}


def _features_of(name: str) -> frozenset[GraphFeature]:
    try:
        return provider_features(get_provider(name))
    except Exception:  # a broken third-party provider supports nothing here
        return frozenset()
