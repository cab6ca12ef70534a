"""Step 3b of the hierarchical layout: close the empty bands of a compound's box across
the flow (canonical x), inside each compound on its own, before its parent is laid out.

The squeeze of the assembled drawing (:mod:`.squeeze`) closes bands along the flow with
one map of y for the whole drawing. Across the flow one map for the whole drawing would
close little: a compound's face slots are spread over its width, so a compound whose
width changed would move the parent's routes off its slots. Inside one compound, before
its parent is routed, nothing outside depends on its width yet. So each compound's
framed interior (its level's nodes, routes, ports and labels at their places in its
box, and its label) is squeezed across on its own with one order-keeping map of x,
every child (a leaf or an already squeezed compound) keeping its width, and the box
takes the width that results; its parent is then laid out around that box. One map per
box keeps every x in order, so a child moves left past the band its neighbours need
only where nothing it shares an x with needs that band (a child that starts where a
child beside the label starts stays with it).

The squeeze is :func:`.squeeze.squeeze` on the framed interior turned by a quarter (x
for y), with the same rules read across the flow: siblings side by side keep
``min(old gap, node spacing)``, everything else ``min(old gap, spacing)``, the box's
faces keep the padding, and the compound's own label keeps its width and holds only
what lies beside it along the flow; what lies elsewhere may move under its column (a
LeftToRight label takes a column at the box's left across a few layers only). The jogs
of the border strips are not drawn yet; each entering (leaving) dummy's column is drawn
from the strip's first (last) track to the dummy so that what keeps clear of a jog
(a label) keeps clear of it after the squeeze.

Because the map keeps the order of every x, routes stay orthogonal, ends stay on their
slots (children are rigid), crossings and border orders stay as they were; only gaps
shrink, never below what the rules keep.

>>> from layouts.graph import Node
>>> from layouts.result import EdgeRoute, NodeBox, Point
>>> from layouts.layered.hierarchy.frames import Frame
>>> routing = Routing((NodeBox("a", 0, 0, 100, 40), NodeBox("b", 300, 0, 100, 40)), (),
...                   400, 40)
>>> frame = Frame(424, 64, 12, 12, None, 24, 64, 12)
>>> f, r = squeeze_across(Node("g", 10, 10), frame, routing, frozenset(), frozenset(),
...                       node_spacing=20, spacing=12, clearance=12)
>>> [n.x for n in r.nodes], f.width     # b: 12 + 100 + 20; the box: b's right + 12
([12.0, 132.0], 244.0)
"""

from __future__ import annotations

from dataclasses import replace

from layouts.graph import Node, Shape
from layouts.layered.hierarchy.assemble import Drawing
from layouts.layered.hierarchy.frames import Frame, Interior
from layouts.layered.hierarchy.squeeze import squeeze
from layouts.layered.model import Routing
from layouts.result import Box, EdgeRoute, NodeBox, Point, PortBox

__all__ = ["squeeze_across"]


def _box(b: Box | None, dx: float = 0.0, dy: float = 0.0) -> Box | None:
    return None if b is None else Box(b.y + dy, b.x + dx, b.height, b.width)


def _turned_node(n: NodeBox, dx: float, dy: float, parent: str | None) -> NodeBox:
    """``n`` moved by (dx, dy), then turned (x for y)."""
    return NodeBox(n.id, n.y + dy, n.x + dx, n.height, n.width, n.shape, parent,
                   _box(n.label_box, dy, dx),
                   extra_label_boxes=tuple(b for b in (_box(e, dy, dx)
                                                       for e in n.extra_label_boxes)
                                           if b is not None))


def _turned_route(e: EdgeRoute, dx: float, dy: float) -> EdgeRoute:
    return replace(e, points=tuple(Point(p.y + dy, p.x + dx) for p in e.points),
                   label_box=_box(e.label_box, dy, dx),
                   junction_points=tuple(Point(p.y + dy, p.x + dx)
                                         for p in e.junction_points))


def _turned_port(p: PortBox, dx: float, dy: float) -> PortBox:
    return replace(p, x=p.y + dy, y=p.x + dx, width=p.height, height=p.width,
                   label_box=_box(p.label_box, dy, dx),
                   extra_label_boxes=tuple(b for b in (_box(e, dy, dx)
                                                       for e in p.extra_label_boxes)
                                           if b is not None))


def _stubs(frame: Frame, routing: Routing, dx: float, dy: float, entering: frozenset[str],
           leaving: frozenset[str], crossings: tuple[int, int]) -> list[EdgeRoute]:
    """Each border dummy's column from its strip's outer track to the dummy (frame
    coordinates, not turned)."""
    out = []
    for n in routing.nodes:
        x = n.x + dx + n.width / 2
        if n.id in entering:
            out.append(EdgeRoute(n.id, n.id, n.id, (Point(x, frame.entering_track(0)),
                                                    Point(x, n.y + dy))))
        elif n.id in leaving:
            last = frame.leaving_track(max(0, crossings[1] - 1))
            out.append(EdgeRoute(n.id, n.id, n.id, (Point(x, n.y + dy + n.height),
                                                    Point(x, last))))
    return out


def squeeze_across(node: Node, frame: Frame, routing: Routing, entering: frozenset[str],
                   leaving: frozenset[str], *, node_spacing: float, spacing: float,
                   clearance: float, min_width: float = 0.0) -> tuple[Frame, Routing]:
    """Compound ``node``'s ``frame`` and its level's ``routing`` squeezed across the
    flow (see the module docstring): the new frame, at least ``min_width`` wide, and
    the routing in the box's coordinates (the frame's interior corner is then its
    bounding box's)."""
    interior = Interior.of(routing)
    dx, dy = frame.inner_x - interior.x0, frame.inner_y - interior.y0
    owner = NodeBox(node.id, 0.0, 0.0, frame.height, frame.width, Shape.RECT, None,
                    _box(frame.label_box))
    stubs = _stubs(frame, routing, dx, dy, entering, leaving, (len(entering), len(leaving)))
    turned = Drawing(
        (owner, *(_turned_node(n, dx, dy, node.id) for n in routing.nodes)),
        (*(_turned_route(e, dx, dy) for e in routing.edges),
         *(_turned_route(e, 0.0, 0.0) for e in stubs)),
        frame.height, frame.width, tuple(_turned_port(p, dx, dy) for p in routing.ports))
    out = squeeze(turned, layer_spacing=node_spacing, spacing=spacing, clearance=clearance,
                  rigid=frozenset(n.id for n in routing.nodes),
                  inner_layer_spacing=node_spacing)
    back = Drawing(tuple(_turned_node(n, 0.0, 0.0, None) for n in out.nodes),
                   tuple(_turned_route(e, 0.0, 0.0) for e in out.edges),
                   out.height, out.width, tuple(_turned_port(p, 0.0, 0.0) for p in out.ports))
    nodes = tuple(replace(old, x=new.x, y=new.y)
                  for old, new in zip(routing.nodes, back.nodes[1:], strict=True))
    edges = back.edges[:len(routing.edges)]
    squeezed = Routing(nodes, edges, back.width, back.height, back.ports)
    inner = Interior.of(squeezed)
    box = back.nodes[0]
    width = max(box.width, min_width)
    return (replace(frame, width=width, inner_x=inner.x0, inner_y=inner.y0,
                    label_box=box.label_box), replace(routing, nodes=nodes, edges=edges,
                                                      ports=back.ports, width=back.width))

