"""Port labels in the layered engine (layouts/layered/routing/port_labels.py, and
port_fit.py for the room they need): inside their node beside their port, clear of
each other, of the node's own label and of every route. Coordinates by hand."""

from __future__ import annotations

import pytest

from layouts.api import layout
from layouts.graph import Edge, Graph, Node, Port, PortConstraints, PortSide
from layouts.result import Box, LayoutResult

SIDES = (PortSide.NORTH, PortSide.EAST, PortSide.SOUTH, PortSide.WEST)


def _hub(width: float = 160, height: float = 80) -> Graph:
    """``hub`` (labelled 30 x 14) with a 6 px port on every side, each labelled 36 x 12,
    and one neighbour per port."""
    ports = tuple(Port(f"p{s.value}", s, width=6, height=6, label=s.value, label_width=36,
                       label_height=12) for s in SIDES)
    hub = Node("hub", width, height, label="hub", label_width=30, label_height=14,
               ports=ports, port_constraints=PortConstraints.FIXED_SIDE)
    others = tuple(Node(s.value[0], 40, 30) for s in SIDES)
    edges = (Edge("a", "n", "hub", target_port="pnorth"),
             Edge("b", "hub", "e", source_port="peast"),
             Edge("c", "hub", "s", source_port="psouth"),
             Edge("d", "hub", "w", source_port="pwest"))
    return Graph((hub, *others), edges)


def _labels(result: LayoutResult) -> dict[str, Box]:
    return {p.id: p.label_box for p in result.ports if p.label_box is not None}


def test_each_label_stands_inside_its_node_beside_its_port() -> None:
    result = layout(_hub(), engine="layered")
    hub = result.node("hub")
    cx, cy = hub.x + 80, hub.y + 40       # the face centres, where the single ports sit
    # north: below the port (its inner edge 3 px inside the outline) by 4 px, centred
    # east: left of the port by 4 px, centred on it; south and west likewise
    assert _labels(result) == {
        "pnorth": Box(cx - 18, hub.y + 3 + 4, 36, 12),
        "peast": Box(hub.x + 160 - 3 - 4 - 36, cy - 6, 36, 12),
        "psouth": Box(cx - 18, hub.y + 80 - 3 - 4 - 12, 36, 12),
        "pwest": Box(hub.x + 3 + 4, cy - 6, 36, 12),
    }


def _overlap(a: Box, b: Box) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


def _crosses(box: Box, a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether the axis-parallel segment a-b passes through the box's interior."""
    (x0, y0), (x1, y1) = a, b
    return (min(x0, x1) < box.right and max(x0, x1) > box.x
            and min(y0, y1) < box.bottom and max(y0, y1) > box.y)


@pytest.mark.parametrize("direction", ["TopToBottom", "LeftToRight", "BottomToTop",
                                       "RightToLeft"])
def test_labels_keep_clear_of_each_other_the_node_label_and_the_routes(
        direction: str) -> None:
    result = layout(_hub(), engine="layered", direction=direction)
    hub = result.node("hub")
    labels = list(_labels(result).values())
    assert len(labels) == 4
    own = Box(hub.x + hub.width / 2 - 15, hub.y + hub.height / 2 - 7, 30, 14)
    for i, box in enumerate(labels):
        assert hub.x <= box.x and box.right <= hub.x + hub.width
        assert hub.y <= box.y and box.bottom <= hub.y + hub.height
        assert not _overlap(box, own)
        assert not any(_overlap(box, other) for other in labels[i + 1:])
        for route in result.edges:
            pairs = zip(route.points, route.points[1:], strict=False)
            assert not any(_crosses(box, (p.x, p.y), (q.x, q.y)) for p, q in pairs), route.id


def test_a_node_too_small_for_its_labels_grows_and_says_so() -> None:
    result = layout(_hub(60, 30), engine="layered")
    hub = result.node("hub")
    # along the faces first: a north label 36 px wide needs (1 + 1) * (36 + 4) = 80 px
    # of the 60, an east one 12 px tall (1 + 1) * (12 + 4) = 32 of the 30; then across:
    # north and south each 6/2 + 4 + 12 = 19 px deep, with the 14 px label and two 4 px
    # gaps 19 + 14 + 19 + 8 = 60 px tall; east and west 3 + 4 + 36 = 43 each, so
    # 43 + 30 + 43 + 8 = 124 px wide
    assert (hub.width, hub.height) == (124, 60)
    assert [w.split(" so ")[0] for w in result.diagnostics.warnings] == [
        "node 'hub' grown from 60 to 80 px along its north face",
        "node 'hub' grown from 30 to 32 px along its east face",
        "node 'hub' grown from 32 to 60 px tall",
        "node 'hub' grown from 80 to 124 px wide",
    ]
