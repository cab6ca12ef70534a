"""Diagram + LayoutResult -> SVG bytes, drawn with svgwrite.

Layers, bottom to top: a white background, edges (one ``<path>`` per edge with an
arrowhead marker at the target), nodes (one ``<g>`` per node: its shape, kind badge,
title, subtitle and attempt count) and guard labels. Node groups carry ``data-step-id``
and edge groups ``data-edge-id`` (the ids unchanged, where the ``id`` attribute has a
prefix); in a run view their classes also name the step state (``state-waiting``) and
the edge state (``edge-taken``, ``edge-not-taken``, ``edge-pending``), and a loop-back
the run took has ``data-iterations``, so pages find them without reading labels.
Colours and sizes come from :mod:`renderer.styles`; text positions mirror the sizing in
:mod:`renderer.from_definition`.

Output is deterministic: every element that is referenced has an explicit id (svgwrite's
automatic ids are process-global), numbers are rounded to 2 decimals, and elements
follow the result's node and edge order. svgwrite escapes every text and attribute.

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

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import svgwrite
from svgwrite.container import Group

from layouts.result import Box, EdgeRoute, LayoutResult, Point
from renderer.diagram import Diagram, EdgeState, EdgeView, NodeView, StepKind
from renderer.fonts import measure_text
from renderer.from_definition import edge_label_size
from renderer.styles import (
    EDGE_LABEL_TEXT,
    EDGE_STYLES,
    FONT_FAMILY,
    LOOP_BACK_DASH,
    EdgeStyle,
)
from renderer.svg_nodes import draw_node, draw_text, element_id, xml_safe
from renderer.svg_nodes import format_number as _n
from renderer.svg_xml import xml_text

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
    document = xml_text(svg_drawing(diagram, result, title=title))
    return XML_DECLARATION + document.encode("utf-8")


def svg_drawing(diagram: Diagram, result: LayoutResult, *,
                title: str | None = None) -> svgwrite.Drawing:
    """The svgwrite drawing that :func:`write_svg` writes."""
    scene = _Scene.of(diagram)
    frame = _content_frame(scene, result)
    drawing = svgwrite.Drawing(
        size=(_n(frame.width), _n(frame.height)),
        viewBox=" ".join(_n(v) for v in (frame.x, frame.y, frame.width, frame.height)),
        debug=False,
    )
    drawing.set_desc(title=xml_safe(title or diagram.name))
    drawing.defs.add(drawing.style(STYLE_SHEET))
    for style in EDGE_STYLES.values():
        drawing.defs.add(_arrowhead(drawing, style))
    drawing.add(drawing.rect(insert=(_n(frame.x), _n(frame.y)),
                             size=(_n(frame.width), _n(frame.height)),
                             fill="#ffffff", id="background"))
    edges = drawing.add(drawing.g(id="edges"))
    for route in result.edges:
        edges.add(_edge(drawing, scene, route))
    nodes = drawing.add(drawing.g(id="nodes"))
    for node in result.nodes:
        nodes.add(draw_node(drawing, node, scene.view(node.id)))
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

    @classmethod
    def of(cls, diagram: Diagram) -> _Scene:
        views = {n.id: diagram.nodes.get(n.id) or NodeView(StepKind.PLAIN, n.label or n.id)
                 for n in diagram.graph.nodes}
        edge_views = {e.id: diagram.edge_view(e.id) for e in diagram.graph.edges}
        return cls(diagram, views, edge_views, edge_labels(diagram),
                   frozenset(e.id for e in diagram.graph.edges if e.loop_back))

    def view(self, node_id: str) -> NodeView:
        return self.node_views.get(node_id) or NodeView(StepKind.PLAIN, node_id)


def _content_frame(scene: _Scene, result: LayoutResult) -> Box:
    xs, ys = [0.0, result.width], [0.0, result.height]
    for node in result.nodes:
        xs += [node.x, node.x + node.width]
        ys += [node.y, node.y + node.height]
    for route in result.edges:
        xs += [p.x for p in route.points]
        ys += [p.y for p in route.points]
        box = edge_label_box(route, scene.labels.get(route.id))
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


def _edge(drawing: svgwrite.Drawing, scene: _Scene, route: EdgeRoute) -> Group:
    if len(route.points) < 2:
        raise ValueError(f"edge '{route.id}' has {len(route.points)} route points; "
                         "an edge needs at least 2")
    view = scene.edge_views.get(route.id, EdgeView())
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


def _edge_label(drawing: svgwrite.Drawing, scene: _Scene, route: EdgeRoute) -> Group | None:
    text = scene.labels.get(route.id)
    box = edge_label_box(route, text)
    if text is None or box is None:
        return None
    group = drawing.g(id=element_id("label", route.id), class_="edge-label")
    group.add(drawing.rect(insert=(_n(box.x), _n(box.y)), size=(_n(box.width), _n(box.height)),
                           rx="3", fill="#ffffff", fill_opacity="0.92", stroke="#cfd8dc"))
    _, text_height = measure_text(text, EDGE_LABEL_TEXT.size, bold=EDGE_LABEL_TEXT.bold)
    top = box.y + (box.height - text_height) / 2
    group.add(draw_text(drawing, text, box.center.x, top, EDGE_LABEL_TEXT))
    return group
