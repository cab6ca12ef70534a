"""How the layered engine keeps its time budget: a cost model of the steps a layout cannot
do without, so the optimising steps stop in time to leave room for them, and the
pipeline falls back to cheaper versions, or to the :mod:`.staircase` layout, when even
those would not fit.

The model is linear in the graph's size: CPU seconds per *item* (a node or an edge of the
input; for the steps after dummy chains, a node or a segment of the proper graph),
measured step by step at 1,000 and 5,000 nodes on the 2-core machine the service runs on
and rounded up. A busy machine is slower than that, so the pipeline measures the first
steps' wall time against the model (:meth:`CostModel.speed`) and scales every later
estimate by the ratio. Only the reserve held back for later steps and the choice of
fallbacks depend on the model; a wrong estimate costs quality, never the budget by
much, since the staircase layout is the last check's answer.

>>> COSTS.pipeline(10) < 0.01, COSTS.pipeline(11_000) > COSTS.staircase(11_000)
(True, True)
>>> [Plan.for_remaining(s, COSTS, 10_000, 30_000).value for s in (2.0, 1.0, 0.5)]
['full', 'quick', 'staircase']
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["COSTS", "CostModel", "OutOfTimeError", "Plan"]


@dataclass(frozen=True, slots=True)
class CostModel:
    """Seconds per item of each step (see the module docstring)."""

    front_per_item: float
    """Import, cycle breaking, longest-path ranks and dummy chains, per input item."""
    ordering_per_item: float
    """The initial order and one sweep, per proper item."""
    quick_placement_per_item: float
    """Packed placement, per proper item."""
    placement_per_item: float
    """Brandes-Koepf placement, per proper item."""
    routing_per_item: float
    """Routing without its optional repairs, with export, per proper item."""
    staircase_per_item: float
    """The staircase layout with export, per input item."""
    proper_per_item: float
    """Proper items per input item, before dummy chains are known (an upper estimate)."""

    def speed(self, seconds: float, items: int) -> float:
        """How much slower than the model the front steps ran (``seconds`` for an input
        of ``items``), between 1 and 4; 1 for tiny inputs, whose timings are noise.

        >>> COSTS.speed(0.2, 10_000), COSTS.speed(10.0, 10_000), COSTS.speed(1.0, 100)
        (2.0, 4.0, 1.0)
        """
        expected = self.front_per_item * items
        if items < 500 or expected <= 0:
            return 1.0
        return min(4.0, max(1.0, seconds / expected))

    def staircase(self, items: int, speed: float = 1.0) -> float:
        return self.staircase_per_item * items * speed

    def after_ordering(self, proper_items: int, *, quick: bool = False,
                       speed: float = 1.0) -> float:
        """Placement and routing of a proper graph of ``proper_items``."""
        placement = self.quick_placement_per_item if quick else self.placement_per_item
        return (placement + self.routing_per_item) * proper_items * speed

    def after_layering(self, items: int, proper_items: int, speed: float = 1.0) -> float:
        """Dummy chains, a minimal ordering, quick placement and routing."""
        return (self.front_per_item * items / 2 + self.ordering_per_item * proper_items) \
            * speed + self.after_ordering(proper_items, quick=True, speed=speed)

    def pipeline(self, items: int) -> float:
        """The whole pipeline with every optimisation cut short, before anything is
        known but the input's size."""
        return self.front_per_item * items + self.after_layering(
            items, round(self.proper_per_item * items))


COSTS = CostModel(
    front_per_item=10e-6,
    ordering_per_item=5e-6,
    quick_placement_per_item=2.5e-6,
    placement_per_item=15e-6,
    routing_per_item=28e-6,
    staircase_per_item=16e-6,
    proper_per_item=2.0,
)


class Plan(StrEnum):
    """What the rest of a layout can afford."""

    FULL = "full"
    QUICK = "quick"
    STAIRCASE = "staircase"

    @classmethod
    def for_remaining(cls, remaining: float, costs: CostModel, items: int,
                      proper_items: int, speed: float = 1.0) -> Plan:
        """The plan for placement and routing with ``remaining`` seconds left: Brandes-
        Koepf when it fits, packed placement when that fits, else the staircase layout
        when it is cheaper (an input of ``items``) than carrying on regardless.

        >>> Plan.for_remaining(0.7, COSTS, 10_000, 20_000)
        <Plan.QUICK: 'quick'>
        """
        if costs.after_ordering(proper_items, speed=speed) <= remaining:
            return cls.FULL
        quick = costs.after_ordering(proper_items, quick=True, speed=speed)
        if quick <= remaining or quick <= costs.staircase(items, speed):
            return cls.QUICK
        return cls.STAIRCASE


class OutOfTimeError(Exception):
    """Raised by the pipeline's steps when the rest of the layered pipeline cannot fit
    in the budget and the staircase layout can; the pipeline catches it."""
