"""BPMN 2.0 in (read safely, drawn in BPMN notation) and BPMN DI out (``--format bpmn``).

The test files in ``bpmn_files/`` were written for these tests: order handling with
exclusive and parallel gateways, a collaboration of two pools with message flows and
lanes, and a claim with a sub-process, boundary timer and escalation events.
"""

from __future__ import annotations

import re
import shutil
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from layouts.api import layout
from layouts.geometry import on_outline
from layouts.graph import Graph, Shape
from layouts.options import LayoutOptions
from layouts.result import LayoutResult, NodeBox
from renderer.cli import main
from renderer.figures import BpmnEvent, BpmnMarker, EdgeEnd, Outline
from renderer.readers import ReaderError, read_diagram, read_diagram_file
from renderer.render import render_timed
from renderer.writers import OutputFormat

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

FILES = Path(__file__).resolve().parent / "bpmn_files"
BPMN_FILES = sorted(FILES.glob("*.bpmn"))
MODEL = "http://www.omg.org/spec/BPMN/20100524/MODEL"
DI = "http://www.omg.org/spec/BPMN/20100524/DI"
DC = "http://www.omg.org/spec/DD/20100524/DC"
DD_DI = "http://www.omg.org/spec/DD/20100524/DI"
EVENTS = {"startEvent", "endEvent", "intermediateCatchEvent", "intermediateThrowEvent",
          "boundaryEvent"}
GATEWAYS = {"exclusiveGateway", "parallelGateway", "inclusiveGateway", "eventBasedGateway",
            "complexGateway"}
ACTIVITIES = {"task", "userTask", "serviceTask", "scriptTask", "sendTask", "receiveTask",
              "manualTask", "businessRuleTask", "callActivity", "subProcess"}
ENGINES = ["layered", "graphviz", "elkjs"]


def _direct(graph: Graph, engine: str, options: LayoutOptions) -> LayoutResult:
    return layout(graph, engine=engine, options=options)


def _render(path: Path, fmt: OutputFormat, engine: str = "layered") -> bytes:
    return render_timed(path.read_bytes(), filename=path.name, fmt=fmt, engine=engine,
                        options=LayoutOptions(), runner=_direct,
                        given_options=frozenset()).output


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _flow_nodes(root: ET.Element) -> dict[str, str]:
    """Every flow node of the document (any depth): id -> element name."""
    return {el.get("id", ""): _local(el.tag) for el in root.iter()
            if el.tag.startswith(f"{{{MODEL}}}")
            and _local(el.tag) in EVENTS | GATEWAYS | ACTIVITIES}


def _shape_of(element_name: str) -> Shape:
    if element_name in EVENTS:
        return Shape.CIRCLE
    return Shape.DIAMOND if element_name in GATEWAYS else Shape.RECT


def _engine_available(engine: str) -> None:
    needs = {"graphviz": "dot", "elkjs": "node"}.get(engine)
    if needs and shutil.which(needs) is None:
        pytest.skip(f"{engine} needs {needs}")


# --- reading ------------------------------------------------------------------------------

def test_order_handling_reads_every_node_flow_and_marker() -> None:
    diagram = read_diagram_file(FILES / "order-handling.bpmn")
    assert [n.id for n in diagram.graph.nodes] == [
        "received", "check", "ok", "split", "charge", "pack", "join", "notify", "done",
        "rejected"]
    figures = {key: view.figure for key, view in diagram.nodes.items()}
    assert figures["received"].bpmn.event is BpmnEvent.START  # type: ignore[union-attr]
    assert figures["received"].bpmn.marker is BpmnMarker.MESSAGE  # type: ignore[union-attr]
    assert figures["ok"].bpmn.marker is BpmnMarker.EXCLUSIVE  # type: ignore[union-attr]
    assert figures["split"].outline is Outline.BPMN_GATEWAY  # type: ignore[union-attr]
    assert figures["check"].bpmn.marker is BpmnMarker.USER  # type: ignore[union-attr]
    assert figures["rejected"].bpmn.marker is BpmnMarker.TERMINATE  # type: ignore[union-attr]
    assert diagram.graph.node("received").shape is Shape.CIRCLE
    assert diagram.graph.node("ok").shape is Shape.DIAMOND
    edges = {e.id: e for e in diagram.graph.edges}
    assert edges["f3"].label == "yes" and edges["reject"].label == "no"
    # the gateway's default flow gets BPMN's slash; a gateway's condition no diamond
    assert diagram.edges["reject"].figure.tail is EdgeEnd.SLASH  # type: ignore[union-attr]
    assert diagram.edges["f3"].figure.tail is EdgeEnd.NONE  # type: ignore[union-attr]
    assert diagram.option_values == {"direction": "LeftToRight"}


def test_collaboration_reads_both_pools_message_flows_and_the_lanes() -> None:
    diagram = read_diagram_file(FILES / "two-pools.bpmn")
    assert diagram.bpmn is not None
    pools = [(s.id, s.name, len(s.node_ids)) for s in diagram.bpmn.main_scopes]
    assert pools == [("Customer", "Customer", 5), ("Shop", "Shop", 8)]
    message = next(e for e in diagram.graph.edges if e.id == "OrderMessage")
    assert (message.source, message.target, message.label) == ("SendOrder", "OrderArrived",
                                                                "order")
    (shop,) = [s for s in diagram.bpmn.main_scopes if s.id == "Shop"]
    assert [(lane.id, lane.node_ids) for lane in shop.lanes] == [
        ("Sales", ("OrderArrived",)), ("Billing", ("SendInvoice",))]
    assert not any("lane" in w for w in diagram.warnings)


def test_sub_process_and_boundary_events() -> None:
    diagram = read_diagram_file(FILES / "claim-with-timer.bpmn")
    assert diagram.bpmn is not None
    (sub,) = diagram.bpmn.sub_scopes
    assert sub.id == "Assess" and "Review" in sub.node_ids and "WaitFor" in sub.node_ids
    hosts = {b.event_id: b.host_id for b in diagram.bpmn.boundaries}
    assert hosts == {"TooLong": "Assess", "Fraud": "Assess"}
    # boundary events are placed after the layout; their flows leave the host meanwhile
    assert "TooLong" not in {n.id for n in diagram.graph.nodes}
    assert next(e for e in diagram.graph.edges if e.id == "F5").source == "Assess"
    fraud = diagram.nodes["Fraud"].figure
    assert fraud is not None and fraud.bpmn is not None and not fraud.bpmn.interrupting
    assert not any("textAnnotation" in w for w in diagram.warnings)


def test_boundary_events_sit_on_their_host_border() -> None:
    path = FILES / "claim-with-timer.bpmn"
    rendering = render_timed(path.read_bytes(), filename=path.name, fmt=OutputFormat.JSON,
                             engine="layered", options=LayoutOptions(), runner=_direct,
                             given_options=frozenset())
    host = rendering.result.node("Assess")
    for event_id in ("TooLong", "Fraud"):
        event = rendering.result.node(event_id)
        assert event.center.y == host.y + host.height  # centred on the bottom border
        assert host.x <= event.x and event.x + event.width <= host.x + host.width
    late = next(e for e in rendering.result.edges if e.id == "F5")
    assert late.source == "TooLong"
    assert on_outline(rendering.result.node("TooLong"), late.points[0])


# --- BPMN DI out: the round trip -----------------------------------------------------------

@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("path", BPMN_FILES, ids=lambda p: p.stem)
def test_round_trip_every_flow_node_has_a_shape_and_every_flow_an_edge_on_its_outlines(
        path: Path, engine: str) -> None:
    _engine_available(engine)
    out = _render(path, OutputFormat.BPMN, engine)
    root = ET.fromstring(out)
    nodes = _flow_nodes(root)
    shapes = {s.get("bpmnElement"): s for s in root.iter(f"{{{DI}}}BPMNShape")}
    assert set(nodes) <= set(shapes), f"no shape for {sorted(set(nodes) - set(shapes))}"
    boxes = {}
    for node_id, element in nodes.items():
        bounds = shapes[node_id].find(f"{{{DC}}}Bounds")
        assert bounds is not None
        x, y, w, h = (float(bounds.get(k, "nan")) for k in ("x", "y", "width", "height"))
        boxes[node_id] = NodeBox(node_id, x, y, w, h, _shape_of(element))
    edges = {e.get("bpmnElement"): e for e in root.iter(f"{{{DI}}}BPMNEdge")}
    flows = [f for f in root.iter(f"{{{MODEL}}}sequenceFlow")]
    assert flows
    for flow in flows:
        edge = edges.get(flow.get("id"))
        assert edge is not None, f"no edge for flow {flow.get('id')}"
        points = [(float(p.get("x", "nan")), float(p.get("y", "nan")))
                  for p in edge.iter(f"{{{DD_DI}}}waypoint")]
        assert len(points) >= 2
        source, target = boxes[flow.get("sourceRef", "")], boxes[flow.get("targetRef", "")]
        from layouts.result import Point

        assert on_outline(source, Point(*points[0]), 0.6), (flow.get("id"), points[0], source)
        assert on_outline(target, Point(*points[-1]), 0.6), (flow.get("id"), points[-1], target)


def _without_di(root: ET.Element) -> list[tuple[str, dict[str, str], str]]:
    """Every element outside BPMN DI, in document order, with attributes and text."""
    out = []
    for element in root.iter():
        if element.tag.startswith((f"{{{DI}}}", f"{{{DC}}}", f"{{{DD_DI}}}")):
            continue
        out.append((element.tag, dict(element.attrib), (element.text or "").strip()))
    return out


@pytest.mark.parametrize("path", BPMN_FILES, ids=lambda p: p.stem)
def test_everything_but_the_diagram_interchange_is_untouched(path: Path) -> None:
    source = path.read_bytes()
    out = _render(path, OutputFormat.BPMN)
    assert _without_di(ET.fromstring(out)) == _without_di(ET.fromstring(source))
    # byte for byte up to where the old diagram (or the closing tag) was
    first_di = re.search(rb"<(\w+:)?BPMNDiagram\b|</(\w+:)?definitions>", source)
    assert first_di is not None
    assert out.startswith(source[:first_di.start()].rstrip())


def test_old_diagram_is_replaced_and_sub_process_gets_its_own_plane() -> None:
    pools = ET.fromstring(_render(FILES / "two-pools.bpmn", OutputFormat.BPMN))
    assert "Hungry_di" not in {s.get("id") for s in pools.iter(f"{{{DI}}}BPMNShape")}
    (plane,) = pools.iter(f"{{{DI}}}BPMNPlane")
    assert plane.get("bpmnElement") == "Collaboration_1"
    pool_shapes = {s.get("bpmnElement"): s for s in pools.iter(f"{{{DI}}}BPMNShape")}
    assert pool_shapes["Customer"].get("isHorizontal") == "true"
    # grandalf lays out no compound nodes, so the sub-process is collapsed into a plane
    claim = ET.fromstring(_render(FILES / "claim-with-timer.bpmn", OutputFormat.BPMN,
                                  "grandalf"))
    planes = [p.get("bpmnElement") for p in claim.iter(f"{{{DI}}}BPMNPlane")]
    assert planes == ["Claim", "Assess"]
    shape = next(s for s in claim.iter(f"{{{DI}}}BPMNShape") if s.get("bpmnElement") == "Assess")
    assert shape.get("isExpanded") == "false"


def test_pools_do_not_overlap() -> None:
    root = ET.fromstring(_render(FILES / "two-pools.bpmn", OutputFormat.BPMN))
    shapes = {s.get("bpmnElement"): s.find(f"{{{DC}}}Bounds")
              for s in root.iter(f"{{{DI}}}BPMNShape")}
    customer, shop = shapes["Customer"], shapes["Shop"]
    assert customer is not None and shop is not None
    assert float(customer.get("y", 0)) + float(customer.get("height", 0)) < float(
        shop.get("y", 0))


def test_svg_uses_bpmn_notation() -> None:
    svg = _render(FILES / "claim-with-timer.bpmn", OutputFormat.SVG).decode()
    for marker in ("marker-timer", "marker-escalation", "marker-event-based",
                   "marker-complex", "marker-signal", "marker-error"):
        assert marker in svg, marker
    # an engine without compound nodes frames the collapsed sub-process's content
    flat = _render(FILES / "claim-with-timer.bpmn", OutputFormat.SVG, "grandalf").decode()
    assert 'data-scope-id="Assess"' in flat
    assert "figure-bpmn-activity" in svg and "figure-bpmn-event" in svg


# --- hostile and wrong input ----------------------------------------------------------------

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"><process id="p">
<task id="t" name="&lol3;"/></process></definitions>"""
EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE d [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"><process id="p">
<task id="t" name="&secret;"/></process></definitions>"""


@pytest.mark.parametrize("data", [BILLION_LAUGHS, EXTERNAL_ENTITY], ids=["laughs", "external"])
def test_entity_attacks_are_refused(data: bytes) -> None:
    with pytest.raises(ReaderError, match="DTD"):
        read_diagram(data, filename="attack.bpmn")


def test_oversized_bpmn_is_refused_before_parsing() -> None:
    from renderer.readers import INPUT_LIMITS

    huge = (b'<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL">'
            + b" " * INPUT_LIMITS.max_bytes + b"</definitions>")
    with pytest.raises(ReaderError, match="the limit is 20000000"):
        read_diagram(huge)


def test_deep_nesting_is_refused() -> None:
    deep = (b'<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL">'
            + b"<extensionElements>" * 150 + b"</extensionElements>" * 150 + b"</definitions>")
    with pytest.raises(ReaderError, match="more than 100 deep"):
        read_diagram(deep)


@pytest.mark.parametrize(("data", "problem"), [
    (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "XML but not BPMN 2.0"),
    (b'<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"><process id="p">'
     b"<task id='t'>", "not well-formed XML at line 1"),
    (b'<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"/>', "no flow nodes"),
    (b'<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"><process id="p">'
     b'<task id="t"/><sequenceFlow id="f" sourceRef="t" targetRef="ghost"/></process>'
     b"</definitions>", "targetRef 'ghost'"),
])
def test_bad_bpmn_names_the_problem(data: bytes, problem: str) -> None:
    with pytest.raises(ReaderError, match=problem):
        read_diagram(data)


# --- the CLI and the service -----------------------------------------------------------------

def test_cli_renders_a_bpmn_file_and_writes_bpmn(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "order.bpmn"
    assert main(["render", str(FILES / "order-handling.bpmn"), "-o", str(out)]) == 0
    assert b"<bpmndi:BPMNShape" in out.read_bytes()
    svg = tmp_path / "order.svg"
    assert main(["render", str(FILES / "order-handling.bpmn"), "-o", str(svg)]) == 0
    assert svg.read_bytes().startswith(b"<?xml")


def test_cli_refuses_bpmn_output_for_other_input(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    dot = tmp_path / "g.dot"
    dot.write_text("digraph { a -> b }")
    assert main(["render", str(dot), "--format", "bpmn"]) == 2
    assert "format bpmn needs BPMN input" in capsys.readouterr().err


def test_cli_entity_attack_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    attack = tmp_path / "attack.bpmn"
    attack.write_bytes(BILLION_LAUGHS)
    assert main(["render", str(attack)]) == 2
    err = capsys.readouterr().err
    assert "DTD" in err and len(err.strip().splitlines()) == 1


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    from renderer.isolation import WorkerPool
    from renderer.service import create_app

    with TestClient(create_app(pool=WorkerPool(size=1))) as test_client:
        yield test_client


def test_service_renders_bpmn_as_svg_and_bpmn(client: TestClient) -> None:
    body = (FILES / "two-pools.bpmn").read_bytes()
    svg = client.post("/api/render", content=body, headers={"content-type": "application/xml"})
    assert svg.status_code == 200, svg.text
    assert svg.headers["content-type"].startswith("image/svg+xml")
    assert "x-layout-warnings" not in svg.headers   # lanes are drawn now, nothing is left out
    assert b'data-lane-id="Sales"' in svg.content
    bpmn = client.post("/api/render?format=bpmn", content=body)
    assert bpmn.status_code == 200 and b"BPMNShape" in bpmn.content


def test_service_refuses_entity_attacks_with_400(client: TestClient) -> None:
    response = client.post("/api/render", content=BILLION_LAUGHS,
                           headers={"content-type": "application/xml"})
    assert response.status_code == 400
    assert "DTD" in response.json()["error"]


@pytest.mark.parametrize("engine", ["elkjs", "layered"])
def test_sub_process_is_expanded_where_the_engine_lays_out_compound_nodes(engine: str) -> None:
    _engine_available(engine)
    path = FILES / "claim-with-timer.bpmn"
    rendering = render_timed(path.read_bytes(), filename=path.name, fmt=OutputFormat.JSON,
                             engine=engine, options=LayoutOptions(), runner=_direct,
                             given_options=frozenset())
    assess = rendering.result.node("Assess")
    for inner in ("AssessStart", "Review", "WaitFor", "AssessEnd"):
        box = rendering.result.node(inner)
        assert box.parent == "Assess"
        assert assess.x <= box.x and box.x + box.width <= assess.x + assess.width
    root = ET.fromstring(_render(path, OutputFormat.BPMN, engine))
    planes = [p.get("bpmnElement") for p in root.iter(f"{{{DI}}}BPMNPlane")]
    assert planes == ["Claim"]  # the content is in the process's plane
    shape = next(s for s in root.iter(f"{{{DI}}}BPMNShape") if s.get("bpmnElement") == "Assess")
    assert shape.get("isExpanded") == "true"


def test_engines_without_compound_nodes_draw_sub_processes_collapsed_with_a_warning() -> None:
    path = FILES / "claim-with-timer.bpmn"
    rendering = render_timed(path.read_bytes(), filename=path.name, fmt=OutputFormat.JSON,
                             engine="grandalf", options=LayoutOptions(), runner=_direct,
                             given_options=frozenset())
    assert rendering.result.node("Review").parent is None
    assert any("1 sub-process(es) drawn collapsed" in w
               for w in rendering.result.diagnostics.warnings)


@pytest.mark.parametrize("engine", ENGINES)
def test_every_flow_inside_a_pool_stays_inside_its_pool(engine: str) -> None:
    _engine_available(engine)
    root = ET.fromstring(_render(FILES / "two-pools.bpmn", OutputFormat.BPMN, engine))
    bounds = {s.get("bpmnElement"): s.find(f"{{{DC}}}Bounds")
              for s in root.iter(f"{{{DI}}}BPMNShape")}
    pools = {"Customer": {"Hungry", "SendOrder", "InvoiceArrived", "Pay", "Paid"}}
    pools["Shop"] = {"OrderArrived", "Price", "Extras", "Wrap", "Insure", "ExtrasDone",
                     "SendInvoice", "Invoiced"}
    flows = {f.get("id"): (f.get("sourceRef"), f.get("targetRef"))
             for f in root.iter(f"{{{MODEL}}}sequenceFlow")}
    for edge in root.iter(f"{{{DI}}}BPMNEdge"):
        ends = flows.get(edge.get("bpmnElement"))
        if ends is None:
            continue
        pool = next(name for name, members in pools.items() if ends[0] in members)
        box = bounds[pool]
        assert box is not None
        x0, y0 = float(box.get("x", 0)), float(box.get("y", 0))
        x1, y1 = x0 + float(box.get("width", 0)), y0 + float(box.get("height", 0))
        for p in edge.iter(f"{{{DD_DI}}}waypoint"):
            x, y = float(p.get("x", 0)), float(p.get("y", 0))
            assert x0 <= x <= x1 and y0 <= y <= y1, (edge.get("bpmnElement"), x, y, pool)


@pytest.mark.parametrize("fmt", [OutputFormat.SVG, OutputFormat.BPMN])
def test_same_input_gives_the_same_bytes(fmt: OutputFormat) -> None:
    path = FILES / "claim-with-timer.bpmn"
    assert _render(path, fmt) == _render(path, fmt)
