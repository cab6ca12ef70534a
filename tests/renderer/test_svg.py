"""SVG writer tests on hand-built layouts (no engine involved)."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layouts.graph import Edge, Graph, Node, Shape
from layouts.result import Box, Diagnostics, EdgeRoute, LayoutResult, NodeBox, Point
from renderer.diagram import Diagram, EdgeState, EdgeView, NodeView, StepKind, StepState
from renderer.dot_reader import DOT_OUTLINES
from renderer.from_definition import diagram_from_definition
from renderer.styles import EDGE_STYLES, KIND_STYLES, STATE_STYLES
from renderer.svg import MARGIN, write_svg
from workflow.dsl import load_definition

SVG = "{http://www.w3.org/2000/svg}"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
HOSTILE = "<script>&\"'"


def _diagnostics() -> Diagnostics:
    return Diagnostics(engine="hand", effort="draft", direction="TopToBottom")


def _three_node_case() -> tuple[Diagram, LayoutResult]:
    """a (rect, 120x40 at 0,0) -> d (diamond, 80x60 at 20,100) -> t (circle, 60x60 at 30,220);
    d -> a is a loop-back. Routes are vertical lines between the outlines."""
    graph = Graph(
        nodes=(Node("a", 120, 40), Node("d", 80, 60, Shape.DIAMOND),
               Node("t", 60, 60, Shape.CIRCLE)),
        edges=(Edge("a->d", "a", "d"), Edge("d->t", "d", "t", HOSTILE, False, 50, 16),
               Edge("d->a", "d", "a", None, True)),
    )
    views = {"a": NodeView(StepKind.AGENT, "a", "agent-name"),
             "d": NodeView(StepKind.CONDITION, "d"),
             "t": NodeView(StepKind.TIMER, "t", "30 min")}
    diagram = Diagram("demo", graph, views, {"d->t": EdgeView(HOSTILE)})
    result = LayoutResult(
        nodes=(NodeBox("a", 0, 0, 120, 40), NodeBox("d", 20, 100, 80, 60, Shape.DIAMOND),
               NodeBox("t", 30, 220, 60, 60, Shape.CIRCLE)),
        edges=(
            EdgeRoute("a->d", "a", "d", (Point(60, 40), Point(60, 100))),
            EdgeRoute("d->t", "d", "t", (Point(60, 160), Point(60, 220))),
            EdgeRoute("d->a", "d", "a", (Point(100, 130), Point(140, 130), Point(140, 20),
                                          Point(120, 20)), loop_back=True),
        ),
        width=140, height=280, diagnostics=_diagnostics(),
    )
    return diagram, result


def _parse(svg: bytes) -> ET.Element:
    return ET.fromstring(svg)


def _node_groups(root: ET.Element) -> list[ET.Element]:
    nodes = root.find(f"{SVG}g[@id='nodes']")
    assert nodes is not None
    return list(nodes)


def test_well_formed_with_one_group_and_shape_per_node() -> None:
    diagram, result = _three_node_case()
    groups = _node_groups(_parse(write_svg(diagram, result)))
    assert [g.get("id") for g in groups] == ["node-a", "node-d", "node-t"]
    outlines = [child.tag for g in groups for child in g
                if child.tag in (f"{SVG}rect", f"{SVG}polygon", f"{SVG}circle")
                and child.get("class") != "badge-box"]
    assert outlines == [f"{SVG}rect", f"{SVG}polygon", f"{SVG}circle"]


def test_diamond_polygon_has_tips_at_box_side_midpoints() -> None:
    diagram, result = _three_node_case()
    diamond = _node_groups(_parse(write_svg(diagram, result)))[1].find(f"{SVG}polygon")
    assert diamond is not None
    # box x 20..100, y 100..160: tips (60,100) (100,130) (60,160) (20,130)
    assert diamond.get("points") == "60,100 100,130 60,160 20,130"


def test_circle_radius_is_half_the_box() -> None:
    diagram, result = _three_node_case()
    circle = _node_groups(_parse(write_svg(diagram, result)))[2].find(f"{SVG}circle")
    assert circle is not None
    assert (circle.get("cx"), circle.get("cy"), circle.get("r")) == ("60", "250", "30")


def test_one_path_per_edge_with_arrowhead() -> None:
    diagram, result = _three_node_case()
    root = _parse(write_svg(diagram, result))
    paths = root.findall(f"{SVG}g[@id='edges']/{SVG}g/{SVG}path")
    assert len(paths) == 3
    marker_ids = {m.get("id") for m in root.iter(f"{SVG}marker")}
    for path in paths:
        reference = path.get("marker-end")
        assert reference is not None and reference[5:-1] in marker_ids
    assert paths[0].get("d") == "M 60 40 L 60 100"
    assert paths[2].get("stroke-dasharray")  # the loop-back is dashed
    assert paths[0].get("stroke-dasharray") is None


def test_labels_are_present_and_escaped() -> None:
    diagram, result = _three_node_case()
    svg = write_svg(diagram, result, title=HOSTILE)
    assert b"<script>" not in svg
    root = _parse(svg)
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert HOSTILE in texts
    assert {"a", "agent-name", "d", "t", "30 min"} <= set(texts)
    title = root.find(f"{SVG}title")
    assert title is not None and title.text == HOSTILE


def test_hostile_node_ids_are_escaped() -> None:
    graph = Graph((Node(HOSTILE, 60, 30),))
    result = LayoutResult((NodeBox(HOSTILE, 0, 0, 60, 30),), (), 60, 30, _diagnostics())
    svg = write_svg(Diagram(HOSTILE, graph), result)
    assert b"<script>" not in svg
    assert _node_groups(_parse(svg))[0].get("id") == "node-" + HOSTILE


def test_control_characters_still_give_well_formed_xml() -> None:
    odd = "bell\x07 nul\x00 esc\x1b"
    graph = Graph((Node(odd, 60, 30),))
    result = LayoutResult((NodeBox(odd, 0, 0, 60, 30),), (), 60, 30, _diagnostics())
    root = _parse(write_svg(Diagram(odd, graph), result, title=odd))
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert "bell\ufffd nul\ufffd esc\ufffd" in texts


def test_label_without_engine_box_sits_on_longest_segment() -> None:
    diagram, result = _three_node_case()
    root = _parse(write_svg(diagram, result))
    box = root.find(f"{SVG}g[@id='labels']/{SVG}g/{SVG}rect")
    assert box is not None
    # d->t runs (60,160)-(60,220): middle (60,190); the box is centred there
    x, y = float(box.get("x", "nan")), float(box.get("y", "nan"))
    width, height = float(box.get("width", "nan")), float(box.get("height", "nan"))
    assert (x + width / 2, y + height / 2) == pytest.approx((60, 190), abs=0.01)


def test_label_uses_engine_label_box() -> None:
    diagram, result = _three_node_case()
    routed = dataclasses.replace(result.edges[1], label_box=Box(70, 180, 50, 16))
    result = dataclasses.replace(result, edges=(result.edges[0], routed, result.edges[2]))
    box = _parse(write_svg(diagram, result)).find(f"{SVG}g[@id='labels']/{SVG}g/{SVG}rect")
    assert box is not None
    assert [box.get(k) for k in ("x", "y", "width", "height")] == ["70", "180", "50", "16"]


def test_view_box_has_margin() -> None:
    diagram, result = _three_node_case()
    root = _parse(write_svg(diagram, result))
    # content spans x 0..140 and y 0..280 (label box of 50x16 centred at (60,190) is inside)
    m = MARGIN
    assert root.get("viewBox") == f"{-m:g} {-m:g} {140 + 2 * m:g} {280 + 2 * m:g}"


def test_byte_identical_twice_and_font_family_embedded() -> None:
    diagram = diagram_from_definition(load_definition(FIXTURES / "document-processing.yaml"))
    nodes = tuple(NodeBox(n.id, 0, 100 * i, n.width, n.height, n.shape)
                  for i, n in enumerate(diagram.graph.nodes))
    index = {n.id: n for n in nodes}
    edges = tuple(
        EdgeRoute(e.id, e.source, e.target,
                  (index[e.source].center, Point(index[e.source].center.x + 0.123456, 1.0),
                   index[e.target].center), loop_back=e.loop_back)
        for e in diagram.graph.edges)
    result = LayoutResult(nodes, edges, 200, 2400, _diagnostics())
    first, second = write_svg(diagram, result), write_svg(diagram, result)
    assert first == second
    assert b"DejaVu Sans, Verdana, sans-serif" in first
    assert b"0.123456" not in first and b"0.12" in first  # rounded to 2 decimals
    root = _parse(first)
    assert len(_node_groups(root)) == 24
    assert len(root.findall(f"{SVG}g[@id='edges']/{SVG}g/{SVG}path")) == 31


def test_run_state_colours_attempts_and_taken_edges() -> None:
    diagram, result = _three_node_case()
    views = dict(diagram.nodes)
    views["a"] = dataclasses.replace(views["a"], state=StepState.FAILED, attempts=2)
    views["d"] = dataclasses.replace(views["d"], state=StepState.SUCCEEDED, attempts=1)
    edges = {"a->d": EdgeView(state=EdgeState.TAKEN),
             "d->t": EdgeView(HOSTILE, state=EdgeState.NOT_TAKEN)}
    diagram = dataclasses.replace(diagram, nodes=views, edges=edges)
    root = _parse(write_svg(diagram, result))
    node_a, node_d, node_t = _node_groups(root)
    outline_a = node_a.find(f"{SVG}rect")
    assert outline_a is not None
    assert outline_a.get("fill") == STATE_STYLES[StepState.FAILED].fill
    assert outline_a.get("stroke") == STATE_STYLES[StepState.FAILED].stroke
    assert "state-failed" in (node_a.get("class") or "")
    attempts = ["".join(t.itertext()) for t in node_a.iter(f"{SVG}text")
                if t.get("class") == "attempts"]
    assert attempts == ["x2"]
    assert not [t for t in node_d.iter(f"{SVG}text") if t.get("class") == "attempts"]
    circle = node_t.find(f"{SVG}circle")
    assert circle is not None and circle.get("fill") == KIND_STYLES[StepKind.TIMER].fill
    paths = root.findall(f"{SVG}g[@id='edges']/{SVG}g/{SVG}path")
    assert paths[0].get("marker-end") == f"url(#{EDGE_STYLES['taken'].marker_id})"
    assert paths[1].get("stroke") == EDGE_STYLES["not-taken"].stroke
    assert float(paths[0].get("stroke-width", "0")) > float(paths[2].get("stroke-width", "0"))


def test_every_group_names_its_step_or_edge_by_data_attribute() -> None:
    diagram, result = _three_node_case()
    root = _parse(write_svg(diagram, result))
    assert [g.get("data-step-id") for g in _node_groups(root)] == ["a", "d", "t"]
    edges = root.findall(f"{SVG}g[@id='edges']/{SVG}g")
    assert [g.get("data-edge-id") for g in edges] == ["a->d", "d->t", "d->a"]
    # no run: no state classes, no iteration counts
    assert [g.get("class") for g in edges] == ["edge", "edge", "edge loop-back"]
    assert [g.get("class") for g in _node_groups(root)] == [
        "node kind-agent", "node kind-condition", "node kind-timer"]
    assert all(g.get("data-iterations") is None for g in edges)


def test_edge_states_are_classes_and_pending_draws_like_no_run() -> None:
    diagram, result = _three_node_case()
    edges = {"a->d": EdgeView(state=EdgeState.TAKEN),
             "d->t": EdgeView(HOSTILE, state=EdgeState.PENDING),
             "d->a": EdgeView(state=EdgeState.TAKEN, iterations=2)}
    root = _parse(write_svg(dataclasses.replace(diagram, edges=edges), result))
    groups = root.findall(f"{SVG}g[@id='edges']/{SVG}g")
    assert [g.get("class") for g in groups] == [
        "edge edge-taken", "edge edge-pending", "edge loop-back edge-taken"]
    assert [g.get("data-iterations") for g in groups] == [None, None, "2"]
    pending_path = groups[1].find(f"{SVG}path")
    assert pending_path is not None
    assert pending_path.get("stroke") == EDGE_STYLES["normal"].stroke


def test_ids_keep_characters_that_need_escaping() -> None:
    graph = Graph((Node('a"<b', 80, 40),))
    result = LayoutResult((NodeBox('a"<b', 0, 0, 80, 40),), (), 80, 40, _diagnostics())
    (group,) = _node_groups(_parse(write_svg(Diagram("d", graph), result)))
    assert group.get("data-step-id") == 'a"<b'


def test_badges_per_kind() -> None:
    diagram, result = _three_node_case()
    groups = _node_groups(_parse(write_svg(diagram, result)))
    glyphs = [["".join(t.itertext()) for t in g.iter(f"{SVG}text") if t.get("class") == "badge"]
              for g in groups]
    assert glyphs == [["A"], ["?"], ["◷"]]


def test_edge_with_one_point_is_rejected() -> None:
    diagram, result = _three_node_case()
    broken = dataclasses.replace(result.edges[0], points=(Point(0, 0),))
    result = dataclasses.replace(result, edges=(broken,))
    with pytest.raises(ValueError, match="edge 'a->d' has 1 route points"):
        write_svg(diagram, result)


@settings(max_examples=40, deadline=None)
@given(title=st.text(max_size=20), subtitle=st.text(max_size=20), label=st.text(max_size=20))
def test_any_text_gives_parseable_deterministic_svg(title: str, subtitle: str,
                                                    label: str) -> None:
    diagram, result = _three_node_case()
    views = dict(diagram.nodes)
    views["a"] = NodeView(StepKind.HUMAN, title, subtitle or None)
    diagram = dataclasses.replace(diagram, nodes=views, edges={"d->t": EdgeView(label)})
    svg = write_svg(diagram, result, title=title)
    assert svg == write_svg(diagram, result, title=title)
    root = _parse(svg)
    assert len(_node_groups(root)) == 3


def _ids(svg: bytes) -> list[str]:
    return [element.get("id", "") for element in _parse(svg).iter() if "id" in element.attrib]


FIXTURE_FILES = sorted((Path(__file__).resolve().parents[2] / "fixtures").iterdir())


@pytest.mark.parametrize("engine", ["layered", "graphviz"])
@pytest.mark.parametrize("fixture", FIXTURE_FILES, ids=lambda p: p.name)
def test_every_fixture_drawing_has_unique_element_ids(fixture: Path, engine: str) -> None:
    from layouts.api import layout
    from layouts.options import LayoutOptions
    from renderer.render import render_document
    from renderer.writers import OutputFormat

    svg = render_document(fixture.read_bytes(), filename=fixture.name, fmt=OutputFormat.SVG,
                          engine=engine, options=LayoutOptions(),
                          runner=lambda g, e, o: layout(g, engine=e, options=o))
    ids = _ids(svg)
    assert len(ids) > 20 and len(ids) == len(set(ids))


def svgwrite_svg(diagram: Diagram, result: LayoutResult, title: str | None = None) -> bytes:
    """The oracle: the same drawing with every element built by svgwrite and the document
    written by svgwrite's ``tostring()`` (ElementTree)."""
    import svgwrite

    from renderer.svg import XML_DECLARATION, svg_drawing
    from renderer.svg_element import SvgDrawing

    def factory(size: tuple[str, str], view_box: str) -> SvgDrawing:
        return cast(SvgDrawing, svgwrite.Drawing(size=size, viewBox=view_box, debug=False))

    drawing = svg_drawing(diagram, result, title=title, factory=factory)
    assert type(drawing).__module__ == "svgwrite.drawing"
    return XML_DECLARATION + drawing.tostring().encode("utf-8")


TESTS = Path(__file__).resolve().parents[1]
ORACLE_FILES = [*FIXTURE_FILES, *sorted((TESTS / "renderer" / "bpmn_files").glob("*.bpmn")),
                *sorted((TESTS / "layouts" / "layered" / "label_graphs").glob("*.gv"))]
DOT_SHAPES = ("digraph { rankdir=LR; node [style=filled, fillcolor=\"#ffeecc80\"]; "
              + "; ".join(f'n{i} [shape="{name}", label="{name} <&>\\n2nd"]'
                          for i, name in enumerate(sorted(DOT_OUTLINES)))
              + '; r [shape=record, label="<a> x|{y|<b> z}"]; n0 -> r:a [style=dashed, '
                'color=red, arrowtail=diamond, dir=both]; r:b -> n1 [xlabel="x"]; '
                'subgraph cluster_c { label="C & D"; n2; n3 } }')


@pytest.mark.parametrize("path", ORACLE_FILES, ids=lambda p: p.name)
def test_the_writer_gives_svgwrites_bytes(path: Path) -> None:
    """Every fixture, BPMN and DOT test file, with its own title and a hostile one."""
    from layouts.api import layout
    from renderer.readers import read_diagram

    diagram = read_diagram(path.read_bytes(), filename=path.name)
    hostile = Diagram(HOSTILE + "\x01\n\t\r", diagram.graph, diagram.nodes, diagram.edges)
    result = layout(diagram.graph, engine="graphviz" if path.suffix == ".bpmn" else "layered")
    for drawn in (diagram, hostile):
        for title in (None, HOSTILE + " & <b>"):
            assert write_svg(drawn, result, title=title) == svgwrite_svg(drawn, result, title)


def test_the_writer_gives_svgwrites_bytes_for_every_dot_figure_and_run_states() -> None:
    from layouts.api import layout
    from renderer.readers import read_diagram

    diagram = read_diagram(DOT_SHAPES)
    result = layout(diagram.graph, engine="graphviz")
    assert write_svg(diagram, result) == svgwrite_svg(diagram, result)
    ran, run_result = _three_node_case()
    views = {key: dataclasses.replace(view, state=state, attempts=3)
             for (key, view), state in zip(ran.nodes.items(), StepState, strict=False)}
    edges = {"a->d": EdgeView(state=EdgeState.TAKEN),
             "d->t": EdgeView(HOSTILE, state=EdgeState.NOT_TAKEN),
             "d->a": EdgeView(state=EdgeState.PENDING, iterations=2)}
    ran = dataclasses.replace(ran, nodes=views, edges=edges)
    assert write_svg(ran, run_result) == svgwrite_svg(ran, run_result)
    odd_id = 'a\t"<b>&\r\n'  # every character an attribute escapes
    odd = Diagram("odd", Graph((Node(odd_id, 80, 40),)))
    odd_result = LayoutResult((NodeBox(odd_id, 0, 0, 80, 40),), (), 80, 40, _diagnostics())
    assert write_svg(odd, odd_result) == svgwrite_svg(odd, odd_result)


def test_ids_that_used_to_collide_stay_unique() -> None:
    # an edge named "labels" drew "edge-labels", the id of the labels layer; ids that
    # differ only in control characters all became U+FFFD
    node_ids = ["a\x01", "a\x02", "b%01"]
    graph = Graph(tuple(Node(i, 40, 20) for i in node_ids),
                  (Edge("labels", "a\x01", "a\x02", "x"),))
    result = LayoutResult(
        tuple(NodeBox(i, 0, 40 * k, 40, 20) for k, i in enumerate(node_ids)),
        (EdgeRoute("labels", "a\x01", "a\x02", (Point(20, 20), Point(20, 40))),),
        40, 100, _diagnostics())
    ids = _ids(write_svg(Diagram("d", graph), result))
    assert len(ids) == len(set(ids))
    assert {"node-a%01", "node-a%02", "node-b%2501", "edge-labels", "label-labels"} <= set(ids)
