"""ELK layout options through the CLI and the service: the document's root options fill
in what the caller did not give, the caller's win, and what an engine cannot honour comes
back as warnings (never dropped silently)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from layouts.api import layout
from layouts.graph import Graph, Node
from renderer.cli import main
from renderer.isolation import WorkerPool
from renderer.render import WARNINGS_HEADER
from renderer.service import create_app

with warnings.catch_warnings():  # as tests/renderer/test_service.py imports it
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

DOCUMENT = {
    "id": "root",
    "layoutOptions": {"elk.direction": "UP", "org.eclipse.elk.spacing.nodeNode": 33,
                      "elk.edgeRouting": "SPLINES"},
    "children": [{"id": "a", "width": 40, "height": 30},
                 {"id": "b", "width": 40, "height": 30,
                  "layoutOptions": {"elk.nodeLabels.placement": "INSIDE"}}],
    "edges": [{"id": "ab", "sources": ["a"], "targets": ["b"]}],
}
SPLINES = "the graph: option elk.edgeRouting=SPLINES is not honoured by engine 'layered'"
NODE_OPTION = "node 'b': option elk.nodeLabels.placement=INSIDE is not honoured by engine"


@pytest.fixture
def document(tmp_path: Path) -> Path:
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(DOCUMENT))
    return path


def _render(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[dict[str, object], str]:
    assert main(["render", *args, "--format", "json", "-o", "-"]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


def test_document_options_apply_and_unhonoured_ones_warn(
        document: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result, err = _render(capsys, str(document))
    nodes = {n["id"]: n for n in result["nodes"]}
    assert result["diagnostics"]["direction"] == "BottomToTop"  # type: ignore[index]
    assert nodes["b"]["y"] < nodes["a"]["y"]  # UP: the edge runs upwards
    lines = result["diagnostics"]["warnings"]  # type: ignore[index]
    assert SPLINES in lines and any(NODE_OPTION in w for w in lines)
    assert f"wfr: warning: {SPLINES}" in err
    # mapped options are honoured, so they are not warned about
    assert not any("direction" in w or "nodeNode" in w for w in lines)


def test_cli_options_win_over_the_document(document: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    result, _ = _render(capsys, str(document), "--direction", "TB")
    nodes = {n["id"]: n for n in result["nodes"]}
    assert result["diagnostics"]["direction"] == "TopToBottom"  # type: ignore[index]
    assert nodes["b"]["y"] > nodes["a"]["y"]


def test_elkjs_takes_every_option_without_warnings(
        document: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result, err = _render(capsys, str(document), "--engine", "elkjs")
    assert "warnings" not in result["diagnostics"]  # type: ignore[operator]
    assert "warning" not in err


def test_api_warns_per_engine() -> None:
    graph = Graph((Node("a", 9, 9),), layout_options=(("elk.algorithm", "mrtree"),
                                                      ("elk.algorithm", "layered")))
    assert layout(graph, engine="grandalf").diagnostics.warnings == ()
    odd = Graph((Node("a", 9, 9),), layout_options=(("elk.algorithm", "force"),))
    assert layout(odd, engine="graphviz").diagnostics.warnings == (
        "the graph: option elk.algorithm=force is not honoured by engine 'graphviz'",)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(pool=WorkerPool(size=1))) as started:
        yield started


def test_service_returns_warnings_and_query_wins(client: TestClient) -> None:
    response = client.post("/api/render", params={"format": "json"},
                           content=json.dumps(DOCUMENT),
                           headers={"content-type": "application/json"})
    assert response.status_code == 200
    assert SPLINES in json.loads(response.headers[WARNINGS_HEADER])
    assert response.json()["diagnostics"]["direction"] == "BottomToTop"
    overridden = client.post("/api/render", params={"format": "json",
                                                    "direction": "LR"},
                             content=json.dumps(DOCUMENT),
                             headers={"content-type": "application/json"})
    assert overridden.json()["diagnostics"]["direction"] == "LeftToRight"


def test_layered_lays_out_elk_ports_in_elkjs_output_shape(client: TestClient) -> None:
    ported = {"id": "root", "children": [
        {"id": "a", "width": 9, "height": 9, "ports": [{"id": "p"}]},
        {"id": "b", "width": 9, "height": 9}],
        "edges": [{"id": "e", "sources": ["p"], "targets": ["b"]}]}
    response = client.post("/api/render", params={"format": "elk"},
                           content=json.dumps(ported),
                           headers={"content-type": "application/json"})
    assert response.status_code == 200   # was a 422 before layered laid out ports
    body = response.json()
    a = body["children"][0]
    port = a["ports"][0]
    # a free port only an edge leaves goes on the face edges leave by (south, top to
    # bottom), alone on it: the face's middle, x = 9 / 2, y = the node's height; ELK puts
    # a port's x, y relative to its node
    assert (port["x"], port["y"], port["width"], port["height"]) == (4.5, 9, 0, 0)
    start = body["edges"][0]["sections"][0]["startPoint"]
    assert (start["x"], start["y"]) == (a["x"] + 4.5, a["y"] + 9)


def test_label_sizes_are_measured_when_not_given() -> None:
    from renderer.elk_read import read_elk_graph
    from renderer.from_definition import edge_label_size

    diagram = read_elk_graph({"id": "r", "children": [
        {"id": "a", "width": 40, "height": 30, "labels": [{"text": "Alpha"}]},
        {"id": "b", "width": 40, "height": 30, "labels": [{"text": "B", "width": 7,
                                                            "height": 9}]}],
        "edges": [{"id": "e", "sources": ["a"], "targets": ["b"],
                   "labels": [{"text": "yes"}]}]})
    a, b = diagram.graph.node("a"), diagram.graph.node("b")
    assert (a.label_width, a.label_height) == edge_label_size("Alpha") and a.label_width > 0
    assert (b.label_width, b.label_height) == (7, 9)  # given sizes are kept
    edge = diagram.graph.edges[0]
    assert (edge.label_width, edge.label_height) == edge_label_size("yes")


def test_svg_draws_compound_boxes_behind_edges_and_ports_on_top(tmp_path: Path) -> None:
    document = {"id": "r", "children": [
        {"id": "G", "labels": [{"text": "Group"}],
         "children": [{"id": "a", "width": 40, "height": 30},
                      {"id": "b", "width": 40, "height": 30,
                       "ports": [{"id": "p", "width": 6, "height": 6}]}],
         "edges": [{"id": "ab", "sources": ["a"], "targets": ["p"]}]}]}
    source = tmp_path / "g.json"
    source.write_text(json.dumps(document))
    out = tmp_path / "g.svg"
    assert main(["render", str(source), "--engine", "graphviz", "-o", str(out)]) == 0
    svg = out.read_text()
    assert svg.index('id="compound-nodes"') < svg.index('id="edges"') < svg.index(
        'id="nodes"') < svg.index('id="ports"')
    assert 'class="node compound" data-step-id="G"' in svg and 'data-port-id="p"' in svg
    assert ">Group</text>" in svg
