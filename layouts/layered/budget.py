"""How the layered engine keeps its time budget: a cost model of the steps a layout cannot
do without, so the optimising steps stop in time to leave room for them, the optional
steps after ordering run only when they fit, and the pipeline falls back to the
:mod:`.staircase` layout when even the steps it cannot do without would not fit.

The model is linear in the graph's size: CPU seconds per *item* (a node or an edge of the
input; for the steps after dummy chains, a node or a segment of the proper graph),
measured step by step at 1,000 and 5,000 nodes on the 2-core machine the service runs on
and rounded up. Another machine, or a busy one, is slower than that, so the pipeline
measures the steps it has done against the model (:meth:`CostModel.slowdown`) and
scales every later estimate by the ratio. Only the reserve held back for later steps and
the choice of what to skip depend on the model; a wrong estimate costs quality, never
the budget by much, since the staircase layout is the last check's answer.

After ordering, placement (Brandes-Koepf) and routing are needed; three steps are not
(:class:`Extra`): the side-face *elbows* routing chooses for ends whose route turns past
their node, the *fans* of gateways, and *compaction*. Each runs only when the model
says it fits in the time left (:meth:`CostModel.affords`). (Packing each layer from the
left instead of Brandes-Koepf saves less than it costs: at 5,000 nodes it saves 0.2 s
of placement and routing its bends takes 0.2 s longer, so the flat pipeline never packs;
compound levels still may, through :class:`Plan`.)

>>> COSTS.pipeline(10) < 0.01, COSTS.pipeline(11_000) > COSTS.staircase(11_000)
(True, True)
>>> [Plan.for_remaining(s, COSTS, 10_000, 30_000).value for s in (2.0, 1.0, 0.5)]
['full', 'quick', 'staircase']
>>> [COSTS.affords(Extra.COMPACTION, 20_000, s) for s in (0.5, 1.0)]
[False, True]
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from layouts.layered.model import Deadline, Routing

__all__ = ["COSTS", "CostModel", "Extra", "OutOfTimeError", "Plan", "Redraws"]

T = TypeVar("T")

MAX_SLOWDOWN = 8.0
"""The most a measured slowdown counts for: beyond it a hiccup (a page fault storm, a
swap-in) would stop every later optional step for one slow moment."""

NOISE_SECONDS = 0.02
"""Steps the model puts under this many seconds in total are too short to time: their
slowdown counts as 1."""


class Extra(StrEnum):
    """The optional steps after ordering, in the order they run."""

    ELBOWS = "elbows"
    FANS = "fans"
    COMPACTION = "compaction"


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
    """Routing without its optional repairs and elbows, with export, per proper item."""
    staircase_per_item: float
    """The staircase layout with export, per input item."""
    proper_per_item: float
    """Proper items per input item, before dummy chains are known (an upper estimate)."""
    elbows_per_item: float = 10e-6
    """What choosing side-face elbows adds to routing, per proper item."""
    fans_per_item: float = 8e-6
    """Fanning gateways' and joins' ends, per proper item."""
    compaction_per_item: float = 30e-6
    """Compaction with its checks, per proper item."""
    finish_per_item: float = 1e-6
    """Undoing cycle breaking, restoring the frame and exporting, per proper item."""
    check_per_item: float = 60e-6
    """The whole route-contract check (:func:`~layouts.layered.contracts.check_layout`)
    of a drawing, per node and edge (28 us at 1,000 nodes, 39 us at 2,000: it grows a
    little faster than the drawing)."""

    def speed(self, seconds: float, items: int) -> float:
        """How much slower than the model the front steps ran (``seconds`` for an input
        of ``items``), between 1 and :data:`MAX_SLOWDOWN`; 1 for tiny inputs, whose
        timings are noise.

        >>> COSTS.speed(0.2, 10_000), COSTS.speed(10.0, 10_000), COSTS.speed(1.0, 100)
        (2.0, 8.0, 1.0)
        """
        expected = self.front_per_item * items
        if items < 500 or expected <= 0:
            return 1.0
        return min(MAX_SLOWDOWN, max(1.0, seconds / expected))

    @staticmethod
    def slowdown(measured: float, modelled: float) -> float:
        """How much slower than the model steps ran that it puts at ``modelled`` seconds
        and that took ``measured``: between 1 and :data:`MAX_SLOWDOWN`; 1 when they are
        too short to time (:data:`NOISE_SECONDS`).

        >>> CostModel.slowdown(0.9, 0.3), CostModel.slowdown(0.1, 0.3)
        (3.0, 1.0)
        >>> CostModel.slowdown(9.0, 0.3), CostModel.slowdown(0.05, 0.01)
        (8.0, 1.0)
        """
        if modelled < NOISE_SECONDS:
            return 1.0
        return min(MAX_SLOWDOWN, max(1.0, measured / modelled))

    def staircase(self, items: int, speed: float = 1.0) -> float:
        return self.staircase_per_item * items * speed

    def after_ordering(self, proper_items: int, *, quick: bool = False,
                       speed: float = 1.0) -> float:
        """Placement and routing of a proper graph of ``proper_items``."""
        placement = self.quick_placement_per_item if quick else self.placement_per_item
        return (placement + self.routing_per_item) * proper_items * speed

    def after_layering(self, items: int, proper_items: int, speed: float = 1.0, *,
                       quick: bool = True) -> float:
        """Dummy chains, a minimal ordering, placement (packed when ``quick``) and
        routing."""
        return (self.front_per_item * items / 2 + self.ordering_per_item * proper_items) \
            * speed + self.after_ordering(proper_items, quick=quick, speed=speed)

    def pipeline(self, items: int, *, quick: bool = True) -> float:
        """The whole pipeline with every optimisation cut short, before anything is
        known but the input's size (with packed placement when ``quick``)."""
        return self.front_per_item * items + self.after_layering(
            items, round(self.proper_per_item * items), quick=quick)

    def extra(self, step: Extra, proper_items: int, speed: float = 1.0) -> float:
        """Seconds the optional ``step`` takes on a proper graph of ``proper_items``.

        >>> round(COSTS.extra(Extra.FANS, 10_000), 6)
        0.08
        """
        per_item = {Extra.ELBOWS: self.elbows_per_item, Extra.FANS: self.fans_per_item,
                    Extra.COMPACTION: self.compaction_per_item}[step]
        return per_item * proper_items * speed

    def affords(self, step: Extra, proper_items: int, remaining: float,
                speed: float = 1.0) -> bool:
        """Whether ``remaining`` seconds pay for the optional ``step`` and for what must
        still follow it: routing itself after the elbows (which are chosen inside it),
        the finish after every step.

        >>> COSTS.affords(Extra.ELBOWS, 10_000, 0.3), COSTS.affords(Extra.ELBOWS, 10_000, 0.5)
        (False, True)
        """
        after = self.finish_per_item + (self.routing_per_item if step is Extra.ELBOWS
                                        else 0.0)
        return self.extra(step, proper_items, speed) + after * proper_items * speed \
            <= remaining

    def contract_check(self, drawing: Routing) -> float:
        """Seconds compaction's fallback check takes: the whole contract check of the
        drawing before it and after it (:func:`layouts.layered.compaction.run`).

        >>> from layouts.result import NodeBox
        >>> round(COSTS.contract_check(Routing((NodeBox("a", 0, 0, 9, 9),) * 500, (), 9, 9)), 6)
        0.06
        """
        return 2 * self.check_per_item * (len(drawing.nodes) + len(drawing.edges))

    def carry_on(self, remaining: float, items: int, proper_items: int,
                 speed: float = 1.0) -> bool:
        """Whether placement and routing of ``proper_items`` should go on with
        ``remaining`` seconds left: when they fit, or when the staircase layout of the
        input's ``items`` would take no less.

        >>> COSTS.carry_on(1.0, 10_000, 20_000), COSTS.carry_on(0.5, 10_000, 20_000)
        (True, False)
        """
        needed = self.after_ordering(proper_items, speed=speed)
        return needed <= remaining or needed <= self.staircase(items, speed)


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
    """What the rest of a compound level's layout can afford
    (:mod:`.hierarchy.level`)."""

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


class Redraws:
    """The rule every second-chance drawing of one graph follows (label ranks, the greedy
    cycle entry, ``best``'s search): draw again only while the budget is not exhausted
    and the time left is at least ``factor`` times what the latest drawing took, since
    another drawing of the same graph costs about as much.

    >>> redraws = Redraws(Deadline(60))
    >>> redraws.draw(lambda: "first")
    'first'
    >>> redraws.affords_another(), redraws.affords_another(factor=1e9)
    (True, False)
    >>> spent = Redraws(Deadline(60))
    >>> spent.deadline.exhausted = True   # a step ran out: no more drawings
    >>> spent.affords_another()
    False
    """

    def __init__(self, deadline: Deadline) -> None:
        self.deadline = deadline
        self.latest = 0.0
        """Seconds the latest :meth:`draw` took."""

    def draw(self, drawing: Callable[[], T]) -> T:
        """``drawing()``, timed."""
        started = time.perf_counter()
        result = drawing()
        self.latest = time.perf_counter() - started
        return result

    def affords_another(self, factor: float = 1.0) -> bool:
        """Whether the time left pays for ``factor`` drawings like the latest one."""
        return not self.deadline.exhausted and \
            self.deadline.remaining() >= factor * self.latest


class OutOfTimeError(Exception):
    """Raised by the pipeline's steps when the rest of the layered pipeline cannot fit
    in the budget and the staircase layout can; the pipeline catches it."""
