"""Phase 4, node placement: x by Brandes-Koepf (:mod:`.brandes_koepf`, with the alignment
priority of :mod:`.priority`: the main chains first), gateways centred over their
branches where that costs no bend, and y by layer.

Pre-condition: a :class:`ProperGraph` and an ordering of its layers.
Post-condition: a :class:`Placement` (the routing hand-off). Neighbours of one layer are
at least ``node_spacing`` apart (two dummies: ``edge_spacing``; a dummy beside a node:
``max(clearance, (node_spacing + edge_spacing) / 2)``); each layer's top is the previous
layer's bottom plus ``layer_spacing``, and every node of a layer is centred on the layer's
horizontal axis. The drawing's left-most box starts at x = 0, the first layer at y = 0.

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.layered.graph import import_graph
>>> from layouts.layered.layering import chains
>>> from layouts.layered import ordering
>>> from layouts.options import LayoutOptions
>>> g = Graph((Node("a", 100, 40), Node("b", 60, 20)), (Edge("e", "a", "b"),))
>>> proper = chains.run(import_graph(g, LayoutOptions()), (0, 1))
>>> p = run(proper, ordering.run(proper, LayoutOptions()), LayoutOptions())
>>> b = p.nodes["b"]
>>> (b.x, b.y)   # centred under a: x = 50 - 60/2; y = 40 + 60 (spacing) + 0
(20.0, 100.0)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace

from layouts.graph import Shape
from layouts.layered.graph import ProperGraph
from layouts.layered.label_room import label_room
from layouts.layered.model import ChainEdge, PlacedNode, Placement
from layouts.layered.ordering import OrderingResult
from layouts.layered.placement import chain_ends
from layouts.layered.placement.brandes_koepf import Separation, alignments, balance
from layouts.layered.placement.ports import Ports, port_offsets
from layouts.options import LayoutOptions
from layouts.result import Side

__all__ = ["centres", "layer_tops", "left_edge", "placed", "run", "separation_for",
           "with_corridor_sides"]


def separation_for(graph: ProperGraph, options: LayoutOptions) -> Separation:
    """Centre distance between two neighbours of a layer, from sizes and spacings.

    >>> from layouts.layered.graph import EngineNode
    >>> g = ProperGraph((EngineNode("a", 100, 9), EngineNode("~d0", 0, 0, dummy=True)),
    ...                 (0, 0), 1, (), (), (0, 1))
    >>> separation_for(g, LayoutOptions())(0, 1)   # 100/2 + 0/2 + max(12, (40+12)/2)
    76.0
    """
    nodes = graph.nodes
    mixed = max(options.clearance, (options.node_spacing + options.edge_spacing) / 2)
    room = label_room(graph, options.edge_spacing)   # labels keep their width free

    def separation(left: int, right: int) -> float:
        a, b = nodes[left], nodes[right]
        if a.dummy and b.dummy:
            gap = options.edge_spacing
        elif a.dummy or b.dummy:
            gap = mixed
        else:
            gap = options.node_spacing
        least = (a.width + b.width) / 2 + gap
        return max(least, room[left] + b.width / 2) if left in room else least

    return separation


def layer_tops(graph: ProperGraph, layers: Sequence[Sequence[int]],
               layer_spacing: float) -> list[tuple[float, float]]:
    """``(top, height)`` per layer: height is the tallest node, tops stacked with spacing.

    >>> from layouts.layered.graph import EngineNode
    >>> g = ProperGraph((EngineNode("a", 9, 40), EngineNode("b", 9, 30)), (0, 1), 2, (), (), (0, 0))
    >>> layer_tops(g, [[0], [1]], 60)
    [(0.0, 40), (100.0, 30)]
    """
    tops: list[tuple[float, float]] = []
    top = 0.0
    for layer in layers:
        height = max((graph.nodes[v].height for v in layer), default=0.0)
        tops.append((top, height))
        top += height + layer_spacing
    return tops


def run(graph: ProperGraph, ordering: OrderingResult, options: LayoutOptions, *,
        quick: bool = False, offsets: Ports | None = None) -> Placement:
    """Place every node; see the module docstring. ``quick`` (when the time budget is
    short) packs each layer from the left instead of running Brandes-Koepf: the same
    post-condition, in linear time, with more bends. ``offsets``: where segments end on
    their nodes, when known better than :func:`.ports.port_offsets` (:mod:`.port_pass`)."""
    return placed(graph, ordering, options,
                  centres(graph, ordering, options, quick=quick, offsets=offsets))


def centres(graph: ProperGraph, ordering: OrderingResult, options: LayoutOptions, *,
            quick: bool = False, offsets: Ports | None = None) -> list[float]:
    """The centre x of every node (by index) that :func:`run` places it at, before the
    drawing is moved to start at x = 0: for callers that compare placements and keep
    one (:mod:`layouts.layered.loopbacks.lanes`), :func:`placed` builds the one kept."""
    node_count = len(graph.nodes)
    up: list[list[int]] = [[] for _ in range(node_count)]
    down: list[list[int]] = [[] for _ in range(node_count)]
    for a, b in graph.segments:
        down[a].append(b)
        up[b].append(a)
    separation = separation_for(graph, options)
    if quick:
        return _packed(graph, ordering.layers, separation)
    ports = offsets or port_offsets(graph, ordering.layers, ordering.corridor_sides)
    candidates = alignments(ordering.layers, up, down, separation,
                            [n.dummy for n in graph.nodes], [n.width for n in graph.nodes],
                            ports)
    centre = _straightest(graph, ordering.layers, candidates, separation, ports) \
        if candidates else []
    _centre_gateways(graph, ordering.layers, up, down, centre, separation, ports)
    _centre_joins(graph, ordering.layers, up, down, centre, separation, ports)
    chain_ends.straighten(graph, ordering.layers, centre, separation, ports, options.clearance)
    return centre


def left_edge(graph: ProperGraph, layers: Sequence[Sequence[int]],
              centre: Sequence[float]) -> float:
    """The left-most box side at ``centre`` (:func:`centres`), which :func:`placed`
    moves to x = 0."""
    return min((centre[v] - graph.nodes[v].width / 2 for layer in layers for v in layer),
               default=0.0)


def placed(graph: ProperGraph, ordering: OrderingResult, options: LayoutOptions,
           centre: Sequence[float]) -> Placement:
    """The :class:`Placement` of the nodes at ``centre`` (:func:`centres`)."""
    left = left_edge(graph, ordering.layers, centre)
    tops = layer_tops(graph, ordering.layers, options.layer_spacing)
    nodes = graph.nodes
    placed: list[PlacedNode | None] = [None] * len(nodes)   # by index: the nodes' order
    for rank, layer in enumerate(ordering.layers):
        top, height = tops[rank]
        for order, v in enumerate(layer):
            n = nodes[v]
            placed[v] = PlacedNode(n.id, rank, order, centre[v] - n.width / 2 - left,
                                   top + (height - n.height) / 2, n.width, n.height,
                                   n.shape, n.dummy)
    return Placement(
        nodes={p.id: p for p in placed if p is not None},
        layers=tuple(tuple(graph.nodes[v].id for v in layer) for layer in ordering.layers),
        edges=with_corridor_sides(graph, ordering),
        node_spacing=options.node_spacing,
        layer_spacing=options.layer_spacing,
    )


def _packed(graph: ProperGraph, layers: Sequence[Sequence[int]],
            separation: Separation) -> list[float]:
    """Centre x per node with every layer packed from x = 0 at its neighbours' spacing.

    >>> from layouts.layered.graph import EngineNode
    >>> g = ProperGraph((EngineNode("a", 100, 9), EngineNode("b", 60, 9)), (0, 0), 1, (), (),
    ...                 (0, 0))
    >>> _packed(g, [[0, 1]], lambda a, b: 120.0)
    [50.0, 170.0]
    """
    centre = [0.0] * len(graph.nodes)
    for layer in layers:
        previous = -1
        for v in layer:
            centre[v] = graph.nodes[v].width / 2 if previous == -1 else \
                centre[previous] + separation(previous, v)
            previous = v
    return centre


def bend_score(graph: ProperGraph, centre: Sequence[float],
               ports: Ports | None = None) -> tuple[float, float]:
    """``(bends, width)`` of a candidate: segments that are not vertical between their
    ports, an inner (dummy-to-dummy) one counting double and the branches of a gateway
    not at all (a gateway may sit centred over its branches); then the drawing's width.

    >>> from layouts.layered.graph import EngineNode
    >>> g = ProperGraph((EngineNode("a", 10, 9), EngineNode("b", 10, 9)), (0, 1), 2,
    ...                 ((0, 1),), (), (0, 0))
    >>> bend_score(g, [5.0, 5.0]), bend_score(g, [5.0, 9.0])
    ((0, 10.0), (1, 14.0))
    """
    return _bend_scorer(graph, ports)(centre)


def _bend_scorer(graph: ProperGraph, ports: Ports | None
                 ) -> Callable[[Sequence[float]], tuple[float, float]]:
    """:func:`bend_score` for one graph and its ports, with what does not depend on the
    candidate (the segments that count, their weights and port offsets) worked out
    once."""
    gateways = _gateways(graph)
    nodes = graph.nodes
    counted = [(a, b, 2 if nodes[a].dummy and nodes[b].dummy else 1,
                0.0 if ports is None else ports.bottom[(a, b)],
                0.0 if ports is None else ports.top[(a, b)])
               for a, b in graph.segments if a not in gateways]
    halves = [n.width / 2 for n in nodes]

    def score(centre: Sequence[float]) -> tuple[float, float]:
        bends = 0
        if ports is None:
            for a, b, weight, _, _ in counted:
                if not abs(centre[a] - centre[b]) <= 0.5:
                    bends += weight
        else:
            for a, b, weight, bottom, top in counted:
                if not abs(centre[a] + bottom - centre[b] - top) <= 0.5:
                    bends += weight
        if not halves:
            return bends, 0.0
        left, right = math.inf, -math.inf
        for c, h in zip(centre, halves, strict=False):
            if c - h < left:
                left = c - h
            if c + h > right:
                right = c + h
        return bends, right - left

    return score


def _straight(a: int, b: int, centre: Sequence[float], ports: Ports | None) -> bool:
    if ports is None:
        return abs(centre[a] - centre[b]) <= 0.5
    return abs(centre[a] + ports.bottom[(a, b)] - centre[b] - ports.top[(a, b)]) <= 0.5


def _gateways(graph: ProperGraph) -> set[int]:
    lower: dict[int, set[int]] = {}
    for a, b in graph.segments:
        if graph.nodes[a].shape is Shape.DIAMOND:
            lower.setdefault(a, set()).add(b)
    return {a for a, targets in lower.items() if len(targets) > 1}


def _straightest(graph: ProperGraph, layers: Sequence[Sequence[int]],
                 candidates: list[list[float]], separation: Separation,
                 ports: Ports) -> list[float]:
    """The balanced coordinates or one of the four alignments, whichever has the fewest
    bends (then the smallest width); the balanced one wins ties."""
    options = [balance(candidates, layers, separation), *candidates]
    score = _bend_scorer(graph, ports)
    scores = [score(c) for c in options]
    return options[min(range(len(options)), key=lambda i: (scores[i], i))]


def with_corridor_sides(graph: ProperGraph, ordering: OrderingResult
                         ) -> tuple[ChainEdge, ...]:
    """Chain edges with the corridor side ordering planned for each reversed edge."""
    if not ordering.corridor_sides:
        return graph.chain_edges
    sides = {-1: Side.LEFT, 1: Side.RIGHT}
    return tuple(replace(e, corridor_side=sides[side]) if side else e
                 for e, side in zip(graph.chain_edges, ordering.corridor_sides, strict=True))


def _centre_gateways(graph: ProperGraph, layers: Sequence[Sequence[int]],
                     up: Sequence[Sequence[int]], down: Sequence[Sequence[int]],
                     centre: list[float], separation: Separation, ports: Ports) -> None:
    """Move a diamond with two or more branches over the middle of its branches when it
    has no straight edge from above (so no bend is added) and its neighbours allow."""
    for layer in layers:
        for i, v in enumerate(layer):
            if graph.nodes[v].shape is not Shape.DIAMOND or len(set(down[v])) < 2:
                continue
            if any(_straight(u, v, centre, ports) for u in up[v]):
                continue
            branches = [centre[w] for w in down[v]]
            target = (min(branches) + max(branches)) / 2
            if i > 0:
                target = max(target, centre[layer[i - 1]] + separation(layer[i - 1], v))
            if i + 1 < len(layer):
                target = min(target, centre[layer[i + 1]] - separation(v, layer[i + 1]))
            if i == 0 or target >= centre[layer[i - 1]] + separation(layer[i - 1], v):
                centre[v] = target


def _centre_joins(graph: ProperGraph, layers: Sequence[Sequence[int]],
                  up: Sequence[Sequence[int]], down: Sequence[Sequence[int]],
                  centre: list[float], separation: Separation, ports: Ports) -> None:
    """Move a diamond with two or more inputs, with the straight chain below it, under
    the middle of its inputs (where a fan joins them at its top tip,
    :mod:`layouts.layered.fans`), when every layer of the chain has room there, no
    other straight segment touches the chain and no fewer inputs run straight into it
    (so no bend is added). The mirror image of :func:`_centre_gateways`; the chain keeps
    its straight segments.

    >>> from layouts.layered.graph import EngineNode
    >>> g = ProperGraph((EngineNode("a", 100, 40), EngineNode("b", 100, 40),
    ...                  EngineNode("j", 80, 40, Shape.DIAMOND)), (0, 0, 1), 2,
    ...                 ((0, 2), (1, 2)), (), (0, 0, 0))
    >>> centre = [50.0, 190.0, 100.0]
    >>> _centre_joins(g, [[0, 1], [2]], [[], [], [0, 1]], [[2], [2], []], centre,
    ...               lambda a, b: 90.0, Ports({(0, 2): 0.0, (1, 2): 0.0},
    ...                                        {(0, 2): 0.0, (1, 2): 0.0}))
    >>> centre[2]      # halfway between 50 and 190
    120.0
    """
    position: dict[int, tuple[int, int]] | None = None    # worked out at the first join
    for layer in layers:
        for v in layer:
            if graph.nodes[v].shape is not Shape.DIAMOND or len(up[v]) < 2:
                continue
            inputs = sorted(set(up[v]))
            if len(inputs) < 2:
                continue
            if position is None:
                position = {w: (rank, i) for rank, row in enumerate(layers)
                            for i, w in enumerate(row)}
            chain = _straight_chain(v, up, down, centre, ports)
            if chain is None:
                continue
            ends = [centre[u] + ports.bottom[(u, v)] - ports.top[(u, v)] for u in inputs]
            delta = (min(ends) + max(ends)) / 2 - centre[v]
            straight_now = sum(abs(x - centre[v]) <= 0.5 for x in ends)
            straight_then = sum(abs(x - centre[v] - delta) <= 0.5 for x in ends)
            if abs(delta) > 0.5 and straight_then >= straight_now and \
                    all(_room(layers, position[m], centre, separation, delta) for m in chain):
                for m in chain:
                    centre[m] += delta


def _straight_chain(v: int, up: Sequence[Sequence[int]], down: Sequence[Sequence[int]],
                    centre: Sequence[float], ports: Ports) -> list[int] | None:
    """``v`` and the nodes below it joined by straight segments, one per layer, each with
    a single input; ``None`` when some other straight segment touches the chain (moving
    it would bend that one)."""
    chain = [v]
    while True:
        node = chain[-1]
        straight = [w for w in set(down[node]) if _straight(node, w, centre, ports)]
        if len(straight) > 1:
            return None
        if not straight:
            return chain
        w = straight[0]
        if len(set(up[w])) > 1:
            return None
        chain.append(w)


def _room(layers: Sequence[Sequence[int]], at: tuple[int, int], centre: Sequence[float],
          separation: Separation, delta: float) -> bool:
    """Whether the node at ``(layer, index)`` may move by ``delta`` within its layer."""
    rank, i = at
    layer = layers[rank]
    v = layer[i]
    moved = centre[v] + delta
    if i > 0 and moved < centre[layer[i - 1]] + separation(layer[i - 1], v) - 1e-9:
        return False
    return not (i + 1 < len(layer) and
                moved > centre[layer[i + 1]] - separation(v, layer[i + 1]) + 1e-9)
