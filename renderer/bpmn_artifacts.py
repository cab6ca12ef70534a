"""BPMN lanes, data objects, data stores, text annotations and their associations, as
the reader sees them.

- Lanes (``laneSet`` and nested ``childLaneSet``) become :class:`~renderer.bpmn_model.Lane`
  trees; :mod:`renderer.bpmn_lanes` draws them as bands of their pool.
- ``dataObjectReference`` (a page with a folded corner, 36 x 50, its name below),
  ``dataStoreReference`` (a cylinder, 50 x 50, its name below) and ``textAnnotation`` (an
  open bracket around its text) become nodes of the layout graph, so engines place them
  next to what they are associated with. (``dataObject`` itself is never drawn: BPMN DI
  draws its references.)
- ``association`` (``sourceRef``/``targetRef`` attributes) and a flow node's
  ``dataInputAssociation`` (``sourceRef`` child -> the node) and
  ``dataOutputAssociation`` (the node -> ``targetRef`` child) become dotted edges, data
  associations with an arrowhead, as BPMN draws them.

>>> import xml.etree.ElementTree as ET
>>> task = ET.fromstring(f'<task xmlns="{MODEL}" id="t"><dataOutputAssociation id="o">'
...                      '<targetRef>d</targetRef></dataOutputAssociation></task>')
>>> data_links(task)
[Link(id='o', source='t', target='d', data=True)]
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass

from layouts.graph import Node, Shape
from renderer.bpmn_model import Lane
from renderer.figures import Dash, EdgeEnd, EdgeFigure, Figure, Outline
from renderer.fonts import measure_text
from renderer.styles import DOT_LABEL_TEXT

MODEL = "http://www.omg.org/spec/BPMN/20100524/MODEL"
DATA_OBJECT_SIZE = (36.0, 50.0)
DATA_STORE_SIZE = (50.0, 50.0)
ANNOTATION_WIDTH = 100.0
ANNOTATION_PADDING = 8.0
ARTIFACTS = frozenset({"dataObjectReference", "dataStoreReference", "textAnnotation"})
ASSOCIATION_FIGURE = EdgeFigure(dash=Dash.DOTTED, stroke_width=1.2, head=EdgeEnd.NONE,
                                tail=EdgeEnd.NONE)
DATA_ASSOCIATION_FIGURE = EdgeFigure(dash=Dash.DOTTED, stroke_width=1.2, tail=EdgeEnd.NONE)


@dataclass(frozen=True, slots=True)
class Link:
    """An association to draw: its element id and the ids of its two ends."""

    id: str
    source: str
    target: str
    data: bool


def _children(element: ET.Element) -> Iterator[tuple[str, ET.Element]]:
    prefix = f"{{{MODEL}}}"
    for child in element:
        if isinstance(child.tag, str) and child.tag.startswith(prefix):
            yield child.tag.removeprefix(prefix), child


def read_lanes(process: ET.Element) -> tuple[Lane, ...]:
    """The lanes of a process's (first) ``laneSet``, nested ones as children."""
    for name, element in _children(process):
        if name == "laneSet":
            return _lanes(element)
    return ()


def _lanes(lane_set: ET.Element) -> tuple[Lane, ...]:
    lanes = []
    for name, lane in _children(lane_set):
        if name != "lane":
            continue
        refs = tuple((ref.text or "").strip() for n, ref in _children(lane)
                     if n == "flowNodeRef" and (ref.text or "").strip())
        inner = next((child for n, child in _children(lane) if n == "childLaneSet"), None)
        lanes.append(Lane(lane.get("id") or "", lane.get("name") or "", refs,
                          _lanes(inner) if inner is not None else ()))
    return tuple(lanes)


def artifact(name: str, element: ET.Element, node_id: str, text_width: float
             ) -> tuple[Node, Figure, tuple[float, float]] | None:
    """The node, figure and outside-label size of a data object or store reference or a
    text annotation (``None`` for any other element). ``text_width`` wraps the text."""
    from renderer.bpmn_reader import wrap_text

    if name in ("dataObjectReference", "dataStoreReference"):
        title = " ".join((element.get("name") or "").split())
        width, height = DATA_OBJECT_SIZE if name == "dataObjectReference" else DATA_STORE_SIZE
        outline = Outline.NOTE if name == "dataObjectReference" else Outline.CYLINDER
        label = wrap_text(title, text_width) if title else ""
        size = measure_text(label, DOT_LABEL_TEXT.size) if label else (0.0, 0.0)
        return (Node(node_id, width, height, Shape.RECT, label),
                Figure(outline, text_below=True),
                (float(math.ceil(size[0])), float(math.ceil(size[1]))))
    if name == "textAnnotation":
        text = " ".join("".join(t.text or "" for n, t in _children(element) if n == "text")
                        .split())
        label = wrap_text(text, ANNOTATION_WIDTH - 2 * ANNOTATION_PADDING)
        _, height = measure_text(label or " ", DOT_LABEL_TEXT.size)
        return (Node(node_id, ANNOTATION_WIDTH, float(math.ceil(height + 2 * ANNOTATION_PADDING)),
                     Shape.RECT, label), Figure(Outline.BPMN_ANNOTATION), (0.0, 0.0))
    return None


def data_links(node: ET.Element) -> list[Link]:
    """The data input and output associations of a flow node element."""
    node_id = node.get("id") or ""
    links = []
    for name, child in _children(node):
        if name not in ("dataInputAssociation", "dataOutputAssociation"):
            continue
        key = "sourceRef" if name == "dataInputAssociation" else "targetRef"
        ref = next(((r.text or "").strip() for n, r in _children(child) if n == key), "")
        if name == "dataInputAssociation":
            links.append(Link(child.get("id") or "", ref, node_id, True))
        else:
            links.append(Link(child.get("id") or "", node_id, ref, True))
    return links


def association_link(element: ET.Element) -> Link:
    """An ``association`` element as a link."""
    return Link(element.get("id") or "", element.get("sourceRef") or "",
                element.get("targetRef") or "", False)
