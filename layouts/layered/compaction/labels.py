"""Which edge labels sit nearer another route than their own: a reader would take such a
label for the other edge's. Compaction moves labels with a run of their own route, but a
neighbouring route may come closer; the step is undone when it misplaces a label that was
placed right before. The rule is the defect model's ``label-astray``
(:mod:`layouts.layered.contracts.labels`).

>>> from layouts.result import Box, EdgeRoute, Point
>>> own = EdgeRoute("a", "s", "t", (Point(0, 0), Point(0, 100)), label_box=Box(4, 40, 20, 10))
>>> misplaced([own, EdgeRoute("b", "s", "u", (Point(26, 0), Point(26, 100)))])
{'a'}
"""

from __future__ import annotations

from layouts.layered.contracts.labels import misplaced_labels as misplaced

__all__ = ["misplaced"]
