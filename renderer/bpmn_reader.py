"""BPMN 2.0 XML -> :class:`Diagram`, parsed with defusedxml.

Sub-processes are expanded (compound nodes holding their content) for engines that lay
out compound nodes (elkjs); for the others the diagram's flat fallback draws each one
collapsed, with its content in a frame of its own (see :mod:`renderer.bpmn_model`).

Read: every process (each participant's of a collaboration), tasks of every type, call
activities, sub-processes (transactions, ad-hoc and event sub-processes too), start,
intermediate, end and boundary events with their event definitions, every gateway type,
sequence flows (name, else condition, as the label; a gateway's default flow and a
conditional flow out of an activity get BPMN's slash and diamond marks) and message
flows between flow nodes and black-box pools; lanes, data objects and stores, text
annotations and their associations (:mod:`renderer.bpmn_artifacts`). The document's own
diagram interchange is ignored (it is what ``--format bpmn`` rewrites). What is not
drawn (groups, collaboration-level annotations, lanes of sub-processes) is named in the
diagram's warnings.

Safety: a DTD is refused outright (no BPMN file needs one), which refuses entity
expansion ("billion laughs") and external entities; elements nest at most
:data:`MAX_DEPTH` deep and number at most :data:`MAX_ELEMENTS`.

>>> xml = b'''<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL">
...   <process id="p"><startEvent id="s"/><userTask id="t" name="Check"/>
...     <sequenceFlow id="f" sourceRef="s" targetRef="t"/></process></definitions>'''
>>> d = read_bpmn(xml)
>>> [n.id for n in d.graph.nodes], d.graph.edges[0].id, d.option_values["direction"]
(['s', 't'], 'f', 'LeftToRight')
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace

import defusedxml
import defusedxml.ElementTree as SafeET

from layouts.graph import Edge, Graph, Node, Shape
from renderer.bpmn_artifacts import (
    ARTIFACTS,
    ASSOCIATION_FIGURE,
    DATA_ASSOCIATION_FIGURE,
    Link,
    artifact,
    association_link,
    data_links,
    read_lanes,
)
from renderer.bpmn_model import Boundary, BpmnModel, Scope, ScopeKind
from renderer.diagram import Diagram, EdgeView, NodeView, StepKind
from renderer.figures import (
    BpmnEvent,
    BpmnMarker,
    BpmnSymbol,
    Dash,
    EdgeEnd,
    EdgeFigure,
    Figure,
    Outline,
    Paint,
)
from renderer.fonts import measure_text
from renderer.from_definition import edge_label_size
from renderer.styles import DOT_LABEL_TEXT

MODEL = "http://www.omg.org/spec/BPMN/20100524/MODEL"
MAX_DEPTH = 100
MAX_ELEMENTS = 200_000
ACTIVITY_SIZE = (100.0, 80.0)
EVENT_SIZE = 36.0
GATEWAY_SIZE = 50.0
ACTIVITY_TEXT_WIDTH = 90.0
LABEL_WIDTH = 90.0
CONDITION_LABEL_LIMIT = 40

TASK_MARKERS: Mapping[str, BpmnMarker] = {
    "task": BpmnMarker.NONE, "userTask": BpmnMarker.USER,
    "serviceTask": BpmnMarker.SERVICE, "scriptTask": BpmnMarker.SCRIPT,
    "sendTask": BpmnMarker.SEND, "receiveTask": BpmnMarker.RECEIVE,
    "manualTask": BpmnMarker.MANUAL, "businessRuleTask": BpmnMarker.BUSINESS_RULE,
    "callActivity": BpmnMarker.CALL,
}
SUB_PROCESSES = frozenset({"subProcess", "transaction", "adHocSubProcess"})
EVENTS: Mapping[str, BpmnEvent] = {
    "startEvent": BpmnEvent.START, "endEvent": BpmnEvent.END,
    "intermediateCatchEvent": BpmnEvent.INTERMEDIATE_CATCH,
    "intermediateThrowEvent": BpmnEvent.INTERMEDIATE_THROW,
    "boundaryEvent": BpmnEvent.BOUNDARY,
}
EVENT_DEFINITIONS: Mapping[str, BpmnMarker] = {
    "messageEventDefinition": BpmnMarker.MESSAGE, "timerEventDefinition": BpmnMarker.TIMER,
    "errorEventDefinition": BpmnMarker.ERROR,
    "escalationEventDefinition": BpmnMarker.ESCALATION,
    "cancelEventDefinition": BpmnMarker.CANCEL,
    "compensateEventDefinition": BpmnMarker.COMPENSATION,
    "conditionalEventDefinition": BpmnMarker.CONDITIONAL,
    "linkEventDefinition": BpmnMarker.LINK, "signalEventDefinition": BpmnMarker.SIGNAL,
    "terminateEventDefinition": BpmnMarker.TERMINATE,
}
GATEWAYS: Mapping[str, BpmnMarker] = {
    "exclusiveGateway": BpmnMarker.EXCLUSIVE, "parallelGateway": BpmnMarker.PARALLEL,
    "inclusiveGateway": BpmnMarker.INCLUSIVE, "eventBasedGateway": BpmnMarker.EVENT_BASED,
    "complexGateway": BpmnMarker.COMPLEX,
}
NOT_DRAWN = frozenset({"group"})
POOL_SIZE = (600.0, 60.0)
"""Width and height of a black-box pool (a participant without a process) as laid out;
the stacking widens it to the widest pool."""


class BpmnReadError(ValueError):
    """The input is not BPMN 2.0 XML that can be read safely; the message says why."""


def _local(tag: str) -> tuple[str, str]:
    namespace, _, name = tag[1:].partition("}") if tag.startswith("{") else ("", "", tag)
    return namespace, name


def _model_children(element: ET.Element) -> Iterator[tuple[str, ET.Element]]:
    for child in element:
        namespace, name = _local(child.tag) if isinstance(child.tag, str) else ("", "")
        if namespace == MODEL:
            yield name, child


def parse_bpmn_xml(data: bytes) -> ET.Element:
    """The root element of BPMN XML, parsed safely (see the module docstring)."""
    try:
        root = SafeET.fromstring(data, forbid_dtd=True)
    except defusedxml.DTDForbidden:
        raise BpmnReadError("BPMN XML with a DTD (<!DOCTYPE ...>) is refused: entity "
                            "declarations could expand without bound or read files") from None
    except (defusedxml.EntitiesForbidden, defusedxml.ExternalReferenceForbidden):
        raise BpmnReadError("BPMN XML with entity declarations or external references is "
                            "refused") from None
    except ET.ParseError as exc:
        line, column = exc.position
        raise BpmnReadError(f"not well-formed XML at line {line} column {column + 1}: "
                            f"{str(exc).split(':')[0]}") from None
    _check_shape(root)
    namespace, name = _local(root.tag)
    if namespace != MODEL or name != "definitions":
        raise BpmnReadError(f"the root element is {name!r} in {namespace or 'no namespace'!r}; "
                            f"BPMN 2.0 needs 'definitions' in {MODEL}")
    return root


def _check_shape(root: ET.Element) -> None:
    count = 0
    stack = [(root, 1)]
    while stack:
        element, depth = stack.pop()
        count += 1
        if depth > MAX_DEPTH:
            raise BpmnReadError(f"BPMN XML nests elements more than {MAX_DEPTH} deep")
        if count > MAX_ELEMENTS:
            raise BpmnReadError(f"BPMN XML has more than {MAX_ELEMENTS} elements")
        stack.extend((child, depth + 1) for child in element)


def wrap_text(text: str, width: float) -> str:
    """``text`` broken into lines at spaces so each fits ``width`` px where it can.

    >>> wrap_text("Check the order and the stock", 90)
    'Check the\\norder and the\\nstock'
    """
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split():
            candidate = f"{line} {word}".strip()
            if line and _text_width(candidate) > width:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
    return "\n".join(lines).strip("\n")


def _text_width(text: str) -> float:
    return measure_text(text, DOT_LABEL_TEXT.size, bold=DOT_LABEL_TEXT.bold)[0]


@dataclass
class _Reading:
    """What the walk over the document collects."""

    nodes: list[Node] = field(default_factory=list)
    views: dict[str, NodeView] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    edge_views: dict[str, EdgeView] = field(default_factory=dict)
    sub_scopes: list[Scope] = field(default_factory=list)
    boundaries: list[Boundary] = field(default_factory=list)
    label_sizes: dict[str, tuple[float, float]] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    lanes: int = 0
    node_ids: set[str] = field(default_factory=set)
    links: list[Link] = field(default_factory=list)


def read_bpmn(data: bytes, *, default_name: str = "process") -> Diagram:
    """A diagram of every process of a BPMN 2.0 document, drawn left to right."""
    root = parse_bpmn_xml(data)
    reading = _Reading()
    processes = {el.get("id", ""): el for name, el in _model_children(root) if name == "process"}
    collaboration = next((el for name, el in _model_children(root)
                          if name == "collaboration"), None)
    main_scopes = _main_scopes(root, processes, collaboration, reading)
    if not reading.nodes:
        raise BpmnReadError("the BPMN document has no flow nodes to draw")
    defaults = {el.get("default") for el in root.iter() if el.get("default")}
    for process in processes.values():
        _read_flows(process, reading, defaults)
    if collaboration is not None:
        _read_message_flows(collaboration, reading)
        _count_collaboration_artifacts(collaboration, reading)
    _add_links(reading)
    boundary_hosts = {b.event_id: b.host_id for b in reading.boundaries}
    for event_id, host_id in boundary_hosts.items():
        if host_id not in reading.node_ids or host_id in boundary_hosts:
            raise BpmnReadError(f"boundary event {event_id!r} is attached to {host_id!r}, "
                                "which is not an activity of the document")
    pools = {s.id for s in main_scopes if s.black_box}
    detached = tuple(e for e in reading.edges if e.source in pools or e.target in pools)
    layout_edges = tuple(_hosted(e, boundary_hosts) for e in reading.edges
                         if e not in detached)
    flat = Graph(tuple(n for n in reading.nodes if n.id not in boundary_hosts), layout_edges)
    flat.validate()
    graph = _expanded(flat, main_scopes, reading.sub_scopes, set(boundary_hosts))
    model = BpmnModel(
        source=data, main_scopes=main_scopes, sub_scopes=tuple(reading.sub_scopes),
        boundaries=tuple(reading.boundaries),
        collaboration_id=collaboration.get("id") if collaboration is not None else None,
        flow_ends={e.id: (e.source, e.target) for e in reading.edges},
        detached_edges=detached,
        label_sizes=reading.label_sizes)
    name = root.get("name") or next((s.name for s in main_scopes if s.name), default_name)
    views = {**reading.views}
    for scope in main_scopes:   # lanes are drawn by their pool's frame
        views.update({lane.id: NodeView(StepKind.PLAIN, lane.name, figure=Figure(
            Outline.NONE, hidden=True)) for lane in scope.all_lanes()})
    return Diagram(name, graph, views, reading.edge_views,
                   option_values={"direction": "LeftToRight"},
                   warnings=_warnings(reading), bpmn=model,
                   flat_fallback=flat if graph is not flat else None)


def _expanded(flat: Graph, main_scopes: tuple[Scope, ...], sub_scopes: list[Scope],
              boundaries: set[str]) -> Graph:
    """The graph with every sub-process expanded: a compound node holding its content
    (for engines that lay out compound nodes); ``flat`` itself when there is none."""
    if not sub_scopes:
        return flat
    by_id = {n.id: n for n in flat.nodes}
    content = {s.id: s.node_ids for s in sub_scopes}

    def node(node_id: str) -> Node:
        base = by_id[node_id]
        if node_id not in content:
            return base
        children = tuple(node(i) for i in content[node_id] if i not in boundaries)
        width, height = measure_text(base.label or " ", DOT_LABEL_TEXT.size)
        return replace(base, children=children, label_width=float(math.ceil(width)) + 12,
                       label_height=float(math.ceil(height)) + 8)

    roots = tuple(node(i) for scope in main_scopes for i in scope.node_ids
                  if i not in boundaries)
    graph = Graph(roots, flat.edges)
    graph.validate()
    return graph


def _hosted(edge: Edge, hosts: Mapping[str, str]) -> Edge:
    """A flow out of a boundary event is laid out as leaving the event's host."""
    if edge.source in hosts or edge.target in hosts:
        return replace(edge, source=hosts.get(edge.source, edge.source),
                       target=hosts.get(edge.target, edge.target))
    return edge


def _main_scopes(root: ET.Element, processes: Mapping[str, ET.Element],
                 collaboration: ET.Element | None, reading: _Reading) -> tuple[Scope, ...]:
    scopes: list[Scope] = []
    drawn: set[str] = set()
    if collaboration is not None:
        for name, participant in _model_children(collaboration):
            if name != "participant":
                continue
            ref = participant.get("processRef")
            process = processes.get(ref or "")
            title = participant.get("name") or (
                process.get("name") if process is not None else None) or ""
            if process is None:
                scopes.append(_black_box(participant, title, reading))
                continue
            drawn.add(ref or "")
            scopes.append(Scope(participant.get("id", ""), ScopeKind.PARTICIPANT, title,
                                _read_scope(process, reading), ref, read_lanes(process)))
    for process_id, process in processes.items():
        if process_id not in drawn:
            scopes.append(Scope(process_id, ScopeKind.PROCESS, process.get("name", ""),
                                _read_scope(process, reading), lanes=read_lanes(process)))
    return tuple(scopes)


def _black_box(participant: ET.Element, title: str, reading: _Reading) -> Scope:
    """A participant without a process: one node, the pool itself (drawn by its frame)."""
    node_id = _element_id(participant, reading)
    _add(reading, Node(node_id, *POOL_SIZE, Shape.RECT, title),
         Figure(Outline.NONE, hidden=True))
    return Scope(node_id, ScopeKind.PARTICIPANT, title, (node_id,), black_box=True)


def _read_scope(container: ET.Element, reading: _Reading) -> tuple[str, ...]:
    """Read the flow nodes, data objects and annotations of a process or sub-process;
    returns their ids. Associations are kept in ``reading.links`` for later."""
    ids: list[str] = []
    for name, element in _model_children(container):
        if name == "laneSet":
            if _local(container.tag)[1] != "process":  # a process's lanes are read apart
                reading.lanes += sum(1 for _ in element.iter(f"{{{MODEL}}}lane"))
            continue
        if name == "association":
            reading.links.append(association_link(element))
            continue
        found = artifact(name, element, "", LABEL_WIDTH) if name in ARTIFACTS else None
        if found is not None:
            artifact_node, figure, label_size = found
            artifact_node = replace(artifact_node, id=_element_id(element, reading))
            _add(reading, artifact_node, figure)
            reading.label_sizes[artifact_node.id] = label_size
            ids.append(artifact_node.id)
            continue
        reading.links += data_links(element)
        node = _flow_node(name, element, reading)
        if node is None:
            if name in NOT_DRAWN:
                reading.skipped[name] = reading.skipped.get(name, 0) + 1
            continue
        ids.append(node.id)
        if name in SUB_PROCESSES:
            inner = _read_scope(element, reading)
            if inner:
                reading.sub_scopes.append(Scope(node.id, ScopeKind.SUB_PROCESS,
                                                element.get("name", ""), inner))
                _read_flows(element, reading, set())
    return tuple(ids)


def _element_id(element: ET.Element, reading: _Reading) -> str:
    element_id = element.get("id")
    if not element_id:
        raise BpmnReadError(f"a {_local(element.tag)[1]} element has no id")
    if element_id in reading.node_ids:
        raise BpmnReadError(f"the id {element_id!r} is used by two flow nodes")
    reading.node_ids.add(element_id)
    return element_id


def _flow_node(name: str, element: ET.Element, reading: _Reading) -> Node | None:
    title = " ".join((element.get("name") or "").split(" ")).strip()
    if name in TASK_MARKERS or name in SUB_PROCESSES:
        node_id = _element_id(element, reading)
        symbol = _activity_symbol(name, element)
        dash = Dash.DOTTED if element.get("triggeredByEvent") == "true" else Dash.SOLID
        text = wrap_text(title, ACTIVITY_TEXT_WIDTH)
        width, height = ACTIVITY_SIZE
        _, text_height = measure_text(text or " ", DOT_LABEL_TEXT.size)
        height = max(height, math.ceil(text_height + 36))
        figure = Figure(Outline.BPMN_ACTIVITY, Paint(dash=dash), bpmn=symbol)
        return _add(reading, Node(node_id, width, height, Shape.RECT, text), figure)
    if name in EVENTS:
        node_id = _element_id(element, reading)
        symbol = BpmnSymbol(_event_marker(element), EVENTS[name],
                            interrupting=element.get("cancelActivity") != "false"
                            and element.get("isInterrupting") != "false")
        node = _add(reading, Node(node_id, EVENT_SIZE, EVENT_SIZE, Shape.CIRCLE, title),
                    Figure(Outline.BPMN_EVENT, bpmn=symbol, text_below=True))
        reading.label_sizes[node_id] = _outside_label_size(title)
        if name == "boundaryEvent":
            host = element.get("attachedToRef") or ""
            reading.boundaries.append(Boundary(node_id, host, EVENT_SIZE, EVENT_SIZE))
        return node
    if name in GATEWAYS:
        node_id = _element_id(element, reading)
        figure = Figure(Outline.BPMN_GATEWAY, bpmn=BpmnSymbol(GATEWAYS[name]), text_below=True)
        reading.label_sizes[node_id] = _outside_label_size(title)
        return _add(reading, Node(node_id, GATEWAY_SIZE, GATEWAY_SIZE, Shape.DIAMOND, title),
                    figure)
    return None


def _add(reading: _Reading, node: Node, figure: Figure) -> Node:
    reading.nodes.append(node)
    reading.views[node.id] = NodeView(StepKind.PLAIN, node.label, figure=figure)
    return node


def _outside_label_size(title: str) -> tuple[float, float]:
    if not title:
        return 0.0, 0.0
    text = wrap_text(title, LABEL_WIDTH)
    width, height = measure_text(text, DOT_LABEL_TEXT.size)
    return float(math.ceil(width)), float(math.ceil(height))


def _activity_symbol(name: str, element: ET.Element) -> BpmnSymbol:
    if name in SUB_PROCESSES:
        return BpmnSymbol(BpmnMarker.SUB_PROCESS, collapsed=True)
    return BpmnSymbol(TASK_MARKERS[name], thick=name == "callActivity",
                      collapsed=name == "callActivity")


def _event_marker(element: ET.Element) -> BpmnMarker:
    markers = [EVENT_DEFINITIONS[name] for name, _ in _model_children(element)
               if name in EVENT_DEFINITIONS]
    if not markers:
        return BpmnMarker.NONE
    return markers[0] if len(markers) == 1 else BpmnMarker.MULTIPLE


def _condition(flow: ET.Element) -> str | None:
    for name, child in _model_children(flow):
        if name == "conditionExpression":
            text = " ".join("".join(child.itertext()).split())
            if text:
                short = text[:CONDITION_LABEL_LIMIT]
                return short + ("..." if len(text) > CONDITION_LABEL_LIMIT else "")
    return None


def _read_flows(container: ET.Element, reading: _Reading, defaults: set[str | None]) -> None:
    gateways = {node_id for node_id, view in reading.views.items()
                if view.figure is not None and view.figure.outline is Outline.BPMN_GATEWAY}
    for name, flow in _model_children(container):
        if name != "sequenceFlow":
            continue
        flow_id = flow.get("id") or ""
        source, target = flow.get("sourceRef") or "", flow.get("targetRef") or ""
        condition = _condition(flow)
        label = flow.get("name") or condition
        tail = EdgeEnd.NONE
        if flow_id in defaults:
            tail = EdgeEnd.SLASH
        elif condition is not None and source not in gateways:
            tail = EdgeEnd.DIAMOND
        _add_edge(reading, flow_id, source, target, label, EdgeFigure(tail=tail))


def _read_message_flows(collaboration: ET.Element, reading: _Reading) -> None:
    for name, flow in _model_children(collaboration):
        if name != "messageFlow":
            continue
        source, target = flow.get("sourceRef") or "", flow.get("targetRef") or ""
        if source not in reading.node_ids or target not in reading.node_ids:
            reading.skipped["messageFlow to or from a pool with a process"] = (
                reading.skipped.get("messageFlow to or from a pool with a process", 0) + 1)
            continue
        figure = EdgeFigure(dash=Dash.DASHED, stroke_width=1.2, tail=EdgeEnd.NONE)
        _add_edge(reading, flow.get("id") or "", source, target, flow.get("name"), figure)


def _add_links(reading: _Reading) -> None:
    """Associations as dotted edges; one to or from something not drawn (a flow, a data
    object itself) is counted in the warnings."""
    for link in reading.links:
        if link.source not in reading.node_ids or link.target not in reading.node_ids:
            key = "association to or from an element not drawn"
            reading.skipped[key] = reading.skipped.get(key, 0) + 1
            continue
        figure = DATA_ASSOCIATION_FIGURE if link.data else ASSOCIATION_FIGURE
        _add_edge(reading, link.id, link.source, link.target, None, figure)


def _count_collaboration_artifacts(collaboration: ET.Element, reading: _Reading) -> None:
    for name, _ in _model_children(collaboration):
        if name in ("textAnnotation", "association", "group"):
            key = f"collaboration-level {name}"
            reading.skipped[key] = reading.skipped.get(key, 0) + 1


def _add_edge(reading: _Reading, flow_id: str, source: str, target: str, label: str | None,
              figure: EdgeFigure) -> None:
    if not flow_id:
        raise BpmnReadError(f"a flow from {source!r} to {target!r} has no id")
    for end, ref in (("sourceRef", source), ("targetRef", target)):
        if ref not in reading.node_ids:
            raise BpmnReadError(f"flow {flow_id!r} has {end} {ref!r}, which is not a flow "
                                "node of the document")
    width, height = edge_label_size(label)
    reading.edges.append(Edge(flow_id, source, target, label or None, False, width, height))
    reading.edge_views[flow_id] = EdgeView(label or None, figure=figure)


def _warnings(reading: _Reading) -> tuple[str, ...]:
    out = []
    if reading.lanes:
        out.append(f"{reading.lanes} lane(s) of sub-processes not drawn: only a process's "
                   "lanes are drawn")
    for name, count in sorted(reading.skipped.items()):
        out.append(f"{count} {name} element(s) not drawn")
    return tuple(out)
