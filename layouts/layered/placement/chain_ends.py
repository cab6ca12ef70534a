"""Straight chain ends: a long edge's dummies moved under (over) the slot where the edge
leaves its source (enters its target), where the layers leave room.

Brandes-Koepf aligns each node with one median neighbour per alignment, and the balance
of the four alignments (then the centring of gateways and joins over their branches)
often leaves the first dummy of a long edge a few pixels beside the slot its edge
leaves from: the route then drops from the slot, jogs along a track of the channel and
drops again, two bends, though its column lies under the node's face. The same at the
target end. The dummies of one chain are kept in straight *runs* (inner segments are
straight in Brandes-Koepf), so moving only the first dummy would move the jog one
channel down; this step moves the whole run.

For each forward chain ``u, d1, ..., dn, w``, in input order, and first for its upper
end: when ``d1`` is not under its slot on ``u`` (the :class:`~.ports.Ports` offset that
placement aligns by), the run ``d1..dj`` of dummies one above the other moves there, or,
when a neighbour in the layers of the run leaves no room for that (the slots of a face
are closer together than its branches may be: a dummy beside a sibling node keeps its
separation from it), out beside ``u``, just far enough for the end to turn into ``u``'s
side face (:func:`~layouts.layered.routing.elbows.side_reach`): one bend instead of
two. A run beyond that reach, whose end may already turn into the side face unless a
neighbour of ``u`` stands between them, moves in to it when it cannot reach the slot.
A run moves when

* every dummy of the run keeps its separation from its neighbours in its layer (the
  order of every layer stays as it is, so the crossings between layers do not change),
* and the segment below the run (``dj -> d(j+1)``, or ``dn -> w``) was straight only if
  it stays straight.

Then the same for the lower end, the last run moving over its slot on ``w`` (or out
beside ``w``). A dummy has a single point, so a straight segment is one whose two ends
have the same x.

>>> from layouts.layered.graph import EngineNode
>>> from layouts.layered.model import ChainEdge
>>> nodes = (EngineNode("a", 90, 40), EngineNode("b", 40, 40), EngineNode("c", 40, 40),
...          EngineNode("~d", 0, 0, dummy=True))
>>> edges = (ChainEdge("long", "a", "c", "a", "c", ("~d",), False, False),)
>>> g = ProperGraph(nodes, (0, 2, 2, 1), 3, ((0, 3), (3, 2), (0, 1)), edges, (0, 0, 0, 0),
...                 {"a": 0, "b": 1, "c": 2, "~d": 3})
>>> ports = Ports({(0, 3): -15.0, (3, 2): 0.0, (0, 1): 15.0},
...               {(0, 3): 0.0, (3, 2): 0.0, (0, 1): 0.0})
>>> gap = lambda left, right: 50.0
>>> centre = [45.0, 200.0, 100.0, 40.0]     # ~d at 40, c off its column anyway
>>> straighten(g, [[0], [3, 1], [2]], centre, gap, ports, 12)
>>> centre[3]     # under a's left slot: 45 - 15
30.0

With ``c`` under ``~d`` the move would bend ``~d -> c`` as it straightens ``a -> ~d``,
so ``~d`` stays:

>>> centre = [45.0, 200.0, 40.0, 40.0]
>>> straighten(g, [[0], [3, 1], [2]], centre, gap, ports, 12)
>>> centre[3]
40.0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from layouts.layered.graph import ProperGraph
from layouts.layered.placement.brandes_koepf import Separation
from layouts.layered.placement.ports import Ports
from layouts.layered.routing.elbows import side_reach

__all__ = ["straighten"]

STRAIGHT = 1e-6
"""Two x closer than this are one column (routing snaps columns this close)."""


def straighten(graph: ProperGraph, layers: Sequence[Sequence[int]], centre: list[float],
               separation: Separation, ports: Ports, clearance: float) -> None:
    """Move dummy runs under (over) their chains' end slots, or out beside their nodes;
    see the module docstring. ``centre`` (by node index) is changed in place."""
    position = {v: (rank, i) for rank, layer in enumerate(layers) for i, v in enumerate(layer)}
    upward = _flipped(ports)
    room = _Room(layers, position, separation)
    for edge in graph.chain_edges:
        if edge.reversed or not edge.chain:
            continue
        ids = [graph.index[n] for n in (edge.upper, *edge.chain, edge.lower)]
        for chain, offsets in ((ids, ports), (ids[::-1], upward)):
            node = graph.nodes[chain[0]]
            reach = side_reach(node.shape, node.width, clearance)
            _straighten_end(chain, centre, offsets, room, reach)


@dataclass(frozen=True, slots=True)
class _Room:
    """What deciding whether a node may move needs: the layers, each node's
    ``(layer, index)`` and the separations."""

    layers: Sequence[Sequence[int]]
    position: Mapping[int, tuple[int, int]]
    separation: Separation

    def fits(self, v: int, centre: Sequence[float], x: float) -> bool:
        """Whether ``v`` may sit at ``x``, between its neighbours."""
        rank, i = self.position[v]
        layer = self.layers[rank]
        if i > 0 and x < centre[layer[i - 1]] + self.separation(layer[i - 1], v) - 1e-9:
            return False
        return not (i + 1 < len(layer) and
                    x > centre[layer[i + 1]] - self.separation(v, layer[i + 1]) + 1e-9)


def _flipped(ports: Ports) -> Ports:
    """``ports`` read bottom to top: a segment ``(u, v)`` becomes ``(v, u)``."""
    return Ports({(v, u): o for (u, v), o in ports.top.items()},
                 {(v, u): o for (u, v), o in ports.bottom.items()})


def _slot(ports: Ports, u: int, v: int, centre: Sequence[float]) -> float:
    """The x of segment ``u -> v``'s end on ``u`` (its bottom slot, read downwards)."""
    return centre[u] + ports.bottom.get((u, v), 0.0)


def _end_x(ports: Ports, u: int, v: int, centre: Sequence[float]) -> float:
    """The x of segment ``u -> v``'s end on ``v``."""
    return centre[v] + ports.top.get((u, v), 0.0)


def _straighten_end(ids: Sequence[int], centre: list[float], ports: Ports, room: _Room,
                    reach: float) -> None:
    """Straighten the first segment of the chain ``ids`` (a real node, its dummies, a
    real node) by moving the dummy run below it, or move the run out ``reach`` beside
    the node when only that has room (the module's rule)."""
    want = _slot(ports, ids[0], ids[1], centre)
    if abs(centre[ids[1]] - want) <= STRAIGHT:
        return
    run = [ids[1]]
    while len(run) < len(ids) - 2 and abs(centre[ids[len(run) + 1]] - centre[run[0]]) <= STRAIGHT:
        run.append(ids[len(run) + 1])
    after_x = _end_x(ports, run[-1], ids[len(run) + 1], centre)
    was = abs(centre[run[-1]] - after_x) <= STRAIGHT
    for x in (want, *_beside(centre[ids[0]], centre[run[0]], want, reach)):
        delta = x - centre[run[0]]
        if (not was or abs(x - after_x) <= STRAIGHT) and \
                all(room.fits(v, centre, centre[v] + delta) for v in run):
            for v in run:
                centre[v] += delta
            return


def _beside(middle: float, column: float, want: float, reach: float) -> tuple[float, ...]:
    """The x ``reach`` beside a node's ``middle`` where its end may turn into a side
    face: for a ``column`` within that reach, on its side away from the slot at
    ``want``; for a column beyond it, on its own side, nearer the node (the side face's
    horizontal then passes no neighbour of the node's layer, where one may stand in its
    way further out).

    >>> _beside(100.0, 130.0, 120.0, 57.0), _beside(100.0, 260.0, 120.0, 57.0)
    ((157.0,), (157.0,))
    >>> _beside(100.0, 90.0, 120.0, 57.0)      # left of the slot: out on the left
    (43.0,)
    """
    if abs(column - middle) >= reach:
        return (middle + reach if column > middle else middle - reach,)
    return (middle + reach if column > want else middle - reach,)
