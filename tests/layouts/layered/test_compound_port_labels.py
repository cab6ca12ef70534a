"""Labels of a compound node's own border ports (layouts/layered/hierarchy/port_room.py):
inside the box beside their port, in a band the frame keeps clear of the title, the
children and every route. Expected boxes by hand from the port_labels rule."""

from __future__ import annotations

import pytest

from layouts.api import layout
from layouts.graph import Edge, Graph, Node, Port, PortConstraints, PortSide
from layouts.layered.contracts.hierarchy import check_compound_layout
from layouts.mirror import base_direction, mirror_result
from layouts.options import Direction, LayoutOptions
from layouts.result import Box, LayoutResult

DIRECTIONS = ["TopToBottom", "LeftToRight", "BottomToTop", "RightToLeft"]


def _port(port_id: str, side: PortSide, width: float = 20) -> Port:
    return Port(port_id, side, width=6, height=6, label=port_id, label_width=width,
                label_height=12)


def _graph(*, crossings: int = 0, label_width: float = 20) -> Graph:
    """``top`` -> port ``gin`` (north) of compound ``g``, port ``gout`` (south) ->
    ``down``, ``side`` from its west port; ``crossings`` edges from ``top`` straight
    into child ``a`` (they cross g's top face)."""
    ports = (_port("gin", PortSide.NORTH, label_width), _port("gout", PortSide.SOUTH),
             _port("gwest", PortSide.WEST))
    g = Node("g", 10, 10, label="group", label_width=40, label_height=14, ports=ports,
             port_constraints=PortConstraints.FIXED_SIDE,
             children=(Node("a", 80, 40), Node("b", 80, 40)))
    edges = [Edge("e_in", "top", "g", target_port="gin"),
             Edge("e_out", "g", "down", source_port="gout"),
             Edge("e_side", "g", "side", source_port="gwest"), Edge("ab", "a", "b")]
    edges += [Edge(f"x{i}", "top", "a") for i in range(crossings)]
    return Graph((Node("top", 80, 40), g, Node("down", 80, 40), Node("side", 80, 40)),
                 tuple(edges))


def _overlap(a: Box, b: Box) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


def _crosses(box: Box, result: LayoutResult) -> list[str]:
    """Edges with a segment through the box's interior."""
    out = []
    for route in result.edges:
        for p, q in zip(route.points, route.points[1:], strict=False):
            if (min(p.x, q.x) < box.right and max(p.x, q.x) > box.x
                    and min(p.y, q.y) < box.bottom and max(p.y, q.y) > box.y):
                out.append(route.id)
    return out


def test_a_north_and_a_south_label_stand_inside_beside_their_port() -> None:
    result = layout(_graph(), engine="layered")
    g = result.node("g")
    gin, gout = result.port("gin"), result.port("gout")
    # 6 px ports centred on the border: 3 px inside it, then the 4 px label gap
    assert gin.label_box == Box(gin.x + 3 - 10, g.y + 3 + 4, 20, 12)
    assert gout.label_box == Box(gout.x + 3 - 10, g.y + g.height - 3 - 4 - 12, 20, 12)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_labels_keep_clear_of_the_title_the_children_and_the_routes(direction: str) -> None:
    graph = _graph(crossings=2)
    result = layout(graph, engine="layered", direction=direction)
    g = result.node("g")
    assert g.label_box is not None
    labels = [p.label_box for p in result.ports]
    assert len(labels) == 3
    for box in labels:
        assert box is not None
        assert g.x <= box.x and box.right <= g.x + g.width
        assert g.y <= box.y and box.bottom <= g.y + g.height
        assert not _overlap(box, g.label_box)
        assert not any(_overlap(box, result.node(c).box) for c in ("a", "b"))
        assert _crosses(box, result) == []
    base = mirror_result(result, Direction(direction))   # contracts hold in the base frame
    options = LayoutOptions(direction=base_direction(Direction(direction)))
    assert check_compound_layout(graph, base, options) == []


def test_a_wide_label_widens_the_box_so_the_crossings_beside_it_miss_it() -> None:
    # the top face holds the port and 3 crossings: 4 lattice points, and a 60 px label
    # needs (4 + 1) * (60 + 4) = 320 px for its neighbours' lines to miss it
    result = layout(_graph(crossings=3, label_width=60), engine="layered")
    assert result.node("g").width >= 320
    box = result.port("gin").label_box
    assert box is not None and _crosses(box, result) == []
