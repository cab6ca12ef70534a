"""BPMN lanes, black-box pools, data objects, data stores, text annotations and their
associations: read, drawn, and written back as BPMN DI that holds together. The file
``lanes-and-data.bpmn`` was written for these tests (see its comment)."""

from __future__ import annotations

import itertools
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from layouts.api import layout
from layouts.geometry import on_outline
from layouts.graph import Graph, Shape
from layouts.options import LayoutOptions
from layouts.result import LayoutResult, NodeBox, Point
from renderer.readers import read_diagram_file
from renderer.render import render_timed
from renderer.writers import OutputFormat

FILE = Path(__file__).parent / "bpmn_files" / "lanes-and-data.bpmn"
MODEL = "http://www.omg.org/spec/BPMN/20100524/MODEL"
DI = "http://www.omg.org/spec/BPMN/20100524/DI"
DC = "http://www.omg.org/spec/DD/20100524/DC"
DD_DI = "http://www.omg.org/spec/DD/20100524/DI"
ENGINES = ["layered", "graphviz", "elkjs"]
# the lanes of the file and the flow nodes each holds (a parent: its children's)
LANE_NODES = {"Counter": {"Asked", "Lookup", "Available"}, "Phone": {"Notify", "Declined"},
              "Stacks": {"Fetch", "Lent"}}
LANE_NODES["Desk"] = LANE_NODES["Counter"] | LANE_NODES["Phone"]
CIRCLES = {"Asked", "Lent", "Declined"}
DIAMONDS = {"Available"}


def _direct(graph: Graph, engine: str, options: LayoutOptions) -> LayoutResult:
    return layout(graph, engine=engine, options=options)


def _render(engine: str, fmt: OutputFormat) -> bytes:
    needs = {"graphviz": "dot", "elkjs": "node"}.get(engine)
    if needs and shutil.which(needs) is None:
        pytest.skip(f"{engine} needs {needs}")
    return render_timed(FILE.read_bytes(), filename=FILE.name, fmt=fmt, engine=engine,
                        options=LayoutOptions(), runner=_direct,
                        given_options=frozenset()).output


def _shapes(root: ET.Element) -> dict[str, ET.Element]:
    return {s.get("bpmnElement", ""): s for s in root.iter(f"{{{DI}}}BPMNShape")}


def _box(shape: ET.Element, element: str) -> NodeBox:
    bounds = shape.find(f"{{{DC}}}Bounds")
    assert bounds is not None
    x, y, w, h = (float(bounds.get(k, "nan")) for k in ("x", "y", "width", "height"))
    kind = Shape.CIRCLE if element in CIRCLES else (
        Shape.DIAMOND if element in DIAMONDS else Shape.RECT)
    return NodeBox(element, x, y, w, h, kind)


def _inside(inner: NodeBox, outer: NodeBox) -> bool:
    return (outer.x - 0.01 <= inner.x and inner.x + inner.width <= outer.x + outer.width + 0.01
            and outer.y - 0.01 <= inner.y
            and inner.y + inner.height <= outer.y + outer.height + 0.01)


def _waypoints(edge: ET.Element) -> list[Point]:
    return [Point(float(p.get("x", "nan")), float(p.get("y", "nan")))
            for p in edge.iter(f"{{{DD_DI}}}waypoint")]


# --- reading -------------------------------------------------------------------------------

def test_the_reader_keeps_lanes_pools_data_and_associations() -> None:
    diagram = read_diagram_file(FILE)
    assert diagram.bpmn is not None
    library, reader = diagram.bpmn.main_scopes
    assert [(lane.id, [c.id for c in lane.children]) for lane in library.lanes] == [
        ("Desk", ["Counter", "Phone"]), ("Stacks", [])]
    assert {lane.id: set(lane.node_ids) for lane in library.all_lanes() if not lane.children} \
        == {k: v for k, v in LANE_NODES.items() if k != "Desk"}
    assert reader.black_box and reader.node_ids == ("Reader",)
    nodes = {n.id for n in diagram.graph.nodes}
    assert {"Slip", "Catalogue", "Rule", "Reader"} <= nodes and "SlipData" not in nodes
    ends = {e.id: (e.source, e.target) for e in diagram.graph.edges}
    assert ends["ReadCatalogue"] == ("Catalogue", "Lookup")    # data input: data -> task
    assert ends["WriteSlip"] == ("Lookup", "Slip")              # data output: task -> data
    assert ends["RuleOnGate"] == ("Available", "Rule")
    # message flows to the black-box pool are routed after stacking, not laid out
    assert "Request" not in ends and "Notice" not in ends
    assert diagram.warnings == ()


# --- BPMN DI out ------------------------------------------------------------------------------

@pytest.mark.parametrize("engine", ENGINES)
def test_every_lane_shape_holds_its_flow_nodes_inside_its_pool(engine: str) -> None:
    root = ET.fromstring(_render(engine, OutputFormat.BPMN))
    shapes = _shapes(root)
    pool = _box(shapes["Library"], "Library")
    leaves = []
    for lane, members in LANE_NODES.items():
        assert shapes[lane].get("isHorizontal") == "true"
        lane_box = _box(shapes[lane], lane)
        assert _inside(lane_box, pool), lane
        for node in members:
            assert _inside(_box(shapes[node], node), lane_box), (lane, node)
        if lane != "Desk":
            leaves.append(lane_box)
            assert _inside(lane_box, _box(shapes["Desk"], "Desk")) == (lane in ("Counter",
                                                                               "Phone"))
    leaves.sort(key=lambda b: b.y)   # leaf lanes are bands that touch and never overlap
    for upper, lower in itertools.pairwise(leaves):
        assert upper.y + upper.height == pytest.approx(lower.y)
        assert upper.x + upper.width == pytest.approx(lower.x + lower.width)


@pytest.mark.parametrize("engine", ENGINES)
def test_black_box_pool_is_an_empty_band_and_its_message_flows_end_on_it(engine: str) -> None:
    root = ET.fromstring(_render(engine, OutputFormat.BPMN))
    shapes = _shapes(root)
    reader, library = _box(shapes["Reader"], "Reader"), _box(shapes["Library"], "Library")
    assert shapes["Reader"].get("isHorizontal") == "true"
    assert reader.y >= library.y + library.height or reader.y + reader.height <= library.y
    flow_nodes = [_box(s, k) for k, s in shapes.items() if k not in ("Reader", "Library")]
    assert not any(_inside(b, reader) for b in flow_nodes)
    edges = {e.get("bpmnElement"): e for e in root.iter(f"{{{DI}}}BPMNEdge")}
    for flow, source, target in (("Request", "Reader", "Asked"),
                                 ("Notice", "Notify", "Reader")):
        points = _waypoints(edges[flow])
        assert on_outline(_box(shapes[source], source), points[0], 0.6), flow
        assert on_outline(_box(shapes[target], target), points[-1], 0.6), flow
        others = [b for b in flow_nodes if b.id not in (source, target, *LANE_NODES)]
        assert _crossed(points, others) == [], flow   # it turns in a free column gap


def _crossed(points: list[Point], boxes: list[NodeBox]) -> list[str]:
    """The boxes whose interior a segment of the polyline enters."""
    out = []
    for a, b in itertools.pairwise(points):
        x0, x1 = sorted((a.x, b.x))
        y0, y1 = sorted((a.y, b.y))
        out += [box.id for box in boxes if x0 < box.x + box.width and x1 > box.x
                and y0 < box.y + box.height and y1 > box.y]
    return out


@pytest.mark.parametrize("engine", ENGINES)
def test_every_association_has_an_edge_on_its_elements_outlines(engine: str) -> None:
    root = ET.fromstring(_render(engine, OutputFormat.BPMN))
    shapes = _shapes(root)
    for element in ("Slip", "Catalogue", "Rule"):
        assert element in shapes, element
    edges = {e.get("bpmnElement"): e for e in root.iter(f"{{{DI}}}BPMNEdge")}
    associations = [("RuleOnGate", "Available", "Rule"), ("ReadCatalogue", "Catalogue", "Lookup"),
                    ("WriteSlip", "Lookup", "Slip"), ("ReadSlip", "Slip", "Fetch")]
    found = {el.get("id") for el in root.iter() if el.tag.rsplit("}", 1)[-1] in (
        "association", "dataInputAssociation", "dataOutputAssociation")}
    assert found == {a for a, _, _ in associations}
    for association, source, target in associations:
        points = _waypoints(edges[association])
        assert len(points) >= 2
        assert on_outline(_box(shapes[source], source), points[0], 0.6), association
        assert on_outline(_box(shapes[target], target), points[-1], 0.6), association


@pytest.mark.parametrize("engine", ENGINES)
def test_flows_between_lanes_cross_no_other_node(engine: str) -> None:
    root = ET.fromstring(_render(engine, OutputFormat.BPMN))
    shapes = _shapes(root)
    boxes = {k: _box(s, k) for k, s in shapes.items()
             if k not in ("Reader", "Library", *LANE_NODES)}
    edges = {e.get("bpmnElement"): e for e in root.iter(f"{{{DI}}}BPMNEdge")}
    lane_of = {n: lane for lane, members in LANE_NODES.items() if lane != "Desk"
               for n in members}
    for flow in root.iter(f"{{{MODEL}}}sequenceFlow"):
        source, target = flow.get("sourceRef", ""), flow.get("targetRef", "")
        if lane_of[source] == lane_of[target]:
            continue
        points = _waypoints(edges[flow.get("id")])
        for a, b in itertools.pairwise(points):
            assert a.x == pytest.approx(b.x) or a.y == pytest.approx(b.y)   # orthogonal
            for other in boxes.values():
                if other.id in (source, target):
                    continue
                x0, x1 = sorted((a.x, b.x))
                y0, y1 = sorted((a.y, b.y))
                assert not (x0 < other.x + other.width and x1 > other.x and
                            y0 < other.y + other.height and y1 > other.y), (flow.get("id"),
                                                                             other.id)


def test_svg_draws_lanes_data_objects_stores_and_annotations() -> None:
    svg = _render("layered", OutputFormat.SVG).decode()
    for lane in LANE_NODES:
        assert f'data-lane-id="{lane}"' in svg
    for lane_name in ("Front desk", "Counter", "Phone", "Stacks"):
        assert f">{lane_name}<" in svg
    assert 'class="node figure-note"' in svg        # the data object
    assert 'class="node figure-cylinder"' in svg    # the data store
    assert 'class="node figure-bpmn-annotation"' in svg
    assert 'data-scope-id="Reader"' in svg          # the black-box pool's band


def test_top_to_bottom_lanes_are_columns() -> None:
    body = FILE.read_bytes()
    options = LayoutOptions.from_mapping({"direction": "TopToBottom"})
    out = render_timed(body, filename=FILE.name, fmt=OutputFormat.BPMN, engine="layered",
                       options=options, runner=_direct,
                       given_options=frozenset({"direction"})).output
    shapes = _shapes(ET.fromstring(out))
    counter, stacks = _box(shapes["Counter"], "Counter"), _box(shapes["Stacks"], "Stacks")
    assert shapes["Counter"].get("isHorizontal") == "false"
    assert counter.x + counter.width <= stacks.x + 0.01   # side by side, not stacked
    for node in LANE_NODES["Stacks"]:
        assert _inside(_box(shapes[node], node), stacks)
