"""Diagram + LayoutResult -> SVG bytes, drawn with svgwrite.

Layers, bottom to top: a white background, edges (one ``<path>`` per edge with an
arrowhead marker at the target), nodes (one ``<g>`` per node: its shape, kind badge,
title, subtitle and attempt count) and guard labels. Colours and sizes come from
:mod:`renderer.styles`; text positions mirror the sizing in :mod:`renderer.from_definition`.

Output is deterministic: every element that is referenced has an explicit id (svgwrite's
automatic ids are process-global), numbers are rounded to 2 decimals, and elements
follow the result's node and edge order. svgwrite escapes every text and attribute.

>>> from layouts.graph import Graph, Node
>>> from layouts.result import Diagnostics, LayoutResult, NodeBox
>>> diagram = Diagram("demo", Graph((Node("a", 80, 40),)))
>>> result = LayoutResult((NodeBox("a", 0, 0, 80, 40),), (), 80, 40,
...                       Diagnostics("hand", "draft", "TopToBottom"))
>>> svg = write_svg(diagram, result)
>>> svg.startswith(b"<?xml") and b'id="node-a"' in svg
True
"""

from __future__ import annotations

from typing import Any

import svgwrite
from svgwrite.container import Group

from layouts.graph import Shape
from layouts.result import Box, EdgeRoute, LayoutResult, NodeBox, Point
from renderer.diagram import Diagram, NodeView, StepKind
from renderer.fonts import ascent, measure_text
from renderer.from_definition import edge_label_size, text_block_size
from renderer.styles import (
    ATTEMPTS_TEXT,
    BADGE_INSET,
    BADGE_SIZE,
    BADGE_TEXT,
    CORNER_RADIUS,
    EDGE_LABEL_TEXT,
    EDGE_STYLES,
    FONT_FAMILY,
    KIND_STYLES,
    LINE_GAP,
    LOOP_BACK_DASH,
    STATE_STYLES,
    SUBTITLE_TEXT,
    TITLE_TEXT,
    EdgeStyle,
    TextStyle,
)

MARGIN = 20.0
"""Space around the drawing's content inside the viewBox, in px."""

ARROW_SIZE = 9.0
XML_DECLARATION = b'<?xml version="1.0" encoding="utf-8"?>\n'
STYLE_SHEET = f"svg {{ font-family: {FONT_FAMILY}; }}\n"
TEXT_COLOURS = {"title": "#263238", "subtitle": "#455a64", "label": "#37474f",
                "attempts": "#b71c1c", "badge": "#ffffff"}
"""Text fills, set as attributes so the style sheet never overrides them."""


def write_svg(diagram: Diagram, result: LayoutResult, *, title: str | None = None) -> bytes:
    """The SVG document of a laid-out diagram, as UTF-8 bytes.

    Raises ``ValueError`` naming an edge whose route has fewer than two points.
    """
    frame = _content_frame(diagram, result)
    drawing = svgwrite.Drawing(
        size=(_n(frame.width), _n(frame.height)),
        viewBox=" ".join(_n(v) for v in (frame.x, frame.y, frame.width, frame.height)),
        debug=False,
    )
    drawing.set_desc(title=title or diagram.name)
    drawing.defs.add(drawing.style(STYLE_SHEET))
    for style in EDGE_STYLES.values():
        drawing.defs.add(_arrowhead(drawing, style))
    drawing.add(drawing.rect(insert=(_n(frame.x), _n(frame.y)),
                             size=(_n(frame.width), _n(frame.height)),
                             fill="#ffffff", id="background"))
    edges = drawing.add(drawing.g(id="edges"))
    for route in result.edges:
        edges.add(_edge(drawing, diagram, route))
    nodes = drawing.add(drawing.g(id="nodes"))
    for node in result.nodes:
        nodes.add(_node(drawing, node, _view(diagram, node.id)))
    labels = drawing.add(drawing.g(id="edge-labels"))
    for route in result.edges:
        label = _edge_label(drawing, diagram, route)
        if label is not None:
            labels.add(label)
    document: str = drawing.tostring()
    return XML_DECLARATION + document.encode("utf-8")


def _n(value: float) -> str:
    """A number rounded to 2 decimals without trailing zeros (``-0`` prints as ``0``)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _view(diagram: Diagram, node_id: str) -> NodeView:
    try:
        return diagram.node_view(node_id)
    except KeyError:
        return NodeView(StepKind.PLAIN, node_id)


def _content_frame(diagram: Diagram, result: LayoutResult) -> Box:
    xs, ys = [0.0, result.width], [0.0, result.height]
    for node in result.nodes:
        xs += [node.x, node.x + node.width]
        ys += [node.y, node.y + node.height]
    for route in result.edges:
        xs += [p.x for p in route.points]
        ys += [p.y for p in route.points]
        box = _label_box(diagram, route)
        if box is not None:
            xs += [box.x, box.right]
            ys += [box.y, box.bottom]
    left, top = min(xs) - MARGIN, min(ys) - MARGIN
    return Box(left, top, max(xs) + MARGIN - left, max(ys) + MARGIN - top)


def _arrowhead(drawing: svgwrite.Drawing, style: EdgeStyle) -> Any:
    marker = drawing.marker(id=style.marker_id, insert=(10, 5), size=(ARROW_SIZE, ARROW_SIZE),
                            orient="auto", viewBox="0 0 10 10")
    marker["markerUnits"] = "userSpaceOnUse"
    marker.add(drawing.path(d="M0,0 L10,5 L0,10 z", fill=style.stroke))
    return marker


def _edge_style(diagram: Diagram, route: EdgeRoute) -> EdgeStyle:
    taken = diagram.edge_view(route.id).taken
    return EDGE_STYLES["normal" if taken is None else "taken" if taken else "not-taken"]


def _is_loop_back(diagram: Diagram, route: EdgeRoute) -> bool:
    declared = any(e.loop_back for e in diagram.graph.edges if e.id == route.id)
    return route.loop_back or declared


def _edge(drawing: svgwrite.Drawing, diagram: Diagram, route: EdgeRoute) -> Group:
    if len(route.points) < 2:
        raise ValueError(f"edge '{route.id}' has {len(route.points)} route points; "
                         "an edge needs at least 2")
    style = _edge_style(diagram, route)
    loop_back = _is_loop_back(diagram, route)
    classes = ["edge", *(["loop-back"] if loop_back else [])]
    group = drawing.g(id=f"edge-{route.id}", class_=" ".join(classes))
    data = "M " + " L ".join(f"{_n(p.x)} {_n(p.y)}" for p in route.points)
    path = drawing.path(d=data, fill="none", stroke=style.stroke,
                        stroke_width=_n(style.stroke_width),
                        marker_end=f"url(#{style.marker_id})")
    path["stroke-linejoin"] = "round"
    if loop_back:
        path["stroke-dasharray"] = LOOP_BACK_DASH
    group.add(path)
    return group


def _label_text(diagram: Diagram, route: EdgeRoute) -> str | None:
    view_label = diagram.edge_view(route.id).label
    if view_label:
        return view_label
    edge = next((e for e in diagram.graph.edges if e.id == route.id), None)
    return edge.label if edge is not None and edge.label else None


def _label_box(diagram: Diagram, route: EdgeRoute) -> Box | None:
    """The engine's label box, else a box centred on the middle of the longest segment."""
    text = _label_text(diagram, route)
    if text is None:
        return None
    if route.label_box is not None:
        return route.label_box
    if len(route.points) < 2:
        return None
    width, height = edge_label_size(text)
    segments = zip(route.points, route.points[1:], strict=False)
    start, end = max(segments, key=lambda s: abs(s[1].x - s[0].x) + abs(s[1].y - s[0].y))
    middle = Point((start.x + end.x) / 2, (start.y + end.y) / 2)
    return Box(middle.x - width / 2, middle.y - height / 2, width, height)


def _edge_label(drawing: svgwrite.Drawing, diagram: Diagram, route: EdgeRoute) -> Group | None:
    text, box = _label_text(diagram, route), _label_box(diagram, route)
    if text is None or box is None:
        return None
    group = drawing.g(id=f"label-{route.id}", class_="edge-label")
    group.add(drawing.rect(insert=(_n(box.x), _n(box.y)), size=(_n(box.width), _n(box.height)),
                           rx="3", fill="#ffffff", fill_opacity="0.92", stroke="#cfd8dc"))
    _, text_height = measure_text(text, EDGE_LABEL_TEXT.size, bold=EDGE_LABEL_TEXT.bold)
    top = box.y + (box.height - text_height) / 2
    group.add(_text(drawing, text, box.center.x, top, EDGE_LABEL_TEXT))
    return group


def _text(drawing: svgwrite.Drawing, text: str, x: float, top: float, style: TextStyle,
          *, anchor: str = "middle", css_class: str = "label") -> Any:
    """A text element whose first line box starts at ``top``; lines split on ``\\n``."""
    lines = text.split("\n")
    _, line_height = measure_text("", style.size, bold=style.bold)
    baseline = top + ascent(style.size, bold=style.bold)
    extra = {"font_size": _n(style.size), "text_anchor": anchor, "class_": css_class,
             "fill": TEXT_COLOURS[css_class]}
    if style.bold:
        extra["font_weight"] = "bold"
    element = drawing.text(lines[0], insert=(_n(x), _n(baseline)), **extra)
    for line in lines[1:]:
        element.add(drawing.tspan(line, x=[_n(x)], dy=[_n(line_height)]))
    return element


def _node(drawing: svgwrite.Drawing, node: NodeBox, view: NodeView) -> Group:
    kind_style = KIND_STYLES[view.kind]
    fill, stroke, width, dashed = kind_style.fill, kind_style.stroke, 1.5, False
    classes = ["node", f"kind-{view.kind.value.lower()}"]
    if view.state is not None:
        state = STATE_STYLES[view.state]
        fill, stroke, width, dashed = state.fill, state.stroke, state.stroke_width, state.dashed
        classes.append(f"state-{view.state.value.lower()}")
    group = drawing.g(id=f"node-{node.id}", class_=" ".join(classes))
    shape = _outline(drawing, node)
    shape.update({"fill": fill, "stroke": stroke, "stroke-width": _n(width)})
    if dashed:
        shape["stroke-dasharray"] = "5 3"
    group.add(shape)
    for element in _node_content(drawing, node, view):
        group.add(element)
    return group


def _outline(drawing: svgwrite.Drawing, node: NodeBox) -> Any:
    c = node.center
    if node.shape is Shape.DIAMOND:
        tips = [(c.x, node.y), (node.x + node.width, c.y), (c.x, node.y + node.height),
                (node.x, c.y)]
        return drawing.polygon(points=[(_n(x), _n(y)) for x, y in tips])
    if node.shape is Shape.CIRCLE:
        return drawing.circle(center=(_n(c.x), _n(c.y)), r=_n(min(node.width, node.height) / 2))
    return drawing.rect(insert=(_n(node.x), _n(node.y)), size=(_n(node.width), _n(node.height)),
                        rx=_n(CORNER_RADIUS))


def _badge(drawing: svgwrite.Drawing, x: float, y: float, view: NodeView) -> list[Any]:
    style = KIND_STYLES[view.kind]
    assert style.marker is not None
    square = drawing.rect(insert=(_n(x), _n(y)), size=(_n(BADGE_SIZE), _n(BADGE_SIZE)),
                          rx="3", fill=style.marker_colour, class_="badge-box")
    _, height = measure_text(style.marker, BADGE_TEXT.size, bold=BADGE_TEXT.bold)
    glyph = _text(drawing, style.marker, x + BADGE_SIZE / 2, y + (BADGE_SIZE - height) / 2,
                  BADGE_TEXT, css_class="badge")
    return [square, glyph]


def _node_content(drawing: svgwrite.Drawing, node: NodeBox, view: NodeView) -> list[Any]:
    """Badge, title, subtitle and attempts, laid out as :func:`text_block_size` sized them."""
    style = KIND_STYLES[view.kind]
    c = node.center
    block_width, block_height = text_block_size(view)
    top = c.y - block_height / 2
    title_width, title_height = measure_text(view.title, TITLE_TEXT.size, bold=True)
    elements: list[Any] = []
    title_x = c.x
    if style.marker and node.shape is Shape.RECT:
        elements += _badge(drawing, node.x + BADGE_INSET, node.y + BADGE_INSET, view)
    elif style.marker and node.shape is Shape.DIAMOND:
        left = c.x - block_width / 2
        elements += _badge(drawing, left, c.y - BADGE_SIZE / 2, view)
        title_x = left + BADGE_SIZE + LINE_GAP + title_width / 2
        top = c.y - title_height / 2
    elements.append(_text(drawing, view.title, title_x, top, TITLE_TEXT, css_class="title"))
    if view.subtitle and node.shape is not Shape.DIAMOND:
        elements += _subtitle(drawing, node, view, top + title_height + LINE_GAP)
    if view.attempts is not None and view.attempts > 1:
        elements.append(_text(drawing, f"x{view.attempts}", node.x + node.width - 4,
                              node.y + 3, ATTEMPTS_TEXT, anchor="end", css_class="attempts"))
    return elements


def _subtitle(drawing: svgwrite.Drawing, node: NodeBox, view: NodeView, top: float) -> list[Any]:
    assert view.subtitle is not None
    style = KIND_STYLES[view.kind]
    width, height = measure_text(view.subtitle, SUBTITLE_TEXT.size, bold=SUBTITLE_TEXT.bold)
    x = node.center.x
    elements: list[Any] = []
    if style.marker and node.shape is Shape.CIRCLE:
        left = x - (BADGE_SIZE + LINE_GAP + width) / 2
        elements += _badge(drawing, left, top + (height - BADGE_SIZE) / 2, view)
        x = left + BADGE_SIZE + LINE_GAP + width / 2
    elements.append(_text(drawing, view.subtitle, x, top, SUBTITLE_TEXT, css_class="subtitle"))
    return elements
