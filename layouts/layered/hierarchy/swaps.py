"""Step 2c of the hierarchical layout, at balanced and best effort on small compound
graphs: the root's order with one adjacent pair of a layer swapped, kept when the whole
drawing crosses less.

A level orders its nodes knowing only its own edges (:mod:`.level`); where two orders
of the root cross as often, the one it keeps may lead an edge out of a compound on one
side and another edge of the same child in on the other, and the child's interior,
ordered to the root's borders (:mod:`.border_order`), then has to cross them. The
sample ``sibling-groups`` draws so: at the root, the dummy of ``a3 -> sink`` right of
``b-outer`` costs the crossing with ``src -> b0`` that on its left it would cost with the
loop-back ``b2 -> a3`` around the left; both cost one, but only on the left does
``a3 -> sink`` leave ``a-outer`` on the side where ``b2 -> a3`` enters it, so ``a3`` can
stand on that side inside ``a-mid`` without a second crossing. Which swap pays is known
only from the drawn levels, so each candidate is laid out whole and measured
(:func:`drawn_crossings`), the first of fewest crossings kept (the chosen order on
ties): at most :data:`SWAP_TRIAL_PAIRS` candidates, graphs of at most
:data:`SWAP_TRIAL_ITEMS` nodes and edges.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from layouts.graph import Graph
from layouts.layered.hierarchy.assemble import Drawing
from layouts.layered.hierarchy.level import Minimised
from layouts.layered.hierarchy.passes import Pass
from layouts.layered.model import Deadline, Routing
from layouts.layered.ordering.drawn_check import drawn_crossings as swept_crossings
from layouts.options import Effort, LayoutOptions

__all__ = ["SWAP_TRIAL_ITEMS", "SWAP_TRIAL_PAIRS", "drawn_crossings", "swapped_orders",
           "try_swaps"]

SWAP_TRIAL_ITEMS = 100
"""Compound graphs of up to this many nodes and edges get the swap trial."""

SWAP_TRIAL_PAIRS = 8
"""At most this many swapped root orders are laid out."""


def drawn_crossings(drawing: Drawing) -> int:
    """The crossings of ``drawing``'s routes, counted by the sweep the flat pipeline's
    drawn checks use (:func:`layouts.layered.ordering.drawn_check.drawn_crossings`, which
    gives :func:`layouts.quality.measure`'s count without measuring everything else).

    >>> from layouts.result import EdgeRoute, NodeBox, Point
    >>> boxes = tuple(NodeBox(n, x, y, 10, 10) for n, x, y in
    ...               (("a", 0, 0), ("b", 40, 0), ("c", 0, 60), ("d", 40, 60)))
    >>> ad = EdgeRoute("ad", "a", "d", (Point(5, 10), Point(5, 30), Point(45, 30),
    ...                                  Point(45, 60)))
    >>> bc = EdgeRoute("bc", "b", "c", (Point(45, 10), Point(45, 20), Point(25, 20),
    ...                                  Point(25, 45), Point(5, 45), Point(5, 60)))
    >>> drawn_crossings(Drawing(boxes, (ad, bc), 50, 70))   # x = 25 crosses y = 30
    1
    """
    return swept_crossings(Routing(drawing.nodes, drawing.edges, drawing.width,
                                   drawing.height, drawing.ports))


def swapped_orders(minimised: Minimised) -> list[Minimised]:
    """``minimised`` with one adjacent pair swapped, layer by layer from the top, pairs
    from the left (at most :data:`SWAP_TRIAL_PAIRS`).

    >>> from layouts.layered.ordering import OrderingResult
    >>> m = Minimised(("a", "b", "c"), OrderingResult(((0,), (1, 2)), crossings=0))
    >>> [o.order.layers for o in swapped_orders(m)]
    [((0,), (2, 1))]
    """
    out: list[Minimised] = []
    layers = minimised.order.layers
    for index, layer in enumerate(layers):
        for k in range(len(layer) - 1):
            if len(out) == SWAP_TRIAL_PAIRS:
                return out
            swapped = (*layer[:k], layer[k + 1], layer[k], *layer[k + 2:])
            order = replace(minimised.order,
                            layers=(*layers[:index], swapped, *layers[index + 1:]))
            out.append(Minimised(minimised.nodes, order))
    return out


Layout = Callable[[Minimised], tuple[Pass, Drawing]]
"""The whole layout with the root in a given order: its pass and drawing."""


def try_swaps(graph: Graph, options: LayoutOptions, chosen: Pass, drawing: Drawing,
              lay_out: Layout, overall: Deadline, started: float) -> tuple[Pass, Drawing]:
    """``chosen`` and its ``drawing``, or the layout of a swapped root order that draws
    fewer crossings (see the module docstring); a trial the time left cannot pay for
    marks the deadline exhausted."""
    root = chosen.laid[None].minimised
    if options.effort is Effort.DRAFT or overall.exhausted or root is None:
        return chosen, drawing
    if sum(1 for _ in graph.all_nodes()) + len(graph.edges) > SWAP_TRIAL_ITEMS:
        return chosen, drawing
    best = drawn_crossings(drawing)
    candidates = swapped_orders(root) if best else []
    if not candidates:
        return chosen, drawing
    if overall.remaining() <= (len(candidates) + 1) * (time.perf_counter() - started):
        overall.exhausted = True   # the budget cut the layout short: the diagnostics say so
        return chosen, drawing
    for order in candidates:
        other, other_drawing = lay_out(order)
        count = drawn_crossings(other_drawing)
        if count < best:
            chosen, drawing, best = other, other_drawing, count
    return chosen, drawing
