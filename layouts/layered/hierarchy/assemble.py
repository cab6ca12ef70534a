"""Step 5 of the hierarchical layout: put every level's drawing inside its compound's box,
top down, and join each edge's pieces through the jogs of :mod:`.jogs`.

Everything here is in the canonical top-to-bottom frame. The root level is drawn where
the pipeline drew it; a compound's interior goes at its box's corner plus the frame's
inner offset (:mod:`.frames`). Each edge's route is its first piece, then at every
crossing the jog on that crossing's track and the next piece, with repeated and
collinear points dropped. Its ends, label box and loop-back flag come from its first and
last pieces and the container's piece.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from layouts.graph import Graph, Shape
from layouts.layered.hierarchy.frames import Frame, Interior
from layouts.layered.hierarchy.jogs import tracks
from layouts.layered.hierarchy.plan import Crossing, EdgePath, Plan
from layouts.layered.model import Routing
from layouts.layered.packing import moved_port
from layouts.result import Box, EdgeRoute, NodeBox, Point, PortBox

Key = tuple[str | None, str]
"""A level's owner (``None``: the root) and an id at that level."""


@dataclass(frozen=True, slots=True)
class Drawing:
    """The whole drawing in the canonical frame: every input node (pre-order, with its
    parent), every input edge's route (input order), and the drawing's size."""

    nodes: tuple[NodeBox, ...]
    edges: tuple[EdgeRoute, ...]
    width: float
    height: float
    ports: tuple[PortBox, ...] = ()


def _moved_route(route: EdgeRoute, dx: float, dy: float) -> EdgeRoute:
    label = route.label_box
    return replace(route, points=tuple(Point(p.x + dx, p.y + dy) for p in route.points),
                   label_box=None if label is None else
                   Box(label.x + dx, label.y + dy, label.width, label.height))


def place_levels(plan: Plan, routings: Mapping[str | None, Routing],
                 frames: Mapping[str, Frame], ports: list[PortBox] | None = None
                 ) -> tuple[dict[Key, NodeBox], dict[Key, EdgeRoute]]:
    """Absolute boxes of every level's nodes and routes of its pieces, by (level, id);
    the levels' ports, moved likewise, are added to ``ports``."""
    boxes: dict[Key, NodeBox] = {}
    pieces: dict[Key, EdgeRoute] = {}
    stack: list[tuple[str | None, float, float]] = [(None, 0.0, 0.0)]
    while stack:
        owner, ox, oy = stack.pop()
        routing = routings[owner]
        if owner is None:
            dx, dy = ox, oy
        else:
            interior = Interior.of(routing)
            dx, dy = ox - interior.x0, oy - interior.y0
        for n in routing.nodes:
            box = replace(n, x=n.x + dx, y=n.y + dy)
            boxes[(owner, n.id)] = box
            if n.id in frames:
                frame = frames[n.id]
                stack.append((n.id, box.x + frame.inner_x, box.y + frame.inner_y))
        for route in routing.edges:
            pieces[(owner, route.id)] = _moved_route(route, dx, dy)
        if ports is not None:
            ports.extend(moved_port(p, dx, dy) for p in routing.ports)
    return boxes, pieces


def _outer(plan: Plan, crossing: Crossing) -> str | None:
    return plan.parents[crossing.compound]


def _jog_columns(plan: Plan, path: EdgePath, index: int, pieces: Mapping[Key, EdgeRoute]
                 ) -> tuple[float, float]:
    """(upper, lower) column of the jog at ``path.crossings[index]``."""
    before = pieces[(path.pieces[index].level, path.edge.id)]
    after = pieces[(path.pieces[index + 1].level, path.edge.id)]
    return before.points[-1].x, after.points[0].x


def assign_jog_tracks(plan: Plan, pieces: Mapping[Key, EdgeRoute]
                      ) -> dict[tuple[str, str], int]:
    """The track of every crossing, by (compound, dummy): see :mod:`.jogs`."""
    groups: dict[tuple[str, bool], list[tuple[str, tuple[float, float]]]] = {}
    for path in plan.paths:
        for i, crossing in enumerate(path.crossings):
            groups.setdefault((crossing.compound, crossing.entering), []).append(
                (crossing.dummy, _jog_columns(plan, path, i, pieces)))
    out: dict[tuple[str, str], int] = {}
    for (compound, _), jogs in sorted(groups.items(), key=lambda item: (item[0][0],
                                                                        item[0][1])):
        for (dummy, _), track in zip(jogs, tracks([columns for _, columns in jogs]),
                                     strict=True):
            out[(compound, dummy)] = track
    return out


def simplify(points: Sequence[Point]) -> tuple[Point, ...]:
    """``points`` without repeats and without the middle of three collinear points on an
    axis-parallel line.

    >>> simplify([Point(0, 0), Point(0, 5), Point(0, 5), Point(0, 9), Point(4, 9)])
    (Point(x=0, y=0), Point(x=0, y=9), Point(x=4, y=9))
    """
    out: list[Point] = []
    for p in points:
        if out and abs(p.x - out[-1].x) < 1e-9 and abs(p.y - out[-1].y) < 1e-9:
            continue
        if len(out) >= 2:
            a, b = out[-2], out[-1]
            same_x = abs(a.x - b.x) < 1e-9 and abs(b.x - p.x) < 1e-9
            same_y = abs(a.y - b.y) < 1e-9 and abs(b.y - p.y) < 1e-9
            forward = (b.x - a.x) * (p.x - b.x) + (b.y - a.y) * (p.y - b.y) >= 0
            if (same_x or same_y) and forward:
                out[-1] = p
                continue
        out.append(p)
    return tuple(out)


def join_route(plan: Plan, path: EdgePath, pieces: Mapping[Key, EdgeRoute],
               boxes: Mapping[Key, NodeBox], frames: Mapping[str, Frame],
               track_of: Mapping[tuple[str, str], int]) -> EdgeRoute:
    """The edge's whole route: its pieces joined by their jogs."""
    routes = [pieces[(p.level, path.edge.id)] for p in path.pieces]
    points = list(routes[0].points)
    for i, crossing in enumerate(path.crossings):
        box = boxes[(_outer(plan, crossing), crossing.compound)]
        frame = frames[crossing.compound]
        track = track_of[(crossing.compound, crossing.dummy)]
        y = box.y + (frame.entering_track(track) if crossing.entering
                     else frame.leaving_track(track))
        upper, lower = points[-1].x, routes[i + 1].points[0].x
        points += [Point(upper, y), Point(lower, y), *routes[i + 1].points]
    container = routes[len([c for c in path.crossings if not c.entering])]
    return EdgeRoute(
        path.edge.id, path.edge.source, path.edge.target, simplify(points),
        routes[0].source_end, routes[-1].target_end, container.label_box,
        container.loop_back)


def assemble(graph: Graph, plan: Plan, routings: Mapping[str | None, Routing],
             frames: Mapping[str, Frame]) -> Drawing:
    """The drawing of ``graph`` from its levels' routings and compound frames."""
    ports: list[PortBox] = []
    boxes, pieces = place_levels(plan, routings, frames, ports)
    track_of = assign_jog_tracks(plan, pieces)
    nodes = []
    for n in graph.all_nodes():
        parent = plan.parents[n.id]
        box = boxes[(parent, n.id)]
        label = None
        if n.children:
            box = replace(box, shape=Shape.RECT)
            frame_label = frames[n.id].label_box
            if frame_label is not None:
                label = Box(box.x + frame_label.x, box.y + frame_label.y, frame_label.width,
                            frame_label.height)
        nodes.append(replace(box, parent=parent, label_box=label))
    edges = tuple(join_route(plan, path, pieces, boxes, frames, track_of)
                  for path in plan.paths)
    root = routings[None]
    order = {n.id: i for i, n in enumerate(graph.all_nodes())}
    ports.sort(key=lambda p: order[p.node])
    return Drawing(tuple(nodes), edges, root.width, root.height, tuple(ports))
