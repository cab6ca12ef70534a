"""The check of a compaction pass against its own promise, on the moved drawing: on every
line across the axis, the elements keep their order, and two neighbours of different
units stay at least ``min(gap before, wanted spacing)`` apart (as :mod:`.constraints`
asks of every pair of neighbours); and every label stays as near its own route as before.

Everything a route contract (:mod:`layouts.layered.contracts`) looks at meets some such
line: a node's box grown by the clearance, the runs of every route (the segments along
the axis run between two runs on one line), the labels grown by their reach. So a pass
that keeps this promise breaks no contract the drawing kept before it and leaves every
label nearer its own edge than any other: a segment can only reach a node, a label or
another segment by coming closer to it on a common line, or by changing sides there.
The check looks at the moved positions themselves, so it does not trust the solver (a
wrong shift, an arc lost on the way). It needs each line's neighbours, and those are the
pairs that are ever neighbours on a line *before* the move, when each of them keeps its
order: the scan that generated the constraints records them (:func:`.constraints.slacks`),
so the check is one pass over those pairs instead of a second scan (:func:`line_neighbours`
is that scan, and the tests hold the two to each other and to a fresh scan of the moved
drawing). :func:`attached_kept` checks the compacted drawing once more: every route end
and every port moved exactly as its node did. When a check fails,
:func:`layouts.layered.compaction.run` falls back to the whole contract check, which
decides.

>>> from layouts.layered.compaction.constraints import Spacing
>>> from layouts.layered.compaction.scene import Kind, Scene
>>> scene = Scene()
>>> _ = scene.add(Kind.NODE, 0, 100, 0, 40)
>>> _ = scene.add(Kind.NODE, 200, 300, 0, 40)
>>> spacing = Spacing(node=40, mixed=26, run=12, label=12)
>>> kept_order(scene, [0.0, -60.0], spacing), kept_order(scene, [0.0, -70.0], spacing)
(True, False)
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence

from layouts.layered.compaction.constraints import Spacing, apart
from layouts.layered.compaction.drawing import Drawing
from layouts.layered.compaction.scene import SAME, Scene, reach

EPSILON = 1e-6
"""Pixels a moved gap may fall short of its bound (the solver's rounding)."""


def kept_order(scene: Scene, shift: Sequence[float], spacing: Spacing,
               neighbours: Iterable[tuple[int, int]] | None = None) -> bool:
    """Whether moving each element ``i`` of ``scene`` by ``shift[i]`` keeps, on every
    line, the order of the elements that meet it and every neighbour pair of two units
    at least ``min(gap before, wanted)`` apart (an overlap of two units, which the drawing
    had before, must not deepen). ``neighbours``: every pair of elements that are ever
    neighbours on a line before the move (left one first), as the constraint scan
    recorded them (:func:`.constraints.slacks`); by default :func:`line_neighbours`.

    The pairs suffice: when each of them keeps its order, every line keeps its whole
    order (a line's order is fixed by its neighbours, one pair at a time), so its
    neighbours after the move are the pairs it had before, each checked here."""
    low, high = scene.low, scene.high
    units = scene.units()
    table = spacing.table()
    for p, q in line_neighbours(scene) if neighbours is None else neighbours:
        dp, dq = shift[p], shift[q]
        low_p, high_p, low_q, high_q = low[p] + dp, high[p] + dp, low[q] + dq, high[q] + dq
        # (low_p, high_p, p) >= (low_q, high_q, q), without building the tuples
        if low_p > low_q or (low_p == low_q and (high_p > high_q or
                                                 (high_p == high_q and p >= q))):
            return False                               # the pair changed places
        if units[p] == units[q]:
            continue
        before = low[q] - high[p]
        now = low_q - high_p
        if before < -SAME:                             # they overlapped
            if not (low[p] - high[q] <= SAME and now >= before - EPSILON):
                return False
        elif now < before - EPSILON and now < min(before, apart(scene, table, p, q)) - EPSILON:
            return False
    return True


def line_neighbours(scene: Scene) -> list[tuple[int, int]]:
    """Every pair of elements of ``scene`` that are neighbours on some line across the
    axis (left one first), once each, by a scan of the drawing as it is.

    >>> from layouts.layered.compaction.scene import Kind
    >>> scene = Scene()
    >>> for low, start, end in ((0, 0, 10), (20, 0, 30), (40, 20, 30)):
    ...     _ = scene.add(Kind.RUN, low, low, start, end)
    >>> line_neighbours(scene)    # 0 and 2 share no line; 1 lies between them on y 20..30
    [(0, 1), (1, 2)]
    """
    keys = list(zip(scene.low, scene.high, range(len(scene)), strict=True))
    active: list[tuple[float, float, int]] = []
    pairs: dict[tuple[int, int], None] = {}
    for _, removal, i in scene.events():
        p = bisect_left(active, keys[i])
        if removal:
            del active[p]
            if 0 < p < len(active):
                pairs[(active[p - 1][2], active[p][2])] = None
            continue
        active.insert(p, keys[i])
        if p:
            pairs[(active[p - 1][2], i)] = None
        if p + 1 < len(active):
            pairs[(i, active[p + 1][2])] = None
    return list(pairs)


def labels_kept(scene: Scene, points: Sequence[Sequence[Sequence[float]]],
                labels: Sequence[Sequence[float] | None], axis: int) -> bool:
    """Whether every label of ``scene`` is, in the moved drawing (``points`` and
    ``labels`` of a :class:`~.drawing.Drawing` along ``axis``), no farther from its own
    route than its ``reach`` before the pass."""
    for label in scene.label_of:
        if label < 0:
            continue
        route = scene.owner[label]
        box = labels[route]
        assert box is not None
        u0, v0 = box[axis], box[1 - axis]
        now = reach(points[route][axis], points[route][1 - axis], u0, v0,
                    u0 + box[2 + axis], v0 + box[3 - axis])
        if now > scene.reach[label] + EPSILON:
            return False
    return True


def attached_kept(drawing: Drawing) -> bool:
    """Whether, in the moved ``drawing``, every route end and every port part (box and
    labels) moved exactly as its node did (to :data:`EPSILON`): then each end is still on
    its slot, its outline and its port's point, and each port on its side, in its order
    and at its place on the node (the port contracts,
    :mod:`layouts.layered.contracts.ports`, hold where they held).

    >>> from layouts.layered.model import Routing
    >>> from layouts.result import EdgeRoute, NodeBox, Point, PortBox, Side
    >>> a, b = NodeBox("a", 0, 0, 100, 40), NodeBox("b", 0, 100, 100, 40)
    >>> e = EdgeRoute("e", "a", "b", (Point(50, 40), Point(50, 100)))
    >>> d = Drawing.of(Routing((a, b), (e,), 100, 140, (PortBox("p", "a", 50, 40),)))
    >>> d.shift_node(1, 1, -30.0); attached_kept(d)       # b moved, its end did not
    False
    >>> d.points[0][1][1] -= 30.0; attached_kept(d)
    True
    >>> d.port_parts[0][0][0] += 5.0; attached_kept(d)    # p slid along a's face
    False
    """
    def moved(i: int) -> tuple[float, float]:
        box, node = drawing.boxes[i], drawing.nodes[i]
        return box[0] - node.x, box[1] - node.y

    def same(a: tuple[float, float], b: tuple[float, float]) -> bool:
        return abs(a[0] - b[0]) <= EPSILON and abs(a[1] - b[1]) <= EPSILON

    index = drawing.node_index
    for route, (xs, ys) in zip(drawing.edges, drawing.points, strict=True):
        if not xs:
            continue
        for node_id, k in ((route.source, 0), (route.target, -1)):
            i = index.get(node_id)
            start = route.points[k]
            if i is not None and not same((xs[k] - start.x, ys[k] - start.y), moved(i)):
                return False
    for port, node, parts in zip(drawing.ports, drawing.port_nodes, drawing.port_parts,
                                 strict=True):
        if node < 0:
            continue
        before = [[port.x, port.y], *([b.x, b.y] for b in (
            *(() if port.label_box is None else (port.label_box,)), *port.extra_label_boxes))]
        shift = moved(node)
        if any(not same((part[0] - old[0], part[1] - old[1]), shift)
               for part, old in zip(parts, before, strict=True)):
            return False
    return True
