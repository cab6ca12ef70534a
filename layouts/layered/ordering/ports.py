"""Port-aware reordering after crossing minimisation (ELK's port-aware barycentre).

Crossing minimisation sees nodes as points; an edge at a port leaves from the port's
place on the node instead: a left or right port (across the flow) and a stub against the
flow (round a side strip, outside the side ports' stubs) leave at the node's left or
right end, and ``fixed_order`` and ``fixed_pos`` ports at their place along the face.
This step gives every segment end at a port its *fraction* of the node (from -0.45 at
the left end to 0.45 at the right, a stub round the node -0.49 or 0.49), counts
crossings with those fractions (two segments between the same layers cross when their
ends swap order), and runs down and up sweeps that sort each layer by the port-aware
barycentre ``mean(pos[u] + f_u - f_v)`` over the node's segments to the fixed layer. A
new order is kept only when it has fewer port-aware crossings, so the step never makes
a drawing worse by that count; it stops at a sweep that does not help, or when the
deadline says so.

Graphs without ports pass through unchanged; so do graphs with more than
:data:`MAX_SEGMENTS` segments (the pairwise count is quadratic per layer pair).

>>> port_fraction(Side.RIGHT, None, 0, 1)
0.45
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise, product

from layouts.layered.graph import (
    EngineNode,
    LayeredGraph,
    ProperGraph,
    layer_positions,
    sized_by,
)
from layouts.layered.model import Deadline
from layouts.layered.ordering import OrderingResult
from layouts.layered.ordering.crossings import bilayer_crossings
from layouts.layered.portmap import (
    NodePorts,
    PortTable,
    Role,
    StubGroup,
    StubKind,
    forced_crossings,
    insets,
    stub_kind,
)
from layouts.result import Side

MAX_SEGMENTS = 4000
SIDE_FRACTION = 0.45
ROUND_FRACTION = 0.49
"""A stub against the flow runs outside every side stub of its strip (its column is
the outermost, :mod:`layouts.layered.routing.port_ends`), so it leaves a little
farther out than they do."""
ROUNDS = 4

_Segment = tuple[int, int, float, float]  # upper, lower, upper's fraction, lower's fraction


def port_fraction(side: Side, rank: int | None, index: int, count: int) -> float:
    """Where on its node an end at a port leaves, from -0.45 (left) to 0.45 (right):
    the ends of a side face, the place ``index`` of ``count`` for ranked ports on a
    flow face, the middle otherwise.

    >>> port_fraction(Side.BOTTOM, 0, 0, 3), port_fraction(Side.BOTTOM, None, 0, 3)
    (-0.225, 0.0)
    """
    if side is Side.LEFT:
        return -SIDE_FRACTION
    if side is Side.RIGHT:
        return SIDE_FRACTION
    if rank is None or count < 2:
        return 0.0
    return 2 * SIDE_FRACTION * ((index + 1) / (count + 1) - 0.5)


def _fractions(own: NodePorts) -> dict[tuple[str, Role], float]:
    """Each ``(port, role)``'s fraction on its node."""
    out: dict[tuple[str, Role], float] = {}
    strips = {(g.port, g.role): g.strip for g in own.groups}
    for side in (Side.TOP, Side.BOTTOM, Side.LEFT, Side.RIGHT):
        mine = [p for p in own.ports if p.side is side]
        ranked = sorted(mine, key=lambda p: (p.rank if p.rank is not None else 0.0,
                                             p.declared))
        for index, p in enumerate(ranked):
            for role in (Role.SOURCE, Role.TARGET):
                kind = stub_kind(p.side, role)
                if kind is StubKind.INVERTED:
                    strip = strips.get((p.id, role), Side.RIGHT)
                    out[(p.id, role)] = ROUND_FRACTION if strip is Side.RIGHT \
                        else -ROUND_FRACTION
                elif p.fixed is not None and side in (Side.TOP, Side.BOTTOM):
                    out[(p.id, role)] = 2 * SIDE_FRACTION * (p.fixed / own.width - 0.5)
                else:
                    out[(p.id, role)] = port_fraction(side, None if p.rank is None else 0,
                                                      index, len(ranked))
    return out


def segments(graph: ProperGraph, ports: PortTable) -> list[_Segment]:
    """The forward chain edges' segments with their ends' port fractions."""
    fractions = {node: _fractions(own) for node, own in ports.nodes.items()}
    out: list[_Segment] = []
    for edge in graph.chain_edges:
        if edge.reversed or edge.upper == edge.lower:
            continue
        source_port, target_port = ports.edge_ports.get(edge.id, (None, None))
        columns = [graph.index[c] for c in (edge.upper, *edge.chain, edge.lower)]
        top = _end_fraction(ports, fractions, edge.upper, source_port, Role.SOURCE, edge.id)
        bottom = _end_fraction(ports, fractions, edge.lower, target_port, Role.TARGET,
                               edge.id)
        last = len(columns) - 2
        for i, (u, v) in enumerate(pairwise(columns)):
            out.append((u, v, top if i == 0 else 0.0, bottom if i == last else 0.0))
    return out


def _end_fraction(ports: PortTable, fractions: dict[str, dict[tuple[str, Role], float]],
                  node: str, port: str | None, role: Role, edge: str) -> float:
    """The fraction of one edge end: its port's, or for a half of a split bundle the
    fraction of the strip it goes round."""
    if port is None or node not in fractions:
        return 0.0
    group = ports.nodes[node].group_for(port, role, edge)
    if group is not None and group.edges:
        return ROUND_FRACTION if group.strip is Side.RIGHT else -ROUND_FRACTION
    return fractions[node].get((port, role), 0.0)


def port_crossings(layers: Sequence[Sequence[int]], node_count: int,
                   segs: Sequence[_Segment], rank: Sequence[int]) -> int:
    """Crossings of ``segs`` with each end at its node's position plus its fraction."""
    pos = layer_positions(layers, node_count)
    by_layer: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for u, v, fu, fv in segs:
        by_layer[rank[u]].append((pos[u] + fu, pos[v] + fv))
    total = 0
    for items in by_layer.values():
        items.sort()
        for i, (a_up, a_low) in enumerate(items):
            for b_up, b_low in items[i + 1:]:
                if (a_up - b_up) * (a_low - b_low) < 0:
                    total += 1
    return total


def _sweep(layers: list[list[int]], node_count: int, segs: Sequence[_Segment],
           rank: Sequence[int], downward: bool,
           fixed: frozenset[int] = frozenset()) -> list[list[int]]:
    pos = layer_positions(layers, node_count)
    out = [list(layer) for layer in layers]
    pulls: list[list[tuple[int, float]]] = [[] for _ in range(node_count)]
    for u, v, fu, fv in segs:   # (neighbour, its fraction less the node's own)
        if downward:
            pulls[v].append((u, fu - fv))
        else:
            pulls[u].append((v, fv - fu))
    indices = range(1, len(out)) if downward else range(len(out) - 2, -1, -1)
    for i in indices:
        layer = out[i]
        keys = [None if not pulls[v] or v in fixed else
                sum(pos[w] + f for w, f in pulls[v]) / len(pulls[v]) for v in layer]
        movable = iter(sorted((k, pos[v], v) for k, v in zip(keys, layer, strict=True)
                              if k is not None))
        out[i] = [v if k is None else next(movable)[2]
                  for k, v in zip(keys, layer, strict=True)]
        for p, v in enumerate(out[i]):
            pos[v] = p
    return out


def run(graph: ProperGraph, order: OrderingResult, ports: PortTable | None,
        deadline: Deadline, *, fixed: frozenset[int] = frozenset()) -> OrderingResult:
    """``order`` with its layers re-sorted by port-aware barycentres where that lowers
    the port-aware crossing count (see the module docstring); the ``fixed`` nodes keep
    their places (a compound's border dummies in their parent's order)."""
    if ports is None or len(graph.segments) > MAX_SEGMENTS:
        return order
    segs = segments(graph, ports)
    if not any(fu or fv for _, _, fu, fv in segs):
        return order
    count = len(graph.nodes)
    best = [list(layer) for layer in order.layers]
    best_cost = port_crossings(best, count, segs, graph.rank)
    for round_ in range(2 * ROUNDS):
        if deadline.expired() or best_cost == 0:
            break
        tried = _sweep(best, count, segs, graph.rank, downward=round_ % 2 == 0, fixed=fixed)
        cost = port_crossings(tried, count, segs, graph.rank)
        if cost >= best_cost:
            if round_ % 2 == 1:
                break
            continue
        best, best_cost = tried, cost
    if best == [list(layer) for layer in order.layers]:
        return order
    down: list[list[int]] = [[] for _ in range(count)]
    for u, v in graph.segments:
        down[u].append(v)
    pos = layer_positions(best, count)
    crossings = sum(bilayer_crossings(upper, pos, down, len(lower))
                    for upper, lower in pairwise(best))
    return replace(order, layers=tuple(tuple(layer) for layer in best), crossings=crossings)


MAX_ROUND_STUBS = 6
"""Nodes with up to this many stubs round them have their strips chosen again after
ordering (:func:`strips`); every choice of strips is tried."""


def strips(graph: ProperGraph, order: OrderingResult, ports: PortTable | None
           ) -> PortTable | None:
    """``ports`` with the stubs round each node sent round the strips where they cross
    least in ``order``: the import chose them knowing only the node's own stubs
    (:func:`layouts.layered.portmap.forced_crossings`), not where the other ends
    would be. Each node's choices that keep its insets (so no node changes size) are
    scored by those forced crossings plus the port-aware crossings of the segments
    beside the node's layer, fewest first, then the fewest stubs moved. The routing
    keeps each role's split (:mod:`layouts.layered.routing.port_ends`).

    The table itself when nothing moves, for graphs over :data:`MAX_SEGMENTS`
    segments, and for a node with more than :data:`MAX_ROUND_STUBS` stubs round it."""
    if ports is None or len(graph.segments) > MAX_SEGMENTS:
        return ports
    layers = [list(layer) for layer in order.layers]
    count = len(graph.nodes)
    table = ports
    for node in sorted(ports.nodes):
        if node not in graph.index:
            continue
        rank = graph.rank[graph.index[node]]
        best: tuple[int, int, NodePorts] | None = None
        for moved, own in _choices(table.nodes[node]):
            tried = replace(table, nodes={**table.nodes, node: own})
            near = [s for s in segments(graph, tried) if graph.rank[s[0]] in (rank - 1, rank)]
            cost = forced_crossings(own.groups) + port_crossings(layers, count, near, graph.rank)
            if best is None or (cost, moved) < best[:2]:
                best = (cost, moved, own)
        if best is not None and best[1]:
            table = replace(table, nodes={**table.nodes, node: best[2]})
    return table


def _choices(own: NodePorts) -> list[tuple[int, NodePorts]]:
    """``own`` with its stubs round the node sent every way that keeps its insets, each
    with how many stubs it moves; none for a node with at most one stub round it."""
    round_ = [i for i, g in enumerate(own.groups) if g.kind is StubKind.INVERTED]
    if not 2 <= len(round_) <= MAX_ROUND_STUBS or any(own.groups[i].edges for i in round_):
        return []
    kept = insets(own.groups, 1.0, 1.0)
    out: list[tuple[int, NodePorts]] = []
    for choice in product((Side.LEFT, Side.RIGHT), repeat=len(round_)):
        groups = list(own.groups)
        for i, strip in zip(round_, choice, strict=True):
            groups[i] = replace(groups[i], strip=strip)
        if insets(tuple(groups), 1.0, 1.0) == kept:
            moved = sum(groups[i].strip is not own.groups[i].strip for i in round_)
            out.append((moved, replace(own, groups=tuple(groups))))
    return out


MAX_SPLIT_EDGES = 4
"""A bundle against the flow of up to this many edges may be split or moved
(:func:`splits`): every way of sending its edges round the two strips is tried."""
MAX_SPLIT_SEGMENTS = 400
"""Graphs with more segments keep their bundles whole (each try reorders the graph)."""


def splits(graph: ProperGraph, order: OrderingResult, ports: PortTable | None,
           deadline: Deadline) -> PortTable | None:
    """``ports`` with the bundles against the flow split between the strips round their
    node where that lowers the crossings: a bundle whose stub goes round one side forces
    every edge of it past that side, though some go the other way (ELK sends each edge
    round the side nearer where it goes), and a lone stub round the side the import
    chose before ordering (:func:`strips` may only swap stubs while the node keeps its
    size) may belong round the other. Each way of splitting a bundle (its edges left or
    right, both halves non-empty) and the whole bundle round the other strip are scored
    by the port-aware crossings of the order
    :func:`run` finds for it plus the forced crossings of every node's strips, each
    stub counted once per edge it carries (:func:`edge_forced_crossings`); a split
    is kept only when that total is strictly lower, nodes in id order, so a graph it
    does not help keeps its table (and its nodes their size). The halves widen the
    node by the other strip, a moved bundle may change its width: the pipeline sizes
    the nodes again (:func:`resized`).

    The table itself for graphs over :data:`MAX_SPLIT_SEGMENTS` segments and when no
    split helps."""
    if ports is None or len(graph.segments) > MAX_SPLIT_SEGMENTS:
        return ports
    table = ports
    best = _total_cost(graph, order, table, deadline)
    for node in sorted(ports.nodes):
        if node not in graph.index:
            continue
        for tried in _split_choices(graph, table, node):
            if deadline.expired():
                return table
            cost = _total_cost(graph, order, tried, deadline)
            if cost < best:
                best, table = cost, tried
    return table


def _total_cost(graph: ProperGraph, order: OrderingResult, table: PortTable,
                deadline: Deadline) -> int:
    """The port-aware crossings of the order :func:`run` finds for ``table`` plus the
    forced crossings in the strips, counted edge by edge (:func:`edge_forced_crossings`)."""
    tried = run(graph, order, table, deadline)
    return edge_forced_crossings(graph, table) + port_crossings(
        tried.layers, len(graph.nodes), segments(graph, table), graph.rank)


def edge_forced_crossings(graph: ProperGraph, table: PortTable) -> int:
    """The forced crossings of every node's strips (:func:`forced_crossings`) with each
    stub counted once per edge it carries: where a stub round the node crosses a side
    stub that two edges share (every-side's north port, which ``t_n`` enters and the
    flipped ``n_out`` enters too), each edge's route crosses it, so that is two
    crossings, not one. A stub no edge of ``graph`` runs in counts once."""
    weights = _group_edges(graph, table)
    total = 0
    for node, own in table.nodes.items():
        carried = tuple(g for g in own.groups for _ in range(max(1, weights[(node, g)])))
        total += forced_crossings(carried)
    return total


def _group_edges(graph: ProperGraph, table: PortTable) -> Counter[tuple[str, StubGroup]]:
    """How many chain edges run in each ``(node, stub group)``: an edge's source end
    (its port in the table's roles) is at ``upper``, or at ``lower`` for a reversed
    edge, whose ports keep their input roles."""
    out: Counter[tuple[str, StubGroup]] = Counter()
    for edge in graph.chain_edges:
        if edge.upper == edge.lower:
            continue
        pair = table.edge_ports.get(edge.id, (None, None))
        ends = (edge.lower, edge.upper) if edge.reversed else (edge.upper, edge.lower)
        for node, port, role in zip(ends, pair, (Role.SOURCE, Role.TARGET), strict=True):
            own = table.nodes.get(node)
            group = None if own is None or port is None else own.group_for(port, role, edge.id)
            if group is not None:
                out[(node, group)] += 1
    return out


def _split_choices(graph: ProperGraph, table: PortTable, node: str) -> list[PortTable]:
    """``table`` with each whole bundle against the flow of ``node`` round its other
    strip, and split every way."""
    own = table.nodes[node]
    out: list[PortTable] = []
    for index, g in enumerate(own.groups):
        if g.kind is not StubKind.INVERTED or g.edges:
            continue
        edges = bundle_edges(graph, table, node, g.port, g.role)
        if not 1 <= len(edges) <= MAX_SPLIT_EDGES:
            continue
        other = Side.LEFT if g.strip is Side.RIGHT else Side.RIGHT
        variants: list[tuple[StubGroup, ...]] = [(replace(g, strip=other),)]
        for mask in range(1, 2 ** len(edges) - 1):
            left = frozenset(e for i, e in enumerate(edges) if mask >> i & 1)
            variants.append((replace(g, strip=Side.LEFT, edges=left),
                             replace(g, strip=Side.RIGHT, edges=frozenset(edges) - left)))
        for halves in variants:
            groups = (*own.groups[:index], *halves, *own.groups[index + 1:])
            split = replace(own, groups=groups,
                            insets=insets(groups, table.margin, table.spacing))
            out.append(replace(table, nodes={**table.nodes, node: split}))
    return out


def bundle_edges(graph: ProperGraph, table: PortTable, node: str, port: str, role: Role
                 ) -> tuple[str, ...]:
    """The ids of the edges at ``port`` of ``node`` in ``role``, in edge order; none
    unless every edge naming that port in that role is a forward chain edge at ``node``
    (a reversed one, or a port id another node shares, keeps the bundle whole)."""
    at = 0 if role is Role.SOURCE else 1
    named = [e for e, pair in table.edge_ports.items() if pair[at] == port]
    chains = {e.id: e for e in graph.chain_edges}
    out: list[str] = []
    for edge_id in named:
        edge = chains.get(edge_id)
        if edge is None or edge.reversed or edge.upper == edge.lower:
            return ()
        if (edge.upper if role is Role.SOURCE else edge.lower) != node:
            return ()
        out.append(edge_id)
    return tuple(out)


def resized(acyclic: LayeredGraph, proper: ProperGraph, ports: PortTable
            ) -> tuple[LayeredGraph, ProperGraph]:
    """``acyclic`` with ``ports`` as its table, and in both graphs the nodes whose strips
    ``ports`` changes (a split bundle widens its node) sized by them; the others, and
    ``proper`` when none changes, as they are."""
    old = acyclic.ports
    changed = {node for node, own in ports.nodes.items()
               if old is None or node not in old.nodes or old.nodes[node].insets != own.insets}

    def sized(node: EngineNode) -> EngineNode:
        return sized_by(node, ports) if node.id in changed else node

    acyclic = replace(acyclic, ports=ports, nodes=tuple(sized(n) for n in acyclic.nodes)
                      if changed else acyclic.nodes)
    if not changed:
        return acyclic, proper
    return acyclic, replace(proper, nodes=tuple(sized(n) for n in proper.nodes))
