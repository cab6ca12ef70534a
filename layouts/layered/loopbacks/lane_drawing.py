"""What the lane trial (:mod:`.lanes`) compares between two drawings, and a lower bound
that settles the comparison before a drawing with more lanes is ordered and placed.

:func:`measure` reads a placement: its width with the corridors routing will add, the
horizontal length of the loop-backs' runs, and that of every edge. :func:`loop_bound` is
a lower bound on the loop-back length of *any* placement with a given set of lanes, from
node widths and spacings alone: a lane's end dummies stand in its nodes' layers, so each
run into a lane is at least a dummy-to-node separation from the node's centre; a corridor
lies beyond every real node, so each run out to one is at least half the node's width and
the corridor margin. When that bound is no shorter than the loop-backs of the drawing in
hand, the lanes cannot make them shorter and the trial would reject them: it is skipped.

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.layered.cycles import run as break_cycles
>>> from layouts.layered.graph import import_graph
>>> from layouts.layered.layering import chains
>>> g = Graph(tuple(Node(n, 60, 30) for n in "abc"),
...           (Edge("ab", "a", "b"), Edge("bc", "b", "c"), Edge("back", "c", "a", loop_back=True)))
>>> proper = chains.run(break_cycles(import_graph(g, LayoutOptions())), (0, 1, 2))

In a corridor each run is at least 60 / 2 + 12 (the corridor margin); in a lane at least
60 / 2 + min(40, max(12, (40 + 12) / 2)) = 56 (dummy-to-node separation):

>>> options = LayoutOptions()
>>> loop_bound(proper, frozenset(), options), loop_bound(proper, frozenset({2}), options)
(84.0, 112.0)
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from layouts.layered.graph import ProperGraph
from layouts.layered.loopbacks.corridors import corridor_lines, plan_corridors
from layouts.layered.model import ChainEdge, Placement
from layouts.layered.ordering import OrderingResult
from layouts.layered.placement import left_edge, with_corridor_sides
from layouts.options import LayoutOptions

__all__ = ["Drawn", "corridor_margin", "loop_bound", "measure", "measure_centres"]


@dataclass(frozen=True, slots=True)
class Drawn:
    """Of a placed drawing: its ``width``, corridors included; the horizontal length of
    its loop-backs (out of the lower node to the corridor or lane, along the lane's
    columns, back into the upper node; the vertical length is the same either way); and
    that of ``every`` edge (node centre to node centre per segment, loop-back runs
    included)."""

    width: float
    loops: float
    every: float


def corridor_margin(options: LayoutOptions) -> float:
    """Between the outermost node and the first corridor, as routing spaces them."""
    return max(options.clearance, options.edge_spacing)


def lane_gap(options: LayoutOptions) -> float:
    """At least this much lies between a node's side and the centre of any other node of
    its layer to either side (:func:`layouts.layered.placement.separation_for`): the gap
    to a dummy, or to a real node of width 0 when that is smaller."""
    return min(options.node_spacing,
               max(options.clearance, (options.node_spacing + options.edge_spacing) / 2))


def measure(proper: ProperGraph, placed: Placement, options: LayoutOptions) -> Drawn:
    """The :class:`Drawn` of ``placed``, the placement of ``proper``."""
    nodes = placed.nodes
    boxes = [(nodes[n.id].layer, nodes[n.id].x, n.width, n.dummy) for n in proper.nodes]
    return _measured(proper, placed.edges, boxes, options)


def measure_centres(proper: ProperGraph, order: OrderingResult, centre: Sequence[float],
                    options: LayoutOptions) -> Drawn:
    """:func:`measure` of the placement :func:`layouts.layered.placement.placed` would
    build of ``proper`` at ``centre`` (:func:`layouts.layered.placement.centres`), the
    same numbers to the last bit, without building it: the lane trial places two
    drawings and keeps one.

    >>> from layouts.graph import Edge, Graph, Node
    >>> from layouts.layered import ordering, placement
    >>> from layouts.layered.cycles import run as break_cycles
    >>> from layouts.layered.graph import import_graph
    >>> from layouts.layered.layering import chains
    >>> g = Graph(tuple(Node(n, 60, 30) for n in "abc"), (Edge("ab", "a", "b"),
    ...           Edge("bc", "b", "c"), Edge("back", "c", "a", loop_back=True)))
    >>> proper = chains.run(break_cycles(import_graph(g, LayoutOptions())), (0, 1, 2))
    >>> order = ordering.run(proper, LayoutOptions())
    >>> centre = placement.centres(proper, order, LayoutOptions())
    >>> measure_centres(proper, order, centre, LayoutOptions()) == measure(
    ...     proper, placement.placed(proper, order, LayoutOptions(), centre), LayoutOptions())
    True
    """
    left = left_edge(proper, order.layers, centre)
    boxes = [(0, 0.0, 0.0, False)] * len(proper.nodes)
    for rank, layer in enumerate(order.layers):
        for v in layer:
            n = proper.nodes[v]
            boxes[v] = (rank, centre[v] - n.width / 2 - left, n.width, n.dummy)
    return _measured(proper, with_corridor_sides(proper, order), boxes, options)


def _measured(proper: ProperGraph, edges: Sequence[ChainEdge],
              boxes: Sequence[tuple[int, float, float, bool]], options: LayoutOptions
              ) -> Drawn:
    """:func:`measure` from ``(layer, x, width, dummy)`` per node index."""
    if not boxes:
        raise ValueError("a drawing without nodes has nothing to measure")
    index = proper.index
    low = min(x for _, x, _, _ in boxes)
    high = max(x + width for _, x, width, _ in boxes)
    real = [box for box in boxes if not box[3]] or list(boxes)
    extent = (min(x for _, x, _, _ in real), max(x + width for _, x, width, _ in real))
    corridors = plan_corridors(edges, extent, lambda n: boxes[index[n]][:3])
    lines = corridor_lines(corridors, (low, high), corridor_margin(options),
                           options.edge_spacing)
    centre = [x + width / 2 for _, x, width, _ in boxes]
    every = sum(abs(centre[a] - centre[b]) for a, b in proper.segments)
    loops = 0.0
    for i, edge in enumerate(edges):
        if not edge.reversed or edge.upper == edge.lower:
            continue
        lower, upper = centre[index[edge.lower]], centre[index[edge.upper]]
        if edge.lane:
            columns = [centre[index[d]] for d in edge.chain]
            runs = abs(columns[-1] - lower) + abs(columns[0] - upper)
            loops += runs + sum(abs(b - a) for a, b in itertools.pairwise(columns))
        else:
            runs = abs(lines[i] - lower) + abs(lines[i] - upper)
            loops += runs
        every += runs
    width = max([high, *lines.values()]) - min([low, *lines.values()])
    return Drawn(width, loops, every)


def loop_bound(proper: ProperGraph, lanes: frozenset[int], options: LayoutOptions) -> float:
    """A lower bound on :attr:`Drawn.loops` of every placement of ``proper``'s graph
    with lanes for the chain edges at the positions ``lanes`` (and corridors for the
    other reversed edges): see the module docstring."""
    margin, gap = corridor_margin(options), lane_gap(options)
    bound = 0.0
    for i, edge in enumerate(proper.chain_edges):
        if not edge.reversed or edge.upper == edge.lower:
            continue
        halves = (proper.nodes[proper.index[edge.lower]].width
                  + proper.nodes[proper.index[edge.upper]].width) / 2
        bound += halves + 2 * (gap if i in lanes or edge.lane else margin)
    return bound


