"""The routed drawing as plain coordinate lists, which the two compaction passes shift
in place (along x, then along y) before one :class:`~layouts.layered.model.Routing` is
built from them: no transposed copy of the drawing and no intermediate result objects.

Per node ``[x, y, width, height]``; per route its points' ``[xs, ys]``; per route its
label box ``[x, y, width, height]`` or ``None``. Index ``axis`` (0 for x, 1 for y) picks
the coordinate along a pass's axis, ``1 - axis`` the one across it.

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

from layouts.layered.model import Routing
from layouts.result import Box, EdgeRoute, NodeBox, Point


class Drawing:
    """Mutable coordinates of a routing's nodes, route points and labels (see module)."""

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
        ids, shapes, ends, labels and loop-back flags (their parents, node labels, ports
        and junctions are not kept: a drawing with ports is not compacted)."""
        nodes = tuple(NodeBox(n.id, b[0], b[1], n.width, n.height, n.shape)
                      for n, b in zip(self.nodes, self.boxes, strict=True))
        edges = []
        for route, (xs, ys), label in zip(self.edges, self.points, self.labels, strict=True):
            points = tuple(map(Point, xs, ys))
            box = None if label is None else Box(label[0], label[1], label[2], label[3])
            edges.append(EdgeRoute(route.id, route.source, route.target, points,
                                   route.source_end, route.target_end, box, route.loop_back))
        return Routing(nodes, tuple(edges), self.size[0], self.size[1])
