"""Separation constraints between the elements of a :class:`~.scene.Scene`, by a scan
along y (the constraint generation of Dwyer, Marriott and Stuckey, "Fast node overlap
removal", GD 2005, and of ELK's scanline constraint calculation).

The scan keeps the elements that meet the current horizontal line in x order. Two
elements that are ever neighbours on that line get a constraint: the left one stays left
of the right one, at least ``min(gap, spacing)`` apart, where ``gap`` is their distance
now and ``spacing`` the wanted distance for their kinds (so compaction never widens a gap
and never narrows one below its spacing). Neighbours whose x intervals overlap (or touch)
are joined into one rigid unit instead. A second scan over the nodes alone keeps the
node spacing between two nodes that meet on a line even when runs lie between them.
Because every pair of neighbours on every line is ordered, the left-to-right order of
everything on every horizontal line is kept: no crossing, intrusion or overlap can
appear, and every horizontal segment keeps its direction.

>>> from layouts.layered.compaction.scene import Kind, Scene
>>> scene = Scene()
>>> _ = scene.add(Kind.RUN, 0, 0, 0, 10)
>>> _ = scene.add(Kind.RUN, 50, 50, 5, 20)
>>> _ = scene.add(Kind.RUN, 90, 90, 30, 40)     # meets neither on any line
>>> separations(scene, Spacing(node=40, mixed=26, run=12, label=12))
[Separation(left=0, right=1, gap=50, spacing=12)]
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from layouts.layered.compaction.scene import SAME, Kind, Scene

LABEL_MARGIN = 0.5
"""How much farther than a label's own route another route must stay."""


@dataclass(frozen=True, slots=True)
class Spacing:
    """Wanted distance between two elements by kinds: two nodes, a node and a run, two
    runs, and anything beside a label."""

    node: float
    mixed: float
    run: float
    label: float

    def between(self, a: Kind, b: Kind) -> float:
        if a is Kind.LABEL or b is Kind.LABEL:
            return self.label
        if a is Kind.NODE and b is Kind.NODE:
            return self.node
        if a is Kind.NODE or b is Kind.NODE:
            return self.mixed
        return self.run

    def table(self) -> dict[tuple[Kind, Kind], float]:
        """:meth:`between` for every pair of kinds."""
        return {(a, b): self.between(a, b) for a in Kind for b in Kind}


def apart(scene: Scene, table: dict[tuple[Kind, Kind], float], left: int, right: int
          ) -> float:
    """The wanted distance between elements ``left`` and ``right`` of ``scene`` (``table``:
    :meth:`Spacing.table`): by their kinds, and beyond a label's reach for another
    route's elements (the label stays nearest its own edge)."""
    wanted = table[(scene.kind[left], scene.kind[right])]
    reach = scene.reach
    if (reach[left] or reach[right]) and scene.owner[left] != scene.owner[right]:
        return max(wanted, reach[left] + LABEL_MARGIN, reach[right] + LABEL_MARGIN)
    return wanted


class Separation(NamedTuple):
    """Element ``left`` stays at least ``min(gap, spacing)`` left of element ``right``."""

    left: int
    right: int
    gap: float
    spacing: float

    @property
    def slack(self) -> float:
        """How far the two may close up: ``gap - min(gap, spacing)`` (never negative)."""
        return max(0.0, self.gap - self.spacing)


def separations(scene: Scene, spacing: Spacing, only: Sequence[int] | None = None
                ) -> list[Separation]:
    """The constraints of ``scene`` (of its elements ``only``, when given: the scan then
    sees nothing else); joins neighbours whose extents along the axis overlap or touch
    into one unit."""
    table = spacing.table()
    low, high = scene.low, scene.high
    return [Separation(left, right, low[right] - high[left], apart(scene, table, left, right))
            for left, right in sorted(_neighbours(scene, only))]


def slacks(scene: Scene, spacing: Spacing, only: Sequence[int] | None = None,
           joined: list[tuple[int, int]] | None = None) -> dict[tuple[int, int], float]:
    """:func:`separations` as ``(left, right)``: :attr:`Separation.slack`, in the order
    the scan meets them (the solver's input, without a record per constraint). The
    pairs of neighbours the scan joined into one unit are added to ``joined`` when
    given: with the keys of the result, they are every pair of elements that are ever
    neighbours on a line (what :func:`.verify.kept_order` checks)."""
    table = spacing.table()
    low, high, kind, reach, owner = scene.low, scene.high, scene.kind, scene.reach, scene.owner
    found: dict[tuple[int, int], float] = {}
    for pair in _neighbours(scene, only, joined):
        left, right = pair
        wanted = table[(kind[left], kind[right])]
        if (reach[left] or reach[right]) and owner[left] != owner[right]:
            wanted = max(wanted, reach[left] + LABEL_MARGIN, reach[right] + LABEL_MARGIN)
        found[pair] = max(0.0, low[right] - high[left] - wanted)
    return found


def _neighbours(scene: Scene, only: Sequence[int] | None,
                joined: list[tuple[int, int]] | None = None) -> dict[tuple[int, int], None]:
    """Every pair of elements that are ever neighbours on a line and apart there (left
    one first), once each in the order the scan meets them; joins the others (and
    adds them to ``joined``, when given)."""
    low, high = scene.low, scene.high
    events = scene.events(only)
    keys = list(zip(low, high, range(len(low)), strict=True))
    active: list[tuple[float, float, int]] = []
    found: dict[tuple[int, int], None] = {}
    insert = active.insert
    scene_join = scene.join

    def join(left: int, right: int) -> None:
        scene_join(left, right)
        if joined is not None:
            joined.append((left, right))

    for _, removal, i in events:
        key = keys[i]
        p = bisect_left(active, key)
        if removal:
            del active[p]
            if 0 < p < len(active):
                left, right = active[p - 1][2], active[p][2]
                if high[left] >= low[right] - SAME:
                    join(left, right)
                else:
                    found[(left, right)] = None
            continue
        insert(p, key)
        if p:
            left = active[p - 1][2]
            if high[left] >= low[i] - SAME:
                join(left, i)
            else:
                found[(left, i)] = None
        if p + 1 < len(active):
            right = active[p + 1][2]
            if high[i] >= low[right] - SAME:
                join(i, right)
            else:
                found[(i, right)] = None
    return found
