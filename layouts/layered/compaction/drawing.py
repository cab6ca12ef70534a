"""The routed drawing as plain coordinate lists, which the two compaction passes shift
in place (along x, then along y) before one :class:`~layouts.layered.model.Routing` is
built from them: no transposed copy of the drawing and no intermediate result objects.

Per node ``[x, y, width, height]``; per route its points' ``[xs, ys]``; per route its
label box ``[x, y, width, height]`` or ``None``; per port its *parts*, its box then its
label boxes, each ``[x, y, width, height]``, and the index of its node (a port moves
rigidly with its node: every part by its node's shift). Index ``axis`` (0 for x, 1 for
y) picks the coordinate along a pass's axis, ``1 - axis`` the one across it.

>>> from layouts.layered.model import Routing
>>> from layouts.result import EdgeRoute, NodeBox, Point
>>> e = EdgeRoute("e", "a", "b", (Point(5, 40), Point(5, 90)))
>>> d = Drawing.of(Routing((NodeBox("a", 0, 0, 10, 40), NodeBox("b", 0, 90, 10, 40)),
...                        (e,), 10, 130))
>>> d.nodes_along(1), d.points[0][1]
([(0, 40), (90, 40)], [40, 90])
>>> d.shift_node(1, 1, -30.0); d.routing().nodes[1]
NodeBox(id='b', x=0, y=60.0, width=10, height=40, shape=<Shape.RECT: 'rect'>)
"""

from __future__ import annotations

from dataclasses import replace

from layouts.layered.model import Routing
from layouts.result import Box, EdgeRoute, NodeBox, Point, PortBox


class Drawing:
    """Mutable coordinates of a routing's nodes, route points, labels and ports (see
    module)."""

    def __init__(self, routing: Routing) -> None:
        self.nodes = routing.nodes
        self.edges = routing.edges
        self.node_index = {box.id: i for i, box in enumerate(routing.nodes)}
        self.boxes: list[list[float]] = [[b.x, b.y, b.width, b.height] for b in routing.nodes]
        self.points: list[list[list[float]]] = [
            [[p.x for p in r.points], [p.y for p in r.points]] for r in routing.edges]
        self.labels: list[list[float] | None] = [
            None if (b := r.label_box) is None else [b.x, b.y, b.width, b.height]
            for r in routing.edges]
        self.size = [routing.width, routing.height]
        self.ports = routing.ports
        self.port_parts: list[list[list[float]]] = [_parts(p) for p in routing.ports]
        self.port_nodes: list[int] = [self.node_index.get(p.node, -1) for p in routing.ports]

    @classmethod
    def of(cls, routing: Routing) -> Drawing:
        return cls(routing)

    def nodes_along(self, axis: int) -> list[tuple[float, float]]:
        """Per node, its low coordinate and its size along ``axis``."""
        return [(b[axis], b[2 + axis]) for b in self.boxes]

    def shift_node(self, i: int, axis: int, by: float) -> None:
        self.boxes[i][axis] += by

    def routing(self) -> Routing:
        """The drawing as a routing in the canonical frame. Nodes and routes keep their
        ids, shapes, ends, labels and loop-back flags, and every port its fields, with its
        box and labels where its node moved them (node parents and labels, route
        junctions and extra labels are not kept: :func:`layouts.layered.compaction.run`
        does not compact a drawing that has them)."""
        nodes = tuple(NodeBox(n.id, b[0], b[1], n.width, n.height, n.shape)
                      for n, b in zip(self.nodes, self.boxes, strict=True))
        edges = []
        for route, (xs, ys), label in zip(self.edges, self.points, self.labels, strict=True):
            points = tuple(map(Point, xs, ys))
            box = None if label is None else Box(label[0], label[1], label[2], label[3])
            edges.append(EdgeRoute(route.id, route.source, route.target, points,
                                   route.source_end, route.target_end, box, route.loop_back))
        ports = tuple(_moved(p, parts) for p, parts in zip(self.ports, self.port_parts,
                                                            strict=True))
        return Routing(nodes, tuple(edges), self.size[0], self.size[1], ports)


def _parts(port: PortBox) -> list[list[float]]:
    """The port's box, then its label boxes, as coordinate lists."""
    labels = (*(() if port.label_box is None else (port.label_box,)), *port.extra_label_boxes)
    return [[port.x, port.y, port.width, port.height],
            *([b.x, b.y, b.width, b.height] for b in labels)]


def _moved(port: PortBox, parts: list[list[float]]) -> PortBox:
    """``port`` with its box and label boxes at ``parts`` (see :func:`_parts`)."""
    boxes = [Box(b[0], b[1], b[2], b[3]) for b in parts[1:]]
    label = boxes.pop(0) if port.label_box is not None else None
    return replace(port, x=parts[0][0], y=parts[0][1], label_box=label,
                   extra_label_boxes=tuple(boxes))
