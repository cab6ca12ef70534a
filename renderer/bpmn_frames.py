"""Frames around BPMN scopes: a pool around a participant's flow nodes, a dashed box
around a sub-process's content. The SVG writer draws them and the BPMN DI writer
gives pools these bounds, so both agree.

>>> from layouts.result import NodeBox
>>> from renderer.bpmn_model import Scope, ScopeKind
>>> frame = scope_frame(Scope("pool", ScopeKind.PARTICIPANT, "Shop", ("a",)),
...                     {"a": NodeBox("a", 100, 100, 100, 80)})
>>> frame.box   # 30 px margin, and a 30 px band on the left for the pool's name
Box(x=40.0, y=70.0, width=190.0, height=140.0)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from layouts.result import Box, NodeBox
from renderer.bpmn_model import Scope, ScopeKind

FRAME_MARGIN = 30.0
NAME_BAND = 30.0
"""Width of the band at a pool's left that holds its name (written upwards)."""


@dataclass(frozen=True, slots=True)
class Frame:
    scope: Scope
    box: Box

    @property
    def has_band(self) -> bool:
        return self.scope.kind is ScopeKind.PARTICIPANT


def scope_frame(scope: Scope, boxes: Mapping[str, NodeBox]) -> Frame | None:
    """The frame of ``scope`` around its placed nodes; ``None`` when none is placed."""
    placed = [boxes[i] for i in scope.node_ids if i in boxes]
    placed += [b for b in boxes.values() if b.parent in scope.node_ids]  # expanded content
    if not placed:
        return None
    band = NAME_BAND if scope.kind is ScopeKind.PARTICIPANT else 0.0
    x0 = min(b.x for b in placed) - FRAME_MARGIN - band
    y0 = min(b.y for b in placed) - FRAME_MARGIN
    x1 = max(b.x + b.width for b in placed) + FRAME_MARGIN
    y1 = max(b.y + b.height for b in placed) + FRAME_MARGIN
    return Frame(scope, Box(x0, y0, x1 - x0, y1 - y0))


def frames(scopes: tuple[Scope, ...], boxes: Mapping[str, NodeBox]) -> list[Frame]:
    """The frame of every scope that has placed nodes, in order."""
    found = (scope_frame(scope, boxes) for scope in scopes)
    return [frame for frame in found if frame is not None]
