"""Room inside a compound node's box for the labels of its own border ports.

A port label stands inside its node beside its port (:mod:`..routing.port_labels`). In
a compound node that is the band along the face between the border and the padding
that holds the title, the border strips and the children: :func:`port_room` gives each
face's band, in the canonical top-to-bottom frame, so :func:`.frames.frame_for` widens
that face's padding to ``max(PADDING, depth + LABEL_GAP)`` with ``depth`` the face's
deepest label (half the port's size across the face, the 4 px label gap, the label).

Along a face, the crossings of the border strips run straight from their face slot to
their track, through the band; the face's ports and those crossings are points of one
slot lattice, ``k`` points ``L / (k + 1)`` apart on a face of length ``L``, so the box
is made at least ``(k + 1) * (w + PORT_GAP)`` long on every face with a labelled port,
``w`` the face's widest port or label along it (as :mod:`..port_fit` grows a leaf node):
then a label centred on its port stays clear of its neighbours' points and their lines.

A port's face is its declared one; a free port's (or one of a ``free`` node) is the
face of the role its edges use most, sources at the bottom (as :mod:`..portmap` puts
it). ``fixed_pos`` ports count for the bands but not for the lattice (their places are
the caller's).

>>> from layouts.graph import Edge, Node, Port, PortSide
>>> g = Node("g", 10, 10, ports=(Port("i", PortSide.NORTH, width=6, height=6, label="in",
...                                   label_width=20, label_height=12),))
>>> room = port_room(g, (Edge("e", "x", "g", target_port="i"),), transposed=False,
...                  entering=2, leaving=0)
>>> room.top                 # 6 / 2 + 4 + 12
19.0
>>> room.min_width           # the port and 2 crossings: (3 + 1) * (20 + 4)
96.0
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from layouts.graph import Edge, Node, Port, PortConstraints, PortSide
from layouts.layered.port_fit import PORT_GAP
from layouts.layered.portmap import transpose_port
from layouts.layered.routing.port_labels import LABEL_GAP
from layouts.result import Side

__all__ = ["NO_ROOM", "PortRoom", "port_room"]

_CANONICAL = {PortSide.NORTH: Side.TOP, PortSide.EAST: Side.RIGHT,
              PortSide.SOUTH: Side.BOTTOM, PortSide.WEST: Side.LEFT}


@dataclass(frozen=True, slots=True)
class PortRoom:
    """Per canonical face, the depth of its deepest port label (0: none), and the
    least box width and height that keeps labelled faces' lattice points apart."""

    top: float = 0.0
    right: float = 0.0
    bottom: float = 0.0
    left: float = 0.0
    min_width: float = 0.0
    min_height: float = 0.0

    def depth(self, side: Side) -> float:
        """The band depth of face ``side``."""
        return {Side.TOP: self.top, Side.RIGHT: self.right, Side.BOTTOM: self.bottom,
                Side.LEFT: self.left}[side]


NO_ROOM = PortRoom()
"""A compound without labelled ports."""


def port_room(node: Node, edges: Iterable[Edge], *, transposed: bool, entering: int,
              leaving: int) -> PortRoom:
    """The bands and least size of compound ``node`` (see the module docstring);
    ``edges`` are the graph's edges, ``entering``/``leaving`` its border crossings."""
    if not any(p.label_width > 0 and p.label_height > 0 for p in node.ports):
        return NO_ROOM
    uses: dict[str, list[Side]] = {}
    points = {Side.TOP: entering, Side.BOTTOM: leaving, Side.LEFT: 0, Side.RIGHT: 0}
    for e in edges:
        for end, port, face in ((e.source, e.source_port, Side.BOTTOM),
                                (e.target, e.target_port, Side.TOP)):
            if end != node.id:
                continue
            if port is None:
                points[face] += 1
            else:
                uses.setdefault(port, []).append(face)
    constraints = node.effective_port_constraints()
    depths = dict.fromkeys(Side, 0.0)
    extents: dict[Side, float] = {}
    for p in node.ports:
        q = transpose_port(p) if transposed else p
        face = _face(q, constraints, uses.get(p.id, []))
        points[face] += 1
        labelled = q.label_width > 0 and q.label_height > 0
        across = face in (Side.TOP, Side.BOTTOM)
        along = max(q.width, q.label_width if labelled else 0.0) if across else \
            max(q.height, q.label_height if labelled else 0.0)
        if labelled:
            depths[face] = max(depths[face], (q.height / 2 + LABEL_GAP + q.label_height)
                               if across else (q.width / 2 + LABEL_GAP + q.label_width))
        if labelled and constraints is not PortConstraints.FIXED_POS:
            extents[face] = max(extents.get(face, 0.0), along)
    lattice = {face: (points[face] + 1) * (extents[face] + PORT_GAP) for face in extents}
    return PortRoom(depths[Side.TOP], depths[Side.RIGHT], depths[Side.BOTTOM],
                    depths[Side.LEFT],
                    max(lattice.get(Side.TOP, 0.0), lattice.get(Side.BOTTOM, 0.0)),
                    max(lattice.get(Side.LEFT, 0.0), lattice.get(Side.RIGHT, 0.0)))


def _face(p: Port, constraints: PortConstraints, uses: list[Side]) -> Side:
    """The canonical face of (canonical) port ``p``."""
    if p.side is not PortSide.FREE and constraints is not PortConstraints.FREE:
        return _CANONICAL[p.side]
    leaving = uses.count(Side.BOTTOM)
    return Side.BOTTOM if leaving >= len(uses) - leaving else Side.TOP
