"""Checks on boxes: no two nodes overlap, no label box overlaps a node or a label."""

from __future__ import annotations

from collections.abc import Sequence

from layouts.layered.contracts.violations import TOLERANCE, Violation, ViolationKind
from layouts.result import LayoutResult, NodeBox


def check_node_overlaps(boxes: Sequence[NodeBox]) -> list[Violation]:
    """No two node boxes overlap by more than :data:`TOLERANCE` (sweep over x)."""
    order = sorted(boxes, key=lambda n: (n.x, n.id))
    active: list[NodeBox] = []
    out = []
    seen: set[tuple[str, str]] = set()
    for n in order:
        active = [a for a in active if a.x + a.width > n.x + TOLERANCE]
        for a in active:
            if a.y < n.y + n.height - TOLERANCE and n.y < a.y + a.height - TOLERANCE:
                key = (min(a.id, n.id), max(a.id, n.id))
                if key not in seen:
                    seen.add(key)
                    out.append(Violation(ViolationKind.NODE_OVERLAP, None, key[0],
                                         f"nodes '{key[0]}' and '{key[1]}' overlap"))
        active.append(n)
    return out


def check_label_overlaps(result: LayoutResult) -> list[Violation]:
    """No label box overlaps a node box or another label box (sweep over x)."""
    items: list[tuple[float, float, float, float, str, str]] = [
        (n.x, n.y, n.width, n.height, "node", n.id) for n in result.nodes]
    items += [(b.x, b.y, b.width, b.height, "label", r.id) for r in result.edges
              if (b := r.label_box) is not None]
    items.sort(key=lambda i: (i[0], i[4], i[5]))
    active: list[tuple[float, float, float, float, str, str]] = []
    out = []
    for item in items:
        x, y, _, h, kind, _ = item
        active = [a for a in active if a[0] + a[2] > x + TOLERANCE]
        for a in active:
            if "label" in (kind, a[4]) and a[1] < y + h - TOLERANCE and y < a[1] + a[3] - TOLERANCE:
                label, other = (item, a) if kind == "label" else (a, item)
                out.append(Violation(ViolationKind.LABEL_OVERLAP, label[5],
                                     other[5] if other[4] == "node" else None,
                                     f"label of '{label[5]}' overlaps {other[4]} '{other[5]}'"))
        active.append(item)
    return out
