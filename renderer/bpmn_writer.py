"""A laid-out BPMN diagram -> its BPMN XML with new diagram interchange (BPMN DI).

As bpmn-auto-layout does for bpmn-js users: the input document comes back byte for byte
except that every ``BPMNDiagram`` element is replaced by new ones written just before
the closing ``definitions`` tag. They hold a shape (``dc:Bounds``) for every pool and
flow node drawn, an edge (``di:waypoint``\\ s, from the source's outline to the
target's) for every sequence and message flow, and label bounds for named events,
gateways and flows. The main diagram's plane is the collaboration (or the process);
each sub-process with content is collapsed there and gets its own diagram, the
drill-down plane of bpmn-js. The new elements declare their own namespace prefixes, so
the document's prefixes never matter. The output is parsed again before it is returned.

>>> from renderer.bpmn_reader import read_bpmn
>>> from layouts.api import layout
>>> xml = (b'<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d">'
...        b'<process id="p"><startEvent id="s"/><task id="t"/>'
...        b'<sequenceFlow id="f" sourceRef="s" targetRef="t"/></process></definitions>')
>>> diagram = read_bpmn(xml)
>>> out = write_bpmn(diagram, layout(diagram.graph, direction="LR"))
>>> out.count(b"<bpmndi:BPMNShape"), out.count(b"<bpmndi:BPMNEdge"), out.startswith(xml[:60])
(2, 1, True)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

import defusedxml.ElementTree as SafeET

from layouts.result import Box, EdgeRoute, LayoutResult, NodeBox, Point
from renderer.bpmn_frames import frames
from renderer.bpmn_model import BpmnModel, Scope, expanded_ids
from renderer.diagram import Diagram
from renderer.svg import edge_label_box, edge_labels

DI = "http://www.omg.org/spec/BPMN/20100524/DI"
DC = "http://www.omg.org/spec/DD/20100524/DC"
DD_DI = "http://www.omg.org/spec/DD/20100524/DI"
ORIGIN_MARGIN = 40.0
"""Smallest x and y of the new diagram, in px (pools and labels included)."""
LABEL_GAP = 4.0
VERTICAL = frozenset({"TopToBottom", "BottomToTop"})
"""Directions whose pools and lanes are columns (``isHorizontal="false"``)."""
_ID_ATTRIBUTE = re.compile(rb'\bid\s*=\s*["\']([^"\']*)["\']')


class BpmnWriteError(ValueError):
    """The diagram was not read from BPMN, so there is no BPMN document to write."""


@dataclass(frozen=True, slots=True)
class _Plane:
    """One ``BPMNDiagram``: its plane's element and what is drawn on it."""

    element: str
    pools: tuple[Scope, ...]
    node_ids: tuple[str, ...]


def write_bpmn(diagram: Diagram, result: LayoutResult) -> bytes:
    """The BPMN document of ``diagram`` with the diagram interchange of ``result``."""
    model = diagram.bpmn
    if model is None:
        raise BpmnWriteError("format bpmn needs BPMN input (a .bpmn file); this input is "
                             "not BPMN")
    boxes = {n.id: n for n in result.nodes}
    expanded = expanded_ids(diagram.graph.all_nodes())
    shift = _shift(model, boxes, result)
    used_ids = {m.decode("utf-8", "replace") for m in _ID_ATTRIBUTE.findall(model.source)}
    labels = edge_labels(diagram)
    routes = {r.id: r for r in result.edges}
    blocks = []
    for index, plane in enumerate(_planes(model, expanded)):
        blocks.append(_diagram_xml(plane, index, model, boxes, routes, labels, shift, used_ids,
                                   expanded, result.diagnostics.direction in VERTICAL))
    output = _splice(model.source, "\n".join(blocks))
    SafeET.fromstring(output, forbid_dtd=True)  # must parse: a bug here is not a user error
    return output


def _planes(model: BpmnModel, expanded: frozenset[str]) -> list[_Plane]:
    """One plane per process (or one for the collaboration) and one per collapsed
    sub-process; an expanded sub-process's content is drawn in its parent's plane."""
    content = {s.id: s.node_ids for s in model.sub_scopes if s.id in expanded}

    def with_content(ids: tuple[str, ...]) -> tuple[str, ...]:
        out: list[str] = []
        for i in ids:
            out.append(i)
            out += with_content(content.get(i, ()))
        return tuple(out)

    if model.collaboration_id is not None:
        ids = with_content(tuple(i for scope in model.main_scopes for i in scope.node_ids))
        planes = [_Plane(model.collaboration_id, model.main_scopes, ids)]
    else:
        planes = [_Plane(scope.id, (scope,) if scope.lanes else (),
                         with_content(scope.node_ids)) for scope in model.main_scopes]
    planes += [_Plane(scope.id, (), with_content(scope.node_ids))
               for scope in model.sub_scopes if scope.id not in expanded]
    return planes


def _shift(model: BpmnModel, boxes: Mapping[str, NodeBox], result: LayoutResult) -> Point:
    scopes = tuple(s for s in model.main_scopes if model.collaboration_id is not None
                   or s.lanes)
    found = frames(scopes, boxes, result.edges)
    xs = [b.x for b in boxes.values()] + [f.box.x for f in found]
    ys = [b.y for b in boxes.values()] + [f.box.y for f in found]
    xs += [p.x for r in result.edges for p in r.points]
    ys += [p.y for r in result.edges for p in r.points]
    return Point(ORIGIN_MARGIN - min(xs, default=0.0), ORIGIN_MARGIN - min(ys, default=0.0))


def _unique(base: str, used: set[str]) -> str:
    candidate, n = base, 1
    while candidate in used:
        n += 1
        candidate = f"{base}_{n}"
    used.add(candidate)
    return candidate


def _n(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _bounds(box: Box, shift: Point) -> str:
    return (f'<dc:Bounds x="{_n(box.x + shift.x)}" y="{_n(box.y + shift.y)}" '
            f'width="{_n(box.width)}" height="{_n(box.height)}" />')


def _diagram_xml(plane: _Plane, index: int, model: BpmnModel, boxes: Mapping[str, NodeBox],
                 routes: Mapping[str, EdgeRoute], labels: Mapping[str, str], shift: Point,
                 used: set[str], expanded: frozenset[str], vertical: bool = False) -> str:
    diagram_id = _unique(f"BPMNDiagram_wfr_{index + 1}", used)
    plane_id = _unique(f"BPMNPlane_wfr_{index + 1}", used)
    lines = [f'  <bpmndi:BPMNDiagram xmlns:bpmndi="{DI}" xmlns:dc="{DC}" xmlns:di="{DD_DI}" '
             f'id="{diagram_id}">',
             f'    <bpmndi:BPMNPlane id="{plane_id}" bpmnElement={quoteattr(plane.element)}>']
    horizontal = f' isHorizontal="{"false" if vertical else "true"}"'
    for frame in frames(plane.pools, boxes, routes.values()):
        if frame.has_band:
            lines.append(_shape(frame.scope.id, frame.box, shift, used, extra=horizontal))
        lines += [_shape(lane.id, lane.box, shift, used, extra=horizontal)
                  for lane in frame.lanes]
    sub_processes = {s.id for s in model.sub_scopes}
    pools = {s.id for s in model.main_scopes if s.black_box}
    on_plane = set(plane.node_ids)
    for node_id in plane.node_ids:
        box = boxes.get(node_id)
        if box is None or node_id in pools:   # a black-box pool: its frame is its shape
            continue
        extra = ""
        if node_id in sub_processes:
            extra = f' isExpanded="{"true" if node_id in expanded else "false"}"'
        label = _outside_label(node_id, box, model)
        lines.append(_shape(node_id, box.box, shift, used, extra=extra, label=label))
    for flow_id, (source, _) in model.flow_ends.items():
        route = routes.get(flow_id)
        if route is None or source not in on_plane:
            continue
        label_box = edge_label_box(route, labels.get(flow_id))
        lines.append(_edge(flow_id, route.points, shift, used, label_box))
    lines += ["    </bpmndi:BPMNPlane>", "  </bpmndi:BPMNDiagram>"]
    return "\n".join(lines)


def _outside_label(node_id: str, box: NodeBox, model: BpmnModel) -> Box | None:
    width, height = model.label_sizes.get(node_id, (0.0, 0.0))
    if not width:
        return None
    return Box(box.center.x - width / 2, box.y + box.height + LABEL_GAP, width, height)


def _shape(element: str, box: Box, shift: Point, used: set[str], *, extra: str = "",
           label: Box | None = None) -> str:
    shape_id = _unique(f"{element}_di", used)
    inner = [f"      {_bounds(box, shift)}"]
    if label is not None:
        inner.append(f"      <bpmndi:BPMNLabel>{_bounds(label, shift)}</bpmndi:BPMNLabel>")
    return (f'    <bpmndi:BPMNShape id={quoteattr(shape_id)} bpmnElement={quoteattr(element)}'
            f'{extra}>\n' + "\n".join(inner) + "\n    </bpmndi:BPMNShape>")


def _edge(element: str, points: Iterable[Point], shift: Point, used: set[str],
          label: Box | None) -> str:
    edge_id = _unique(f"{element}_di", used)
    inner = [f'      <di:waypoint x="{_n(p.x + shift.x)}" y="{_n(p.y + shift.y)}" />'
             for p in points]
    if label is not None:
        inner.append(f"      <bpmndi:BPMNLabel>{_bounds(label, shift)}</bpmndi:BPMNLabel>")
    return (f'    <bpmndi:BPMNEdge id={quoteattr(edge_id)} bpmnElement={quoteattr(element)}>\n'
            + "\n".join(inner) + "\n    </bpmndi:BPMNEdge>")


def _di_prefixes(source: bytes) -> list[bytes]:
    found = re.findall(rb'xmlns:([A-Za-z_][\w.-]*)\s*=\s*["\']' + re.escape(DI.encode()) +
                       rb'["\']', source)
    return sorted(set(found))


def _splice(source: bytes, new_di: str) -> bytes:
    """``source`` without its ``BPMNDiagram`` elements and with ``new_di`` before the
    closing ``definitions`` tag; nothing else changes."""
    text = source
    for prefix in _di_prefixes(source):
        p = re.escape(prefix)
        element = re.compile(rb"[ \t]*<" + p + rb":BPMNDiagram\b(?:[^>]*/>|.*?</" + p +
                             rb":BPMNDiagram\s*>)[ \t]*\r?\n?", re.DOTALL)
        text = element.sub(b"", text)
    closing = list(re.finditer(rb"</(?:[A-Za-z_][\w.-]*:)?definitions\s*>", text))
    if not closing:
        raise BpmnWriteError("the BPMN document has no closing definitions tag")
    at = closing[-1].start()
    before = text[:at]
    if not before.endswith(b"\n"):
        before += b"\n"
    return before + new_di.encode("utf-8") + b"\n" + text[at:]

