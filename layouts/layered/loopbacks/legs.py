"""The legs of a reversed edge (:class:`~layouts.layered.routing.legs.Leg`, sub-step 2 of
routing): out of its source's bottom into the channel below, to its corridor beside the
drawing or up its lane between the columns, and back in through the channel above its
target.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from layouts.layered.routing.legs import Leg


def corridor_legs(position: int, below: int, above: int, source_x: float, corridor_x: float,
                  target_x: float) -> list[Leg]:
    """The two legs of a reversed edge: out to the corridor below its source, back in
    above its target.

    >>> [(l.channel, l.start, l.end, l.ups, l.downs) for l in corridor_legs(3, 4, 1, 50, -20, 80)]
    [(4, 50, -20, (50, -20), ()), (1, -20, 80, (), (-20, 80))]
    """
    legs = [Leg(position, below, source_x, corridor_x, (source_x, corridor_x), ()),
            Leg(position, above, corridor_x, target_x, (), (corridor_x, target_x))]
    return [leg for leg in legs if leg.start != leg.end]   # none for an end on its side


def lane_legs(position: int, below: int, above: int, source_x: float,
              columns: Sequence[float], target_x: float) -> list[Leg]:
    """The legs of a reversed edge with a lane: out to the lane below its source (in
    channel ``below``), up the lane's ``columns`` (top to bottom, one per layer; channel
    ``above + 1 + i`` lies between ``columns[i]`` and ``columns[i + 1]``), back in above
    its target (channel ``above``).

    >>> legs = lane_legs(0, 4, 1, 50.0, (90.0, 90.0, 80.0), 60.0)
    >>> for leg in legs:
    ...     print(leg.channel, leg.start, leg.end, leg.ups, leg.downs)
    4 50.0 80.0 (50.0, 80.0) ()
    3 80.0 90.0 (90.0,) (80.0,)
    1 90.0 60.0 () (90.0, 60.0)
    """
    ups = [Leg(position, above + 1 + i, x1, x0, (x0,), (x1,))
           for i, (x0, x1) in reversed(list(enumerate(itertools.pairwise(columns))))
           if x0 != x1]
    out = [Leg(position, below, source_x, columns[-1], (source_x, columns[-1]), ())] \
        if source_x != columns[-1] else []     # no leg for an end on the lane's side
    out += ups
    if target_x != columns[0]:
        out.append(Leg(position, above, columns[0], target_x, (), (columns[0], target_x)))
    return out
