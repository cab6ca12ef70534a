"""Ports and their labels in the SVG drawing.

Each port is a small filled square over its node's border
(:func:`renderer.svg_compound.draw_port`); each label of a port is its text, centred in
the box the layout put it in (:attr:`layouts.result.PortBox.label_box`, then
:attr:`~layouts.result.PortBox.extra_label_boxes` for the labels after the first). A
label the layout did not place (an engine that places no port labels, or a label given
without a size) is measured and put inside its node beside its port, where the layered
engine puts it (:func:`layouts.layered.routing.port_labels.port_label_box`), so no
label is silently dropped. Text goes through :mod:`renderer.svg_element`, which escapes
it; characters XML cannot hold become U+FFFD (:func:`renderer.svg_nodes.xml_safe`).

>>> from layouts.graph import Graph, Node, Port, PortSide
>>> from layouts.result import Box, NodeBox, PortBox, Side
>>> graph = Graph((Node("a", 120, 60, ports=(Port("p", PortSide.SOUTH, label="<out>"),)),))
>>> port = PortBox("p", "a", 57, 57, 6, 6, Side.BOTTOM, Box(45, 40, 30, 13))
>>> group = draw_ports(SvgDrawing(), graph, (NodeBox("a", 0, 0, 120, 60),),
...                    (port,))
>>> text = group.elements[1].elements[0]
>>> text.text, text["x"], text["class"]
('<out>', '60', 'port-label')
>>> b"&lt;out&gt;" in group.tostring().encode()
True
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from layouts.graph import Graph, Port
from layouts.layered.routing.port_labels import port_label_box
from layouts.result import Box, NodeBox, PortBox
from renderer.fonts import measure_text
from renderer.from_definition import edge_label_size
from renderer.styles import EDGE_LABEL_TEXT
from renderer.svg_compound import draw_port
from renderer.svg_element import SvgDrawing, SvgElement
from renderer.svg_nodes import draw_text, element_id, xml_safe

__all__ = ["draw_ports", "port_label_boxes"]

PORT_LABEL_CLASS = "port-label"


def draw_ports(drawing: SvgDrawing, graph: Graph, nodes: Sequence[NodeBox],
               ports: Sequence[PortBox]) -> SvgElement:
    """The ``ports`` group: every port's square, then a group of its labels' texts."""
    models = _models(graph)
    boxes = {n.id: n for n in nodes}
    group = drawing.g(id="ports")
    for port in ports:
        group.add(draw_port(drawing, port))
        model = models.get((port.node, port.id))
        node = boxes.get(port.node)
        if model is None or node is None:
            continue
        texts = [(text, box) for text, box in port_label_boxes(model, node, port)]
        if texts:
            group.add(_labels(drawing, port, texts))
    return group


def port_label_boxes(model: Port, node: NodeBox, port: PortBox) -> Iterator[tuple[str, Box]]:
    """Each non-empty label text of port ``model`` with the box it is drawn in: the
    layout's box, else a measured box beside the port inside ``node``.

    >>> from layouts.result import Side
    >>> model = Port("p", label="in")
    >>> [(text, box)] = port_label_boxes(model, NodeBox("a", 0, 0, 100, 40),
    ...                                  PortBox("p", "a", 47, -3, 6, 6, Side.TOP))
    >>> text, box.center.x, box.y      # centred on the port, 4 px below its inner edge (3)
    ('in', 50.0, 7.0)
    """
    texts = [(model.label, port.label_box, model.label_width, model.label_height)]
    for i, extra in enumerate(model.extra_labels):
        placed = port.extra_label_boxes[i] if i < len(port.extra_label_boxes) else None
        texts.append((extra.text, placed, extra.width, extra.height))
    below: Box | None = None
    for text, placed, width, height in texts:
        if not text:
            continue
        box = placed or _fallback(node, port, text, width, height, below)
        if box is not None:
            below = box
            yield text, box


def _fallback(node: NodeBox, port: PortBox, text: str, width: float, height: float,
              below: Box | None) -> Box | None:
    """Where an unplaced label goes: under the label before it, else beside its port."""
    if width <= 0 or height <= 0:
        width, height = edge_label_size(text)
    if below is not None:
        return Box(below.center.x - width / 2, below.bottom, width, height)
    return port_label_box(node, port, width, height)


def _labels(drawing: SvgDrawing, port: PortBox, texts: list[tuple[str, Box]]) -> SvgElement:
    group = drawing.g(id=element_id("port-label", port.id), class_="port-labels")
    group["data-port-id"] = xml_safe(port.id)
    for text, box in texts:
        _, text_height = measure_text(text, EDGE_LABEL_TEXT.size, bold=EDGE_LABEL_TEXT.bold)
        top = box.y + (box.height - text_height) / 2
        element = draw_text(drawing, text, box.center.x, top, EDGE_LABEL_TEXT)
        element["class"] = PORT_LABEL_CLASS
        group.add(element)
    return group


def _models(graph: Graph) -> dict[tuple[str, str], Port]:
    """Every port of the graph by (node id, port id)."""
    return {(n.id, p.id): p for n in graph.all_nodes() for p in n.ports}
