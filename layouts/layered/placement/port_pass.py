"""Port-aware placement: a second Brandes-Koepf run that lines ports up with their
edges' other ends.

The first run places nodes with every segment end at its estimated slot
(:func:`.ports.port_offsets`), which knows nothing of declared ports: an edge at a port
off the middle of its face, or at a side port's stub column, then bends twice on its
way (a dogleg). On that first placement the routing's own port plan
(:func:`layouts.layered.routing.port_ends.plan_port_ends`) tells where every end at a
port will be; :func:`.ports.declared_port_offsets` turns those into offsets from the
node's centre and Brandes-Koepf runs again with them, aligning each port over (or
under) its neighbour's end. The second placement is kept only when it bends fewer
segments (:func:`dogleg_count`) and is at most :data:`MAX_GROWTH` times as wide (and a
node spacing), so
the step never adds doglegs by that count.

>>> from layouts.graph import Edge, Graph, Node, Port, PortSide, PortConstraints
>>> from layouts.layered.graph import import_graph
>>> from layouts.layered.layering import chains
>>> from layouts.layered import ordering
>>> from layouts.options import LayoutOptions
>>> a = Node("a", 120, 40, ports=(Port("p", PortSide.SOUTH, x=100, y=40),),
...          port_constraints=PortConstraints.FIXED_POS)
>>> g = Graph((a, Node("b", 40, 40)), (Edge("e", "a", "b", source_port="p"),))
>>> layered = import_graph(g, LayoutOptions())
>>> proper = chains.run(layered, (0, 1))
>>> order = ordering.run(proper, LayoutOptions())
>>> first = placement.run(proper, order, LayoutOptions())
>>> second = run(proper, order, LayoutOptions(), first, layered.ports)
>>> b = second.nodes["b"]
>>> b.x + b.width / 2 - second.nodes["a"].x      # b's centre under the port at x = 100
100.0
"""

from __future__ import annotations

from layouts.layered import placement
from layouts.layered.budget import COSTS
from layouts.layered.graph import ProperGraph
from layouts.layered.model import Deadline, Placement
from layouts.layered.ordering import OrderingResult
from layouts.layered.placement.ports import Ports, declared_port_offsets
from layouts.layered.portmap import PortTable
from layouts.options import LayoutOptions

__all__ = ["MAX_GROWTH", "dogleg_count", "run"]

MAX_GROWTH = 1.1
"""The second placement may be at most this much wider than the first (plus one node
spacing, for small drawings): aligning every port can spread a layer, and fewer doglegs
are not worth a much larger drawing."""


def dogleg_count(graph: ProperGraph, placed: Placement, offsets: Ports) -> int:
    """Segments whose two ends (at ``offsets`` from their nodes' centres) are not one
    above the other in ``placed``: each is drawn with a jog.

    >>> from layouts.layered.graph import EngineNode
    >>> from layouts.layered.model import PlacedNode
    >>> g = ProperGraph((EngineNode("a", 40, 9), EngineNode("b", 40, 9)), (0, 1), 2,
    ...                 ((0, 1),), (), (0, 0))
    >>> p = Placement({"a": PlacedNode("a", 0, 0, 0, 0, 40, 9),
    ...                "b": PlacedNode("b", 1, 0, 10, 60, 40, 9)}, (("a",), ("b",)), (), 40, 60)
    >>> dogleg_count(g, p, Ports({(0, 1): 10.0}, {(0, 1): 0.0}))   # 0+20+10 = 10+20+0
    0
    >>> dogleg_count(g, p, Ports({(0, 1): 0.0}, {(0, 1): 0.0}))
    1
    """
    count = 0
    for u, v in graph.segments:
        a, b = placed.nodes[graph.nodes[u].id], placed.nodes[graph.nodes[v].id]
        top = a.x + a.width / 2 + offsets.bottom.get((u, v), 0.0)
        bottom = b.x + b.width / 2 + offsets.top.get((u, v), 0.0)
        count += abs(top - bottom) > 0.5
    return count


def run(graph: ProperGraph, order: OrderingResult, options: LayoutOptions,
        placed: Placement, ports: PortTable | None, *, quick: bool = False,
        deadline: Deadline | None = None) -> Placement:
    """``placed`` again with the ends at ports where routing puts them, when that
    draws fewer doglegs (see the module docstring); ``placed`` itself without ports,
    when the placement was ``quick``, or when the ``deadline`` has not the time for
    another placement as well as the routing still to come (:data:`.budget.COSTS`)."""
    items = len(graph.nodes) + len(graph.segments)
    if ports is None or quick or (deadline is not None and deadline.remaining() <
                                  COSTS.after_ordering(items) + COSTS.placement_per_item
                                  * items):
        return placed
    offsets = declared_port_offsets(graph, placed, order.corridor_sides, ports)
    again = placement.run(graph, order, options, offsets=offsets)
    after = declared_port_offsets(graph, again, order.corridor_sides, ports)
    fewer = dogleg_count(graph, again, after) < dogleg_count(graph, placed, offsets)
    if fewer and _width(again) <= MAX_GROWTH * _width(placed) + options.node_spacing:
        return again
    return placed


def _width(placed: Placement) -> float:
    """The placement's width, from its left-most to its right-most box."""
    boxes = placed.nodes.values()
    return max((n.x + n.width for n in boxes), default=0.0) - min((n.x for n in boxes),
                                                                  default=0.0)
