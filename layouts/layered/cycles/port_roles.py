"""Port roles after cycle breaking: each port takes the role its edges have in the
drawing, not in the input.

Import builds the port table (:mod:`layouts.layered.portmap`) from the input's edge
directions: a port its edges enter is a *target* port, one they leave a *source* port,
and a port on a face against its role gets a stub round its node. Cycle breaking then
reverses some edges. A reversed edge in a corridor or a lane still leaves its input
source's bottom face and enters its input target's top face, so its ports keep their
input roles. But the reversed edge of a *mutual pair* (``a -> b`` and ``b -> a``) is
best drawn *facing* (:mod:`layouts.layered.loopbacks.facing`): out of its input
target's bottom face, straight up beside its partner, into its input source's top face.
Drawn that way its two ends swap roles. After layering, this step

1. *balances* the mutual pairs at ports whose rank is free: a node ``v`` whose every
   edge joins one node ``u``, both ways, sits one layer below ``u`` or one above it
   at the same length, so, as network simplex's balancing does for a node of equal
   in- and out-weight (Gansner et al. 1993, section 2.4), it goes to the one of those
   two layers with fewer nodes: the pair turns round (each of its edges reversed, or
   no longer) when the other layer has fewer nodes, the pair is drawn facing both
   ways and it needs no more stubs turned round (:func:`_balance`);
2. decides, for each reversed edge of a mutual pair with an end at a port, whether it
   is drawn facing: when that needs no more of its ends off their natural faces
   (:func:`stubs`) than a corridor does. Those are the table's ``flipped`` edges: the
   table is built again with their ports swapped (a south port that a reversed edge
   uses needs no stub when the edge leaves the node's bottom face), and every node
   with ports is sized by its new strips (:func:`layouts.layered.graph.sized_by`).

Later steps read the ports of the graph this step returns; the dummy chains step draws
the flipped edges facing (:func:`.facing.pairs`), and the lane step keeps them so.

Pre-condition: the acyclic graph of :func:`layouts.layered.cycles.run` and its ranks,
``graph`` the input it was imported from. Post-condition: still acyclic with the ranks
a valid layering (the balanced nodes moved to the mirror rank of their partner's), the
port table of the drawn directions and the nodes sized by it; both as given when no
pair turns and no edge flips.

A hub with a south port that its edge to ``b`` leaves and ``b``'s edge back enters:
drawn facing, the edge back leaves the hub's bottom face from the south port, so the
port needs no stub and the hub no strip below it (12 px without the step):

>>> from layouts.graph import Edge, Graph, Node, Port, PortSide
>>> from layouts.layered import cycles, layering
>>> from layouts.layered.graph import import_graph
>>> from layouts.options import LayoutOptions
>>> hub = Node("hub", 80, 40, ports=(Port("s", PortSide.SOUTH),))
>>> g = Graph((hub, Node("b", 80, 40)), (Edge("out", "hub", "b", source_port="s"),
...                                      Edge("back", "b", "hub", target_port="s")))
>>> layered = import_graph(g, LayoutOptions())
>>> layered.nodes[0].height, layered.ports.nodes["hub"].insets.bottom
(52.0, 12.0)
>>> acyclic = cycles.run(layered)
>>> oriented, rank = run(g, acyclic, layering.run(acyclic), LayoutOptions())
>>> oriented.ports.flipped, oriented.nodes[0].height, oriented.ports.edge_ports["back"]
(frozenset({'back'}), 40, ('s', None))
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from layouts.graph import Graph
from layouts.layered.graph import EngineEdge, LayeredGraph, sized_by
from layouts.layered.loopbacks.facing import mutual_pairs
from layouts.layered.portmap import PortTable, Role, StubKind, port_table, stub_kind
from layouts.options import LayoutOptions, LoopBackRoute

__all__ = ["run", "stubs"]

Ranks = tuple[int, ...]


def run(graph: Graph, acyclic: LayeredGraph, rank: Ranks, options: LayoutOptions
        ) -> tuple[LayeredGraph, Ranks]:
    """``acyclic`` and ``rank`` with the port roles of the drawing (see the module
    docstring)."""
    table = acyclic.ports
    if table is None or options.loop_back_route is LoopBackRoute.OUTSIDE:
        return acyclic, rank
    acyclic, rank = _balance(acyclic, rank, table)
    flipped = frozenset(e.id for e in _candidates(acyclic, table) if _faces(table, acyclic, e))
    if not flipped:
        return acyclic, rank
    oriented = port_table(graph, options, flipped)
    assert oriented is not None
    nodes = tuple(sized_by(n, oriented) for n in acyclic.nodes)
    return replace(acyclic, nodes=nodes, ports=oriented), rank


def _candidates(acyclic: LayeredGraph, table: PortTable) -> list[EngineEdge]:
    """The reversed edges of mutual pairs with an end at a port, in model order."""
    pairs = mutual_pairs(acyclic)
    return [e for e in acyclic.edges if e.position in pairs and _at_port(table, e)]


def _at_port(table: PortTable, edge: EngineEdge) -> bool:
    return table.edge_ports.get(edge.id, (None, None)) != (None, None)


def _faces(table: PortTable, acyclic: LayeredGraph, edge: EngineEdge) -> bool:
    """Whether the reversed ``edge`` is drawn facing: no more stubs than in a corridor."""
    return stubs(table, acyclic, edge, facing=True) <= stubs(table, acyclic, edge, facing=False)


def stubs(table: PortTable, acyclic: LayeredGraph, edge: EngineEdge, *, facing: bool) -> int:
    """How many of ``edge``'s ends at ports are off their natural face (each needs a
    stub round its node); a reversed edge drawn ``facing`` or in a corridor.

    A forward edge, and a reversed one in a corridor, leave their input source as a
    source and enter their input target as a target; a reversed edge drawn facing
    leaves its input target as a source and enters its input source as a target.

    >>> from layouts.graph import Edge, Graph, Node, Port, PortSide
    >>> from layouts.layered.graph import import_graph
    >>> g = Graph((Node("a", 80, 40, ports=(Port("n", PortSide.NORTH),)), Node("b", 9, 9)),
    ...           (Edge("ab", "a", "b", source_port="n"),))
    >>> layered = import_graph(g, LayoutOptions())
    >>> e = layered.edges[0]
    >>> stubs(layered.ports, layered, e, facing=False)   # leaves the top face: round
    1
    >>> stubs(layered.ports, layered, replace(e, source=1, target=0, reversed=True),
    ...       facing=True)                                # drawn up out of the top face
    0
    """
    source_port, target_port = table.edge_ports[edge.id]
    source, target = (edge.target, edge.source) if edge.reversed else (edge.source, edge.target)
    swap = edge.reversed and facing
    ends = ((source, source_port, Role.TARGET if swap else Role.SOURCE),
            (target, target_port, Role.SOURCE if swap else Role.TARGET))
    count = 0
    for node, port, role in ends:
        if port is not None:
            side = table.nodes[acyclic.nodes[node].id].port(port).side
            count += stub_kind(side, role) is not StubKind.NATURAL
    return count


def _turned(edge: EngineEdge) -> EngineEdge:
    return replace(edge, source=edge.target, target=edge.source, reversed=not edge.reversed)


def _balance(acyclic: LayeredGraph, rank: Ranks, table: PortTable
             ) -> tuple[LayeredGraph, Ranks]:
    """Each free mutual pair at ports turned round when its free node's other layer
    has fewer nodes (step 1 of the module docstring), in model order."""
    edges, ranks = list(acyclic.edges), list(rank)
    counts = Counter(ranks)
    for v, u, joined in _free_pairs(acyclic, table, ranks):
        mirror = 2 * ranks[u] - ranks[v]
        if not 0 <= mirror <= max(ranks) or counts[mirror] >= counts[ranks[v]] - 1:
            continue
        now = [edges[i] for i in joined]
        turned = [_turned(e) for e in now]
        if not all(_faces(table, acyclic, e) for e in (*now, *turned) if e.reversed):
            continue
        if _total(table, acyclic, turned) > _total(table, acyclic, now):
            continue
        for i, e in zip(joined, turned, strict=True):
            edges[i] = e
        counts[ranks[v]] -= 1
        counts[mirror] += 1
        ranks[v] = mirror
    if ranks == list(rank):
        return acyclic, rank
    return replace(acyclic, edges=tuple(edges)), tuple(ranks)


def _total(table: PortTable, acyclic: LayeredGraph, edges: list[EngineEdge]) -> int:
    return sum(stubs(table, acyclic, e, facing=True) for e in edges)


def _free_pairs(acyclic: LayeredGraph, table: PortTable, rank: list[int]
                ) -> list[tuple[int, int, list[int]]]:
    """``(v, u, indices of the edges joining them)`` for every node ``v`` whose rank is
    free between two layers: all its edges join one other node ``u``, both ways, one
    layer apart, none a declared loop-back nor longer than one layer, at least one at a
    port; ``v`` not the entry and in no rank group."""
    joined: dict[int, list[int]] = {}
    others: dict[int, set[int]] = {}
    for i, e in enumerate(acyclic.edges):
        for here, there in ((e.source, e.target), (e.target, e.source)):
            joined.setdefault(here, []).append(i)
            others.setdefault(here, set()).add(there)
    grouped = {v for _, members in acyclic.rank_groups for v in members}
    out = []
    for v in range(len(acyclic.nodes)):
        if len(others.get(v, ())) != 1 or v == acyclic.entry or v in grouped:
            continue
        (u,) = others[v]
        mine = [acyclic.edges[i] for i in joined[v]]
        inputs = {(e.target, e.source) if e.reversed else (e.source, e.target) for e in mine}
        if len(inputs) == 2 and abs(rank[u] - rank[v]) == 1 and \
                any(_at_port(table, e) for e in mine) and \
                not any(e.loop_back or e.min_length > 1 for e in mine):
            out.append((v, u, joined[v]))
    return out
