"""The ``layered`` provider: our pure-Python Sugiyama engine behind the
:class:`layouts.registry.LayoutProvider` protocol. It needs nothing beyond the package's own
dependencies, so it is always available.

>>> from layouts.graph import Edge, Graph, Node
>>> provider = LayeredProvider()
>>> provider.availability().available
True
>>> g = Graph((Node("a", 80, 40), Node("b", 80, 40)), (Edge("e", "a", "b"),))
>>> provider.layout(g, LayoutOptions()).diagnostics.engine
'layered'
"""

from __future__ import annotations

import time
from dataclasses import replace

from layouts.collapse import collapse
from layouts.graph import Graph, GraphFeature
from layouts.layered.collector import paused
from layouts.layered.hierarchy import run_hierarchy
from layouts.layered.layering.moves import crossing_routes
from layouts.layered.pipeline import ENGINE_NAME, layer_moves_apply, run_layout
from layouts.layered.port_fit import fit_ports
from layouts.layered.port_sides import choose_free_sides
from layouts.layered.portmap import mirror_ports
from layouts.mirror import base_direction, mirror_result
from layouts.options import LayoutOptions
from layouts.registry import Availability, require_features
from layouts.result import LayoutResult


class LayeredProvider:
    """Layered layout (cycle breaking, network simplex, crossing minimisation,
    Brandes-Koepf, boundary-slot orthogonal routing); see :mod:`layouts.layered.pipeline`."""

    name = ENGINE_NAME
    features = frozenset({GraphFeature.COMPOUND, GraphFeature.PORTS})
    rank_groups_limit = ("this engine draws no edge inside a layer, nor reverses edges for "
                         "a rank: members joined by an edge or path, a min/source member "
                         "with a predecessor and a max/sink one with a successor keep "
                         "their own layer")

    def availability(self) -> Availability:
        """Always available: pure Python."""
        return Availability(True)

    def layout(self, graph: Graph, options: LayoutOptions) -> LayoutResult:
        """Validate ``graph`` (typed :class:`InvalidGraphError` on bad input) and lay it
        out; the caller's graph is never changed. Compound nodes are laid out
        hierarchically (:mod:`layouts.layered.hierarchy`), collapsed ones as one node
        (:mod:`layouts.collapse`); ports on nodes and on compound nodes' borders are laid
        out as :mod:`layouts.layered.portmap` says. BottomToTop and RightToLeft are
        mirror images of TopToBottom and LeftToRight (:mod:`layouts.mirror`), their ports
        reflected before the layout (:func:`mirror_ports`). A node whose ports would
        overlap is grown first, with a warning (:mod:`layouts.layered.port_fit`); free
        ports take the face of fewest crossings (:mod:`layouts.layered.port_sides`), and
        then a flat graph's layering is searched for fewer crossings
        (:mod:`layouts.layered.layering.moves`). The cyclic garbage collector is paused
        meanwhile (:mod:`layouts.layered.collector`)."""
        graph.validate()
        graph = collapse(graph)
        require_features(graph, self.name, self)
        return self.layout_validated(graph, options)

    def layout_validated(self, graph: Graph, options: LayoutOptions) -> LayoutResult:
        """:meth:`layout` of a graph already validated and collapsed, with features this
        engine has (as :func:`layouts.api.layout` hands it over, so a layout validates
        its graph once)."""
        with paused():
            return self._layout(graph, options)

    def _layout(self, graph: Graph, options: LayoutOptions) -> LayoutResult:
        features = graph.features()
        base = replace(options, direction=base_direction(options.direction))
        compound = GraphFeature.COMPOUND in features
        engine = run_hierarchy if compound else run_layout
        started = time.perf_counter()

        def lay_out(chosen: Graph, layer_moves: int = 0) -> LayoutResult:
            fitted, grown = fit_ports(chosen, options.direction)
            mirrored = mirror_ports(fitted, options.direction)
            drawn = run_layout(mirrored, left(), layer_moves=layer_moves) if layer_moves \
                else engine(mirrored, base)
            return _warned(mirror_result(drawn, options.direction), grown)

        def left() -> LayoutOptions:
            """``base`` with the time the trials before the search left of the budget:
            the search's layout comes after them, inside the caller's budget."""
            spent = time.perf_counter() - started
            return replace(base, time_budget=max(MIN_BUDGET, options.time_budget - spent))

        def refine(chosen: Graph, layouts: int, kept: LayoutResult | None) -> LayoutResult | None:
            """The layout with the layer moves search after ``layouts`` layouts, when it
            may search a layering (of a component that crosses in the layout ``kept``)."""
            crossing = None if kept is None else \
                frozenset(kept.edges[i].id for i in crossing_routes(kept.edges))
            return lay_out(chosen, layer_moves=layouts) \
                if layer_moves_apply(chosen, base, crossing) else None

        if GraphFeature.PORTS not in features:   # no port to fit, mirror or put on a side
            return mirror_result(engine(graph, base), options.direction)
        # the layer moves search runs once, on the free port sides the trials kept
        return choose_free_sides(graph, options, lay_out, None if compound else refine)


MIN_BUDGET = 0.001
"""The least time budget :class:`LayoutOptions` takes: the search's layout when the
trials left no time (a staircase layout, flagged budget-exhausted, kept only if it
crosses less)."""


def _warned(result: LayoutResult, warnings: tuple[str, ...]) -> LayoutResult:
    """``result`` with ``warnings`` added to its diagnostics' warnings."""
    if not warnings:
        return result
    diagnostics = result.diagnostics
    return replace(result, diagnostics=replace(diagnostics,
                                               warnings=diagnostics.warnings + warnings))
