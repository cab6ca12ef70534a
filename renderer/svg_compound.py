"""Compound nodes and ports in the SVG drawing.

A compound node is drawn as a labelled box *behind* the edges and the nodes it holds
(its title at the top inside, where the engines reserve room for it), outer boxes first;
ports are small squares drawn over their node's border.

>>> from layouts.result import NodeBox, PortBox
>>> import svgwrite
>>> d = svgwrite.Drawing(debug=False)
>>> group = draw_compound(d, NodeBox("g", 0, 0, 100, 60), "Group")
>>> group["class"], group["data-step-id"]
('node compound', 'g')
>>> draw_port(d, PortBox("p", "g", 97, 27, 6, 6))["class"]
'port'
"""

from __future__ import annotations

from typing import Any

import svgwrite
from svgwrite.container import Group

from layouts.result import NodeBox, PortBox
from renderer.styles import CORNER_RADIUS, TITLE_TEXT
from renderer.svg_nodes import draw_text, xml_safe
from renderer.svg_nodes import format_number as _n

COMPOUND_FILL = "#f5f7fa"
COMPOUND_STROKE = "#8a94a6"
PORT_FILL = "#3b4a63"
TITLE_INSET = 4.0


def draw_compound(drawing: svgwrite.Drawing, node: NodeBox, title: str) -> Group:
    """The box of a compound node with its title at the top."""
    group = drawing.g(id=xml_safe(f"node-{node.id}"), class_="node compound")
    group["data-step-id"] = xml_safe(node.id)
    group.add(drawing.rect(insert=(_n(node.x), _n(node.y)),
                           size=(_n(node.width), _n(node.height)), rx=_n(CORNER_RADIUS),
                           fill=COMPOUND_FILL, stroke=COMPOUND_STROKE, stroke_width="1"))
    if title:
        group.add(draw_text(drawing, title, node.x + node.width / 2, node.y + TITLE_INSET,
                            TITLE_TEXT))
    return group


def draw_port(drawing: svgwrite.Drawing, port: PortBox) -> Any:
    """A port as a small filled square (at least 4 px, so point ports show)."""
    size = max(port.width, port.height, 4.0)
    c = port.center
    element = drawing.rect(insert=(_n(c.x - size / 2), _n(c.y - size / 2)),
                           size=(_n(size), _n(size)), fill=PORT_FILL, class_="port")
    element["data-port-id"] = xml_safe(port.id)
    return element
