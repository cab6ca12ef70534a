"""Diagram + LayoutResult -> SVG bytes, drawn with :mod:`renderer.svg_element`.

Layers, bottom to top: a white background, edges (one ``<path>`` per edge with an
arrowhead marker at the target), nodes (one ``<g>`` per node: its shape, kind badge,
title, subtitle and attempt count) and guard labels. Node groups carry ``data-step-id``
and edge groups ``data-edge-id`` (the ids unchanged, where the ``id`` attribute has a
prefix); in a run view their classes also name the step state (``state-waiting``) and
the edge state (``edge-taken``, ``edge-not-taken``, ``edge-pending``), and a loop-back
the run took has ``data-iterations``, so pages find them without reading labels.
Colours and sizes come from :mod:`renderer.styles`; text positions mirror the sizing in
:mod:`renderer.from_definition`.

Output is deterministic: every element that is referenced has an explicit id, numbers
are rounded to 2 decimals, and elements follow the result's node and edge order. The
builder escapes every text and attribute; the bytes are svgwrite's for the same calls.

>>> from layouts.graph import Graph, Node
>>> from layouts.result import Diagnostics, LayoutResult, NodeBox
>>> diagram = Diagram("demo", Graph((Node("a", 80, 40),)))
>>> result = LayoutResult((NodeBox("a", 0, 0, 80, 40),), (), 80, 40,
...                       Diagnostics("hand", "draft", "TopToBottom"))
>>> svg = write_svg(diagram, result)
>>> svg.startswith(b"<?xml") and b'id="node-a"' in svg and b'data-step-id="a"' in svg
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from layouts.result import Box, EdgeRoute, LayoutResult, NodeBox, Point
from renderer.bpmn_frames import NAME_BAND, Frame, frames
from renderer.bpmn_model import expanded_ids
from renderer.diagram import Diagram, EdgeState, EdgeView, NodeView, StepKind
from renderer.figures import DASH_ARRAYS, EdgeEnd, EdgeFigure
from renderer.fonts import measure_text, pinned_fonts
from renderer.from_definition import edge_label_size
from renderer.styles import (
    EDGE_LABEL_TEXT,
    EDGE_STYLES,
    FONT_FAMILY,
    LOOP_BACK_DASH,
    EdgeStyle,
)
from renderer.svg_collapsed import collapsed_markers
from renderer.svg_compound import draw_compound
from renderer.svg_element import SvgDrawing, SvgElement
from renderer.svg_figures import DEFAULT_STROKE, draw_figure_node, text_lines
from renderer.svg_nodes import draw_node, draw_text, element_id, xml_safe
from renderer.svg_nodes import format_number as _n
from renderer.svg_ports import draw_ports

MARGIN = 20.0
"""Space around the drawing's content inside the viewBox, in px."""

ARROW_SIZE = 9.0
XML_DECLARATION = b'<?xml version="1.0" encoding="utf-8"?>\n'
EDGE_STYLE_NAMES: Mapping[EdgeState | None, str] = {
    None: "normal", EdgeState.PENDING: "normal", EdgeState.TAKEN: "taken",
    EdgeState.NOT_TAKEN: "not-taken"}
"""The :data:`renderer.styles.EDGE_STYLES` entry of each edge state (no run: normal)."""
STYLE_SHEET = f"svg {{ font-family: {FONT_FAMILY}; }}\n"


def write_svg(diagram: Diagram, result: LayoutResult, *, title: str | None = None) -> bytes:
    """The SVG document of a laid-out diagram, as UTF-8 bytes.

    Raises ``ValueError`` naming an edge whose route has fewer than two points.
    """
    document = svg_drawing(diagram, result, title=title).tostring()
    return XML_DECLARATION + document.encode("utf-8")


DrawingFactory = Callable[[tuple[str, str], str], SvgDrawing]
"""Makes the root of a drawing from its size and ``viewBox``."""


def new_drawing(size: tuple[str, str], view_box: str) -> SvgDrawing:
    """The root of a drawing (:class:`renderer.svg_element.SvgDrawing`)."""
    return SvgDrawing(size=size, viewBox=view_box)


@pinned_fonts()  # one environment read per drawing
def svg_drawing(diagram: Diagram, result: LayoutResult, *, title: str | None = None,
                factory: DrawingFactory = new_drawing) -> SvgDrawing:
    """The drawing that :func:`write_svg` writes. ``factory`` makes its root, whose
    methods make every element (tests pass one that builds svgwrite's elements, to check
    the bytes against svgwrite's own)."""
    scene = _Scene.of(diagram)
    scope_frames = _scope_frames(diagram, result)
    frame = _content_frame(scene, result, scope_frames)
    drawing = factory((_n(frame.width), _n(frame.height)),
                      " ".join(_n(v) for v in (frame.x, frame.y, frame.width, frame.height)))
    drawing.set_desc(title=xml_safe(title or diagram.name))
    drawing.defs.add(drawing.style(STYLE_SHEET))
    for style in EDGE_STYLES.values():
        drawing.defs.add(_arrowhead(drawing, style))
    drawing.add(drawing.rect(insert=(_n(frame.x), _n(frame.y)),
                             size=(_n(frame.width), _n(frame.height)),
                             fill="#ffffff", id="background"))
    if scope_frames:
        drawing.add(_frames(drawing, scope_frames))
    compound = {n.id for n in diagram.graph.all_nodes() if n.children}
    if compound:  # behind the edges and nodes they hold, outer ones first
        groups = drawing.add(drawing.g(id="compound-nodes"))
        for node in result.nodes:
            if node.id in compound:
                view = scene.view(node.id)
                groups.add(draw_compound(drawing, node, view) if view.figure is None
                           else draw_figure_node(drawing, node, view, compound=True))
    edges = drawing.add(drawing.g(id="edges"))
    for route in result.edges:
        edges.add(_edge(drawing, scene, route))
    nodes = drawing.add(drawing.g(id="nodes"))
    for node in result.nodes:
        if node.id in compound:
            continue
        view = scene.view(node.id)
        nodes.add(draw_node(drawing, node, view) if view.figure is None
                  else draw_figure_node(drawing, node, view))
    shown_ports = [p for p in result.ports if scene.view(p.node).figure is None]
    if shown_ports:  # a DOT record's ports are its fields, drawn with it
        drawing.add(draw_ports(drawing, diagram.graph, result.nodes, shown_ports))
    for marker in collapsed_markers(drawing, diagram.graph, result):
        nodes.add(marker)
    labels = drawing.add(drawing.g(id="labels"))  # "edge-labels" is edge "labels"'s id
    for route in result.edges:
        label = _edge_label(drawing, scene, route)
        if label is not None:
            labels.add(label)
    return drawing


@dataclass(frozen=True, slots=True)
class _Scene:
    """Lookups by id, built once per drawing so large graphs stay linear."""

    diagram: Diagram
    node_views: Mapping[str, NodeView]
    edge_views: Mapping[str, EdgeView]
    labels: Mapping[str, str]
    loop_backs: frozenset[str]
    extra_labels: Mapping[str, tuple[str, ...]]
    """The texts of each edge's labels after the first."""

    @classmethod
    def of(cls, diagram: Diagram) -> _Scene:
        views = {n.id: diagram.nodes.get(n.id) or NodeView(StepKind.PLAIN, n.label or n.id)
                 for n in diagram.graph.all_nodes()}
        views.update({key: view for key, view in diagram.nodes.items() if key not in views})
        edge_views = {e.id: diagram.edge_view(e.id) for e in diagram.graph.edges}
        return cls(diagram, views, edge_views, edge_labels(diagram),
                   frozenset(e.id for e in diagram.graph.edges if e.loop_back),
                   {e.id: tuple(label.text for label in e.extra_labels)
                    for e in diagram.graph.edges if e.extra_labels})

    def view(self, node_id: str) -> NodeView:
        return self.node_views.get(node_id) or NodeView(StepKind.PLAIN, node_id)


def _scope_frames(diagram: Diagram, result: LayoutResult) -> list[Frame]:
    """Pools of a collaboration and the content of sub-processes (BPMN only)."""
    model = diagram.bpmn
    if model is None:
        return []
    boxes = {n.id: n for n in result.nodes}
    pools = tuple(s for s in model.main_scopes if model.collaboration_id is not None
                  or s.lanes)
    expanded = expanded_ids(diagram.graph.all_nodes())
    return frames((*pools, *(s for s in model.sub_scopes if s.id not in expanded)), boxes,
                  result.edges)


def _lane(drawing: SvgDrawing, lane: NodeBox, name: str) -> SvgElement:
    """A lane: its box, the line closing its name band and its name written upwards."""
    item = drawing.g(class_="lane")
    item["data-lane-id"] = xml_safe(lane.id)
    item.add(drawing.rect(insert=(_n(lane.x), _n(lane.y)),
                          size=(_n(lane.width), _n(lane.height)), stroke_width="1"))
    band_x = lane.x + NAME_BAND
    bottom = lane.y + lane.height
    item.add(drawing.path(d=f"M {_n(band_x)} {_n(lane.y)} L {_n(band_x)} {_n(bottom)}",
                          stroke_width="1"))
    if name:
        text = text_lines(drawing, name, 0, 0, DEFAULT_STROKE.hex)
        text["transform"] = f"translate({_n(lane.x + 10)} {_n(lane.center.y)}) rotate(-90)"
        item.add(text)
    return item


def _frames(drawing: SvgDrawing, scope_frames: list[Frame]) -> SvgElement:
    group = drawing.g(id="frames", fill="none", stroke=DEFAULT_STROKE.hex)
    names = {lane.id: lane.name for frame in scope_frames for lane in frame.scope.all_lanes()}
    for frame in scope_frames:
        box = frame.box
        item = drawing.g(class_=f"frame frame-{frame.scope.kind.value}")
        item["data-scope-id"] = xml_safe(frame.scope.id)
        rect = drawing.rect(insert=(_n(box.x), _n(box.y)), size=(_n(box.width), _n(box.height)),
                            stroke_width="1.5", fill="#ffffff")
        if not frame.has_band:
            rect.update({"rx": "10", "stroke-dasharray": "6 4"})
        if frame.has_band or not frame.lanes:   # a process's lanes need no frame of their own
            item.add(rect)
        if frame.has_band:
            band_x = box.x + 30
            item.add(drawing.path(d=f"M {_n(band_x)} {_n(box.y)} L {_n(band_x)} "
                                    f"{_n(box.bottom)}", stroke_width="1.5"))
            text = text_lines(drawing, frame.scope.name, 0, 0, DEFAULT_STROKE.hex)
            text["transform"] = (f"translate({_n(box.x + 10)} {_n(box.center.y)}) "
                                 "rotate(-90)")
            item.add(text)
        elif frame.scope.name and not frame.lanes:
            item.add(text_lines(drawing, frame.scope.name, box.x + 10, box.y + 6,
                                DEFAULT_STROKE.hex, anchor="start"))
        for lane in frame.lanes:
            item.add(_lane(drawing, lane, names.get(lane.id, "")))
        group.add(item)
    return group


def _text_below(scene: _Scene, node: NodeBox) -> Box | None:
    view = scene.view(node.id)
    if view.figure is None or not view.figure.text_below or not view.title:
        return None
    width, height = measure_text(view.title, 12.0)
    return Box(node.center.x - width / 2, node.y + node.height + 4, width, height)


def _content_frame(scene: _Scene, result: LayoutResult, scope_frames: list[Frame]) -> Box:
    xs, ys = [0.0, result.width], [0.0, result.height]
    for frame in scope_frames:
        xs += [frame.box.x, frame.box.right]
        ys += [frame.box.y, frame.box.bottom]
    for node in result.nodes:
        xs += [node.x, node.x + node.width]
        ys += [node.y, node.y + node.height]
        below = _text_below(scene, node)
        if below is not None:
            xs += [below.x, below.right]
            ys += [below.bottom]
    for route in result.edges:
        xs += [p.x for p in route.points]
        ys += [p.y for p in route.points]
        box = edge_label_box(route, scene.labels.get(route.id))
        if box is not None:
            xs += [box.x, box.right]
            ys += [box.y, box.bottom]
    left, top = min(xs) - MARGIN, min(ys) - MARGIN
    return Box(left, top, max(xs) + MARGIN - left, max(ys) + MARGIN - top)


def _arrowhead(drawing: SvgDrawing, style: EdgeStyle) -> Any:
    marker = drawing.marker(id=style.marker_id, insert=(10, 5), size=(ARROW_SIZE, ARROW_SIZE),
                            orient="auto", viewBox="0 0 10 10")
    marker["markerUnits"] = "userSpaceOnUse"
    marker.add(drawing.path(d="M0,0 L10,5 L0,10 z", fill=style.stroke))
    return marker


def _edge(drawing: SvgDrawing, scene: _Scene, route: EdgeRoute) -> SvgElement:
    if len(route.points) < 2:
        raise ValueError(f"edge '{route.id}' has {len(route.points)} route points; "
                         "an edge needs at least 2")
    view = scene.edge_views.get(route.id, EdgeView())
    if view.figure is not None and view.state is None:
        return _figure_edge(drawing, route, view.figure)
    style = EDGE_STYLES[EDGE_STYLE_NAMES[view.state]]
    loop_back = route.loop_back or route.id in scene.loop_backs
    classes = ["edge", *(["loop-back"] if loop_back else []),
               *([f"edge-{view.state.value}"] if view.state is not None else [])]
    group = drawing.g(id=element_id("edge", route.id), class_=" ".join(classes))
    group["data-edge-id"] = xml_safe(route.id)
    if view.iterations:
        group["data-iterations"] = str(view.iterations)
    data = "M " + " L ".join(f"{_n(p.x)} {_n(p.y)}" for p in route.points)
    path = drawing.path(d=data, fill="none", stroke=style.stroke,
                        stroke_width=_n(style.stroke_width),
                        marker_end=f"url(#{style.marker_id})")
    path["stroke-linejoin"] = "round"
    if loop_back:
        path["stroke-dasharray"] = LOOP_BACK_DASH
    group.add(path)
    return group


def _figure_edge(drawing: SvgDrawing, route: EdgeRoute, figure: EdgeFigure) -> SvgElement:
    """An edge from DOT or BPMN: its own colour, width and dash, and its end marks
    (drawn as polygons at the ends, so any colour works without a marker per colour)."""
    group = drawing.g(id=xml_safe(f"edge-{route.id}"), class_="edge")
    group["data-edge-id"] = xml_safe(route.id)
    if figure.hidden:
        return group
    stroke = (figure.stroke or DEFAULT_STROKE).hex
    data = "M " + " L ".join(f"{_n(p.x)} {_n(p.y)}" for p in route.points)
    path = drawing.path(d=data, fill="none", stroke=stroke, stroke_width=_n(figure.stroke_width))
    path["stroke-linejoin"] = "round"
    if DASH_ARRAYS[figure.dash] is not None:
        path["stroke-dasharray"] = str(DASH_ARRAYS[figure.dash])
    if figure.stroke is not None and figure.stroke.opacity < 1:
        path["stroke-opacity"] = _n(figure.stroke.opacity)
    group.add(path)
    points = route.points
    for mark, tip, before in ((figure.head, points[-1], points[-2]),
                              (figure.tail, points[0], points[1])):
        element = _end_mark(drawing, mark, tip, before, stroke)
        if element is not None:
            group.add(element)
    return group


def _end_mark(drawing: SvgDrawing, mark: EdgeEnd, tip: Point, before: Point,
              stroke: str) -> Any:
    """An arrowhead with its tip at ``tip``, BPMN's diamond (conditional flow) or slash
    (default flow) at an edge end coming from ``before``."""
    length = math.hypot(tip.x - before.x, tip.y - before.y)
    if mark is EdgeEnd.NONE or length == 0:
        return None
    ux, uy = (tip.x - before.x) / length, (tip.y - before.y) / length
    nx, ny = -uy, ux

    def at(along: float, across: float) -> tuple[str, str]:
        return (_n(tip.x - ux * along + nx * across), _n(tip.y - uy * along + ny * across))

    if mark is EdgeEnd.ARROW:
        return drawing.polygon(points=[at(0, 0), at(ARROW_SIZE, 4.5), at(ARROW_SIZE, -4.5)],
                               fill=stroke, class_="arrowhead")
    if mark is EdgeEnd.DIAMOND:
        return drawing.polygon(points=[at(0, 0), at(7, 4.5), at(14, 0), at(7, -4.5)],
                               fill="#ffffff", stroke=stroke, class_="condition-mark")
    return drawing.path(d="M {} {} L {} {}".format(*at(14, 6), *at(6, -6)), stroke=stroke,
                        stroke_width="1.4", class_="default-mark")


def edge_labels(diagram: Diagram) -> dict[str, str]:
    """Edge id -> the label it shows (its view's label, else its graph label).

    >>> from layouts.graph import Edge, Graph, Node
    >>> g = Graph((Node("a", 9, 9),), (Edge("e", "a", "a", "yes"), Edge("f", "a", "a")))
    >>> edge_labels(Diagram("d", g))
    {'e': 'yes'}
    """
    labels = {e.id: e.label for e in diagram.graph.edges if e.label}
    labels.update({key: view.label for key, view in diagram.edges.items() if view.label})
    return labels


def edge_label_box(route: EdgeRoute, text: str | None) -> Box | None:
    """Where an edge's label ``text`` is drawn: the engine's label box, else a box of the
    label's measured size centred on the middle of the route's longest segment; ``None``
    when there is no text.

    >>> route = EdgeRoute("e", "a", "b", (Point(0, 0), Point(0, 10), Point(100, 10)))
    >>> box = edge_label_box(route, "yes")
    >>> (box.center.x, box.center.y)
    (50.0, 10.0)
    """
    if not text:
        return None
    if route.label_box is not None:
        return route.label_box
    if len(route.points) < 2:
        return None
    width, height = edge_label_size(text)
    segments = pairwise(route.points)
    start, end = max(segments, key=lambda s: abs(s[1].x - s[0].x) + abs(s[1].y - s[0].y))
    middle = Point((start.x + end.x) / 2, (start.y + end.y) / 2)
    return Box(middle.x - width / 2, middle.y - height / 2, width, height)


def _edge_label(drawing: SvgDrawing, scene: _Scene, route: EdgeRoute) -> SvgElement | None:
    text = scene.labels.get(route.id)
    box = edge_label_box(route, text)
    if text is None or box is None:
        return None
    group = drawing.g(id=element_id("label", route.id), class_="edge-label")
    extras = zip(scene.extra_labels.get(route.id, ()), route.extra_label_boxes, strict=False)
    for line, at in ((text, box), *extras):
        group.add(drawing.rect(insert=(_n(at.x), _n(at.y)),
                               size=(_n(at.width), _n(at.height)), rx="3", fill="#ffffff",
                               fill_opacity="0.92", stroke="#cfd8dc"))
        _, text_height = measure_text(line, EDGE_LABEL_TEXT.size, bold=EDGE_LABEL_TEXT.bold)
        top = at.y + (at.height - text_height) / 2
        group.add(draw_text(drawing, line, at.center.x, top, EDGE_LABEL_TEXT))
    return group
