"""Invariant checkers run after named phases of the layered pipeline (ELK-style): each
returns the list of violations, empty when the phase's post-condition holds.

- after cycle breaking: the edges form a DAG, self-loops are set aside, the entry node has
  no incoming edge;
- after layering: every edge points down by at least its minimum length; the entry is on
  rank 0 and every component starts at rank 0;
- after dummy chains: every segment spans exactly one layer;
- after ordering: every layer is a permutation of the nodes of that rank;
- after placement: no two nodes of a layer overlap, neighbours keep their spacing, every
  node is centred on its layer's axis and layers are stacked ``layer_spacing`` apart;
- after routing (on the finished result): no defect of any kind of the one defect model
  (:func:`layouts.layered.contracts.find_defects`: the route contracts, ends on the true
  outline and labels on their own edge).

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.layered.graph import import_graph
>>> from layouts.options import LayoutOptions
>>> g = Graph((Node("a", 9, 9), Node("b", 9, 9)), (Edge("1", "a", "b"), Edge("2", "b", "a")))
>>> after_cycle_breaking(import_graph(g, LayoutOptions()))
['edges are not acyclic: a cycle runs through a, b', "entry node 'a' has incoming edges"]
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from layouts.graph import Graph, RankKind
from layouts.layered.contracts import find_defects
from layouts.layered.cycles.feedback import strongly_connected_components
from layouts.layered.graph import LayeredGraph, ProperGraph
from layouts.layered.layering import components
from layouts.layered.model import Placement
from layouts.layered.ordering import OrderingResult
from layouts.layered.placement import separation_for
from layouts.options import LayoutOptions
from layouts.result import LayoutResult

TOLERANCE = 1e-6


def after_cycle_breaking(graph: LayeredGraph) -> list[str]:
    """Acyclic, self-loops aside, entry without incoming edges."""
    problems: list[str] = []
    arcs = [(e.source, e.target) for e in graph.edges]
    if any(a == b for a, b in arcs):
        problems.append("self-loops remain among the edges")
    component = strongly_connected_components(len(graph.nodes), arcs)
    sizes: dict[int, list[str]] = {}
    for v, c in enumerate(component):
        sizes.setdefault(c, []).append(graph.nodes[v].id)
    cyclic = [ids for ids in sizes.values() if len(ids) > 1]
    if cyclic:
        problems.append(f"edges are not acyclic: a cycle runs through {', '.join(cyclic[0])}")
    if graph.nodes and any(b == graph.entry for a, b in arcs if a != b):
        problems.append(f"entry node '{graph.nodes[graph.entry].id}' has incoming edges")
    return problems


def after_layering(graph: LayeredGraph, rank: Sequence[int]) -> list[str]:
    """Edges point down by their minimum length; components and entries start at 0."""
    problems = [
        f"edge '{e.id}' spans {rank[e.target] - rank[e.source]} < {e.min_length} layers"
        for e in graph.edges if rank[e.target] - rank[e.source] < e.min_length
    ]
    links = [(nodes[0], v) for _, nodes in graph.rank_groups for v in nodes[1:]]
    if any(kind is not RankKind.SAME for kind, _ in graph.rank_groups):
        links += [(0, v) for v in range(len(graph.nodes))]   # first/last ranks are global
    component = components(len(graph.nodes), [(e.source, e.target) for e in graph.edges]
                           + links)
    lowest: dict[int, int] = {}
    for v, c in enumerate(component):
        lowest[c] = min(lowest.get(c, rank[v]), rank[v])
    problems += [f"component {c} starts at rank {r}" for c, r in lowest.items() if r != 0]
    first_class = any(kind in (RankKind.MIN, RankKind.SOURCE) for kind, _ in graph.rank_groups)
    if graph.nodes and rank[graph.entry] != 0 and not first_class:
        problems.append(f"entry node '{graph.nodes[graph.entry].id}' is on rank "
                        f"{rank[graph.entry]}")
    return problems


def after_dummy_chains(graph: ProperGraph) -> list[str]:
    """Every segment joins consecutive layers."""
    return [
        f"segment {graph.nodes[a].id} -> {graph.nodes[b].id} spans "
        f"{graph.rank[b] - graph.rank[a]} layers"
        for a, b in graph.segments if graph.rank[b] - graph.rank[a] != 1
    ]


def after_ordering(graph: ProperGraph, ordering: OrderingResult) -> list[str]:
    """Each layer holds exactly the nodes of its rank, each once."""
    expected: list[list[int]] = [[] for _ in range(graph.layer_count)]
    for v, r in enumerate(graph.rank):
        expected[r].append(v)
    if len(ordering.layers) != graph.layer_count:
        return [f"{len(ordering.layers)} layers ordered, {graph.layer_count} expected"]
    return [f"layer {i} is not a permutation of its rank's nodes"
            for i, layer in enumerate(ordering.layers)
            if sorted(layer) != expected[i]]


def after_placement(graph: ProperGraph, placement: Placement,
                    options: LayoutOptions) -> list[str]:
    """No overlaps, spacing kept, nodes centred on stacked layer axes."""
    separation = separation_for(graph, options)
    problems: list[str] = []
    previous_bottom: float | None = None
    for i, layer in enumerate(placement.layers):
        boxes = [placement.nodes[n] for n in layer]
        for a, b in pairwise(boxes):
            gap = (b.x + b.width / 2) - (a.x + a.width / 2)
            if gap < separation(graph.index[a.id], graph.index[b.id]) - TOLERANCE:
                problems.append(f"layer {i}: '{a.id}' and '{b.id}' are closer than spacing")
        if not boxes:
            continue
        axes = {round(n.y + n.height / 2, 6) for n in boxes}
        if len(axes) > 1:
            problems.append(f"layer {i}: nodes are not centred on one axis")
        top = min(n.y for n in boxes)
        layer_gap = None if previous_bottom is None else top - previous_bottom
        if layer_gap is not None and abs(layer_gap - options.layer_spacing) > TOLERANCE:
            problems.append(f"layer {i} is not {options.layer_spacing:g} px below layer {i - 1}")
        previous_bottom = max(n.y + n.height for n in boxes)
    return problems


def after_routing(graph: Graph, result: LayoutResult, options: LayoutOptions) -> list[str]:
    """The finished layout has no defect (:func:`~layouts.layered.contracts.find_defects`)."""
    return [v.message for v in find_defects(graph, result, options)]
