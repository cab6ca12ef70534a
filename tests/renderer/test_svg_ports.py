"""Port labels in the SVG drawing (renderer/svg_ports.py): drawn where the layout placed
them, escaped, the labels after the first too, and unplaced labels beside their port."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import cast

import svgwrite

from layouts.api import layout
from layouts.graph import Graph, Label, Node, Port, PortSide
from layouts.result import Box, Diagnostics, LayoutResult, NodeBox, PortBox, Side
from renderer.diagram import Diagram
from renderer.readers import read_diagram
from renderer.svg import XML_DECLARATION, svg_drawing, write_svg
from renderer.svg_element import SvgDrawing

SVG = "{http://www.w3.org/2000/svg}"


def _port_texts(svg: bytes) -> dict[str, list[tuple[str, float]]]:
    """Per port id, each label text with its x, from the ``port-labels`` groups."""
    out: dict[str, list[tuple[str, float]]] = {}
    for group in ET.fromstring(svg).iter(f"{SVG}g"):
        if group.get("class") == "port-labels":
            out[group.get("data-port-id", "")] = [
                (t.text or "", float(t.get("x", "nan"))) for t in group.iter(f"{SVG}text")
                if t.get("class") == "port-label"]
    return out


ELK = {"id": "root", "children": [
    {"id": "a", "width": 120, "height": 60, "layoutOptions": {"portConstraints": "FIXED_SIDE"},
     "ports": [{"id": "out", "width": 6, "height": 6, "layoutOptions": {"port.side": "SOUTH"},
                "labels": [{"text": "<out> & co", "width": 60, "height": 14},
                           {"text": "second", "width": 40, "height": 14}]}]},
    {"id": "b", "width": 80, "height": 40}],
    "edges": [{"id": "e", "sources": ["out"], "targets": ["b"]}]}


def test_labels_are_drawn_escaped_at_the_boxes_the_layout_placed() -> None:
    diagram = read_diagram(json.dumps(ELK).encode(), filename="g.json")
    result = layout(diagram.graph, engine="layered")
    port = result.port("out")
    assert port.label_box is not None
    svg = write_svg(diagram, result)
    assert b"&lt;out&gt; &amp; co" in svg
    texts = _port_texts(svg)["out"]
    # the first label centred on its box; the second under it, as the layout stacks
    # them or (unplaced) as the writer does, centred on the first
    assert texts[0] == ("<out> & co", port.label_box.center.x)
    assert [t for t, _ in texts] == ["<out> & co", "second"]
    assert texts[1][1] == port.label_box.center.x
    assert write_svg(diagram, result) == svg
    def factory(size: tuple[str, str], view_box: str) -> SvgDrawing:  # svgwrite: the oracle
        return cast(SvgDrawing, svgwrite.Drawing(size=size, viewBox=view_box, debug=False))

    oracle = svg_drawing(diagram, result, factory=factory).tostring().encode()
    assert svg == XML_DECLARATION + oracle


def test_an_unplaced_label_stands_inside_its_node_beside_its_port() -> None:
    # a north port at the middle of a 100 px face; no label box from the layout
    graph = Graph((Node("a", 100, 40, ports=(Port("p", PortSide.NORTH, label="in"),)),))
    result = LayoutResult((NodeBox("a", 0, 0, 100, 40),), (), 100, 40,
                          Diagnostics("hand", "draft", "TopToBottom"),
                          ports=(PortBox("p", "a", 47, -3, 6, 6, Side.TOP),))
    svg = write_svg(Diagram("d", graph), result)
    assert _port_texts(svg) == {"p": [("in", 50.0)]}     # centred on the port's x = 47 + 3


def test_extra_labels_use_their_own_boxes_when_placed() -> None:
    port_model = Port("p", PortSide.EAST, label="one", label_width=30, label_height=12,
                      extra_labels=(Label("two", 30, 12),))
    graph = Graph((Node("a", 100, 40, ports=(port_model,)),))
    placed = PortBox("p", "a", 97, 17, 6, 6, Side.RIGHT, Box(60, 4, 30, 12),
                     extra_label_boxes=(Box(10, 24, 30, 12),))
    result = LayoutResult((NodeBox("a", 0, 0, 100, 40),), (), 100, 40,
                          Diagnostics("hand", "draft", "TopToBottom"), ports=(placed,))
    assert _port_texts(write_svg(Diagram("d", graph), result)) == {
        "p": [("one", 60 + 15), ("two", 10 + 15)]}


def test_ports_without_labels_draw_no_label_group() -> None:
    graph = Graph((Node("a", 100, 40, ports=(Port("p", PortSide.NORTH),)),))
    result = LayoutResult((NodeBox("a", 0, 0, 100, 40),), (), 100, 40,
                          Diagnostics("hand", "draft", "TopToBottom"),
                          ports=(PortBox("p", "a", 47, -3, 6, 6, Side.TOP),))
    svg = write_svg(Diagram("d", graph), result)
    assert b'class="port"' in svg and _port_texts(svg) == {}
