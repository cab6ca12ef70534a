"""Step 3 of the hierarchical layout: a compound node's box around its laid-out interior,
in the canonical top-to-bottom frame, relative to the box's top-left corner.

From the top: the padding, one track per entering edge (:mod:`.jogs`) and a gap, the
label row (TopToBottom; for LeftToRight the label takes a column at the left instead,
which the final transpose turns into the top row, or goes ahead of the interior when
that is smaller: :func:`frame_for`), the interior, one track per leaving edge and a gap,
and the padding. The box is at least the node's own size and wide enough for its label;
extra width centres the interior, extra height goes below it.

The label lies below the entering strip, so no jog runs across it: a jog comes down
from the parent's slot on the top face, wherever the parent's routing put it, only as
far as its track. Below the strip only the entering columns run on into the interior;
the TopToBottom label row keeps :data:`PADDING` from each (moving the interior right or
widening the box when no gap between them holds the label), and the LeftToRight label
column lies left of every column and ends above the leaving strip.

>>> from layouts.graph import Node
>>> f = frame_for(Node("g", 10, 10, label="Group", label_width=50, label_height=14),
...               Interior(0, 0, 200, 100), entering=2, leaving=0, edge_spacing=12,
...               transposed=False)
>>> f.width, f.height, f.inner_x, f.inner_y     # 12 + 14 + 6 + 3 * 12 = 68 above
(224.0, 180.0, 12.0, 68.0)
>>> f.entering_track(0), f.entering_track(1), f.label_box.y   # 12 + 12, 12 + 2 * 12
(24.0, 36.0, 48.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from layouts.graph import Node
from layouts.layered.hierarchy.port_room import NO_ROOM, PortRoom
from layouts.layered.model import Routing
from layouts.result import Box, Side

PADDING = 12.0
"""Space between a compound node's border and everything inside it, in px."""

LABEL_GAP = 6.0
"""Space between a compound node's label and its interior, in px."""

CHAR_WIDTH, LINE_HEIGHT = 7.0, 16.0
"""Label size estimate when the caller measured none: px per character, line height."""


@dataclass(frozen=True, slots=True)
class Interior:
    """The bounding box of a laid-out level: every node, route point and label box."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @classmethod
    def of(cls, routing: Routing) -> Interior:
        xs = [v for n in routing.nodes for v in (n.x, n.x + n.width)]
        ys = [v for n in routing.nodes for v in (n.y, n.y + n.height)]
        for route in routing.edges:
            xs.extend(p.x for p in route.points)
            ys.extend(p.y for p in route.points)
            if (b := route.label_box) is not None:
                xs.extend((b.x, b.right))
                ys.extend((b.y, b.bottom))
        return cls(min(xs), min(ys), max(xs), max(ys))


@dataclass(frozen=True, slots=True)
class Frame:
    """A compound node's box (canonical frame, relative to its corner): its size, where
    the interior's corner goes, its label box, and the first tracks of its strips."""

    width: float
    height: float
    inner_x: float
    inner_y: float
    label_box: Box | None
    entering_top: float
    leaving_top: float
    edge_spacing: float

    def entering_track(self, index: int) -> float:
        """The y of entering track ``index`` (0 = top)."""
        return self.entering_top + self.edge_spacing * index

    def leaving_track(self, index: int) -> float:
        """The y of leaving track ``index`` (0 = top)."""
        return self.leaving_top + self.edge_spacing * index


def label_size(node: Node) -> tuple[float, float]:
    """The label's measured size, or an estimate from its text; (0, 0) without a label.

    >>> label_size(Node("g", 9, 9, label="abc")), label_size(Node("g", 9, 9))
    ((21.0, 16.0), (0.0, 0.0))
    """
    if node.label_width or node.label_height:
        return node.label_width, node.label_height
    if not node.label:
        return 0.0, 0.0
    lines = node.label.split("\n")
    return CHAR_WIDTH * max(len(line) for line in lines), LINE_HEIGHT * len(lines)


def padding(room: PortRoom, side: Side) -> float:
    """The padding of face ``side``: :data:`PADDING`, or more for the band of its port
    labels (:mod:`.port_room`).

    >>> padding(PortRoom(top=19.0), Side.TOP), padding(PortRoom(top=19.0), Side.LEFT)
    (25.0, 12.0)
    """
    depth = room.depth(side)
    return max(PADDING, depth + LABEL_GAP) if depth else PADDING


def frame_for(node: Node, interior: Interior, *, entering: int, leaving: int,
              edge_spacing: float, transposed: bool, room: PortRoom = NO_ROOM,
              entering_columns: Sequence[float] = ()) -> Frame:
    """The box of compound ``node`` around ``interior`` with ``entering`` and ``leaving``
    border crossings; ``transposed`` for LeftToRight (canonical sizes are swapped);
    ``room`` for the labels of its own ports (:mod:`.port_room`); ``entering_columns``:
    the x (in ``interior``'s coordinates) where each entering edge's piece inside starts.

    LeftToRight, the label goes *ahead* of the interior, between the entering strip and
    the interior (a band of ``label width + LABEL_GAP`` along the flow), instead of in a
    column across the whole box (the final drawing's label row), when that adds less
    area and no entering edge runs down the label's column within :data:`PADDING` of it
    (its jog leaves the strip at its lower column: :mod:`.jogs`):

    >>> g = Node("g", 10, 10, label="Group", label_width=50, label_height=14)
    >>> f = frame_for(g, Interior(0, 0, 60, 300), entering=1, leaving=0, edge_spacing=12,
    ...               transposed=True, entering_columns=(40,))
    >>> f.label_box, f.inner_x, f.inner_y   # 12 + 24 (strip) + 50 + 6 = 92 above
    (Box(x=12.0, y=36.0, width=14, height=50), 12.0, 92.0)
    >>> f = frame_for(g, Interior(0, 0, 60, 300), entering=1, leaving=0, edge_spacing=12,
    ...               transposed=True, entering_columns=(20,))
    >>> f.label_box, f.inner_x, f.inner_y   # 12 + 14 + 12 = 38 > 12 + 20: a column
    (Box(x=12.0, y=36.0, width=14, height=50), 32.0, 36.0)
    """
    if transposed:
        ahead = _frame(node, interior, entering, leaving, edge_spacing, room, ahead=True)
        column = _frame(node, interior, entering, leaving, edge_spacing, room, ahead=False)
        if ahead.width * ahead.height < column.width * column.height and _clear(
                ahead, interior, entering_columns):
            return ahead
        return column
    return _frame(node, interior, entering, leaving, edge_spacing, room, ahead=False,
                  transposed=False, columns=entering_columns)


def _clear(frame: Frame, interior: Interior, columns: Sequence[float]) -> bool:
    """Whether every entering column, placed in ``frame``, keeps :data:`PADDING` from the
    right of its label box (the box starts at the left padding: none can pass left of it)."""
    box = frame.label_box
    assert box is not None
    return all(c - interior.x0 + frame.inner_x >= box.right + PADDING for c in columns)


def _frame(node: Node, interior: Interior, entering: int, leaving: int, edge_spacing: float,
           room: PortRoom, *, ahead: bool, transposed: bool = True,
           columns: Sequence[float] = ()) -> Frame:
    """:func:`frame_for` with the label ``ahead`` of the interior or not (LeftToRight);
    ``columns``: the entering columns (TopToBottom: the label row keeps clear of them)."""
    label_w, label_h = label_size(node)
    ahead = ahead and bool(label_w and label_h)
    title = label_h + LABEL_GAP if label_h else 0.0
    pad_top, pad_left = padding(room, Side.TOP), padding(room, Side.LEFT)
    pad_right, pad_bottom = padding(room, Side.RIGHT), padding(room, Side.BOTTOM)
    left = pad_left + (title if transposed and not ahead else 0.0)
    entering_strip = edge_spacing * (entering + 1) if entering else 0.0
    leaving_strip = edge_spacing * (leaving + 1) if leaving else 0.0
    band = label_w + LABEL_GAP if ahead else 0.0
    label_y = pad_top + entering_strip      # below the entering strip: no jog crosses it
    inner_y = label_y + band + (0.0 if transposed else title)
    need_w = left + interior.width + pad_right
    min_w, min_h = (node.height, node.width) if transposed else (node.width, node.height)
    min_w, min_h = max(min_w, room.min_width), max(min_h, room.min_height)
    label_span = (label_h if ahead else label_w) + pad_left + pad_right if label_w else 0.0
    width = max(need_w, min_w, label_span if ahead or not transposed else 0.0)
    inner_x, label_x = left + (width - need_w) / 2, pad_left
    if not transposed and label_w and columns:
        row = _Row(pad_left, pad_right, label_w)
        inner_x, width, label_x = row.room(
            [c - interior.x0 + inner_x for c in columns], inner_x, width, interior.width)
    leaving_from = inner_y + interior.height
    column = transposed and not ahead and bool(label_w)
    if column and leaving:   # the label column ends above the leaving strip
        leaving_from = max(leaving_from, label_y + label_w)
    label_depth = label_y + label_w + pad_bottom if column else 0.0
    height = max(leaving_from + leaving_strip + pad_bottom, min_h, label_depth)
    label_box = None
    if label_w or label_h:
        label_box = Box(label_x, label_y,
                        *((label_h, label_w) if transposed else (label_w, label_h)))
    return Frame(width, height, inner_x, inner_y, label_box, pad_top + edge_spacing,
                 leaving_from + edge_spacing, edge_spacing)


@dataclass(frozen=True, slots=True)
class _Row:
    """A TopToBottom label row between the entering strip and the interior: the label
    (``width`` wide) between the paddings, :data:`PADDING` from every entering column
    that runs down past it."""

    pad_left: float
    pad_right: float
    width: float

    def fit(self, columns: Sequence[float], box_width: float) -> float | None:
        """The leftmost x of the label clear of ``columns`` (sorted), if any.

        >>> _Row(12, 12, 40).fit([30.0, 100.0], 200), _Row(12, 12, 40).fit([30.0], 90)
        (42.0, None)
        """
        for x in (self.pad_left, *(c + PADDING for c in columns)):
            if x + self.width > box_width - self.pad_right + 1e-9:
                return None
            if all(not x - PADDING < c < x + self.width + PADDING for c in columns):
                return x
        return None

    def room(self, columns: list[float], inner_x: float, box_width: float,
             interior_width: float) -> tuple[float, float, float]:
        """``(inner_x, box width, label x)``: the label in the row as it is, or else the
        interior moved right past it or the box widened for it right of the last column,
        whichever box is narrower.

        >>> _Row(12, 12, 40).room([62.0], 12.0, 124.0, 100.0)   # 12 + 40 + 12 = 64
        (14.0, 126.0, 12)
        """
        columns = sorted(columns)
        x = self.fit(columns, box_width)
        if x is not None:
            return inner_x, box_width, x
        shift = self.pad_left + self.width + PADDING - columns[0]
        moved = max(box_width, inner_x + shift + interior_width + self.pad_right)
        after = columns[-1] + PADDING
        widened = max(box_width, after + self.width + self.pad_right)
        if moved <= widened:
            return inner_x + shift, moved, self.pad_left
        return inner_x, widened, after
