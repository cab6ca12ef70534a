"""A compound level's crossing minimisation leaves AFTER_ORDERING_SHARE of the level's
time to the steps after it (layouts/layered/hierarchy/level.py): a big level's ordering
at best effort used to take nearly all of it, and the layout ran past its budget."""

from __future__ import annotations

from typing import Any

import pytest

from layouts.graph import Edge, Graph, Node
from layouts.layered.hierarchy import level
from layouts.layered.model import Deadline
from layouts.layered.pipeline import StepRunner
from layouts.options import Effort, LayoutOptions


def test_ordering_stops_with_the_share_left_for_the_later_steps(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[float] = []
    real = level.ordering.run

    def spy(proper: Any, options: Any, deadline: Deadline) -> Any:
        # what ordering may use: the time until expired() turns true
        seen.append((deadline._soft_end - deadline._clock()) / deadline.remaining())
        return real(proper, options, deadline)

    monkeypatch.setattr(level.ordering, "run", spy)
    g = Graph(tuple(Node(n, 40, 20) for n in "abc"), (Edge("x", "a", "b"), Edge("y", "b", "c")))
    level.lay_out_level(g, frozenset(), frozenset(), LayoutOptions(effort=Effort.BEST),
                        StepRunner(Deadline(100.0)))
    assert level.AFTER_ORDERING_SHARE == 0.4
    assert len(seen) == 1 and seen[0] <= 0.6 + 1e-3     # 40 % of the time left is kept
