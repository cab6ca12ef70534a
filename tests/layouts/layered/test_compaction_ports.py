"""Compaction on drawings with ports (:mod:`layouts.layered.compaction`): every port moves
rigidly with its node. Expected coordinates are worked out by hand from the spacings
(node 40, layer 60, edge 12, clearance 12), as in ``test_compaction.py``."""

from __future__ import annotations

from dataclasses import replace

import pytest

from layouts.api import layout
from layouts.graph import Graph
from layouts.layered import compaction, pipeline
from layouts.layered.compaction import compact
from layouts.layered.compaction.drawing import Drawing
from layouts.layered.compaction.scene import build_scene
from layouts.layered.compaction.verify import attached_kept
from layouts.layered.contracts import check_layout, check_port_sides_and_order
from layouts.layered.model import Deadline, Routing
from layouts.layered.pipeline import run_layout
from layouts.mirror import base_direction, mirror_result
from layouts.options import Direction, Effort, LayoutOptions
from layouts.port_corpus import bundles, every_side, generated_ports, mixed_constraints
from layouts.result import Box, EdgeRoute, LayoutResult, NodeBox, Point, PortBox, Side

OPTIONS = LayoutOptions()


def _route(edge_id: str, source: str, target: str, *points: tuple[float, float]) -> EdgeRoute:
    return EdgeRoute(edge_id, source, target, tuple(Point(x, y) for x, y in points))


def _every_side_ports(node: NodeBox, size: float) -> tuple[PortBox, ...]:
    """A ``size`` x ``size`` port centred on the middle of each face of ``node``."""
    half = size / 2
    cx, cy = node.x + node.width / 2, node.y + node.height / 2
    centres = ((Side.TOP, cx, node.y), (Side.RIGHT, node.x + node.width, cy),
               (Side.BOTTOM, cx, node.y + node.height), (Side.LEFT, node.x, cy))
    return tuple(PortBox(f"{node.id}{side.value[0]}", node.id, x - half, y - half, size, size,
                         side) for side, x, y in centres)


def test_a_jogged_edge_between_two_ports_closes_and_its_ports_follow_their_nodes() -> None:
    # test_compaction's jogged edge with its ends at ports: a (0..100 x 0..40) with port pa
    # on its bottom face at (50, 40), b (300..400 x 160..200) with port pb on its top face
    # at (350, 160). x pass: b's unit (b, pb, its run at 350) comes to 12 (edge spacing)
    # right of a's run at 50: b moves by 62 - 350 = -288. y pass: layer_spacing holds b's
    # top 60 below a's bottom: b moves by 100 - 160 = -60. So pb moves by (-288, -60) to
    # (62, 100), pa stays, and the route is the one without ports.
    boxes = (NodeBox("a", 0, 0, 100, 40), NodeBox("b", 300, 160, 100, 40))
    ports = (PortBox("pa", "a", 50, 40, side=Side.BOTTOM, slot=0),
             PortBox("pb", "b", 350, 160, side=Side.TOP, slot=0))
    routes = (_route("e", "a", "b", (50, 40), (50, 100), (350, 100), (350, 160)),)
    out = compact(Routing(boxes, routes, 400, 200, ports), OPTIONS)
    assert out is not None
    a, b = out.nodes
    assert (a.x, a.y, b.x, b.y) == (0, 0, 12, 100)
    assert out.edges[0].points == (Point(50, 40), Point(50, 88), Point(62, 88), Point(62, 100))
    assert [(p.id, p.x, p.y, p.side, p.slot) for p in out.ports] == [
        ("pa", 50, 40, Side.BOTTOM, 0), ("pb", 62, 100, Side.TOP, 0)]
    assert (out.width, out.height) == (112, 140)


def test_ports_on_every_side_move_with_their_node_and_keep_node_spacing() -> None:
    # a (0..100) and b (300..400) side by side, unconnected; b has an 8 x 8 port centred on
    # each face. b's left port reaches 4 px out of b (296..304), so it is the part of b's
    # unit nearest a and keeps node spacing from a: 296 + s >= 100 + 40, s = -156 (without
    # ports b would move by -160 to 140). Every port moves by -156 along x; nothing moves
    # along y (a and b are one row). The content spans 0 .. 404 - 156 = 248.
    a, b = NodeBox("a", 0, 0, 100, 40), NodeBox("b", 300, 0, 100, 40)
    ports = _every_side_ports(b, 8)
    out = compact(Routing((a, b), (), 404, 48, ports), OPTIONS)
    assert out is not None
    assert [n.x for n in out.nodes] == [0, 300 - 156]
    assert [(p.id, p.x, p.y, p.side) for p in out.ports] == [
        ("bt", 346 - 156, -4, Side.TOP), ("br", 396 - 156, 16, Side.RIGHT),
        ("bb", 346 - 156, 36, Side.BOTTOM), ("bl", 296 - 156, 16, Side.LEFT)]
    assert (out.width, out.height) == (248, 48)


def test_point_ports_on_the_outline_change_nothing_but_follow_their_node() -> None:
    # zero-size ports lie inside their node's element: the drawing compacts as without
    # them (b to 140, test_compaction's empty channel), and each port moves by -160
    a, b = NodeBox("a", 0, 0, 100, 40), NodeBox("b", 300, 0, 100, 40)
    ports = _every_side_ports(b, 0)
    without = compact(Routing((a, b), (), 400, 40), OPTIONS)
    out = compact(Routing((a, b), (), 400, 40, ports), OPTIONS)
    assert out is not None and without is not None
    assert (out.nodes, out.edges, out.width, out.height) == \
        (without.nodes, without.edges, without.width, without.height)
    assert [(p.x, p.y) for p in out.ports] == [(190, 0), (240, 20), (190, 40), (140, 20)]
    assert build_scene(Drawing.of(Routing((a, b), (), 400, 40, ports)), 0, 12).port_elements \
        == []


def test_a_port_label_inside_its_node_moves_with_it() -> None:
    # b's port label (inside b) moves by b's -160, and the port by as much
    a, b = NodeBox("a", 0, 0, 100, 40), NodeBox("b", 300, 0, 100, 40)
    port = PortBox("p", "b", 350, 40, side=Side.BOTTOM, label_box=Box(340, 26, 20, 10),
                   extra_label_boxes=(Box(340, 14, 20, 10),))
    out = compact(Routing((a, b), (), 400, 40, (port,)), OPTIONS)
    assert out is not None
    moved = out.ports[0]
    assert (moved.x, moved.y) == (190, 40)
    assert moved.label_box == Box(180, 26, 20, 10)
    assert moved.extra_label_boxes == (Box(180, 14, 20, 10),)


def test_the_check_fails_when_a_port_or_an_end_does_not_follow_its_node() -> None:
    a, b = NodeBox("a", 0, 0, 100, 40), NodeBox("b", 0, 200, 100, 40)
    route = _route("e", "a", "b", (50, 40), (50, 200))
    drawing = Drawing.of(Routing((a, b), (route,), 100, 240,
                                 (PortBox("p", "b", 50, 200, side=Side.TOP),)))
    assert attached_kept(drawing)
    drawing.shift_node(1, 1, -100.0)            # b moved up; its end and port did not
    assert not attached_kept(drawing)
    drawing.points[0][1][1] -= 100.0            # the end follows, the port does not
    assert not attached_kept(drawing)
    drawing.port_parts[0][0][1] -= 100.0        # now both do
    assert attached_kept(drawing)


def test_a_drawing_with_route_junctions_is_not_compacted() -> None:
    # junction points belong to no unit, so the step leaves such a drawing as it is
    boxes = (NodeBox("a", 0, 0, 100, 40), NodeBox("b", 0, 200, 100, 40))
    route = replace(_route("e", "a", "b", (50, 40), (50, 200)),
                    junction_points=(Point(50, 100),))
    routing = Routing(boxes, (route,), 100, 240)
    out = compaction.run(routing, Graph(()), OPTIONS, Deadline(5))
    assert out.routing is routing
    assert out.note == "compaction skipped: the drawing has route junctions or extra labels"


GRAPHS = {"every-side": every_side, "mixed-constraints": mixed_constraints,
          "bundles": bundles, "generated-16": lambda: generated_ports(16, seed=3)}


def _violations(graph: Graph, result: LayoutResult, direction: Direction) -> list[str]:
    """Every route and port contract violation, as ``bench/compound.py`` counts them."""
    sides = check_port_sides_and_order(graph, result)
    base = mirror_result(result, direction)
    found = check_layout(graph, base, LayoutOptions(direction=base_direction(direction)))
    return [v.message for v in (*found, *sides)]


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("direction", list(Direction))
@pytest.mark.parametrize("effort", [Effort.BALANCED, Effort.BEST])
def test_compacted_port_drawings_keep_every_contract(name: str, direction: Direction,
                                                     effort: Effort) -> None:
    # through the API, as bench/compound.py lays them out (it mirrors BottomToTop and
    # RightToLeft drawings of the layered engine)
    graph = GRAPHS[name]()
    result = layout(graph, engine="layered", options=LayoutOptions(direction=direction,
                                                                   effort=effort))
    assert "compaction" in dict(result.diagnostics.phases)
    assert not [n for n in result.diagnostics.notes if n.startswith("compaction")]
    assert _violations(graph, result, direction) == []


@pytest.mark.parametrize("direction", [Direction.TOP_TO_BOTTOM, Direction.LEFT_TO_RIGHT])
def test_compaction_shrinks_a_port_drawing_and_keeps_its_ports_on_their_nodes(
        direction: Direction, monkeypatch: pytest.MonkeyPatch) -> None:
    # the same layout with the compaction step made the identity: as large or larger, and
    # each port sits at the same place on its node in both
    graph = generated_ports(16, seed=3)
    options = LayoutOptions(direction=direction)
    compacted = run_layout(graph, options)
    monkeypatch.setattr(pipeline.compaction, "run",
                        lambda routing, *_: compaction.Compacted(routing))
    loose = run_layout(graph, options)
    assert compacted.width * compacted.height < loose.width * loose.height

    def offsets(result: LayoutResult) -> dict[str, tuple[float, float, Side | None]]:
        return {p.id: (round(p.x - result.node(p.node).x, 6),
                       round(p.y - result.node(p.node).y, 6), p.side) for p in result.ports}

    assert offsets(compacted) == offsets(loose)
