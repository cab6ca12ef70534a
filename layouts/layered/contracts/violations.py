"""The typed record every contract checker returns.

>>> Violation(ViolationKind.CLEARANCE, "e", "n", "too close").kind.value
'clearance'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

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


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken contract: its kind, the edge and/or node at fault, and a message."""

    kind: ViolationKind
    edge: str | None
    node: str | None
    message: str
