"""Compound nodes and ports in the SVG drawing.

A compound node is drawn as a box *behind* the edges and the nodes it holds, outer
boxes first, with its heading where the engine put its label
(:attr:`layouts.result.NodeBox.label_box`): the kind's badge (a sub-workflow's ``S``),
the title and the subtitle (a sub-workflow's child workflow), left-aligned, as
:func:`heading_size` sized them; without a label box (an engine that places none), the
title alone centred at the top inside. Ports are small squares over their node's border.

>>> from layouts.result import Box, NodeBox, PortBox
>>> from renderer.diagram import NodeView, StepKind
>>> d = SvgDrawing()
>>> group = draw_compound(d, NodeBox("g", 0, 0, 100, 60), NodeView(StepKind.PLAIN, "Group"))
>>> group["class"], group["data-step-id"]
('node compound', 'g')
>>> view = NodeView(StepKind.SUB_WORKFLOW, "archive", "records")
>>> box = NodeBox("g", 0, 0, 200, 90, label_box=Box(12, 12, *heading_size(view)))
>>> [e["class"] for e in draw_compound(d, box, view).elements[1:]]
['badge-box', 'badge', 'title', 'subtitle']
>>> draw_port(d, PortBox("p", "g", 97, 27, 6, 6))["class"]
'port'
"""

from __future__ import annotations

from typing import Any

from layouts.result import Box, NodeBox, PortBox
from renderer.diagram import NodeView
from renderer.fonts import measure_text
from renderer.styles import (
    BADGE_SIZE,
    CORNER_RADIUS,
    KIND_STYLES,
    LINE_GAP,
    SUBTITLE_TEXT,
    TITLE_TEXT,
)
from renderer.svg_element import SvgDrawing, SvgElement
from renderer.svg_nodes import draw_badge, draw_text, xml_safe
from renderer.svg_nodes import format_number as _n

COMPOUND_FILL = "#f5f7fa"
COMPOUND_STROKE = "#8a94a6"
PORT_FILL = "#3b4a63"
TITLE_INSET = 4.0


def heading_size(view: NodeView) -> tuple[float, float]:
    """Width and height of a compound's heading: the badge (if its kind has one) and a
    gap, beside the title over the subtitle.

    >>> from renderer.diagram import StepKind
    >>> plain = heading_size(NodeView(StepKind.PLAIN, "x"))
    >>> badged = heading_size(NodeView(StepKind.SUB_WORKFLOW, "x"))
    >>> badged[0] - plain[0] == BADGE_SIZE + LINE_GAP, badged[1] >= BADGE_SIZE
    (True, True)
    """
    width, height = measure_text(view.title, TITLE_TEXT.size, bold=TITLE_TEXT.bold)
    if view.subtitle:
        sub_width, sub_height = measure_text(view.subtitle, SUBTITLE_TEXT.size,
                                             bold=SUBTITLE_TEXT.bold)
        width, height = max(width, sub_width), height + LINE_GAP + sub_height
    if KIND_STYLES[view.kind].marker is not None:
        width, height = width + BADGE_SIZE + LINE_GAP, max(height, BADGE_SIZE)
    return width, height


def draw_compound(drawing: SvgDrawing, node: NodeBox, view: NodeView) -> SvgElement:
    """The box of a compound node with its heading (see the module docstring)."""
    group = drawing.g(id=xml_safe(f"node-{node.id}"), class_="node compound")
    group["data-step-id"] = xml_safe(node.id)
    group.add(drawing.rect(insert=(_n(node.x), _n(node.y)),
                           size=(_n(node.width), _n(node.height)), rx=_n(CORNER_RADIUS),
                           fill=COMPOUND_FILL, stroke=COMPOUND_STROKE, stroke_width="1"))
    if node.label_box is not None:
        for element in _heading(drawing, node.label_box, view):
            group.add(element)
    elif view.title:
        group.add(draw_text(drawing, view.title, node.x + node.width / 2,
                            node.y + TITLE_INSET, TITLE_TEXT))
    return group


def _heading(drawing: SvgDrawing, box: Box, view: NodeView) -> list[Any]:
    """Badge, title and subtitle from the top-left corner of ``box``."""
    elements: list[Any] = []
    x = box.x
    if KIND_STYLES[view.kind].marker is not None:
        elements += draw_badge(drawing, x, box.y, view)
        x += BADGE_SIZE + LINE_GAP
    if not view.title:
        return elements
    elements.append(draw_text(drawing, view.title, x, box.y, TITLE_TEXT, anchor="start",
                              css_class="title"))
    if view.subtitle:
        _, title_height = measure_text(view.title, TITLE_TEXT.size, bold=TITLE_TEXT.bold)
        elements.append(draw_text(drawing, view.subtitle, x, box.y + title_height + LINE_GAP,
                                  SUBTITLE_TEXT, anchor="start", css_class="subtitle"))
    return elements


def draw_port(drawing: SvgDrawing, port: PortBox) -> Any:
    """A port as a small filled square (at least 4 px, so point ports show)."""
    size = max(port.width, port.height, 4.0)
    c = port.center
    element = drawing.rect(insert=(_n(c.x - size / 2), _n(c.y - size / 2)),
                           size=(_n(size), _n(size)), fill=PORT_FILL, class_="port")
    element["data-port-id"] = xml_safe(port.id)
    return element
