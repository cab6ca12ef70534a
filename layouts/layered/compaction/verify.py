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
The scan is done afresh over the moved positions, so it does not trust the constraints
the solver was given (a missed pair, a wrong shift): it costs one scan per pass instead
of a whole-drawing contract check. When it fails, :func:`layouts.layered.compaction.run`
falls back to the whole check, which decides.

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
from collections.abc import Sequence

from layouts.layered.compaction.constraints import Spacing, apart
from layouts.layered.compaction.scene import SAME, Scene, reach

EPSILON = 1e-6
"""Pixels a moved gap may fall short of its bound (the solver's rounding)."""


def kept_order(scene: Scene, shift: Sequence[float], spacing: Spacing) -> bool:
    """Whether moving each element ``i`` of ``scene`` by ``shift[i]`` keeps, on every
    line, the order of the elements that meet it and every neighbour pair of two units
    at least ``min(gap before, wanted)`` apart (an overlap of two units, which the drawing
    had before, must not deepen)."""
    low, high = scene.low, scene.high
    units = scene.units()
    table = spacing.table()
    moved = [(lo + d, hi + d, i) for i, (lo, hi, d) in enumerate(zip(low, high, shift,
                                                                     strict=True))]
    events = scene.events()
    active: list[tuple[float, float, int]] = []

    def holds(p: int, q: int) -> bool:
        if units[p] == units[q]:
            return True
        before = low[q] - high[p]
        now = moved[q][0] - moved[p][1]
        if before < -SAME:                             # they overlapped, or q was left of p
            return low[p] - high[q] <= SAME and now >= before - EPSILON
        if now >= before - EPSILON:
            return True                                # not nearer than before
        return now >= min(before, apart(scene, table, p, q)) - EPSILON

    for _, removal, i in events:
        key = moved[i]
        p = bisect_left(active, key)
        if removal:
            del active[p]
            if 0 < p < len(active) and not holds(active[p - 1][2], active[p][2]):
                return False
            continue
        active.insert(p, key)
        if p > 0 and not holds(active[p - 1][2], i):
            return False
        if p + 1 < len(active) and not holds(i, active[p + 1][2]):
            return False
    return True


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
