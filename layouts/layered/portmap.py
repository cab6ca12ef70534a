"""Ports in the layered engine's canonical frame: which face each port sits on, what
its order or fixed position is, and how much room beside its node its side routes need.

The caller's ports are named in drawing coordinates (:class:`~layouts.graph.PortSide`:
north is the top face whatever the direction). The phases work top to bottom
(:mod:`.frame`), so :func:`port_table` turns every port into a face of the canonical frame
(:class:`~layouts.result.Side`): in TopToBottom north is ``top``, east ``right``, south
``bottom``, west ``left``; in LeftToRight (x and y swapped) west is ``top``, east
``bottom``, north ``left`` and south ``right``. BottomToTop and RightToLeft are mirror
images (:func:`mirror_ports` reflects the ports before the layout, :mod:`layouts.mirror`
reflects the result after it).

Every edge of this engine leaves its source's bottom face and enters its target's top
face (the *natural* faces). An edge end at a port on another face needs a *stub*: a short
orthogonal route from the port round its node to the natural face, inside a *strip* of
room the node reserves beside its box (its :class:`Insets`), which the rest of the
pipeline treats as part of the node. A port on the left or right face (across the flow)
runs through the strip on its own side; a source port on the top face or a target port on
the bottom face (against the flow) runs out of its face into a top or bottom strip, then
round the side through a side strip. Each stub has its own column (and row), ``margin``
px from the box and ``spacing`` px from the next one, so the strip of ``n`` stubs is
``margin + (n - 1) * spacing`` px.

Constraints follow ELK's ``elk.portConstraints`` (:meth:`Node.effective_port_constraints`):
``free`` ports take the natural face of the role they are used in most (a port only
edges leave goes on the bottom face, one only edges enter on the top face); ``fixed_side``
keeps the declared face; ``fixed_order`` also the order of :attr:`Port.order` (declaration
order where missing); ``fixed_pos`` the declared position, on the face nearest to it when
no side is given.

>>> from layouts.graph import Edge, Graph, Node, Port, PortSide
>>> from layouts.options import Direction, LayoutOptions
>>> g = Graph((Node("a", 80, 40, ports=(Port("p", PortSide.EAST),)), Node("b", 80, 40)),
...           (Edge("e", "a", "b", source_port="p"),))
>>> table = port_table(g, LayoutOptions())
>>> table.nodes["a"].ports[0].side.value, table.nodes["a"].insets
('right', Insets(left=0.0, top=0.0, right=12.0, bottom=0.0))
>>> port_table(g, LayoutOptions(direction=Direction.LEFT_TO_RIGHT)).nodes["a"].ports[0].side.value
'bottom'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from itertools import product

from layouts.errors import UnsupportedFeatureError
from layouts.graph import Edge, Graph, Node, Port, PortConstraints, PortSide, Shape
from layouts.options import Direction, LayoutOptions
from layouts.result import Side

ORDER_MIRROR = 1_000_000
"""A reflection turns ELK's clockwise port order round: order ``i`` becomes this less
``i`` (the largest order :class:`~layouts.graph.Port` accepts)."""

_TOP_TO_BOTTOM = {PortSide.NORTH: Side.TOP, PortSide.EAST: Side.RIGHT,
                  PortSide.SOUTH: Side.BOTTOM, PortSide.WEST: Side.LEFT}
_LEFT_TO_RIGHT = {PortSide.NORTH: Side.LEFT, PortSide.EAST: Side.BOTTOM,
                  PortSide.SOUTH: Side.RIGHT, PortSide.WEST: Side.TOP}
_VERTICAL_FLIP = {PortSide.NORTH: PortSide.SOUTH, PortSide.SOUTH: PortSide.NORTH}
_HORIZONTAL_FLIP = {PortSide.EAST: PortSide.WEST, PortSide.WEST: PortSide.EAST}


class Role(Enum):
    """Which end of an edge a port is: edges leave their source, enter their target."""

    SOURCE = "source"
    TARGET = "target"

    @property
    def natural(self) -> Side:
        """The face this engine attaches the role to: sources at the bottom."""
        return Side.BOTTOM if self is Role.SOURCE else Side.TOP


class StubKind(Enum):
    """How an end at a port reaches its natural face."""

    NATURAL = "natural"    # the port is on the natural face: no stub
    SIDE = "side"          # a left or right port: out sideways, along the side strip
    INVERTED = "inverted"  # against the flow: out of the face, round a side strip


@dataclass(frozen=True, slots=True)
class Insets:
    """Room a node reserves beside its box for stubs, per face, in px."""

    left: float = 0.0
    top: float = 0.0
    right: float = 0.0
    bottom: float = 0.0

    @property
    def any(self) -> bool:
        return bool(self.left or self.top or self.right or self.bottom)


@dataclass(frozen=True, slots=True)
class CanonicalPort:
    """A port in the canonical frame. ``rank`` orders ``fixed_order`` ports along their
    face (left to right, top to bottom); ``fixed`` is a ``fixed_pos`` port's centre along
    its face from the box's corner; ``roles`` the roles its edges use it in."""

    id: str
    side: Side
    declared: int
    width: float
    height: float
    rank: float | None = None
    fixed: float | None = None
    corner: tuple[float, float] | None = None
    roles: frozenset[Role] = frozenset()
    label_width: float = 0.0
    label_height: float = 0.0
    """The port's label size (canonical frame: swapped for LeftToRight), 0 without one."""


@dataclass(frozen=True, slots=True)
class StubGroup:
    """The edge ends at one port in one role: they share one stub (a bundle).
    ``strip`` is the side strip the stub runs through. ``edges`` is empty for a group
    that holds all of them; a bundle against the flow may be *split* into two groups,
    one round each strip, each naming the edges it holds (they leave the port's point
    together, then part, each round the side nearer where it goes)."""

    port: str
    role: Role
    kind: StubKind
    strip: Side
    edges: frozenset[str] = frozenset()

    def holds(self, port: str, role: Role, edge: str) -> bool:
        """Whether the end of ``edge`` at ``port`` in ``role`` runs in this group.

        >>> g = StubGroup("p", Role.SOURCE, StubKind.INVERTED, Side.LEFT, frozenset({"a"}))
        >>> g.holds("p", Role.SOURCE, "a"), g.holds("p", Role.SOURCE, "b")
        (True, False)
        """
        return self.port == port and self.role is role and (not self.edges
                                                             or edge in self.edges)


@dataclass(frozen=True, slots=True)
class NodePorts:
    """A node's ports and stub groups, its real size and shape (canonical frame), and
    the insets its stubs need; the engine lays the node out as its box plus the insets,
    as a rectangle when there are any."""

    node: str
    width: float
    height: float
    shape: Shape
    constraints: PortConstraints
    ports: tuple[CanonicalPort, ...]
    groups: tuple[StubGroup, ...]
    insets: Insets

    def port(self, port_id: str) -> CanonicalPort:
        return next(p for p in self.ports if p.id == port_id)

    def group_for(self, port: str, role: Role, edge: str) -> StubGroup | None:
        """The stub group the end of ``edge`` at ``port`` in ``role`` runs in, if any."""
        return next((g for g in self.groups if g.holds(port, role, edge)), None)

    @property
    def engine_shape(self) -> Shape:
        return Shape.RECT if self.insets.any else self.shape


@dataclass(frozen=True, slots=True)
class PortTable:
    """Every node with ports by id, and every edge's ``(source port, target port)``
    by edge id (``None`` where the end is at the node itself); ``margin`` and
    ``spacing`` place the stubs' columns and rows."""

    nodes: Mapping[str, NodePorts]
    edge_ports: Mapping[str, tuple[str | None, str | None]]
    margin: float
    spacing: float
    flipped: frozenset[str] = frozenset()
    """The edges drawn against their input direction between their nodes' facing faces
    (:mod:`layouts.layered.cycles.port_roles`): their ``edge_ports`` and roles are
    swapped, so each end's port has the role the drawing gives it."""


def mirror_ports(graph: Graph, direction: Direction) -> Graph:
    """``graph`` with every port reflected as :mod:`layouts.mirror` reflects the layout of
    ``direction`` (BottomToTop: north and south swap, y flips; RightToLeft: east and west,
    x); the graph itself for the base directions.

    >>> from layouts.graph import Node, Port, PortSide
    >>> g = Graph((Node("a", 80, 40, ports=(Port("p", PortSide.NORTH, 2, 10, 0),)),))
    >>> p = mirror_ports(g, Direction.BOTTOM_TO_TOP).nodes[0].ports[0]
    >>> p.side.value, p.order, p.x, p.y
    ('south', 999998, 10, 40.0)
    """
    if direction not in (Direction.BOTTOM_TO_TOP, Direction.RIGHT_TO_LEFT):
        return graph
    vertical = direction is Direction.BOTTOM_TO_TOP

    def port(p: Port, node: Node) -> Port:
        flip = _VERTICAL_FLIP if vertical else _HORIZONTAL_FLIP
        x, y = p.x, p.y
        if x is not None and y is not None:
            x, y = (x, node.height - y - p.height) if vertical else (node.width - x - p.width, y)
        order = None if p.order is None else ORDER_MIRROR - p.order
        return replace(p, side=flip.get(p.side, p.side), order=order, x=x, y=y)

    def node(n: Node) -> Node:
        return replace(n, ports=tuple(port(p, n) for p in n.ports),
                       children=tuple(node(c) for c in n.children))

    return replace(graph, nodes=tuple(node(n) for n in graph.nodes))


_TRANSPOSED = {PortSide.NORTH: PortSide.WEST, PortSide.WEST: PortSide.NORTH,
               PortSide.EAST: PortSide.SOUTH, PortSide.SOUTH: PortSide.EAST}


def transpose_port(p: Port) -> Port:
    """``p`` as seen with x and y swapped (a LeftToRight port in the TopToBottom frame):
    north and west swap, east and south; a reflection, so the clockwise order turns round.

    >>> q = transpose_port(Port("p", PortSide.NORTH, 3, 10, 0, 4, 2))
    >>> q.side.value, q.order, (q.x, q.y, q.width, q.height)
    ('west', 999997, (0, 10, 2, 4))
    """
    order = None if p.order is None else ORDER_MIRROR - p.order
    x, y = (None, None) if p.x is None or p.y is None else (p.y, p.x)
    return replace(p, side=_TRANSPOSED.get(p.side, p.side), order=order, x=x, y=y,
                   width=p.height, height=p.width, label_width=p.label_height,
                   label_height=p.label_width)


def port_table(graph: Graph, options: LayoutOptions,
               flipped: frozenset[str] = frozenset()) -> PortTable | None:
    """The canonical ports of ``graph`` (a flat graph in a base direction), or ``None``
    when no node has ports; raises :class:`UnsupportedFeatureError` for a self-loop at a
    port (its two ends share one face of this engine's routing). The edges of
    ``flipped`` are drawn from their target to their source: their ports swap roles."""
    if not any(n.ports for n in graph.nodes):
        return None
    roles: dict[str, list[Role]] = {}
    edge_ports: dict[str, tuple[str | None, str | None]] = {}
    for e in graph.edges:
        _check_edge(e)
        edge_ports[e.id] = (e.target_port, e.source_port) if e.id in flipped else \
            (e.source_port, e.target_port)
        for port, role in zip(edge_ports[e.id], (Role.SOURCE, Role.TARGET), strict=True):
            if port is not None:
                roles.setdefault(port, []).append(role)
    margin = max(options.clearance, options.edge_spacing)
    swap = options.direction is Direction.LEFT_TO_RIGHT
    nodes = {n.id: _node_ports(n, roles, swap, margin, options.edge_spacing)
             for n in graph.nodes if n.ports}
    return PortTable(nodes, edge_ports, margin, options.edge_spacing, flipped)


def _check_edge(e: Edge) -> None:
    if e.source == e.target and (e.source_port is not None or e.target_port is not None):
        raise UnsupportedFeatureError(f"ports on a self-loop (edge '{e.id}')", "layered",
                                      ("elkjs",))


def _node_ports(n: Node, roles: Mapping[str, list[Role]], swap: bool, margin: float,
                spacing: float) -> NodePorts:
    constraints = n.effective_port_constraints()
    width, height = (n.height, n.width) if swap else (n.width, n.height)
    ports = tuple(_canonical(p, i, n, constraints, roles.get(p.id, []), swap)
                  for i, p in enumerate(n.ports))
    groups = _groups(ports)
    return NodePorts(n.id, width, height, n.shape, constraints, ports, groups,
                     insets(groups, margin, spacing))


def _canonical(p: Port, declared: int, n: Node, constraints: PortConstraints,
               used: list[Role], swap: bool) -> CanonicalPort:
    sides = _LEFT_TO_RIGHT if swap else _TOP_TO_BOTTOM
    width, height = (p.height, p.width) if swap else (p.width, p.height)
    fixed_pos = constraints is PortConstraints.FIXED_POS and p.x is not None and p.y is not None
    side: Side
    corner: tuple[float, float] | None = None
    fixed: float | None = None
    if fixed_pos:
        assert p.x is not None and p.y is not None
        corner = (p.y, p.x) if swap else (p.x, p.y)
        centre = (corner[0] + width / 2, corner[1] + height / 2)
        node_w, node_h = (n.height, n.width) if swap else (n.width, n.height)
        side = sides[p.side] if p.side is not PortSide.FREE else _nearest(centre, node_w,
                                                                           node_h)
        fixed = centre[0] if side in (Side.TOP, Side.BOTTOM) else centre[1]
    elif p.side is PortSide.FREE or constraints is PortConstraints.FREE:
        sources = used.count(Role.SOURCE)
        side = Role.SOURCE.natural if sources >= len(used) - sources else Role.TARGET.natural
    else:
        side = sides[p.side]
    rank: float | None = None
    if constraints is PortConstraints.FIXED_ORDER:
        clockwise = p.order if p.order is not None else declared
        # clockwise runs along the face on the drawing's north and east faces
        ascending = side in ((Side.LEFT, Side.BOTTOM) if swap else (Side.TOP, Side.RIGHT))
        rank = float(clockwise if ascending else -clockwise)
    label_width, label_height = ((p.label_height, p.label_width) if swap
                                 else (p.label_width, p.label_height))
    return CanonicalPort(p.id, side, declared, width, height, rank, fixed, corner,
                         frozenset(used), label_width, label_height)


def _nearest(centre: tuple[float, float], width: float, height: float) -> Side:
    x, y = centre
    gaps = ((abs(y), Side.TOP), (abs(height - y), Side.BOTTOM), (abs(x), Side.LEFT),
            (abs(width - x), Side.RIGHT))
    return min(gaps, key=lambda g: g[0])[1]


def stub_kind(side: Side, role: Role) -> StubKind:
    """How an end at a port on ``side`` used in ``role`` reaches its natural face.

    >>> stub_kind(Side.BOTTOM, Role.SOURCE).value, stub_kind(Side.TOP, Role.SOURCE).value
    ('natural', 'inverted')
    """
    if side is role.natural:
        return StubKind.NATURAL
    if side in (Side.LEFT, Side.RIGHT):
        return StubKind.SIDE
    return StubKind.INVERTED


def _groups(ports: tuple[CanonicalPort, ...]) -> tuple[StubGroup, ...]:
    """The stub groups of a node's ports, in port order: a side port's stubs run
    through its own side's strip; the stubs against the flow go round the strips
    :func:`_round_strips` chooses.

    A west port and an east port that edges leave, and a north port one leaves: the
    stub round goes left, where one stub runs (east has two), so both strips hold two.

    >>> roles = frozenset({Role.SOURCE, Role.TARGET})
    >>> ports = (CanonicalPort("n", Side.TOP, 0, 4, 4, roles=frozenset({Role.SOURCE})),
    ...          CanonicalPort("e", Side.RIGHT, 1, 4, 4, roles=roles),
    ...          CanonicalPort("w", Side.LEFT, 2, 4, 4, roles=frozenset({Role.SOURCE})))
    >>> [(g.port, g.role.value[0], g.strip.value) for g in _groups(ports)]
    [('n', 's', 'left'), ('e', 's', 'right'), ('e', 't', 'right'), ('w', 's', 'left')]
    """
    stubs = [(p, role, stub_kind(p.side, role)) for p in ports
             for role in (Role.SOURCE, Role.TARGET) if role in p.roles]
    sides = [(p.side, role) for p, role, kind in stubs if kind is StubKind.SIDE]
    rounds = [role for _, role, kind in stubs if kind is StubKind.INVERTED]
    chosen = iter(_round_strips(sides, rounds))
    return tuple(StubGroup(p.id, role, kind, next(chosen) if kind is StubKind.INVERTED
                           else p.side)
                 for p, role, kind in stubs if kind is not StubKind.NATURAL)


MAX_ROUND_SEARCH = 10
"""Up to this many stubs round one node, :func:`_round_strips` tries every choice of
strips; beyond it, it takes each stub's best strip in turn."""


def _round_strips(sides: list[tuple[Side, Role]], rounds: list[Role]) -> list[Side]:
    """The strip each stub round the node (by role, in port order) goes round, given
    the side stubs (strip, role): the fewest forced crossings, then the most even
    strips, then the fewest changes from filling the emptier strip in turn.

    A stub round the node crosses, in its strip, every stub whose edge runs on past
    the corner it turns at: one to the bottom face (a target's, from an edge above)
    crosses the side sources' edges going down past that corner and the stubs round
    from the top face; one from the top face crosses the side targets' edges coming
    from above. So a stub from the top face goes round the strip with fewer side
    targets: with a target on the east face, west.

    >>> _round_strips([(Side.RIGHT, Role.TARGET)], [Role.SOURCE])
    [<Side.LEFT: 'left'>]

    An east port used both ways and a west port that edges leave; stubs to the bottom
    face and from the top face: the one from the top goes west, away from the east
    target, and the one to the bottom east, where it crosses one side source either way
    (filling in turn would send the first west, then the second east: two crossings):

    >>> [s.value for s in _round_strips([(Side.RIGHT, Role.SOURCE), (Side.RIGHT, Role.TARGET),
    ...                                  (Side.LEFT, Role.SOURCE)], [Role.TARGET, Role.SOURCE])]
    ['right', 'left']
    """
    if not rounds:
        return []
    greedy = _filled_in_turn(sides, len(rounds))
    if len(rounds) > MAX_ROUND_SEARCH:
        return _each_best(sides, rounds, greedy)

    def cost(strips: Sequence[Side]) -> tuple[int, int, int]:
        changes = sum(a is not b for a, b in zip(strips, greedy, strict=True))
        return _forced_crossings(sides, rounds, strips), _unevenness(sides, strips), changes

    best: tuple[Side, ...] = min(product((Side.LEFT, Side.RIGHT), repeat=len(rounds)), key=cost)
    return list(best)


def _filled_in_turn(sides: list[tuple[Side, Role]], count: int) -> list[Side]:
    """Each stub round the strip with fewer stubs so far, the side stubs counted
    first (the right one on a tie)."""
    load = {side: sum(1 for s, _ in sides if s is side) for side in (Side.LEFT, Side.RIGHT)}
    out: list[Side] = []
    for _ in range(count):
        strip = Side.LEFT if load[Side.LEFT] < load[Side.RIGHT] else Side.RIGHT
        load[strip] += 1
        out.append(strip)
    return out


def _forced_crossings(sides: list[tuple[Side, Role]], rounds: list[Role],
                      strips: Sequence[Side]) -> int:
    total = 0
    for strip in (Side.LEFT, Side.RIGHT):
        side = Counter(role for s, role in sides if s is strip)
        mine = Counter(role for role, s in zip(rounds, strips, strict=True) if s is strip)
        total += mine[Role.TARGET] * (side[Role.SOURCE] + mine[Role.SOURCE])
        total += mine[Role.SOURCE] * side[Role.TARGET]
    return total


def _unevenness(sides: list[tuple[Side, Role]], strips: Sequence[Side]) -> int:
    left = sum(1 for s, _ in sides if s is Side.LEFT) + strips.count(Side.LEFT)
    right = sum(1 for s, _ in sides if s is Side.RIGHT) + strips.count(Side.RIGHT)
    return abs(left - right)


def _each_best(sides: list[tuple[Side, Role]], rounds: list[Role],
               greedy: list[Side]) -> list[Side]:
    """Many stubs round one node: each in turn takes the strip of fewer forced
    crossings with those placed so far, the strip filling in turn gives it on a tie."""
    out: list[Side] = []
    for i, (role, fallback) in enumerate(zip(rounds, greedy, strict=True)):
        def cost(strip: Side, i: int = i, role: Role = role) -> int:
            return _forced_crossings(sides, [*rounds[:i], role], [*out, strip])
        left, right = cost(Side.LEFT), cost(Side.RIGHT)
        out.append(fallback if left == right else Side.LEFT if left < right else Side.RIGHT)
    return out


def forced_crossings(groups: Sequence[StubGroup]) -> int:
    """The crossings the stubs round a node cannot avoid in their strips, given the
    side stubs there (see :func:`_round_strips`).

    >>> forced_crossings((StubGroup("e", Role.SOURCE, StubKind.SIDE, Side.RIGHT),
    ...                   StubGroup("s", Role.TARGET, StubKind.INVERTED, Side.RIGHT)))
    1
    """
    sides = [(g.strip, g.role) for g in groups if g.kind is StubKind.SIDE]
    rounds = [g for g in groups if g.kind is StubKind.INVERTED]
    return _forced_crossings(sides, [g.role for g in rounds], [g.strip for g in rounds])


def strip_width(count: int, margin: float, spacing: float) -> float:
    """Room for ``count`` stubs side by side.

    >>> strip_width(0, 12, 10), strip_width(3, 12, 10)
    (0.0, 32.0)
    """
    return 0.0 if count == 0 else float(margin + (count - 1) * spacing)


def insets(groups: tuple[StubGroup, ...], margin: float, spacing: float) -> Insets:
    """The room ``groups`` need beside the box: each side strip as wide as its stubs,
    the top and bottom strips as tall as the most stubs round one side from that face.

    >>> insets((StubGroup("n", Role.SOURCE, StubKind.INVERTED, Side.LEFT),), 12, 10)
    Insets(left=12.0, top=12.0, right=0.0, bottom=0.0)
    """
    rows: dict[Side, int] = {}
    for face, role in ((Side.TOP, Role.SOURCE), (Side.BOTTOM, Role.TARGET)):
        inverted = [g for g in groups if g.kind is StubKind.INVERTED and g.role is role]
        rows[face] = max(sum(1 for g in inverted if g.strip is Side.LEFT),
                         sum(1 for g in inverted if g.strip is Side.RIGHT))
    return Insets(
        strip_width(sum(1 for g in groups if g.strip is Side.LEFT), margin, spacing),
        strip_width(rows[Side.TOP], margin, spacing),
        strip_width(sum(1 for g in groups if g.strip is Side.RIGHT), margin, spacing),
        strip_width(rows[Side.BOTTOM], margin, spacing),
    )

