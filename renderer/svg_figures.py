"""SVG of nodes that carry a :class:`renderer.figures.Figure` (read from DOT or BPMN).

Outlines are drawn in the node's box; DOT shapes as Graphviz draws them, BPMN flow
nodes in BPMN's notation: events as circles (thin start, double intermediate and
boundary, thick end; dashed when non-interrupting) with their marker, gateways as
diamonds with their marker, activities as rounded rectangles with their type icon in
the top-left corner and a ``+`` when collapsed. Every colour was validated by
:mod:`renderer.colours`; every text is escaped by :mod:`renderer.svg_element`.

>>> from layouts.result import NodeBox
>>> from renderer.diagram import NodeView, StepKind
>>> from renderer.figures import Figure, Outline
>>> d = SvgDrawing()
>>> group = draw_figure_node(d, NodeBox("n", 0, 0, 80, 40), NodeView(StepKind.PLAIN, "x",
...                          figure=Figure(Outline.CYLINDER)))
>>> group.tostring().count("<path")
2
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from layouts.result import Box, NodeBox, Point
from renderer.colours import Colour
from renderer.diagram import NodeView
from renderer.figures import (
    DASH_ARRAYS,
    BpmnEvent,
    BpmnMarker,
    BpmnSymbol,
    Dash,
    Figure,
    Outline,
)
from renderer.fonts import ascent, measure_text
from renderer.record_layout import field_boxes
from renderer.styles import DOT_LABEL_TEXT
from renderer.svg_element import SvgDrawing, SvgElement
from renderer.svg_nodes import format_number as _n
from renderer.svg_nodes import xml_safe

DEFAULT_STROKE = Colour("#263238")
DEFAULT_FILL = Colour("#ffffff")
FILLED_DEFAULT = Colour("#d3d3d3")
"""Graphviz's fill for ``style=filled`` without a colour (lightgrey)."""
TEXT_COLOUR = Colour("#263238")
MARKER_COLOUR = "#263238"
ICON_SIZE = 14.0
ICON_INSET = 6.0

Points = list[tuple[float, float]]


def _poly(drawing: SvgDrawing, points: Points) -> Any:
    return drawing.polygon(points=[(_n(x), _n(y)) for x, y in points])


def _path(drawing: SvgDrawing, data: str) -> Any:
    return drawing.path(d=data)


def _outline_elements(drawing: SvgDrawing, b: Box, outline: Outline) -> list[Any]:
    x, y, w, h = b.x, b.y, b.width, b.height
    c = b.center
    builder = _OUTLINES.get(outline)
    if builder is not None:
        return builder(drawing, x, y, w, h, c)
    return [drawing.rect(insert=(_n(x), _n(y)), size=(_n(w), _n(h)))]


def _rounded(drawing: SvgDrawing, x: float, y: float, w: float, h: float, c: Point,
             radius: float = 8.0) -> list[Any]:
    r = min(radius, h / 4, w / 4)
    return [drawing.rect(insert=(_n(x), _n(y)), size=(_n(w), _n(h)), rx=_n(r))]


def _ellipse(drawing: SvgDrawing, x: float, y: float, w: float, h: float,
             c: Point) -> list[Any]:
    return [drawing.ellipse(center=(_n(c.x), _n(c.y)), r=(_n(w / 2), _n(h / 2)))]


def _circle(drawing: SvgDrawing, x: float, y: float, w: float, h: float,
            c: Point) -> list[Any]:
    return [drawing.circle(center=(_n(c.x), _n(c.y)), r=_n(min(w, h) / 2))]


def _double_circle(drawing: SvgDrawing, x: float, y: float, w: float, h: float,
                   c: Point) -> list[Any]:
    r = min(w, h) / 2
    return [drawing.circle(center=(_n(c.x), _n(c.y)), r=_n(r)),
            drawing.circle(center=(_n(c.x), _n(c.y)), r=_n(max(r - 4, 1)), fill="none")]


def _diamond(drawing: SvgDrawing, x: float, y: float, w: float, h: float,
             c: Point) -> list[Any]:
    return [_poly(drawing, [(c.x, y), (x + w, c.y), (c.x, y + h), (x, c.y)])]


def _note(drawing: SvgDrawing, x: float, y: float, w: float, h: float,
          c: Point) -> list[Any]:
    f = min(10.0, w / 4, h / 4)
    return [_poly(drawing, [(x, y), (x + w - f, y), (x + w, y + f), (x + w, y + h), (x, y + h)]),
            _path(drawing, f"M {_n(x + w - f)} {_n(y)} L {_n(x + w - f)} {_n(y + f)} "
                           f"L {_n(x + w)} {_n(y + f)}")]


def _tab(drawing: SvgDrawing, x: float, y: float, w: float, h: float,
         c: Point) -> list[Any]:
    t = min(6.0, h / 5)
    return [drawing.rect(insert=(_n(x), _n(y)), size=(_n(w), _n(h))),
            drawing.rect(insert=(_n(x + 4), _n(y - t)), size=(_n(min(20.0, w / 3)), _n(t)))]


def _folder(drawing: SvgDrawing, x: float, y: float, w: float, h: float,
            c: Point) -> list[Any]:
    t = min(6.0, h / 5)
    tab = min(24.0, w / 3)
    return [_poly(drawing, [(x, y), (x + w - tab - t, y), (x + w - tab, y - t), (x + w - 2, y - t),
                            (x + w, y), (x + w, y + h), (x, y + h)])]


def _cylinder(drawing: SvgDrawing, x: float, y: float, w: float, h: float,
              c: Point) -> list[Any]:
    ry = min(h / 6, 10.0)
    rx = w / 2
    body = (f"M {_n(x)} {_n(y + ry)} A {_n(rx)} {_n(ry)} 0 0 1 {_n(x + w)} {_n(y + ry)} "
            f"L {_n(x + w)} {_n(y + h - ry)} A {_n(rx)} {_n(ry)} 0 0 1 {_n(x)} {_n(y + h - ry)} Z")
    rim = f"M {_n(x)} {_n(y + ry)} A {_n(rx)} {_n(ry)} 0 0 0 {_n(x + w)} {_n(y + ry)}"
    return [_path(drawing, body), _path(drawing, rim)]


def _polygon_shape(fractions: Points) -> Callable[..., list[Any]]:
    def build(drawing: SvgDrawing, x: float, y: float, w: float, h: float,
              c: Point) -> list[Any]:
        return [_poly(drawing, [(x + fx * w, y + fy * h) for fx, fy in fractions])]
    return build


def _box_3d(drawing: SvgDrawing, x: float, y: float, w: float, h: float,
            c: Point) -> list[Any]:
    d = min(5.0, w / 6, h / 6)
    return [drawing.rect(insert=(_n(x), _n(y + d)), size=(_n(w - d), _n(h - d))),
            _path(drawing, f"M {_n(x)} {_n(y + d)} L {_n(x + d)} {_n(y)} L {_n(x + w)} {_n(y)} "
                           f"L {_n(x + w)} {_n(y + h - d)} L {_n(x + w - d)} {_n(y + h)} "
                           f"M {_n(x + w - d)} {_n(y + d)} L {_n(x + w)} {_n(y)}")]


def _component(drawing: SvgDrawing, x: float, y: float, w: float, h: float,
               c: Point) -> list[Any]:
    return [drawing.rect(insert=(_n(x), _n(y)), size=(_n(w), _n(h))),
            drawing.rect(insert=(_n(x - 4), _n(y + h * 0.2)), size=("8", _n(h * 0.15))),
            drawing.rect(insert=(_n(x - 4), _n(y + h * 0.6)), size=("8", _n(h * 0.15)))]


def _annotation(drawing: SvgDrawing, x: float, y: float, w: float, h: float,
                c: Point) -> list[Any]:
    arm = min(12.0, w / 4)
    bracket = _path(drawing, f"M {_n(x + arm)} {_n(y)} L {_n(x)} {_n(y)} L {_n(x)} "
                             f"{_n(y + h)} L {_n(x + arm)} {_n(y + h)}")
    bracket["fill"] = "none"
    return [bracket]


_OUTLINES: Mapping[Outline, Callable[..., list[Any]]] = {
    Outline.ROUNDED: _rounded, Outline.ELLIPSE: _ellipse, Outline.CIRCLE: _circle,
    Outline.DOUBLE_CIRCLE: _double_circle, Outline.DIAMOND: _diamond, Outline.NOTE: _note,
    Outline.TAB: _tab, Outline.FOLDER: _folder, Outline.CYLINDER: _cylinder,
    Outline.HEXAGON: _polygon_shape([(0.15, 0), (0.85, 0), (1, 0.5), (0.85, 1), (0.15, 1),
                                     (0, 0.5)]),
    Outline.OCTAGON: _polygon_shape([(0.2, 0), (0.8, 0), (1, 0.3), (1, 0.7), (0.8, 1),
                                     (0.2, 1), (0, 0.7), (0, 0.3)]),
    Outline.TRIANGLE: _polygon_shape([(0.5, 0), (1, 1), (0, 1)]),
    Outline.INVERTED_TRIANGLE: _polygon_shape([(0, 0), (1, 0), (0.5, 1)]),
    Outline.PARALLELOGRAM: _polygon_shape([(0.2, 0), (1, 0), (0.8, 1), (0, 1)]),
    Outline.TRAPEZIUM: _polygon_shape([(0.2, 0), (0.8, 0), (1, 1), (0, 1)]),
    Outline.HOUSE: _polygon_shape([(0.5, 0), (1, 0.35), (1, 1), (0, 1), (0, 0.35)]),
    Outline.BOX_3D: _box_3d, Outline.COMPONENT: _component,
    Outline.BPMN_GATEWAY: _diamond, Outline.BPMN_ANNOTATION: _annotation,
    Outline.BPMN_ACTIVITY: lambda d, x, y, w, h, c: _rounded(d, x, y, w, h, c, 10.0),
}


def _paint_attributes(figure: Figure) -> dict[str, str]:
    paint = figure.paint
    stroke = paint.stroke or DEFAULT_STROKE
    if figure.outline is Outline.POINT:
        fill: Colour | None = paint.fill or stroke
    elif paint.filled:
        fill = paint.fill or FILLED_DEFAULT
    else:
        fill = paint.fill or DEFAULT_FILL
    width = paint.stroke_width
    if figure.bpmn is not None and figure.bpmn.thick:
        width = 3.5
    if figure.bpmn is not None and figure.bpmn.event is BpmnEvent.END:
        width = 3.5
    out = {"fill": fill.hex if fill else "none", "stroke": stroke.hex,
           "stroke-width": _n(width)}
    if fill is not None and fill.opacity < 1:
        out["fill-opacity"] = _n(fill.opacity)
    if stroke.opacity < 1:
        out["stroke-opacity"] = _n(stroke.opacity)
    dash = paint.dash
    if figure.bpmn is not None and not figure.bpmn.interrupting:
        dash = Dash.DASHED
    if DASH_ARRAYS[dash] is not None:
        out["stroke-dasharray"] = str(DASH_ARRAYS[dash])
    return out


def draw_figure_node(drawing: SvgDrawing, node: NodeBox, view: NodeView,
                     *, compound: bool = False) -> SvgElement:
    """The ``<g>`` of a node with a figure: outline, record fields, marker and text. A
    ``compound`` node (a cluster, an expanded sub-process) has its title at the top."""
    figure = view.figure
    assert figure is not None
    if compound and figure.bpmn is not None:
        figure = replace(figure, bpmn=replace(figure.bpmn, collapsed=False,
                                              marker=BpmnMarker.NONE))
    group = drawing.g(id=xml_safe(f"node-{node.id}"),
                      class_=f"node figure-{figure.outline.value}")
    group["data-step-id"] = xml_safe(node.id)
    if figure.hidden:
        return group
    box = node.box
    shapes = drawing.g(class_="outline")
    shapes.update(_paint_attributes(figure))
    if figure.outline is Outline.POINT:
        shapes.add(drawing.circle(center=(_n(box.center.x), _n(box.center.y)),
                                  r=_n(min(box.width, box.height) / 2)))
    elif figure.outline is Outline.BPMN_EVENT:
        for element in _event_circles(drawing, box, figure.bpmn or BpmnSymbol()):
            shapes.add(element)
    elif figure.outline is not Outline.NONE:
        for element in _outline_elements(drawing, box, figure.outline):
            shapes.add(element)
    group.add(shapes)
    text_colour = (figure.paint.text or TEXT_COLOUR).hex
    if figure.record is not None:
        for element in _record(drawing, box, figure, text_colour):
            group.add(element)
    elif figure.outline is Outline.CLUSTER:
        if view.title:
            group.add(text_lines(drawing, view.title, box.center.x, box.y + 4, text_colour))
    elif compound:  # an expanded sub-process: its name in the top-left corner, one line
        if view.title:
            group.add(text_lines(drawing, " ".join(view.title.split()), box.x + 8,
                                 box.y + 6, text_colour, anchor="start"))
    elif figure.text_below:
        if view.title:
            group.add(text_lines(drawing, view.title, box.center.x,
                                 box.y + box.height + 4, text_colour))
    elif view.title:
        group.add(centred_text(drawing, view.title, box, text_colour))
    if figure.bpmn is not None:
        for element in bpmn_marks(drawing, box, figure.outline, figure.bpmn):
            group.add(element)
    if figure.xlabel:
        _, height = measure_text(figure.xlabel, DOT_LABEL_TEXT.size)
        group.add(text_lines(drawing, figure.xlabel, box.x, box.y - height - 2, text_colour,
                             anchor="end"))
    return group


def text_lines(drawing: SvgDrawing, text: str, x: float, top: float, colour: str,
               *, anchor: str = "middle") -> Any:
    """A ``<text>`` whose first line box starts at ``top``, one ``<tspan>`` a line."""
    size = DOT_LABEL_TEXT.size
    lines = text.split("\n")
    _, line_height = measure_text("", size)
    element = drawing.text(xml_safe(lines[0]), insert=(_n(x), _n(top + ascent(size))),
                           font_size=_n(size), text_anchor=anchor, fill=colour,
                           class_="label")
    for line in lines[1:]:
        element.add(drawing.tspan(xml_safe(line), x=[_n(x)], dy=[_n(line_height)]))
    return element


def centred_text(drawing: SvgDrawing, text: str, box: Box, colour: str) -> Any:
    _, height = measure_text(text, DOT_LABEL_TEXT.size)
    return text_lines(drawing, text, box.center.x, box.center.y - height / 2, colour)


def _record(drawing: SvgDrawing, box: Box, figure: Figure, colour: str) -> list[Any]:
    assert figure.record is not None
    out: list[Any] = []
    separators = drawing.g(class_="record-fields", fill="none",
                           stroke=(figure.paint.stroke or DEFAULT_STROKE).hex,
                           stroke_width=_n(figure.paint.stroke_width))
    for field_box, leaf in field_boxes(figure.record, box, not figure.record_vertical):
        if field_box.x > box.x + 0.5:
            separators.add(_path(drawing, f"M {_n(field_box.x)} {_n(field_box.y)} "
                                          f"L {_n(field_box.x)} {_n(field_box.bottom)}"))
        if field_box.y > box.y + 0.5:
            separators.add(_path(drawing, f"M {_n(field_box.x)} {_n(field_box.y)} "
                                          f"L {_n(field_box.right)} {_n(field_box.y)}"))
        if leaf.text:
            out.append(centred_text(drawing, leaf.text, field_box, colour))
    return [separators, *out]


def _event_circles(drawing: SvgDrawing, box: Box, symbol: BpmnSymbol) -> list[Any]:
    c, r = box.center, min(box.width, box.height) / 2
    circles = [drawing.circle(center=(_n(c.x), _n(c.y)), r=_n(r))]
    if symbol.event in (BpmnEvent.INTERMEDIATE_CATCH, BpmnEvent.INTERMEDIATE_THROW,
                        BpmnEvent.BOUNDARY):
        circles.append(drawing.circle(center=(_n(c.x), _n(c.y)), r=_n(r - 3), fill="none"))
    return circles


def bpmn_marks(drawing: SvgDrawing, box: Box, outline: Outline, symbol: BpmnSymbol
               ) -> list[Any]:
    """The marker of an event or gateway (centred) or an activity's icon and ``+``."""
    out: list[Any] = []
    if outline is Outline.BPMN_ACTIVITY:
        if symbol.marker not in (BpmnMarker.NONE, BpmnMarker.CALL, BpmnMarker.SUB_PROCESS):
            icon = Point(box.x + ICON_INSET + ICON_SIZE / 2, box.y + ICON_INSET + ICON_SIZE / 2)
            out += _marker(drawing, symbol.marker, icon, ICON_SIZE, filled=False)
        if symbol.collapsed:
            corner = Point(box.center.x - 7, box.y + box.height - 17)
            out.append(drawing.rect(insert=(_n(corner.x), _n(corner.y)), size=("14", "14"),
                                    fill="none", stroke=MARKER_COLOUR))
            out += _marker(drawing, BpmnMarker.PARALLEL, Point(box.center.x, corner.y + 7), 10,
                           filled=False)
        return out
    size = min(box.width, box.height) * (0.5 if outline is Outline.BPMN_GATEWAY else 0.55)
    filled = symbol.event in (BpmnEvent.END, BpmnEvent.INTERMEDIATE_THROW)
    return _marker(drawing, symbol.marker, box.center, size, filled=filled)


def _marker(drawing: SvgDrawing, marker: BpmnMarker, c: Point, size: float,
            *, filled: bool) -> list[Any]:
    """One BPMN marker glyph of about ``size`` px, centred on ``c``."""
    s = size / 2
    fill = MARKER_COLOUR if filled else "none"
    style = {"fill": fill, "stroke": MARKER_COLOUR, "stroke-width": "1.5",
             "class_": f"marker marker-{marker.value}"}

    def poly(points: Points, **extra: str) -> Any:
        element = _poly(drawing, [(c.x + fx * s, c.y + fy * s) for fx, fy in points])
        element.update({**style, **extra})
        return element

    def lines(data: str, width: str = "2") -> Any:
        element = drawing.path(d=data, fill="none", stroke=MARKER_COLOUR, stroke_width=width,
                               class_=f"marker marker-{marker.value}")
        return element

    def at(fx: float, fy: float) -> str:
        return f"{_n(c.x + fx * s)} {_n(c.y + fy * s)}"

    if marker is BpmnMarker.NONE or marker is BpmnMarker.CALL:
        return []
    if marker in (BpmnMarker.MESSAGE, BpmnMarker.SEND, BpmnMarker.RECEIVE):
        solid = filled or marker is BpmnMarker.SEND
        body = poly([(-1, -0.65), (1, -0.65), (1, 0.65), (-1, 0.65)],
                    fill=MARKER_COLOUR if solid else "#ffffff")
        flap = lines(f"M {at(-1, -0.65)} L {at(0, 0.1)} L {at(1, -0.65)}", "1.2")
        if solid:
            flap.update({"stroke": "#ffffff"})
        return [body, flap]
    if marker is BpmnMarker.TIMER:
        face = drawing.circle(center=(_n(c.x), _n(c.y)), r=_n(s), fill="#ffffff",
                              stroke=MARKER_COLOUR, stroke_width="1.5",
                              class_="marker marker-timer")
        return [face, lines(f"M {at(0, -0.75)} L {at(0, 0)} L {at(0.5, 0.2)}", "1.5")]
    if marker is BpmnMarker.EXCLUSIVE:
        return [lines(f"M {at(-0.55, -0.55)} L {at(0.55, 0.55)} M {at(0.55, -0.55)} "
                      f"L {at(-0.55, 0.55)}", "3")]
    if marker is BpmnMarker.PARALLEL:
        width = "3" if size > 12 else "1.5"
        return [lines(f"M {at(0, -0.75)} L {at(0, 0.75)} M {at(-0.75, 0)} L {at(0.75, 0)}",
                      width)]
    if marker is BpmnMarker.COMPLEX:
        return [lines(f"M {at(0, -0.75)} L {at(0, 0.75)} M {at(-0.75, 0)} L {at(0.75, 0)} "
                      f"M {at(-0.55, -0.55)} L {at(0.55, 0.55)} M {at(0.55, -0.55)} "
                      f"L {at(-0.55, 0.55)}", "2.5")]
    if marker is BpmnMarker.INCLUSIVE:
        return [drawing.circle(center=(_n(c.x), _n(c.y)), r=_n(s * 0.6), fill="none",
                               stroke=MARKER_COLOUR, stroke_width="2.5",
                               class_="marker marker-inclusive")]
    if marker in (BpmnMarker.EVENT_BASED, BpmnMarker.MULTIPLE):
        pentagon = [(math.cos(a) * 0.6, math.sin(a) * 0.6)
                    for a in (-math.pi / 2 + k * 2 * math.pi / 5 for k in range(5))]
        shapes = [poly(pentagon)]
        if marker is BpmnMarker.EVENT_BASED:
            shapes.insert(0, drawing.circle(center=(_n(c.x), _n(c.y)), r=_n(s * 0.85),
                                            fill="none", stroke=MARKER_COLOUR,
                                            stroke_width="1.2"))
        return shapes
    if marker is BpmnMarker.TERMINATE:
        return [drawing.circle(center=(_n(c.x), _n(c.y)), r=_n(s * 0.7), fill=MARKER_COLOUR,
                               class_="marker marker-terminate")]
    glyphs: Mapping[BpmnMarker, Points] = {
        BpmnMarker.ERROR: [(-0.7, 0.7), (-0.3, -0.6), (0.2, 0.1), (0.7, -0.7), (0.3, 0.6),
                           (-0.2, -0.1)],
        BpmnMarker.ESCALATION: [(0, -0.8), (0.6, 0.7), (0, 0.2), (-0.6, 0.7)],
        BpmnMarker.SIGNAL: [(0, -0.75), (0.7, 0.55), (-0.7, 0.55)],
        BpmnMarker.LINK: [(-0.7, -0.3), (0.1, -0.3), (0.1, -0.7), (0.8, 0), (0.1, 0.7),
                          (0.1, 0.3), (-0.7, 0.3)],
        BpmnMarker.COMPENSATION: [(-0.8, 0), (0, -0.5), (0, 0), (0.8, -0.5), (0.8, 0.5),
                                  (0, 0), (0, 0.5)],
        BpmnMarker.CANCEL: [(-0.6, -0.8), (0, -0.2), (0.6, -0.8), (0.8, -0.6), (0.2, 0),
                            (0.8, 0.6), (0.6, 0.8), (0, 0.2), (-0.6, 0.8), (-0.8, 0.6),
                            (-0.2, 0), (-0.8, -0.6)],
        BpmnMarker.CONDITIONAL: [(-0.55, -0.75), (0.55, -0.75), (0.55, 0.75), (-0.55, 0.75)],
        BpmnMarker.SCRIPT: [(-0.5, -0.8), (0.7, -0.8), (0.5, 0.8), (-0.7, 0.8)],
        BpmnMarker.BUSINESS_RULE: [(-0.9, -0.7), (0.9, -0.7), (0.9, 0.7), (-0.9, 0.7)],
        BpmnMarker.MANUAL: [(-0.9, -0.2), (0.2, -0.7), (0.9, -0.4), (0.9, 0.6), (-0.9, 0.6)],
    }
    if marker in glyphs:
        shapes = [poly(glyphs[marker])]
        if marker in (BpmnMarker.CONDITIONAL, BpmnMarker.SCRIPT):
            shapes.append(lines(" ".join(f"M {at(-0.35, y)} L {at(0.35, y)}"
                                         for y in (-0.4, 0, 0.4)), "1"))
        if marker is BpmnMarker.BUSINESS_RULE:
            shapes.append(lines(f"M {at(-0.9, -0.3)} L {at(0.9, -0.3)} M {at(-0.4, -0.3)} "
                                f"L {at(-0.4, 0.7)}", "1"))
        return shapes
    if marker is BpmnMarker.USER:
        head = drawing.circle(center=(_n(c.x), _n(c.y - 0.4 * s)), r=_n(0.35 * s),
                              fill="none", stroke=MARKER_COLOUR, stroke_width="1.3")
        return [head, lines(f"M {at(-0.8, 0.9)} Q {at(-0.8, 0.05)} {at(0, 0.05)} "
                            f"Q {at(0.8, 0.05)} {at(0.8, 0.9)} Z", "1.3")]
    if marker is BpmnMarker.SERVICE:
        spokes = " ".join(f"M {at(math.cos(a) * 0.45, math.sin(a) * 0.45)} "
                          f"L {at(math.cos(a) * 0.95, math.sin(a) * 0.95)}"
                          for a in (k * math.pi / 4 for k in range(8)))
        wheel = drawing.circle(center=(_n(c.x), _n(c.y)), r=_n(0.6 * s), fill="#ffffff",
                               stroke=MARKER_COLOUR, stroke_width="1.3")
        return [lines(spokes, "2.2"), wheel]
    return []
