"""The one defect model: the typed kinds every checker, repair and metric speaks of, where
each kind applies, and the record every contract checker returns.

Each :class:`ViolationKind` has a :class:`Scope` (:data:`SCOPE`): ``EVERY_ENGINE`` kinds
are read off any engine's drawing alone (the layered engine's, Graphviz's, ELK's,
grandalf's) and are what :mod:`layouts.quality` counts; ``LAYERED`` kinds are rules of
the layered engine's boundary-slot drawings (ends on the slot lattice of a face, leaving
it along the face's normal, the gateway tip rules, which edges it drew as loop-backs,
the placed ports of its own result): another engine's drawing is not built on that
lattice, so those rules do not apply to it. ``COMPOUND`` kinds are the hierarchy's
(:mod:`.hierarchy`: a child inside its parent's padding, an edge crossing each border
it must cross once, no route across a compound's label);
:func:`.hierarchy.check_parents` holds for every engine's compound drawing, but
:mod:`layouts.quality` reads drawings flat and does not count them.

>>> Violation(ViolationKind.CLEARANCE, "e", "n", "too close").kind.value
'clearance'
>>> SCOPE[ViolationKind.SHARED_STRETCH], SCOPE[ViolationKind.OFF_SLOT]
(<Scope.EVERY_ENGINE: 'every engine'>, <Scope.LAYERED: 'layered'>)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum, StrEnum

TOLERANCE = 0.5
"""Pixels of slack for point positions, overlaps and distances."""


class ViolationKind(StrEnum):
    OFF_SLOT = "off-slot"
    NOT_ORTHOGONAL = "not-orthogonal"
    BOUNDARY_ANGLE = "boundary-angle"
    SHARED_STRETCH = "shared-stretch"
    INTRUSION = "intrusion"
    OWN_INTRUSION = "own-intrusion"
    CLEARANCE = "clearance"
    GATEWAY_SOURCE_TIP = "gateway-source-tip"
    GATEWAY_TIP_ENTRY = "gateway-tip-entry"
    AGAINST_FLOW = "against-flow"
    NODE_OVERLAP = "node-overlap"
    LABEL_OVERLAP = "label-overlap"
    MISSING_ROUTE = "missing-route"
    OFF_PORT = "off-port"
    PORT_SIDE = "port-side"
    PORT_ORDER = "port-order"
    OFF_OUTLINE = "off-outline"
    LABEL_ASTRAY = "label-astray"
    OUTSIDE_PARENT = "outside-parent"
    BORDER_CROSSING = "border-crossing"
    COMPOUND_LABEL = "compound-label"


class Scope(Enum):
    """Which drawings a kind is checked on (see the module docstring)."""

    EVERY_ENGINE = "every engine"
    LAYERED = "layered"
    COMPOUND = "compound"


SCOPE: Mapping[ViolationKind, Scope] = {
    **{kind: Scope.EVERY_ENGINE for kind in (
        ViolationKind.NOT_ORTHOGONAL, ViolationKind.SHARED_STRETCH, ViolationKind.INTRUSION,
        ViolationKind.OWN_INTRUSION, ViolationKind.CLEARANCE, ViolationKind.NODE_OVERLAP,
        ViolationKind.LABEL_OVERLAP, ViolationKind.OFF_OUTLINE, ViolationKind.LABEL_ASTRAY)},
    **{kind: Scope.LAYERED for kind in (
        ViolationKind.OFF_SLOT, ViolationKind.BOUNDARY_ANGLE, ViolationKind.GATEWAY_SOURCE_TIP,
        ViolationKind.GATEWAY_TIP_ENTRY, ViolationKind.AGAINST_FLOW,
        ViolationKind.MISSING_ROUTE, ViolationKind.OFF_PORT, ViolationKind.PORT_SIDE,
        ViolationKind.PORT_ORDER)},
    ViolationKind.OUTSIDE_PARENT: Scope.COMPOUND,
    ViolationKind.BORDER_CROSSING: Scope.COMPOUND,
    ViolationKind.COMPOUND_LABEL: Scope.COMPOUND,
}
"""The scope of every kind."""

EVERY_ENGINE_KINDS = frozenset(k for k, s in SCOPE.items() if s is Scope.EVERY_ENGINE)
"""The kinds checked on any engine's drawing (and counted by :mod:`layouts.quality`)."""


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken contract: its kind, the edge and/or node at fault, and a message."""

    kind: ViolationKind
    edge: str | None
    node: str | None
    message: str


def count_kinds(violations: Iterable[Violation]) -> Counter[ViolationKind]:
    """How many violations of each kind.

    >>> count_kinds([Violation(ViolationKind.INTRUSION, "e", "n", ""),
    ...              Violation(ViolationKind.INTRUSION, "f", "n", "")])[ViolationKind.INTRUSION]
    2
    """
    return Counter(v.kind for v in violations)
