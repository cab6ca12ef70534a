"""Edge labels of the layered engine: each label box sits in a channel beside one of its
edge's own vertical segments: preferably in the channel just below the source, in its top
*zone* above the tracks, beside the first vertical (on the side the edge turns to); when
another edge's vertical would run through the box there (the middle branch of a
gateway's fan, a hub's crowded face), in the bottom zone below the tracks beside the
vertical that enters the next layer, then farther along the edge (beside a dummy's
vertical, or above the target), and last centred on one of those verticals
(:mod:`layouts.layered.routing.label_zones` picks the zone and side, and
:func:`layouts.layered.routing.geometry.label_requests` hands over the box's x). A
self-loop's label sits beside the loop in the node's own layer where the layer has room
(``LabelRequest.beside``), else in the channel below.

A channel holds no nodes, so a label placed there cannot overlap a node. The labels of one
zone of a channel are spread over rows by first-fit interval colouring in x order (each
label keeps its x next to its edge and takes the first row where it clears the previous
label by ``gap``); the channel then grows by the rows' height, which keeps labels apart
from each other and the channel's tracks.

>>> reqs = [LabelRequest(key=0, channel=1, x=10, width=50, height=14),
...         LabelRequest(key=1, channel=1, x=40, width=50, height=14),
...         LabelRequest(key=2, channel=1, x=70, width=20, height=14)]
>>> rows = arrange_labels(reqs, gap=4)
>>> rows.offsets        # label 1 starts at 40 < 10 + 50 + 4: second row (4 + 14 + 4 = 22)
{0: 4.0, 1: 22.0, 2: 4.0}
>>> rows.heights        # two rows of 14 with a 4 px gap before, between and after
{1: 40.0}
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from layouts.result import Box, NodeBox

LABEL_GAP = 4.0


@dataclass(frozen=True, slots=True)
class LabelRequest:
    """A label to place: ``key`` identifies its edge; ``x`` is its box's left side."""

    key: int
    channel: int
    x: float
    width: float
    height: float
    bottom: bool = False
    """In the channel's bottom zone (below its tracks) rather than its top zone."""
    beside: str | None = None
    """Not in a channel but in a layer, beside this node's self-loop: the box is centred
    on the node's height (:func:`label_box`), and takes no label row."""


@dataclass(frozen=True, slots=True)
class LabelRows:
    """Per label key, the offset of its box's top below its zone's top; per channel, the
    height the labels need at the top of the channel (``heights``) and at its bottom
    (``bottom_heights``)."""

    offsets: dict[int, float]
    heights: dict[int, float]
    bottom_heights: dict[int, float] = field(default_factory=dict)


class _FirstFit:
    """Rows of a channel for first-fit: a min-tree over each row's free-from x (``inf``
    for rows not opened yet), so the first row free at ``x`` is found in O(log n) instead
    of by scanning every row (thousands of stacked labels made that quadratic)."""

    def __init__(self, capacity: int) -> None:
        self.size = 1 << max(0, capacity - 1).bit_length()
        self.tree = [math.inf] * (2 * self.size)
        self.opened = 0

    def first_free(self, x: float) -> int:
        """The lowest row whose free-from x is at most ``x``; rows not yet opened are
        free from ``inf``, so with none free this is the next row to open."""
        node = 1
        if self.tree[node] > x:
            return self.opened
        while node < self.size:
            node = 2 * node if self.tree[2 * node] <= x else 2 * node + 1
        return node - self.size

    def occupy(self, row: int, free_from: float) -> None:
        self.opened = max(self.opened, row + 1)
        node = row + self.size
        self.tree[node] = free_from
        while node > 1:
            node //= 2
            self.tree[node] = min(self.tree[2 * node], self.tree[2 * node + 1])


def _rows_of_channel(requests: Sequence[LabelRequest], gap: float) -> list[int]:
    order = sorted(range(len(requests)), key=lambda i: (requests[i].x, requests[i].key))
    rows_tree = _FirstFit(len(requests))
    rows = [0] * len(requests)
    for i in order:
        r = requests[i]
        row = rows_tree.first_free(r.x)
        rows_tree.occupy(row, r.x + r.width + gap)
        rows[i] = row
    return rows


def arrange_labels(requests: Sequence[LabelRequest], gap: float = LABEL_GAP) -> LabelRows:
    """Assign every label a row in its channel; see the module example."""
    by_zone: dict[tuple[int, bool], list[LabelRequest]] = defaultdict(list)
    for request in requests:
        if request.beside is None:
            by_zone[(request.channel, request.bottom)].append(request)
    offsets: dict[int, float] = {}
    heights: dict[int, float] = {}
    bottom_heights: dict[int, float] = {}
    for channel, bottom in sorted(by_zone):
        group = by_zone[(channel, bottom)]
        row_height = float(max(r.height for r in group))
        rows = _rows_of_channel(group, gap)
        for request, row in zip(group, rows, strict=True):
            offsets[request.key] = float(gap) + row * (row_height + gap)
        (bottom_heights if bottom else heights)[channel] = \
            float(gap) + (max(rows) + 1) * (row_height + gap)
    return LabelRows(offsets, heights, bottom_heights)


def label_box(request: LabelRequest, channel_top: float, rows: LabelRows,
              channel_bottom: float = 0.0, node: NodeBox | None = None) -> Box:
    """The final box of a label once its channel's top (and, for the bottom zone, its
    bottom) is known; beside a self-loop, centred on the height of ``node`` (the final
    box of ``request.beside``).

    >>> r = LabelRequest(key=3, channel=2, x=5, width=30, height=10)
    >>> label_box(r, 100.0, LabelRows({3: 4.0}, {2: 18.0}))
    Box(x=5, y=104.0, width=30, height=10)
    >>> low = LabelRequest(key=3, channel=2, x=5, width=30, height=10, bottom=True)
    >>> label_box(low, 100.0, LabelRows({3: 4.0}, {}, {2: 18.0}), 200.0)   # 200 - 18 + 4
    Box(x=5, y=186.0, width=30, height=10)
    >>> loop = LabelRequest(key=3, channel=2, x=5, width=30, height=10, beside="n")
    >>> label_box(loop, 100.0, LabelRows({}, {}), 200.0, NodeBox("n", 0, 40, 1, 30))  # 40 + 10
    Box(x=5, y=50.0, width=30, height=10)
    """
    if request.beside is not None:
        assert node is not None
        return Box(request.x, node.y + (node.height - request.height) / 2, request.width,
                   request.height)
    top = channel_bottom - rows.bottom_heights[request.channel] if request.bottom \
        else channel_top
    return Box(request.x, top + rows.offsets[request.key], request.width, request.height)
