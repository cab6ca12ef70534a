"""Rank groups checked on the drawing: which members of a :class:`~layouts.graph.RankGroup`
did not end up where the group asks, for any engine, as one warning per group.

Every engine here centres the nodes of one layer on the layer's axis (layered, dot, ELK
layered), so two nodes share a layer exactly when their centres along the flow (y for
TopToBottom/BottomToTop, x otherwise) agree. ``min``/``source`` members must be on the
first layer of their level (the smallest centre among their siblings; ``source``: with no
other sibling there), ``max``/``sink`` on the last. Members in different compound nodes
cannot share a layer (each compound lays its own layers out) and are reported too.

The warning names the engine's own limitation when it states one
(``rank_groups_limit`` on the provider), so a dropped constraint is never silent.

>>> from layouts.graph import Edge, Graph, Node, RankGroup
>>> from layouts.result import Diagnostics, LayoutResult, NodeBox
>>> g = Graph((Node("a", 9, 9), Node("b", 9, 9)), (Edge("e", "a", "b"),),
...           rank_groups=(RankGroup(("a", "b")),))
>>> r = LayoutResult((NodeBox("a", 0, 0, 9, 9), NodeBox("b", 0, 69, 9, 9)), (), 9, 78,
...                  Diagnostics("layered", "balanced", "TopToBottom"))
>>> rank_group_warnings(g, r, "")
("rank=same group (a, b): b not on a's layer with engine 'layered'",)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from layouts.graph import Graph, RankGroup, RankKind
from layouts.result import LayoutResult, NodeBox

TOLERANCE = 0.5
"""px by which two centres along the flow may differ and still be one layer."""

_VERTICAL = frozenset({"TopToBottom", "BottomToTop"})
_FIRST = {RankKind.MIN: False, RankKind.SOURCE: True}
_LAST = {RankKind.MAX: False, RankKind.SINK: True}


def rank_group_warnings(graph: Graph, result: LayoutResult, limit: str) -> tuple[str, ...]:
    """One line per rank group some member of which is not where the group asks;
    ``limit`` (the engine's own reason, may be empty) is appended to each."""
    if not graph.rank_groups:
        return ()
    boxes = {n.id: n for n in result.nodes}
    vertical = result.diagnostics.direction in _VERTICAL
    reversed_flow = result.diagnostics.direction in ("BottomToTop", "RightToLeft")

    def centre(box: NodeBox) -> float:
        value = box.y + box.height / 2 if vertical else box.x + box.width / 2
        return -value if reversed_flow else value   # along the flow: first layer smallest

    siblings: dict[str | None, list[float]] = {}
    for box in result.nodes:
        siblings.setdefault(box.parent, []).append(centre(box))
    engine = result.diagnostics.engine
    lines = []
    for group in graph.rank_groups:
        placed = [boxes[n] for n in group.nodes if n in boxes]
        bad = _misplaced(group, placed, centre, siblings)
        if bad:
            lines.append(_line(group, bad, placed[0].id, engine, limit))
    return tuple(lines)


def _misplaced(group: RankGroup, placed: list[NodeBox], centre: Callable[[NodeBox], float],
               siblings: Mapping[str | None, list[float]]) -> list[str]:
    if not placed:
        return []
    if group.kind is RankKind.SAME:
        first = placed[0]
        return [b.id for b in placed[1:] if b.parent != first.parent
                or abs(centre(b) - centre(first)) > TOLERANCE]
    bad = []
    for box in placed:
        layer_centres = siblings[box.parent]
        target = min(layer_centres) if group.kind in _FIRST else max(layer_centres)
        if abs(centre(box) - target) > TOLERANCE:
            bad.append(box.id)
    if {**_FIRST, **_LAST}.get(group.kind) and not bad:
        members = len(placed)
        target = centre(placed[0])
        sharing = sum(abs(c - target) <= TOLERANCE for c in siblings[placed[0].parent])
        if sharing > members:
            bad.append(f"{sharing - members} other node(s) on its layer")
    return bad


def _line(group: RankGroup, bad: list[str], first: str, engine: str, limit: str) -> str:
    shown = ", ".join(group.nodes[:6]) + (", ..." if len(group.nodes) > 6 else "")
    where = {RankKind.SAME: f"not on {first}'s layer", RankKind.MIN: "not on the first layer",
             RankKind.SOURCE: "not alone on the first layer",
             RankKind.MAX: "not on the last layer",
             RankKind.SINK: "not alone on the last layer"}[group.kind]
    text = (f"rank={group.kind.value} group ({shown}): {', '.join(bad[:6])} {where} with "
            f"engine '{engine}'")
    return f"{text} ({limit})" if limit else text
