"""Room for every port: a node whose ports would overlap on a face is grown until they
fit, and the layout says so.

Ports are points of their face's boundary-slot lattice (:mod:`.routing.port_ends`):
``k`` points on a face of length ``L`` stand ``L / (k + 1)`` apart, the face's ports
and, on the two faces the flow uses, the ends of edges at the node itself (sources on
the face the flow leaves by, targets on the one it enters by). Two neighbouring ports
of extent ``w`` along the face (a north or south port's width, an east or west port's
height) do not overlap, and keep :data:`PORT_GAP` px between them, when
``L / (k + 1) >= w + PORT_GAP``; with the face's widest port for ``w`` that holds for
every pair. A face that is shorter gets the node grown to ``(k + 1) * (w + PORT_GAP)``
along it (its width for north and south faces, its height for east and west ones), and
a warning names the node, the face and both sizes.

Left alone: ``fixed_pos`` ports (the caller placed them), compound nodes (their boxes
are sized by their children) and round shapes (circles, ellipses, diamonds: their faces
are not their box's sides).

>>> from layouts.graph import Edge, Graph, Node, Port, PortSide
>>> from layouts.options import Direction
>>> ports = tuple(Port(f"p{i}", PortSide.SOUTH, width=30, height=6) for i in range(3))
>>> g = Graph((Node("a", 80, 40, ports=ports), Node("b", 9, 9)),
...           tuple(Edge(f"e{i}", "a", "b", source_port=f"p{i}") for i in range(3)))
>>> fitted, warnings = fit_ports(g, Direction.TOP_TO_BOTTOM)
>>> fitted.node("a").width, fitted.node("a").height     # (3 + 1) * (30 + 4)
(136, 40)
>>> warnings
("node 'a' grown from 80 to 136 px along its south face so its 3 ports there do not overlap",)
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

from layouts.graph import Graph, Node, PortConstraints, PortSide, Shape
from layouts.options import Direction

__all__ = ["PORT_GAP", "fit_ports"]

PORT_GAP = 4.0
"""Least gap, in px, between two neighbouring ports of one face."""

_ROUND = frozenset({Shape.CIRCLE, Shape.ELLIPSE, Shape.DIAMOND})

_FLOW_FACES = {   # (the face edges leave by, the face they enter by)
    Direction.TOP_TO_BOTTOM: (PortSide.SOUTH, PortSide.NORTH),
    Direction.BOTTOM_TO_TOP: (PortSide.NORTH, PortSide.SOUTH),
    Direction.LEFT_TO_RIGHT: (PortSide.EAST, PortSide.WEST),
    Direction.RIGHT_TO_LEFT: (PortSide.WEST, PortSide.EAST),
}


def fit_ports(graph: Graph, direction: Direction) -> tuple[Graph, tuple[str, ...]]:
    """``graph`` with every node whose ports would overlap grown (see the module
    docstring), and one warning per grown face; ``graph`` itself when none is."""
    leave, enter = _FLOW_FACES[direction]
    ends: Counter[tuple[str, PortSide]] = Counter()
    roles: dict[str, list[PortSide]] = {}
    for e in graph.edges:
        for node, port, face in ((e.source, e.source_port, leave),
                                 (e.target, e.target_port, enter)):
            if port is None:
                ends[(node, face)] += 1
            else:
                roles.setdefault(f"{node}\0{port}", []).append(face)
    warnings: list[str] = []

    def fitted(n: Node) -> Node:
        if n.children:
            children = tuple(fitted(c) for c in n.children)
            return n if children == n.children else replace(n, children=children)
        return _fit(n, ends, roles, (leave, enter), warnings)

    roots = tuple(fitted(n) for n in graph.nodes)
    if not warnings:
        return graph, ()
    return replace(graph, nodes=roots), tuple(warnings)


def _face_of(side: PortSide, uses: list[PortSide], flow: tuple[PortSide, PortSide]
             ) -> PortSide:
    """The face a port takes: its declared one, else the flow face it is used on most
    (as :mod:`.portmap` puts free ports)."""
    if side is not PortSide.FREE:
        return side
    leaving = uses.count(flow[0])
    return flow[0] if leaving >= len(uses) - leaving else flow[1]


def _fit(n: Node, ends: Counter[tuple[str, PortSide]], roles: dict[str, list[PortSide]],
         flow: tuple[PortSide, PortSide], warnings: list[str]) -> Node:
    """``n`` grown along every face whose ports need more room than it has."""
    constraints = n.effective_port_constraints()
    if not n.ports or n.shape in _ROUND or constraints is PortConstraints.FIXED_POS:
        return n
    faces: dict[PortSide, list[float]] = {}
    for p in n.ports:
        if constraints is PortConstraints.FREE:
            face = _face_of(PortSide.FREE, roles.get(f"{n.id}\0{p.id}", []), flow)
        else:
            face = _face_of(p.side, roles.get(f"{n.id}\0{p.id}", []), flow)
        across = face in (PortSide.NORTH, PortSide.SOUTH)
        faces.setdefault(face, []).append(p.width if across else p.height)
    width, height = n.width, n.height
    for face in (PortSide.NORTH, PortSide.EAST, PortSide.SOUTH, PortSide.WEST):
        extents = faces.get(face)
        if not extents:
            continue
        points = len(extents) + ends[(n.id, face)]
        needed = (points + 1) * (max(extents) + PORT_GAP)
        across = face in (PortSide.NORTH, PortSide.SOUTH)
        have = width if across else height
        if needed <= have + 1e-9:
            continue
        grown = math.ceil(needed)
        warnings.append(f"node '{n.id}' grown from {_px(have)} to {grown} px along its "
                        f"{face.value} face so its {len(extents)} ports there do not "
                        "overlap")
        width, height = (grown, height) if across else (width, grown)
    if (width, height) == (n.width, n.height):
        return n
    return replace(n, width=width, height=height)


def _px(value: float) -> str:
    """``value`` without a trailing ``.0``.

    >>> _px(80.0), _px(12.5)
    ('80', '12.5')
    """
    return f"{value:g}"
