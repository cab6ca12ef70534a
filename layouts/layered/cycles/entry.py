"""Which node a cycle-breaking run puts first when no node is free of incoming edges.

A workflow starts at its first step, so by default (:attr:`EntryRule.FIRST_NODE`) the
first node in model order is the entry when every node has an incoming edge: its
incoming edges are reversed before the feedback set is sought. Graphs with ports come
from ELK JSON, where model order promises no start, and there the forced entry can cost
crossings: on a cycle ``free -> order -> fixed -> end -> free`` the edge back into
``free`` is reversed and, as the longest edge of the cycle, drawn round everything
between. :attr:`EntryRule.GREEDY` lets the greedy heuristic (:mod:`.feedback`) break
every cycle, as ELK's greedy cycle breaker does, and makes the first source of the
result the entry. The pipeline draws a port graph without a source both ways and keeps
the drawing that crosses less (:func:`fewer_crossings`).

>>> from layouts.graph import Edge, Graph, Node, Port
>>> ring = Graph((Node("a", 9, 9, ports=(Port("p"),)), Node("b", 9, 9)),
...              (Edge("ab", "a", "b", source_port="p"), Edge("ba", "b", "a")))
>>> open_entry(ring)
True
>>> open_entry(Graph(ring.nodes, ring.edges[:1]))   # a is a source
False
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from functools import partial

from layouts.graph import Graph
from layouts.layered.budget import Redraws
from layouts.layered.model import Deadline
from layouts.layered.ordering.drawn_check import SEARCH_ITEMS, Drawing, drawn_crossings
from layouts.options import Effort

__all__ = ["EntryRule", "fewer_crossings", "open_entry"]


class EntryRule(Enum):
    """How cycle breaking picks the entry of a graph in which every node has an
    incoming edge (a graph with a source always enters at its first source)."""

    FIRST_NODE = "first-node"
    """The first node in model order; its incoming edges are reversed."""
    GREEDY = "greedy"
    """The first source once the greedy feedback set is reversed."""


def open_entry(graph: Graph) -> bool:
    """Whether ``graph`` has ports and no source, so that the entry rule can change its
    drawing: every node has an incoming edge once declared loop-backs are turned round
    (self-loops aside).

    >>> from layouts.graph import Edge, Node
    >>> open_entry(Graph((Node("a", 9, 9), Node("b", 9, 9)),
    ...                  (Edge("ab", "a", "b"), Edge("ba", "b", "a"))))   # no ports
    False
    """
    if not any(node.ports for node in graph.nodes):
        return False
    entered = {e.source if e.loop_back else e.target
               for e in graph.edges if e.source != e.target}
    return all(node.id in entered for node in graph.nodes)


def fewer_crossings(draw: Callable[[EntryRule], Drawing], graph: Graph, effort: Effort,
                    deadline: Deadline) -> Drawing:
    """``draw(FIRST_NODE)``; for an :func:`open_entry` graph above ``draft`` effort, with
    at most :data:`SEARCH_ITEMS` nodes and edges, whose drawing crosses and while the
    time left is at least what that drawing took, ``draw(GREEDY)`` too, kept only when
    it draws fewer crossings (:func:`drawn_crossings`): on ties the first node enters."""
    redraws = Redraws(deadline)
    first = redraws.draw(partial(draw, EntryRule.FIRST_NODE))
    if effort is Effort.DRAFT or first.order_crossings is None or not open_entry(graph) \
            or len(graph.nodes) + len(graph.edges) > SEARCH_ITEMS or deadline.exhausted:
        return first
    crossings = drawn_crossings(first.routing)
    if crossings == 0 or not redraws.affords_another():
        return first
    second = draw(EntryRule.GREEDY)
    if second.order_crossings is not None and drawn_crossings(second.routing) < crossings:
        return second
    return first
