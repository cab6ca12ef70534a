"""The y squeeze of an assembled compound drawing (layouts/layered/hierarchy/squeeze.py):
empty bands close to the spacing the rules keep, rigid boxes keep their height, no gap
grows, lines far apart along x do not hold each other. Expected values by hand."""

from __future__ import annotations

import itertools

import pytest

import layouts.layered.hierarchy as hierarchy
from layouts.api import layout
from layouts.compound_corpus import SAMPLES
from layouts.graph import Edge, Graph, Node
from layouts.layered.hierarchy.assemble import Drawing
from layouts.layered.hierarchy.squeeze import rigid_nodes, squeeze
from layouts.quality import measure
from layouts.result import Box, EdgeEnd, EdgeRoute, NodeBox, Point, PortBox, Side

RULES = {"layer_spacing": 60.0, "spacing": 12.0, "clearance": 12.0}


def _squeezed(drawing: Drawing, rigid: set[str]) -> Drawing:
    return squeeze(drawing, rigid=frozenset(rigid), **RULES)


def test_an_unused_track_closes_to_the_spacing() -> None:
    # compound g 0..300 holding leaf a at 150; a straight edge from above enters at
    # x 100: its route points are on g's top (0) and a's top (150), nothing between
    g = NodeBox("g", 0, 0, 200, 300)
    a = NodeBox("a", 50, 150, 100, 40, parent="g")
    e = EdgeRoute("e", "t", "a", (Point(100, 0), Point(100, 150)))
    out = _squeezed(Drawing((g, a), (e,), 200, 300), {"a"})
    # a: 0 + 12; a's bottom 12 + 40 = 52; g's bottom 52 + 12 = 64
    assert [(n.y, n.height) for n in out.nodes] == [(0, 64), (12, 40)]
    assert out.edges[0].points == (Point(100, 0), Point(100, 12))
    assert out.height == 64


def test_stacked_nodes_keep_the_layer_spacing_and_tracks_the_edge_spacing() -> None:
    # two leaves 100 apart, a horizontal segment 50 below the upper one; its track
    # keeps 12 from each, the nodes keep 60 from each other
    top, low = NodeBox("t", 0, 0, 100, 40), NodeBox("l", 0, 140, 100, 40)
    e = EdgeRoute("e", "t", "l", (Point(20, 40), Point(20, 90), Point(80, 90), Point(80, 140)))
    out = _squeezed(Drawing((top, low), (e,), 100, 180), {"t", "l"})
    # the segment 40 + 12 = 52; l's top max(52 + 12, 40 + 60) = 100
    assert out.edges[0].points == (Point(20, 40), Point(20, 52), Point(80, 52), Point(80, 100))
    assert out.nodes[1].y == 100 and out.height == 140


def test_stacked_nodes_inside_a_compound_keep_the_inner_layer_spacing() -> None:
    # compound g 0..400 holding leaves a (12..52) and b (152..192), no edges; at the
    # root two such leaves keep 60 (the test above), inside g they keep 20, as elkjs
    # spaces a compound's layers by its defaults
    g = NodeBox("g", 0, 0, 200, 400)
    a = NodeBox("a", 50, 12, 100, 40, parent="g")
    b = NodeBox("b", 50, 152, 100, 40, parent="g")
    out = squeeze(Drawing((g, a, b), (), 200, 400), rigid=frozenset({"a", "b"}),
                  inner_layer_spacing=20.0, **RULES)
    # a: 0 + 12; b: 52 + min(100, 20) = 72; g's bottom: 72 + 40 + 12 = 124
    assert [(n.y, n.height) for n in out.nodes] == [(0, 124), (12, 40), (72, 40)]
    # without an inner spacing the layer spacing holds: b 52 + 60 = 112, g 164
    plain = squeeze(Drawing((g, a, b), (), 200, 400), rigid=frozenset({"a", "b"}), **RULES)
    assert [(n.y, n.height) for n in plain.nodes] == [(0, 164), (12, 40), (112, 40)]


def test_lines_far_apart_along_x_do_not_hold_each_other() -> None:
    # a segment at y 90 over x 0..50 and a leaf at y 200 over x 100..200: 50 px apart
    # along x (more than the clearance), so the leaf moves up to its own rule only
    g = NodeBox("g", 0, 0, 300, 300)
    leaf = NodeBox("a", 100, 200, 100, 40, parent="g")
    e = EdgeRoute("e", "g", "g", (Point(0, 90), Point(50, 90)))
    out = _squeezed(Drawing((g, leaf), (e,), 300, 300), {"a"})
    assert out.nodes[1].y == 12                       # 12 below g's top
    assert out.edges[0].points[0].y == 12             # 12 below g's top too


def test_a_rigid_port_straddling_a_face_keeps_its_size_and_no_gap_grows() -> None:
    # leaf u (bottom 40), compound g from 100 with a 6 px port box at 97..103; a line at
    # 60 beside u: the forward sweep alone would move the port's top up to 60 + 12 = 72
    # while g's top must stay 40 + 60 = 100 from u: the port's band would grow
    u = NodeBox("u", 0, 0, 100, 40)
    g = NodeBox("g", 0, 100, 100, 100)
    inner = NodeBox("a", 30, 150, 40, 40, parent="g")
    port = PortBox("p", "g", 47, 97, 6, 6, Side.TOP)
    e = EdgeRoute("e", "u", "g", (Point(50, 40), Point(50, 97)), target_port="p")
    out = _squeezed(Drawing((u, g, inner), (e,), 100, 200, (port,)), {"u", "a"})
    assert out.nodes[1].y == 100
    assert out.ports[0].y == 97 and out.ports[0].height == 6
    # a's top: 12 below the port's bottom (103), which is nearer than g's top; a's
    # bottom 115 + 40 = 155; g's bottom min(10, 12) below it: 165
    assert out.nodes[2].y == 115
    assert out.nodes[1].height == 65


def test_a_compound_label_moves_with_its_top_and_holds_only_what_lies_below_it() -> None:
    # g 0..300 with a label 100 tall down its left side (a LeftToRight compound's label
    # in the canonical frame) at 12..112, x 12..28; leaf a at x 100..200, far beside it.
    # a closes up to 12 below g's top (0 + 12); g's bottom keeps 12 below the label's
    # bottom, which stays 12 + 100 = 112 below g's top: 124
    label = Box(12, 12, 16, 100)
    g = NodeBox("g", 0, 0, 300, 300, label_box=label)
    a = NodeBox("a", 100, 150, 100, 40, parent="g")
    out = _squeezed(Drawing((g, a), (), 300, 300), {"a"})
    assert out.nodes[1].y == 12
    assert out.nodes[0].height == 124 and out.nodes[0].label_box == label


def test_compounds_with_side_face_ends_or_own_ports_stay_rigid() -> None:
    graph = Graph((Node("g", 10, 10, children=(Node("a", 9, 9),)),
                   Node("h", 10, 10, children=(Node("b", 9, 9),)), Node("c", 9, 9)),
                  (Edge("x", "g", "c"),))
    side = EdgeRoute("x", "g", "c", (), EdgeEnd(Side.RIGHT, 0))
    assert sorted(rigid_nodes(graph, Drawing((), (side,), 0, 0))) == ["a", "b", "c", "g"]


def test_a_compound_child_sits_below_its_label_and_used_tracks_only() -> None:
    # sibling-groups: a-outer's first child a0 is at most the padding (12), the label
    # row (16, estimated), one 12 px track for each of the two edges entering a-outer,
    # and the clearance (12) below a-outer's top; its frame kept 12 more, a track and a
    # gap for the dummies, and the crossings stay as drawn before the squeeze (order
    # along y is kept)
    graph = SAMPLES["sibling-groups"]()
    result = layout(graph, engine="layered")
    outer, a0 = result.node("a-outer"), result.node("a0")
    assert a0.y - outer.y <= 12 + 16 + 2 * 12 + 12
    assert measure(result).crossings == 1   # test_hierarchy_order: sibling groups cross once


def _ys(drawing: Drawing) -> list[float]:
    """Every y of the drawing, in one fixed order of its items."""
    out = [v for n in drawing.nodes for v in (n.y, n.y + n.height)]
    out += [p.y for e in drawing.edges for p in e.points]
    out += [v for p in drawing.ports for v in (p.y, p.y + p.height)]
    return out


@pytest.mark.parametrize("name", ["three-levels", "sibling-groups", "generated-60"])
@pytest.mark.parametrize("direction", ["TopToBottom", "LeftToRight"])
def test_the_squeeze_keeps_the_order_of_every_y_and_grows_no_gap(
        name: str, direction: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[Drawing, Drawing]] = []

    def spy(drawing: Drawing, **rules: object) -> Drawing:
        out = squeeze(drawing, **rules)  # type: ignore[arg-type]
        seen.append((drawing, out))
        return out

    monkeypatch.setattr(hierarchy, "squeeze", spy)
    result = layout(SAMPLES[name](), engine="layered", direction=direction)
    before, after = seen[-1]
    old, new = _ys(before), _ys(after)
    pairs = sorted(zip(old, new, strict=True))
    for (y0, f0), (y1, f1) in itertools.pairwise(pairs):
        assert f0 <= f1 + 1e-9 and f1 - f0 <= y1 - y0 + 1e-9, (y0, y1, f0, f1)
    assert after.height <= before.height
    for a, b in zip(before.nodes, after.nodes, strict=True):   # leaves keep their size
        if not any(n.parent == a.id for n in before.nodes):
            assert b.height == pytest.approx(a.height)
    assert measure(result).crossings == _crossings(before)


def _crossings(drawing: Drawing) -> int:
    from layouts.result import Diagnostics, LayoutResult
    return measure(LayoutResult(drawing.nodes, drawing.edges, drawing.width, drawing.height,
                                Diagnostics("layered", "", ""))).crossings


def test_a_label_below_unused_tracks_moves_up_and_keeps_its_height() -> None:
    # compound g (200 x 300) with its label 50 x 14 at (12, 48), below an entering strip
    # of three tracks (12 + 3 * 12); a leaf a (x 50 .. 150) 6 px below the label, fed
    # straight down x = 150 from g's top. The label's top keeps 12 from g's top (the
    # tracks are empty), so it moves to 12 and ends at 26; a keeps its 6 px below it, 32;
    # g's bottom 12 below a's, 32 + 40 + 12 = 84
    g = NodeBox("g", 0, 0, 200, 300, label_box=Box(12, 48, 50, 14))
    a = NodeBox("a", 50, 68, 100, 40, parent="g")
    e = EdgeRoute("e", "t", "a", (Point(150, 0), Point(150, 68)))
    out = _squeezed(Drawing((g, a), (e,), 200, 300), {"a"})
    assert out.nodes[0].label_box == Box(12, 12, 50, 14)
    assert [(n.y, n.height) for n in out.nodes] == [(0, 84), (32, 40)]
    assert out.edges[0].points == (Point(150, 0), Point(150, 32))
