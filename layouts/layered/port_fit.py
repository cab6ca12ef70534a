"""Room for every port: a node whose ports (or their labels) would overlap on a face is
grown until they fit, and the layout says so.

Ports are points of their face's boundary-slot lattice (:mod:`.routing.port_ends`):
``k`` points on a face of length ``L`` stand ``L / (k + 1)`` apart, the face's ports
and, on the two faces the flow uses, the ends of edges at the node itself (sources on
the face the flow leaves by, targets on the one it enters by). Two neighbouring ports
of extent ``w`` along the face (a north or south port's width, an east or west port's
height) do not overlap, and keep :data:`PORT_GAP` px between them, when
``L / (k + 1) >= w + PORT_GAP``; with the face's widest port for ``w`` that holds for
every pair. A face that is shorter gets the node grown to ``(k + 1) * (w + PORT_GAP)``
along it (its width for north and south faces, its height for east and west ones), and
a warning names the node, the face and both sizes. A labelled port counts its label's
extent along the face too (labels sit inside the node by their port,
:mod:`.routing.port_labels`), and between two opposite faces the node must hold both
faces' deepest labels and its own label: ``depth(north) + label + depth(south) + 2 *
PORT_GAP``, a port's depth being half its size across the face, the label gap and the
label.

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
from layouts.layered.routing.port_labels import LABEL_GAP
from layouts.options import Direction

__all__ = ["FLOW_FACES", "PORT_GAP", "face_of", "fit_ports"]

PORT_GAP = 4.0
"""Least gap, in px, between two neighbouring ports of one face."""

_ROUND = frozenset({Shape.CIRCLE, Shape.ELLIPSE, Shape.DIAMOND})

FLOW_FACES = {   # (the face edges leave by, the face they enter by)
    Direction.TOP_TO_BOTTOM: (PortSide.SOUTH, PortSide.NORTH),
    Direction.BOTTOM_TO_TOP: (PortSide.NORTH, PortSide.SOUTH),
    Direction.LEFT_TO_RIGHT: (PortSide.EAST, PortSide.WEST),
    Direction.RIGHT_TO_LEFT: (PortSide.WEST, PortSide.EAST),
}


def fit_ports(graph: Graph, direction: Direction) -> tuple[Graph, tuple[str, ...]]:
    """``graph`` with every node whose ports would overlap grown (see the module
    docstring), and one warning per grown face; ``graph`` itself when none is."""
    leave, enter = FLOW_FACES[direction]
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


def face_of(side: PortSide, uses: list[PortSide], flow: tuple[PortSide, PortSide]
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
    depths: dict[PortSide, float] = {}
    for p in n.ports:
        side = PortSide.FREE if constraints is PortConstraints.FREE else p.side
        face = face_of(side, roles.get(f"{n.id}\0{p.id}", []), flow)
        across = face in (PortSide.NORTH, PortSide.SOUTH)
        labelled = p.label_width > 0 and p.label_height > 0
        along = max(p.width, p.label_width if labelled else 0.0) if across else \
            max(p.height, p.label_height if labelled else 0.0)
        faces.setdefault(face, []).append(along)
        if labelled:
            inward = (p.height / 2 + LABEL_GAP + p.label_height) if across else \
                (p.width / 2 + LABEL_GAP + p.label_width)
            depths[face] = max(depths.get(face, 0.0), inward)
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
    width, height = _fit_depth(n, depths, width, height, warnings)
    if (width, height) == (n.width, n.height):
        return n
    return replace(n, width=width, height=height)


def _fit_depth(n: Node, depths: dict[PortSide, float], width: float, height: float,
               warnings: list[str]) -> tuple[float, float]:
    """``(width, height)`` grown so the labels of two opposite faces and the node's own
    label (centred) fit between those faces, :data:`PORT_GAP` apart."""
    for first, second, across in ((PortSide.NORTH, PortSide.SOUTH, False),
                                  (PortSide.WEST, PortSide.EAST, True)):
        inward = depths.get(first, 0.0) + depths.get(second, 0.0)
        if not inward:
            continue
        own = n.label_width if across else n.label_height
        needed = inward + own + 2 * PORT_GAP
        have = width if across else height
        if needed <= have + 1e-9:
            continue
        grown = math.ceil(needed)
        warnings.append(f"node '{n.id}' grown from {_px(have)} to {grown} px "
                        f"{'wide' if across else 'tall'} so its {first.value} and "
                        f"{second.value} port labels fit inside it")
        width, height = (grown, height) if across else (width, grown)
    return width, height


def _px(value: float) -> str:
    """``value`` without a trailing ``.0``.

    >>> _px(80.0), _px(12.5)
    ('80', '12.5')
    """
    return f"{value:g}"
