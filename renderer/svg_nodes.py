"""Node drawing for :mod:`renderer.svg`: outline, kind badge, title, subtitle, attempts.

Text positions mirror :func:`renderer.from_definition.text_block_size`, so every text
fits the box the node was sized for. Text fills are attributes, never style-sheet rules.

>>> format_number(12.3456), format_number(-0.001), format_number(40.0)
('12.35', '0', '40')
>>> xml_safe("bell\x07")
'bell�'
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from layouts.graph import Shape
from layouts.result import NodeBox
from renderer.diagram import NodeView
from renderer.fonts import ascent, measure_text
from renderer.from_definition import text_block_size
from renderer.styles import (
    ATTEMPTS_TEXT,
    BADGE_INSET,
    BADGE_SIZE,
    BADGE_TEXT,
    CORNER_RADIUS,
    KIND_STYLES,
    LINE_GAP,
    STATE_STYLES,
    SUBTITLE_TEXT,
    TITLE_TEXT,
    TextStyle,
)
from renderer.svg_element import SvgDrawing, SvgElement

TEXT_COLOURS = {"title": "#263238", "subtitle": "#455a64", "label": "#37474f",
                "attempts": "#b71c1c", "badge": "#ffffff"}
"""Text fills, set as attributes so the style sheet never overrides them."""


@lru_cache(maxsize=4096)  # a drawing writes the same coordinates and sizes again and again
def format_number(value: float) -> str:
    """A number rounded to 2 decimals without trailing zeros (``-0`` prints as ``0``)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


_n = format_number

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_safe(text: str) -> str:
    """``text`` with characters XML 1.0 cannot hold (most control characters, lone
    surrogates) replaced by U+FFFD, so the document always parses."""
    return _NOT_XML.sub("\ufffd", text)


_NOT_IN_ID = re.compile("[%\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def element_id(prefix: str, item_id: str) -> str:
    r"""The SVG element id of a node, edge or label: ``prefix-item_id`` with ``%`` and the
    characters XML cannot hold percent-encoded, so distinct ids stay distinct (``xml_safe``
    would map every control character to the same U+FFFD).

    >>> element_id("node", "a\x01"), element_id("node", "a\x02"), element_id("edge", "50%")
    ('node-a%01', 'node-a%02', 'edge-50%25')
    """
    return f"{prefix}-" + _NOT_IN_ID.sub(lambda m: _percent(m.group(0)), item_id)


def _percent(char: str) -> str:
    code = ord(char)
    return f"%{code:02X}" if code < 0x100 else f"%u{code:04X}"



def draw_text(drawing: SvgDrawing, text: str, x: float, top: float, style: TextStyle,
          *, anchor: str = "middle", css_class: str = "label") -> Any:
    """A text element whose first line box starts at ``top``; lines split on ``\\n``."""
    lines = text.split("\n")
    _, line_height = measure_text("", style.size, bold=style.bold)
    baseline = top + ascent(style.size, bold=style.bold)
    extra = {"font_size": _n(style.size), "text_anchor": anchor, "class_": css_class,
             "fill": TEXT_COLOURS[css_class]}
    if style.bold:
        extra["font_weight"] = "bold"
    element = drawing.text(xml_safe(lines[0]), insert=(_n(x), _n(baseline)), **extra)
    for line in lines[1:]:
        element.add(drawing.tspan(xml_safe(line), x=[_n(x)], dy=[_n(line_height)]))
    return element


def draw_node(drawing: SvgDrawing, node: NodeBox, view: NodeView) -> SvgElement:
    kind_style = KIND_STYLES[view.kind]
    fill, stroke, width, dashed = kind_style.fill, kind_style.stroke, 1.5, False
    classes = ["node", f"kind-{view.kind.value.lower()}"]
    if view.state is not None:
        state = STATE_STYLES[view.state]
        fill, stroke, width, dashed = state.fill, state.stroke, state.stroke_width, state.dashed
        classes.append(f"state-{view.state.value.lower()}")
    group = drawing.g(id=element_id("node", node.id), class_=" ".join(classes))
    group["data-step-id"] = xml_safe(node.id)
    shape = _outline(drawing, node)
    shape.update({"fill": fill, "stroke": stroke, "stroke-width": _n(width)})
    if dashed:
        shape["stroke-dasharray"] = "5 3"
    group.add(shape)
    for element in _node_content(drawing, node, view):
        group.add(element)
    return group


def _outline(drawing: SvgDrawing, node: NodeBox) -> Any:
    c = node.center
    if node.shape is Shape.DIAMOND:
        tips = [(c.x, node.y), (node.x + node.width, c.y), (c.x, node.y + node.height),
                (node.x, c.y)]
        return drawing.polygon(points=[(_n(x), _n(y)) for x, y in tips])
    if node.shape is Shape.CIRCLE:
        return drawing.circle(center=(_n(c.x), _n(c.y)), r=_n(min(node.width, node.height) / 2))
    if node.shape is Shape.ELLIPSE:
        return drawing.ellipse(center=(_n(c.x), _n(c.y)),
                               r=(_n(node.width / 2), _n(node.height / 2)))
    return drawing.rect(insert=(_n(node.x), _n(node.y)), size=(_n(node.width), _n(node.height)),
                        rx=_n(CORNER_RADIUS))


def draw_badge(drawing: SvgDrawing, x: float, y: float, view: NodeView) -> list[Any]:
    style = KIND_STYLES[view.kind]
    assert style.marker is not None
    square = drawing.rect(insert=(_n(x), _n(y)), size=(_n(BADGE_SIZE), _n(BADGE_SIZE)),
                          rx="3", fill=style.marker_colour, class_="badge-box")
    _, height = measure_text(style.marker, BADGE_TEXT.size, bold=BADGE_TEXT.bold)
    glyph = draw_text(drawing, style.marker, x + BADGE_SIZE / 2, y + (BADGE_SIZE - height) / 2,
                  BADGE_TEXT, css_class="badge")
    return [square, glyph]


def _node_content(drawing: SvgDrawing, node: NodeBox, view: NodeView) -> list[Any]:
    """Badge, title, subtitle and attempts, laid out as :func:`text_block_size` sized them."""
    style = KIND_STYLES[view.kind]
    c = node.center
    block_width, block_height = text_block_size(view)
    top = c.y - block_height / 2
    title_width, title_height = measure_text(view.title, TITLE_TEXT.size, bold=True)
    elements: list[Any] = []
    title_x = c.x
    if style.marker and node.shape is Shape.RECT:
        elements += draw_badge(drawing, node.x + BADGE_INSET, node.y + BADGE_INSET, view)
    elif style.marker and node.shape is Shape.DIAMOND:
        left = c.x - block_width / 2
        elements += draw_badge(drawing, left, c.y - BADGE_SIZE / 2, view)
        title_x = left + BADGE_SIZE + LINE_GAP + title_width / 2
        top = c.y - title_height / 2
    elements.append(draw_text(drawing, view.title, title_x, top, TITLE_TEXT, css_class="title"))
    if view.subtitle and node.shape is not Shape.DIAMOND:
        elements += _subtitle(drawing, node, view, top + title_height + LINE_GAP)
    if view.attempts is not None and view.attempts > 1:
        elements.append(draw_text(drawing, f"x{view.attempts}", node.x + node.width - 4,
                              node.y + 3, ATTEMPTS_TEXT, anchor="end", css_class="attempts"))
    return elements


def _subtitle(drawing: SvgDrawing, node: NodeBox, view: NodeView, top: float) -> list[Any]:
    assert view.subtitle is not None
    style = KIND_STYLES[view.kind]
    width, height = measure_text(view.subtitle, SUBTITLE_TEXT.size, bold=SUBTITLE_TEXT.bold)
    x = node.center.x
    elements: list[Any] = []
    if style.marker and node.shape is Shape.CIRCLE:
        left = x - (BADGE_SIZE + LINE_GAP + width) / 2
        elements += draw_badge(drawing, left, top + (height - BADGE_SIZE) / 2, view)
        x = left + BADGE_SIZE + LINE_GAP + width / 2
    elements.append(draw_text(drawing, view.subtitle, x, top, SUBTITLE_TEXT, css_class="subtitle"))
    return elements
