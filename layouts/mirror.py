"""Bottom-to-top and right-to-left layouts as mirror images of top-to-bottom and
left-to-right ones, for engines that only know the latter two.

An engine lays the graph out in the base direction (:func:`base_direction`), and
:func:`mirror_result` reflects the result: BottomToTop flips y (``y' = height - y``, top
and bottom faces swap), RightToLeft flips x. A reflection keeps everything an engine
promises: orthogonal segments stay orthogonal, ends stay on their outlines, clearances and
crossings are unchanged. Boundary slots are numbered left to right / top to bottom, so the
slots on the faces along the flipped axis are renumbered from the other end.

>>> from layouts.result import Diagnostics, EdgeRoute, LayoutResult, NodeBox, Point
>>> down = LayoutResult((NodeBox("a", 0, 0, 10, 10), NodeBox("b", 0, 30, 10, 10)),
...     (EdgeRoute("e", "a", "b", (Point(5, 10), Point(5, 30))),), 10, 40,
...     Diagnostics("demo", "draft", "TopToBottom"))
>>> up = mirror_result(down, Direction.BOTTOM_TO_TOP)
>>> up.node("a").y, up.node("b").y, up.edges[0].points
(30, 0, (Point(x=5, y=30), Point(x=5, y=10)))
>>> up.diagnostics.direction
'BottomToTop'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from layouts.options import Direction
from layouts.result import Box, EdgeEnd, EdgeRoute, LayoutResult, NodeBox, Point, PortBox, Side

BASE_DIRECTIONS: tuple[Direction, ...] = (Direction.TOP_TO_BOTTOM, Direction.LEFT_TO_RIGHT)
"""The directions engines lay out in themselves; the other two are their mirror images."""

_BASE: dict[Direction, Direction] = {
    Direction.TOP_TO_BOTTOM: Direction.TOP_TO_BOTTOM,
    Direction.LEFT_TO_RIGHT: Direction.LEFT_TO_RIGHT,
    Direction.BOTTOM_TO_TOP: Direction.TOP_TO_BOTTOM,
    Direction.RIGHT_TO_LEFT: Direction.LEFT_TO_RIGHT,
}
_VERTICAL_SWAP = {Side.TOP: Side.BOTTOM, Side.BOTTOM: Side.TOP}
_HORIZONTAL_SWAP = {Side.LEFT: Side.RIGHT, Side.RIGHT: Side.LEFT}


def base_direction(direction: Direction) -> Direction:
    """TopToBottom or LeftToRight: the direction to lay out in before mirroring.

    >>> base_direction(Direction.RIGHT_TO_LEFT).value
    'LeftToRight'
    """
    return _BASE[direction]


def is_mirrored(direction: Direction) -> bool:
    """Whether ``direction`` is drawn as a mirror image of its base direction."""
    return _BASE[direction] is not direction


def mirror_result(result: LayoutResult, direction: Direction) -> LayoutResult:
    """``result`` (laid out in ``base_direction(direction)``) reflected into ``direction``;
    the result itself when no reflection is needed. Diagnostics name ``direction``."""
    if not is_mirrored(direction):
        return result
    vertical = direction is Direction.BOTTOM_TO_TOP
    extent = result.height if vertical else result.width
    flip = _Flip(vertical, extent)
    counts = _face_counts(result.edges, result.ports)
    return replace(
        result,
        nodes=tuple(flip.node(n) for n in result.nodes),
        edges=tuple(flip.route(r, counts) for r in result.edges),
        ports=tuple(flip.port(p, counts) for p in result.ports),
        diagnostics=replace(result.diagnostics, direction=direction.value),
        _index={},
    )


def _face_counts(routes: tuple[EdgeRoute, ...], ports: tuple[PortBox, ...] = ()
                 ) -> Counter[tuple[str, Side]]:
    """The slot count of each (node, face): its distinct slots, of the edge ends on it
    and of its ports (the ends at a port share the port's slot); an end without a slot
    counts as one of its own."""
    slots: dict[tuple[str, Side], set[object]] = {}
    for r in routes:
        for role, node, end in (("s", r.source, r.source_end), ("t", r.target, r.target_end)):
            if end.side is not None:
                own = (r.id, role) if end.slot is None else end.slot
                slots.setdefault((node, end.side), set()).add(own)
    for p in ports:
        if p.side is not None and p.slot is not None:
            slots.setdefault((p.node, p.side), set()).add(p.slot)
    return Counter({face: len(found) for face, found in slots.items()})


class _Flip:
    """Reflection across the middle of ``extent`` along y (``vertical``) or x."""

    def __init__(self, vertical: bool, extent: float) -> None:
        self.vertical = vertical
        self.extent = extent
        self.swap = _VERTICAL_SWAP if vertical else _HORIZONTAL_SWAP

    def point(self, p: Point) -> Point:
        if self.vertical:
            return Point(p.x, self.extent - p.y)
        return Point(self.extent - p.x, p.y)

    def box(self, b: Box) -> Box:
        if self.vertical:
            return Box(b.x, self.extent - b.y - b.height, b.width, b.height)
        return Box(self.extent - b.x - b.width, b.y, b.width, b.height)

    def _optional_box(self, b: Box | None) -> Box | None:
        return None if b is None else self.box(b)

    def node(self, n: NodeBox) -> NodeBox:
        b = self.box(n.box)
        return replace(n, x=b.x, y=b.y, label_box=self._optional_box(n.label_box))

    def port(self, p: PortBox, counts: Counter[tuple[str, Side]]) -> PortBox:
        b = self.box(Box(p.x, p.y, p.width, p.height))
        end = self.end(p.node, EdgeEnd(p.side, p.slot), counts)
        return replace(p, x=b.x, y=b.y, side=end.side, slot=end.slot,
                       label_box=self._optional_box(p.label_box))

    def end(self, node: str, end: EdgeEnd, counts: Counter[tuple[str, Side]]) -> EdgeEnd:
        if end.side is None:
            return end
        side = self.swap.get(end.side, end.side)
        renumber = end.side not in self.swap and end.slot is not None
        slot: int | None = end.slot
        if renumber and slot is not None:
            slot = (end.lattice or counts[(node, end.side)]) - 1 - slot
        return EdgeEnd(side, slot, end.lattice)

    def route(self, r: EdgeRoute, counts: Counter[tuple[str, Side]]) -> EdgeRoute:
        return replace(
            r, points=tuple(self.point(p) for p in r.points),
            source_end=self.end(r.source, r.source_end, counts),
            target_end=self.end(r.target, r.target_end, counts),
            label_box=self._optional_box(r.label_box))


def mirrored(layout: Callable[[Direction], LayoutResult], direction: Direction
             ) -> LayoutResult:
    """``layout(base_direction(direction))`` reflected into ``direction``."""
    return mirror_result(layout(base_direction(direction)), direction)
