"""The rule that decides whether a diamond's face is fanned (:mod:`layouts.layered.fans`),
one predicate over its ends, which :mod:`layouts.layered.routing.elbows` also plans by
before the routes exist (so an end leaves a face for a side face only where the face
will not be fanned anyway)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FanEnd:
    """What decides whether a diamond's face is fanned, for one end on it: ``plain``,
    a forward edge's end whose route runs straight off the face (away from the node);
    ``at_tip``, it leaves from (enters at) the tip already; ``turns``, right after that
    straight run it turns along a channel track (rather than running straight on to
    the other node, or turning into its side face)."""

    plain: bool
    at_tip: bool
    turns: bool


def fannable(ends: Sequence[FanEnd]) -> bool:
    """Whether a face with ``ends`` is fanned: at least two ends, every one plain and at
    the tip or turning along a track, and at least one off the tip (the one rule
    :mod:`layouts.layered.routing.elbows` also plans by, before the routes exist).

    >>> fannable([FanEnd(True, False, True), FanEnd(True, True, False)])
    True
    >>> fannable([FanEnd(True, False, True), FanEnd(False, False, True)])   # a loop-back
    False
    """
    return len(ends) >= 2 and all(e.plain and (e.at_tip or e.turns) for e in ends) and \
        any(not e.at_tip for e in ends)
