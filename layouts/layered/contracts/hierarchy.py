"""Route contracts for compound graphs (:func:`check_compound_layout`), in the final
frame (TopToBottom or LeftToRight), on a result whose nodes carry their ``parent``.

The flat contracts, read for a hierarchy:

* an edge may pass through the boxes of its ends' ancestors (it must, to get out);
  every other box, leaf or compound, is foreign: no segment through it (``intrusion``)
  and ``options.clearance`` from it (``clearance``);
* the slot lattice of a face counts the edge ends on it *and* the edges crossing it
  (``off-slot``); a crossing runs straight through its face (``boundary-angle``);
* only siblings can overlap (``node-overlap``); an edge label may lie inside the boxes
  holding its edge (``label-overlap`` otherwise);

and the new ones (their own kinds, scope ``compound``):

* ``outside-parent``: a node not inside its parent's box shrunk by the padding (or
  naming another parent than the graph's);
* ``border-crossing``: an edge that does not cross the border of each compound holding
  exactly one of its ends exactly once, or crosses the border of one holding both;
* ``compound-label``: a route segment through a compound's label box (any edge, the
  compound's own included: a label is read, not drawn over).

>>> from layouts.graph import Edge, Graph, Node
>>> from layouts.layered.hierarchy import run_hierarchy
>>> from layouts.options import LayoutOptions
>>> g = Graph((Node("g", 9, 9, children=(Node("a", 80, 40),)), Node("c", 80, 40)),
...           (Edge("e", "a", "c"),))
>>> check_compound_layout(g, run_hierarchy(g, LayoutOptions()), LayoutOptions())
[]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from itertools import pairwise

from layouts.graph import Graph
from layouts.layered.contracts.angles import NORMALS, check_boundary_angles
from layouts.layered.contracts.boxes import check_node_overlaps
from layouts.layered.contracts.ends import check_gateways, check_routes_present
from layouts.layered.contracts.ports import PortFacts, check_port_ends
from layouts.layered.contracts.segments import (
    check_flow,
    check_intrusions,
    check_orthogonal,
    check_shared_stretches,
)
from layouts.layered.contracts.violations import TOLERANCE, Violation, ViolationKind
from layouts.layered.hierarchy.frames import PADDING
from layouts.layered.routing.slots import VERTICAL_SIDES, slot_point
from layouts.options import LayoutOptions
from layouts.result import Box, EdgeRoute, LayoutResult, NodeBox, Point, PortBox, Side

OUTSIDE_PARENT = "outside-parent"
BORDER_CROSSINGS = "border-crossings"


def ancestors(parents: Mapping[str, str | None], node: str) -> list[str]:
    """The compounds holding ``node``, innermost first.

    >>> ancestors({"a": "g", "g": "h", "h": None}, "a")
    ['g', 'h']
    """
    out = []
    at = parents[node]
    while at is not None:
        out.append(at)
        at = parents[at]
    return out


def check_compound_layout(graph: Graph, result: LayoutResult, options: LayoutOptions
                          ) -> list[Violation]:
    """Every contract violation of ``result``, a layout of the compound ``graph``."""
    nodes = {n.id: n for n in result.nodes}
    parents = graph.parents()
    routes = [r for r in result.edges if len(r.points) >= 2 and r.source in nodes
              and r.target in nodes]
    facts = PortFacts.of(graph, result, options.direction)
    out = [*check_routes_present(graph, result), *check_orthogonal(routes),
           *check_boundary_angles(routes, nodes), *check_shared_stretches(routes, facts.bundled),
           *check_gateways(routes, nodes, options.direction, facts.at_port.keys()),
           *check_flow(graph, routes, options.direction, facts.stubbed),
           *check_port_ends(graph, result)]
    for route in routes:
        allowed = set(ancestors(parents, route.source)) | set(ancestors(parents, route.target))
        foreign = {k: v for k, v in nodes.items() if k not in allowed}
        out += check_intrusions([route], foreign, options.clearance)
    out += check_parents(result, parents)
    siblings: dict[str | None, list[NodeBox]] = defaultdict(list)
    for n in result.nodes:
        siblings[parents[n.id]].append(n)
    for group in siblings.values():
        out += check_node_overlaps(group)
    crossings, problems = border_crossings(routes, nodes, parents)
    out += problems
    out += check_face_slots(routes, nodes, crossings, result.ports, facts)
    out += check_labels(graph, result, parents)
    out += check_compound_labels(graph, result)
    return out


def check_compound_labels(graph: Graph, result: LayoutResult) -> list[Violation]:
    """No route segment passes through the label box of a compound node (touching its
    border within :data:`TOLERANCE` is not passing through).

    >>> from layouts.graph import Node
    >>> from layouts.result import Box, Diagnostics
    >>> g = Graph((Node("g", 9, 9, children=(Node("a", 9, 9),)),), ())
    >>> box = NodeBox("g", 0, 0, 100, 100, label_box=Box(12, 12, 40, 16))
    >>> down = EdgeRoute("e", "s", "a", (Point(30, 0), Point(30, 50)))
    >>> beside = EdgeRoute("f", "s", "a", (Point(60, 0), Point(60, 50)))
    >>> found = check_compound_labels(g, LayoutResult((box,), (down, beside), 100, 100,
    ...                                               Diagnostics("x", "", "")))
    >>> [(v.kind.value, v.edge) for v in found]
    [('compound-label', 'e')]
    """
    compounds = {n.id for n in graph.all_nodes() if n.children}
    labels = [(n.id, b) for n in result.nodes if n.id in compounds
              and (b := n.label_box) is not None]
    out = []
    for route in result.edges:
        for node, b in labels:
            if any(_through(p, q, b) for p, q in pairwise(route.points)):
                out.append(Violation(ViolationKind.COMPOUND_LABEL, route.id, node,
                                     f"'{route.id}' passes through the label of '{node}'"))
    return out


def check_parents(result: LayoutResult, parents: Mapping[str, str | None]) -> list[Violation]:
    """Each node lies inside its parent's box, at least :data:`PADDING` from its border."""
    out = []
    for n in result.nodes:
        parent = parents[n.id]
        if n.parent != parent:
            out.append(Violation(ViolationKind.OUTSIDE_PARENT, None, n.id,
                                 f"node '{n.id}' names parent {n.parent!r}, not {parent!r}"))
            continue
        if parent is None:
            continue
        p = result.node(parent)
        inside = (n.x >= p.x + PADDING - TOLERANCE and n.y >= p.y + PADDING - TOLERANCE
                  and n.x + n.width <= p.x + p.width - PADDING + TOLERANCE
                  and n.y + n.height <= p.y + p.height - PADDING + TOLERANCE)
        if not inside:
            out.append(Violation(ViolationKind.OUTSIDE_PARENT, None, n.id,
                                 f"{OUTSIDE_PARENT}: node '{n.id}' is not inside its parent "
                                 f"'{parent}' with {PADDING:g} px padding"))
    return out


def _state(box: NodeBox, p: Point) -> int:
    """1 strictly inside ``box``, -1 outside, 0 on its border (within the tolerance)."""
    dx = min(p.x - box.x, box.x + box.width - p.x)
    dy = min(p.y - box.y, box.y + box.height - p.y)
    depth = min(dx, dy)
    if depth > TOLERANCE:
        return 1
    if depth < -TOLERANCE:
        return -1
    return 0


def _crossing_point(box: NodeBox, a: Point, b: Point) -> tuple[Side, Point, bool] | None:
    """Where segment ``a``-``b`` (from inside to outside, or back) meets ``box``'s border:
    the face, the point, and whether the segment runs along the face's normal."""
    candidates = []
    faces = {Side.TOP: (box.y, True), Side.BOTTOM: (box.y + box.height, True),
             Side.LEFT: (box.x, False), Side.RIGHT: (box.x + box.width, False)}
    for side, (coord, vertical) in faces.items():
        lo, hi = (a.y, b.y) if vertical else (a.x, b.x)
        if min(lo, hi) - TOLERANCE <= coord <= max(lo, hi) + TOLERANCE and lo != hi:
            t = (coord - lo) / (hi - lo)
            p = Point(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y))
            along = p.x if vertical else p.y
            start, end = (box.x, box.x + box.width) if vertical else (box.y, box.y + box.height)
            if start - TOLERANCE <= along <= end + TOLERANCE:
                nx, ny = NORMALS[side]
                straight = abs((b.x - a.x) * ny - (b.y - a.y) * nx) <= 1e-6
                candidates.append((side, p, straight))
    return candidates[0] if candidates else None


def border_crossings(routes: Sequence[EdgeRoute], nodes: Mapping[str, NodeBox],
                     parents: Mapping[str, str | None]
                     ) -> tuple[dict[tuple[str, Side], list[Point]], list[Violation]]:
    """Each face's crossing points, and the routes that cross a border other than
    exactly once per compound holding exactly one of their ends."""
    faces: dict[tuple[str, Side], list[Point]] = defaultdict(list)
    out = []
    for route in routes:
        source, target = ancestors(parents, route.source), ancestors(parents, route.target)
        for compound in set(source) | set(target):
            box = nodes[compound]
            want = 0 if compound in source and compound in target else 1
            states = [s for s in (_state(box, p) for p in route.points) if s != 0]
            changes = [i for i, (x, y) in enumerate(pairwise(states)) if x != y]
            if len(changes) != want:
                out.append(Violation(ViolationKind.BORDER_CROSSING, route.id, compound,
                                     f"{BORDER_CROSSINGS}: '{route.id}' crosses the border "
                                     f"of '{compound}' {len(changes)} times, not {want}"))
                continue
            if not want:
                continue
            found = _first_crossing(box, route.points)
            if found is None:
                continue
            side, point, straight = found
            faces[(compound, side)].append(point)
            if not straight:
                out.append(Violation(ViolationKind.BOUNDARY_ANGLE, route.id, compound,
                                     f"'{route.id}' crosses the {side.value} face of "
                                     f"'{compound}' at a slant"))
    return faces, out


def _first_crossing(box: NodeBox, points: Sequence[Point]) -> tuple[Side, Point, bool] | None:
    """The first segment that goes from inside or outside ``box`` to the other side or
    onto its border, met with the border."""
    for a, b in pairwise(points):
        if (_state(box, a), _state(box, b)) in ((1, -1), (-1, 1), (1, 0), (-1, 0)):
            hit = _crossing_point(box, a, b)
            if hit is not None:
                return hit
    return None


def check_face_slots(routes: Sequence[EdgeRoute], nodes: Mapping[str, NodeBox],
                     crossings: Mapping[tuple[str, Side], list[Point]],
                     ports: Sequence[PortBox] = (), facts: PortFacts | None = None
                     ) -> list[Violation]:
    """The ends, ports and crossings on each face sit on its slot points, in order, and
    every end on the slot it names; a port is one slot however many ends use it (ends
    at a ``fixed_pos`` port are left to :func:`~.ports.check_port_ends`)."""
    occupants: dict[tuple[str, Side], list[tuple[Point, int | None, str]]] = defaultdict(list)
    out = []
    at_port = {} if facts is None else facts.at_port
    fixed = frozenset() if facts is None else facts.unslotted
    placed = {p.id: p for p in ports}
    seen: set[str] = set()
    for route in routes:
        for role, node, point, end in (
                ("source", route.source, route.points[0], route.source_end),
                ("target", route.target, route.points[-1], route.target_end)):
            if end.side is None or end.slot is None:
                out.append(Violation(ViolationKind.OFF_SLOT, route.id, node,
                                     f"an end of '{route.id}' names no slot"))
                continue
            port = at_port.get((route.id, role))
            if port is not None and port in placed:
                if port not in seen:
                    seen.add(port)
                    label = "" if (route.id, role) in fixed else route.id
                    occupants[(node, end.side)].append((point, end.slot, label or "~"))
                continue
            occupants[(node, end.side)].append((point, end.slot, route.id))
    for p in ports:
        if p.id not in seen and p.side is not None:
            occupants[(p.node, p.side)].append((p.center, p.slot, f"port {p.id}"))
    for key, points in crossings.items():
        occupants[key].extend((p, None, "") for p in points)
    for (node, side), items in occupants.items():
        vertical = side in VERTICAL_SIDES
        items.sort(key=lambda item: item[0].x if vertical else item[0].y)
        for index, (point, slot, route_id) in enumerate(items):
            if route_id == "~":     # a fixed_pos port: checked by check_port_ends
                continue
            want = slot_point(nodes[node], side, len(items), index)
            if abs(want.x - point.x) > TOLERANCE or abs(want.y - point.y) > TOLERANCE \
                    or slot not in (None, index):
                what = f"end of '{route_id}'" if route_id else "a crossing"
                out.append(Violation(ViolationKind.OFF_SLOT, route_id or None, node,
                                     f"{what} at ({point.x:g}, {point.y:g}) is not slot "
                                     f"{index} of {len(items)} on the {side.value} face of "
                                     f"'{node}'"))
    return out


def check_labels(graph: Graph, result: LayoutResult, parents: Mapping[str, str | None]
                 ) -> list[Violation]:
    """No edge label overlaps a node other than the compounds holding its edge, or
    another edge's label."""
    out = []
    boxes = [(r.id, b) for r in result.edges if (b := r.label_box) is not None]
    for edge in graph.edges:
        label = next((b for i, b in boxes if i == edge.id), None)
        if label is None:
            continue
        container = graph.edge_container(edge)
        holders = set() if container is None else {container, *ancestors(parents, container)}
        for n in result.nodes:
            if n.id not in holders and _overlap(label.x, label.y, label.right, label.bottom,
                                                n.x, n.y, n.x + n.width, n.y + n.height):
                out.append(Violation(ViolationKind.LABEL_OVERLAP, edge.id, n.id,
                                     f"label of '{edge.id}' overlaps node '{n.id}'"))
        for other, box in boxes:
            if other != edge.id and _overlap(label.x, label.y, label.right, label.bottom,
                                             box.x, box.y, box.right, box.bottom):
                out.append(Violation(ViolationKind.LABEL_OVERLAP, edge.id, None,
                                     f"label of '{edge.id}' overlaps label of '{other}'"))
    return out


def _overlap(ax0: float, ay0: float, ax1: float, ay1: float,
             bx0: float, by0: float, bx1: float, by1: float) -> bool:
    return (ax0 < bx1 - TOLERANCE and bx0 < ax1 - TOLERANCE
            and ay0 < by1 - TOLERANCE and by0 < ay1 - TOLERANCE)


def _through(p: Point, q: Point, box: Box) -> bool:
    """Whether segment ``p``-``q`` has a point more than :data:`TOLERANCE` inside ``box``
    (its bounds, for a slanted segment of another engine).

    >>> b = Box(0, 0, 10, 10)
    >>> _through(Point(5, -5), Point(5, 5), b), _through(Point(10, -5), Point(10, 5), b)
    (True, False)
    """
    x0, x1, y0, y1 = min(p.x, q.x), max(p.x, q.x), min(p.y, q.y), max(p.y, q.y)
    return (x0 < box.right - TOLERANCE and x1 > box.x + TOLERANCE
            and y0 < box.bottom - TOLERANCE and y1 > box.y + TOLERANCE)
