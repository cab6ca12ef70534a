"""Writers: the format table, ELK JSON (shape and round trip) and DOT (neato -n2 redraw)."""

from __future__ import annotations

import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from layouts.graph import Edge, Graph, Node, RankGroup, Shape
from layouts.result import Box, Diagnostics, EdgeRoute, LayoutResult, NodeBox, Point
from renderer.diagram import Diagram, EdgeView, NodeView, StepKind
from renderer.dot_writer import write_dot
from renderer.elk_json import write_elk_json
from renderer.from_definition import diagram_from_definition
from renderer.readers import read_diagram
from renderer.svg import write_svg
from renderer.writers import MEDIA_TYPES, OutputFormat, format_for_path, write_output
from workflow.dsl import load_definition

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _case() -> tuple[Diagram, LayoutResult]:
    """a (120x40 at 0,0) -> d (diamond 80x60 at 20,100) with label box; d -> a loop-back
    with two bends. Drawing 160 x 160."""
    graph = Graph(
        nodes=(Node("a", 120, 40), Node("d", 80, 60, Shape.DIAMOND)),
        edges=(Edge("a->d", "a", "d", 'x == "y"', False, 50, 16),
               Edge("d->a", "d", "a", None, True)),
    )
    views = {"a": NodeView(StepKind.TOOL, "a", "fetch"), "d": NodeView(StepKind.CONDITION, "d")}
    diagram = Diagram("demo", graph, views, {"a->d": EdgeView('x == "y"')})
    result = LayoutResult(
        nodes=(NodeBox("a", 0, 0, 120, 40), NodeBox("d", 20, 100, 80, 60, Shape.DIAMOND)),
        edges=(
            EdgeRoute("a->d", "a", "d", (Point(60, 40), Point(60, 100)),
                      label_box=Box(64, 62, 50, 16)),
            EdgeRoute("d->a", "d", "a", (Point(100, 130), Point(140, 130), Point(140, 20),
                                          Point(120, 20)), loop_back=True),
        ),
        width=160, height=160,
        diagnostics=Diagnostics(engine="hand", effort="draft", direction="TopToBottom"),
    )
    return diagram, result


@pytest.mark.parametrize(
    ("path", "expected"),
    [("a.svg", OutputFormat.SVG), ("dir/a.JSON", OutputFormat.JSON),
     ("a.elk.json", OutputFormat.ELK), ("a.dot", OutputFormat.DOT), ("a.gv", OutputFormat.DOT)],
)
def test_format_for_path(path: str, expected: OutputFormat) -> None:
    assert format_for_path(path) is expected


def test_unknown_extension_is_named() -> None:
    with pytest.raises(ValueError, match=r"unknown output extension '\.png'"):
        format_for_path("drawing.png")


def test_media_types() -> None:
    assert dict(MEDIA_TYPES) == {
        OutputFormat.SVG: "image/svg+xml", OutputFormat.JSON: "application/json",
        OutputFormat.ELK: "application/json", OutputFormat.DOT: "text/vnd.graphviz",
        OutputFormat.BPMN: "application/xml",
    }


def test_write_output_dispatches() -> None:
    diagram, result = _case()
    assert write_output(diagram, result, "json") == result.to_json().encode("utf-8")
    assert write_output(diagram, result, OutputFormat.SVG) == write_svg(diagram, result)
    assert write_output(diagram, result, "ELK") == write_elk_json(diagram, result)
    assert write_output(diagram, result, "dot") == write_dot(diagram, result)
    with pytest.raises(ValueError, match="unknown output format 'pdf'"):
        write_output(diagram, result, "pdf")


def test_elk_json_shape() -> None:
    diagram, result = _case()
    data = json.loads(write_elk_json(diagram, result))
    assert data["id"] == "demo" and (data["width"], data["height"]) == (160, 160)
    # every label gets a box, as elkjs gives one; an unmeasured node label (size 0) sits at
    # the centre of its node, relative to the node: (80 / 2, 60 / 2)
    assert data["children"][1] == {"id": "d", "x": 20, "y": 100, "width": 80, "height": 60,
                                   "shape": "diamond", "labels": [{"text": "d", "x": 40,
                                                                   "y": 30, "width": 0,
                                                                   "height": 0}]}
    first, loop = data["edges"]
    assert first["sources"] == ["a"] and first["targets"] == ["d"]
    assert first["sections"][0]["startPoint"] == {"x": 60, "y": 40}
    assert "bendPoints" not in first["sections"][0]  # elkjs leaves it out when empty
    assert first["sections"][0]["incomingShape"] == "a" and first["container"] == "demo"
    assert first["sections"][0]["endPoint"] == {"x": 60, "y": 100}
    assert first["labels"] == [{"text": 'x == "y"', "x": 64, "y": 62, "width": 50,
                                "height": 16}]
    assert loop["sections"][0]["bendPoints"] == [{"x": 140, "y": 130}, {"x": 140, "y": 20}]
    assert loop["loopBack"] is True and "labels" not in loop


def test_elk_json_round_trip_keeps_sizes() -> None:
    diagram = diagram_from_definition(load_definition(FIXTURES / "document-processing.yaml"))
    nodes = tuple(NodeBox(n.id, 10.0 * i, 100.0 * i, n.width, n.height, n.shape)
                  for i, n in enumerate(diagram.graph.nodes))
    index = {n.id: n for n in nodes}
    edges = tuple(EdgeRoute(e.id, e.source, e.target,
                            (index[e.source].center, index[e.target].center),
                            loop_back=e.loop_back) for e in diagram.graph.edges)
    result = LayoutResult(nodes, edges, 500, 2500, Diagnostics("hand", "draft", "TopToBottom"))
    written = write_elk_json(diagram, result)
    assert written == write_elk_json(diagram, result)
    again = read_diagram(written)
    assert [(n.id, n.width, n.height, n.shape) for n in again.graph.nodes] == [
        (n.id, n.width, n.height, n.shape) for n in diagram.graph.nodes]
    assert [(e.id, e.source, e.target, e.label, e.loop_back) for e in again.graph.edges] == [
        (e.id, e.source, e.target, e.label, e.loop_back) for e in diagram.graph.edges]


def test_dot_positions_flip_y() -> None:
    diagram, result = _case()
    text = write_dot(diagram, result).decode()
    # a's centre (60, 20) in a 160-high drawing is at y = 160 - 20 = 140 in DOT
    assert '"a" [pos="60,140", width=1.6667, height=0.5556' in text  # 120/72, 40/72
    # the label box centre (64 + 25, 62 + 8) = (89, 70) -> lp y = 160 - 70 = 90
    assert 'lp="89,90"' in text
    # a->d ends at (60,100) -> DOT (60,60); the spline stops 10 pt short, at (60,70)
    assert 'pos="e,60,60 60,120 60,120 60,70 60,70"' in text


def test_dot_round_trip_keeps_sizes() -> None:
    diagram, result = _case()
    again = read_diagram(write_dot(diagram, result))
    for before in diagram.graph.nodes:
        after = again.graph.node(before.id)
        assert (after.width, after.height, after.shape) == pytest.approx(
            (before.width, before.height, before.shape), abs=0.01)
    loop = next(e for e in again.graph.edges if e.id == "d->a")
    assert loop.loop_back


@pytest.mark.skipif(shutil.which("neato") is None, reason="Graphviz neato is not installed")
def test_neato_redraws_dot_output(tmp_path: Path) -> None:
    diagram = diagram_from_definition(load_definition(FIXTURES / "repository-assessment.yaml"))
    nodes = tuple(NodeBox(n.id, 0, 90.0 * i, n.width, n.height, n.shape)
                  for i, n in enumerate(diagram.graph.nodes))
    index = {n.id: n for n in nodes}
    edges = tuple(EdgeRoute(e.id, e.source, e.target,
                            (index[e.source].center, Point(200, index[e.source].center.y),
                             Point(200, index[e.target].center.y), index[e.target].center))
                  for e in diagram.graph.edges)
    result = LayoutResult(nodes, edges, 300, 540, Diagnostics("hand", "draft", "TopToBottom"))
    dot_file = tmp_path / "g.dot"
    dot_file.write_bytes(write_dot(diagram, result))
    done = subprocess.run(["neato", "-n2", "-Tsvg", str(dot_file)], capture_output=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr.decode()
    svg = ET.fromstring(done.stdout)
    titles = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}title")]
    assert "classify" in titles and "confident" in titles


def test_dot_round_trip_keeps_awkward_ids_and_labels() -> None:
    ids = ["a\nb", 'q"uote', "back\\slash", "tab\tx"]
    label = 'two\nlines \\N and \\"'
    graph = Graph(tuple(Node(i, 50, 30) for i in ids), (Edge("e", ids[0], ids[1], label),))
    result = LayoutResult(
        tuple(NodeBox(i, 0, 40 * k, 50, 30) for k, i in enumerate(ids)),
        (EdgeRoute("e", ids[0], ids[1], (Point(25, 30), Point(25, 40))),),
        50, 160, Diagnostics("hand", "draft", "TopToBottom"))
    again = read_diagram(write_dot(Diagram("x", graph), result))
    assert [n.id for n in again.graph.nodes] == ids
    assert again.graph.edges[0].label == label


def test_no_dot_id_can_leave_its_quoted_string() -> None:
    # DOT reads a backslash and the character after it as a pair, so a trailing backslash,
    # or one before a quote, used to escape the closing quote and let the rest out
    pygraphviz = pytest.importorskip("pygraphviz")
    ids = ["tail\\", 'q\\"] ; evil -> pwned ; "x\\\\', "plain"]
    graph = Graph(tuple(Node(i, 50, 30) for i in ids),
                  (Edge("e\\", ids[0], ids[1]), Edge('f\\"', ids[1], ids[2])))
    result = LayoutResult(
        tuple(NodeBox(i, 0, 40 * k, 50, 30) for k, i in enumerate(ids)),
        (EdgeRoute("e\\", ids[0], ids[1], (Point(25, 30), Point(25, 40))),
         EdgeRoute('f\\"', ids[1], ids[2], (Point(25, 70), Point(25, 80)))),
        50, 120, Diagnostics("hand", "draft", "TopToBottom"))
    parsed = pygraphviz.AGraph(string=write_dot(Diagram("x", graph), result).decode())
    names = [str(n) for n in parsed.nodes()]
    assert len(names) == 3 and "pwned" not in names and "evil" not in names
    assert names[2] == "plain" and names[1].startswith("q") and "evil -> pwned" in names[1]
    assert parsed.number_of_edges() == 2


def test_dot_round_trip_keeps_the_cluster_hierarchy_labels_and_rank_groups() -> None:
    # written for this test: an ELK-style compound graph (ids not starting with "cluster")
    graph = Graph((Node("outer", 10, 10, label="Outer", children=(
        Node("a", 40, 30), Node("inner", 10, 10, label="Inner", children=(
            Node("b", 40, 30), Node("c", 40, 30))))), Node("d", 40, 30)),
        (Edge("ab", "a", "b"), Edge("cd", "c", "d")),
        rank_groups=(RankGroup(("b", "c")),))
    result = LayoutResult(
        (NodeBox("outer", 0, 0, 200, 160), NodeBox("a", 20, 20, 40, 30, parent="outer"),
         NodeBox("inner", 10, 70, 180, 80, parent="outer"),
         NodeBox("b", 20, 100, 40, 30, parent="inner"),
         NodeBox("c", 120, 100, 40, 30, parent="inner"), NodeBox("d", 120, 200, 40, 30)),
        (EdgeRoute("ab", "a", "b", (Point(40, 50), Point(40, 100))),
         EdgeRoute("cd", "c", "d", (Point(140, 130), Point(140, 200)))),
        200, 230, Diagnostics("hand", "draft", "TopToBottom"))
    text = write_dot(Diagram("x", graph), result).decode()
    assert 'subgraph "cluster_outer" {' in text and 'subgraph "cluster_inner" {' in text
    assert 'label="Inner", bb="10,80,190,160"' in text   # y flipped: 230 - 70 - 80 = 80
    again = read_diagram(text).graph
    assert again.parents() == {"outer": None, "a": "outer", "inner": "outer", "b": "inner",
                               "c": "inner", "d": None}
    assert again.node("outer").label == "Outer" and again.node("inner").label == "Inner"
    assert [(g.kind.value, g.nodes) for g in again.rank_groups] == [("same", ("b", "c"))]
    assert [(e.source, e.target) for e in again.edges] == [("a", "b"), ("c", "d")]
