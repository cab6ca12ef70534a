"""Slot order at the far end of edges from a node with ports
(layouts/layered/routing/port_ends.py): an end takes its face's slot by where its edge
really leaves the port node, not by that node's centre, which all its edges share."""

from __future__ import annotations

from layouts.api import layout
from layouts.port_corpus import SAMPLES
from layouts.quality import measure


def test_two_edges_from_one_compound_face_reach_their_target_in_the_same_order() -> None:
    # port-group: 'from_group' leaves the compound 'inner' at its south port, 'out_of'
    # leaves it where the edge from its child i2 crosses the border, on the same face;
    # both end at 'after'. Their left-to-right order must be the same at both faces,
    # or their last segments cross.
    result = layout(SAMPLES["port-group"](), engine="layered")
    routes = {r.id: r.points for r in result.edges}
    inner = result.node("inner")
    bottom = inner.y + inner.height
    # where each route meets the face: the vertical segment spanning its y
    start = {i: next(p.x for p, q in zip(routes[i], routes[i][1:], strict=False)
                     if p.x == q.x and min(p.y, q.y) <= bottom <= max(p.y, q.y))
             for i in ("from_group", "out_of")}
    end = {i: routes[i][-1].x for i in ("from_group", "out_of")}
    assert (start["from_group"] < start["out_of"]) == (end["from_group"] < end["out_of"])
    assert measure(result).crossings == 0
