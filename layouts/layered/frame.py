"""Frame restore: the phases work top to bottom; for LeftToRight the import swapped every
width and height, and :func:`restore` transposes the routed drawing back: ``x`` <-> ``y``
for nodes, route points and label boxes, faces top <-> left and bottom <-> right, and the
drawing's width <-> height. TopToBottom routings pass through unchanged.

>>> from layouts.layered.model import Routing
>>> from layouts.result import NodeBox
>>> r = Routing(nodes=(NodeBox("a", 10, 20, 30, 40),), edges=(), width=50, height=70)
>>> restore(r, Direction.LEFT_TO_RIGHT).nodes[0]
NodeBox(id='a', x=20, y=10, width=40, height=30, shape=<Shape.RECT: 'rect'>)
"""

from __future__ import annotations

from layouts.layered.model import Routing
from layouts.options import Direction
from layouts.result import Box, EdgeEnd, EdgeRoute, NodeBox, Point, PortBox, Side

TRANSPOSED_SIDE: dict[Side, Side] = {
    Side.TOP: Side.LEFT,
    Side.LEFT: Side.TOP,
    Side.BOTTOM: Side.RIGHT,
    Side.RIGHT: Side.BOTTOM,
}


def restore(routing: Routing, direction: Direction) -> Routing:
    """The routing in the caller's direction.

    >>> from layouts.result import EdgeRoute, Point
    >>> e = EdgeRoute("e", "a", "b", (Point(1, 2), Point(1, 9)), EdgeEnd(Side.BOTTOM, 0))
    >>> t = restore(Routing((), (e,), 5, 9), Direction.LEFT_TO_RIGHT).edges[0]
    >>> t.points, t.source_end.side
    ((Point(x=2, y=1), Point(x=9, y=1)), <Side.RIGHT: 'right'>)
    """
    if direction is Direction.TOP_TO_BOTTOM:
        return routing
    return Routing(
        nodes=tuple(_node(n) for n in routing.nodes),
        edges=tuple(_edge(e) for e in routing.edges),
        width=routing.height,
        height=routing.width,
        ports=tuple(_port(p) for p in routing.ports),
    )


def _port(p: PortBox) -> PortBox:
    label = p.label_box
    return PortBox(p.id, p.node, p.y, p.x, p.height, p.width,
                   None if p.side is None else TRANSPOSED_SIDE[p.side],
                   None if label is None else Box(label.y, label.x, label.height, label.width),
                   p.slot)


def _node(n: NodeBox) -> NodeBox:
    return NodeBox(n.id, n.y, n.x, n.height, n.width, n.shape)


def _end(end: EdgeEnd) -> EdgeEnd:
    return EdgeEnd(None if end.side is None else TRANSPOSED_SIDE[end.side], end.slot,
                   end.lattice)


def _edge(e: EdgeRoute) -> EdgeRoute:
    label = e.label_box
    return EdgeRoute(
        id=e.id,
        source=e.source,
        target=e.target,
        points=tuple(Point(p.y, p.x) for p in e.points),
        source_end=_end(e.source_end),
        target_end=_end(e.target_end),
        label_box=None if label is None else Box(label.y, label.x, label.height, label.width),
        loop_back=e.loop_back,
    )
