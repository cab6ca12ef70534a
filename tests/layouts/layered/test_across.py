"""The squeeze of a compound's box across the flow (layouts/layered/hierarchy/across.py):
children move as rigid units towards the box's left face, keeping the spacing from what
lies beside them; the compound's label holds only what lies beside it along the flow.
Expected values by hand."""

from __future__ import annotations

import pytest

from layouts.api import layout
from layouts.compound_corpus import sibling_groups
from layouts.graph import Node
from layouts.layered.hierarchy.across import squeeze_across
from layouts.layered.hierarchy.frames import Frame
from layouts.layered.model import Routing
from layouts.quality import measure
from layouts.result import Box, EdgeRoute, NodeBox, Point

RULES = {"node_spacing": 20.0, "spacing": 12.0, "clearance": 12.0}


def test_a_child_not_beside_the_label_moves_under_its_column() -> None:
    # A LeftToRight label column at the box's left (canonical frame): x 12 .. 26, y
    # 12 .. 62. The interior starts right of it, at 12 + 14 + 6 = 32: b (120 wide, y
    # 212 .. 252, far down the flow from the label) at 32, a (100 wide, y 12 .. 52,
    # beside the label) at 32 + 30 = 62. b moves to the padding, 12; one map of x for
    # the box keeps b's width over a's left, so a moves with it, to 62 - 20 = 42 (16 from
    # the label's right, more than the 12 it must keep); the box ends at 42 + 100 + 12
    routing = Routing((NodeBox("a", 30, 0, 100, 40), NodeBox("b", 0, 200, 120, 40)), (),
                      130, 240)
    frame = Frame(174, 264, 32, 12, Box(12, 12, 14, 50), 24, 264, 12)
    out, squeezed = squeeze_across(Node("g", 10, 10), frame, routing, frozenset(),
                                   frozenset(), **RULES)
    a, b = squeezed.nodes
    assert (a.x, b.x) == (42, 12)
    assert out.width == 154   # was 62 + 100 + 12 = 174
    assert out.label_box == Box(12, 12, 14, 50)
    assert (a.y, b.y) == (12, 212)


def test_a_route_keeps_the_clearance_and_siblings_the_node_spacing() -> None:
    # a (x 0 .. 100) and b (x 200 .. 300) on one layer, a vertical route at x 150
    # between them from above; squeezed: a at the padding 12, the route 12 right of
    # a (124), b 20 from a (132) would be 8 from the route: b keeps 12 from it, 136
    routing = Routing((NodeBox("a", 0, 50, 100, 40), NodeBox("b", 200, 50, 100, 40)),
                      (EdgeRoute("e", "s", "t", (Point(150, 0), Point(150, 120))),), 300, 120)
    frame = Frame(324, 144, 12, 12, None, 24, 144, 12)
    out, squeezed = squeeze_across(Node("g", 10, 10), frame, routing, frozenset(),
                                   frozenset(), **RULES)
    assert [n.x for n in squeezed.nodes] == [12, 136]
    assert squeezed.edges[0].points == (Point(124, 12), Point(124, 132))
    assert out.width == 136 + 100 + 12


@pytest.mark.parametrize("effort", ["draft", "balanced", "best"])
def test_left_to_right_a3_moves_up_beside_a_mids_label(effort: str) -> None:
    # a3 stands in a-mid beyond its label along the flow: nothing keeps it below the
    # label row, so it lies under the label's band (its top above the label's bottom)
    result = layout(sibling_groups(), engine="layered", direction="LR", effort=effort)
    label = result.node("a-mid").label_box
    a3 = result.node("a3")
    assert label is not None
    assert a3.x >= label.right + 12
    assert a3.y < label.bottom
    assert measure(result).crossings <= 2
