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

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from layouts.result import Box, EdgeRoute, NodeBox
from renderer.bpmn_model import Scope, ScopeKind

FRAME_MARGIN = 30.0
NAME_BAND = 30.0
"""Width of the band at a pool's left that holds its name (written upwards)."""


@dataclass(frozen=True, slots=True)
class Frame:
    """A scope's frame and the boxes of its lanes (parents first)."""

    scope: Scope
    box: Box
    lanes: tuple[NodeBox, ...] = ()

    @property
    def has_band(self) -> bool:
        return self.scope.kind is ScopeKind.PARTICIPANT


def scope_frame(scope: Scope, boxes: Mapping[str, NodeBox],
                routes: Iterable[EdgeRoute] = ()) -> Frame | None:
    """The frame of ``scope`` around its placed nodes (an expanded sub-process's content
    included) and the routes between them; ``None`` when none is placed. A black-box
    pool's frame is its node's box; a scope with lanes is framed by its lanes' boxes
    (placed by :mod:`renderer.bpmn_lanes`), with the pool's name band on their left."""
    if scope.black_box:
        box = boxes.get(scope.id)
        return None if box is None else Frame(scope, box.box)
    lanes = tuple(boxes[lane.id] for lane in scope.all_lanes() if lane.id in boxes)
    if lanes:
        top_level = {lane.id for lane in scope.lanes}
        x0 = min(b.x for b in lanes if b.id in top_level) - (
            NAME_BAND if scope.kind is ScopeKind.PARTICIPANT else 0.0)
        y0, y1 = min(b.y for b in lanes), max(b.y + b.height for b in lanes)
        x1 = max(b.x + b.width for b in lanes)
        return Frame(scope, Box(x0, y0, x1 - x0, y1 - y0), lanes)
    members = set(scope.node_ids)
    members |= {b.id for b in boxes.values() if _inside(b, members, boxes)}
    placed = [boxes[i] for i in members if i in boxes]
    if not placed:
        return None
    xs = [v for b in placed for v in (b.x, b.x + b.width)]
    ys = [v for b in placed for v in (b.y, b.y + b.height)]
    for route in routes:
        if route.source in members and route.target in members:
            xs += [p.x for p in route.points]
            ys += [p.y for p in route.points]
    band = NAME_BAND if scope.kind is ScopeKind.PARTICIPANT else 0.0
    x0, y0 = min(xs) - FRAME_MARGIN - band, min(ys) - FRAME_MARGIN
    x1, y1 = max(xs) + FRAME_MARGIN, max(ys) + FRAME_MARGIN
    return Frame(scope, Box(x0, y0, x1 - x0, y1 - y0))


def _inside(box: NodeBox, members: set[str], boxes: Mapping[str, NodeBox]) -> bool:
    parent = box.parent
    while parent is not None:
        if parent in members:
            return True
        parent = boxes[parent].parent if parent in boxes else None
    return False


def frames(scopes: tuple[Scope, ...], boxes: Mapping[str, NodeBox],
           routes: Iterable[EdgeRoute] = ()) -> list[Frame]:
    """The frame of every scope that has placed nodes, in order."""
    kept = tuple(routes)
    found = (scope_frame(scope, boxes, kept) for scope in scopes)
    return [frame for frame in found if frame is not None]
