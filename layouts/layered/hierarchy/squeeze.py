"""Step 5b of the hierarchical layout: close the empty horizontal bands of the assembled
drawing (canonical frame) with one monotone map of the y axis.

A compound's frame is sized before its parent is routed (:mod:`.frames`): one track per
border crossing in each strip, the padding, the gap below its label. Once the whole
drawing is assembled, tracks whose jogs ran straight are empty, and the bands between a
compound's border, its strips and its interior are often wider than anything in them
needs. This step moves every y coordinate ``y`` to ``f(y)`` with ``f`` non-decreasing and
``f(b) - f(a) <= b - a`` (no gap grows), as small as these rules allow:

* a *line* is anything horizontal: a node's top or bottom face, a horizontal route
  segment, a route point, the top or bottom of a label or port box. Two lines whose
  x ranges come within ``clearance`` of each other keep ``min(old gap, spacing)``
  between them (``spacing`` is the larger of the clearance and the edge spacing), and
  a node's bottom keeps ``min(old gap, layer_spacing)`` from the top of a root node
  below it (as the flat compaction does, :mod:`layouts.layered.compaction`), and
  ``min(old gap, inner_layer_spacing)`` from the top of a node inside a compound
  (ELK spaces a compound's layers by the compound's own options, its defaults when it
  sets none: :data:`COMPOUND_LAYER_SPACING`; the routes between those layers still
  keep the spacing above);
* *rigid* spans keep their height: leaf nodes, edge and port label boxes, port boxes,
  and compound nodes with ports of their own or edges ending on their left or right
  face. A compound's own label keeps its height below its top, a line like the others
  (so the unused tracks of the entering strip above it close), and what lies below
  it keeps the spacing from its bottom.

Because ``f`` keeps the order of all y coordinates, every route stays orthogonal, every
end stays on its face and slot, and no route comes to cross a box or another route that
it did not cross before; only distances shrink, and never below the spacing the rules
above keep. Only the nearest line above each point of a line's range is compared (a
skyline), which implies every farther pair: ``min(p, s) + min(q, s) >= min(p + q, s)``.

>>> from layouts.result import EdgeRoute, NodeBox, Point
>>> from layouts.layered.hierarchy.assemble import Drawing
>>> d = Drawing((NodeBox("g", 0, 0, 200, 200), NodeBox("a", 50, 100, 100, 40, parent="g")),
...             (), 200, 200)
>>> s = squeeze(d, layer_spacing=60, spacing=12, clearance=12, rigid=frozenset({"a"}),
...             inner_layer_spacing=20)
>>> [(n.y, n.height) for n in s.nodes], s.height   # a: 12 below g's top, g: 12 below a
([(0, 64), (12, 40)], 64)
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable
from dataclasses import dataclass, replace

from layouts.graph import Graph
from layouts.layered.hierarchy.assemble import Drawing
from layouts.result import Box, EdgeRoute, NodeBox, Point, PortBox, Side

__all__ = ["COMPOUND_LAYER_SPACING", "rigid_nodes", "squeeze"]

_EPS = 1e-9

COMPOUND_LAYER_SPACING = 20.0
"""The gap the squeeze keeps between stacked nodes inside a compound, in px, when the
layer spacing is larger: ELK's default ``spacing.nodeNodeBetweenLayers``, which elkjs
uses inside every compound node that sets no spacing of its own (a caller's spacings
on the root do not reach them). The root keeps the caller's layer spacing."""


@dataclass(frozen=True, slots=True)
class _Line:
    """A horizontal thing at ``y`` over ``x0 .. x1``; ``face`` is +1 for a node's top,
    -1 for its bottom, 0 otherwise; ``inner``: a node's face inside a compound."""

    y: float
    x0: float
    x1: float
    face: int = 0
    inner: bool = False


class _Skyline:
    """For every x, the index (into the sorted distinct ys) of the lowest line seen so
    far whose range, widened by ``margin``, covers x: a sorted list of breakpoints and
    one entry per piece between them."""

    def __init__(self, margin: float) -> None:
        self.margin = margin
        self.starts: list[float] = [-float("inf")]
        self.values: list[int] = [-1]

    def seen(self, x0: float, x1: float) -> Iterable[int]:
        """The indices of the lines that cover any point of ``x0 .. x1`` (widened by
        the margin)."""
        lo, hi = x0 - self.margin, x1 + self.margin
        i = bisect.bisect_right(self.starts, lo) - 1
        while i < len(self.starts) and self.starts[i] <= hi:
            value = self.values[i]
            if value >= 0:
                yield value
            i += 1

    def cover(self, x0: float, x1: float, value: int) -> None:
        """Make ``value`` the lowest line over ``x0 .. x1`` (widened by the margin)."""
        lo, hi = x0 - self.margin, x1 + self.margin
        i = bisect.bisect_right(self.starts, lo) - 1
        j = bisect.bisect_right(self.starts, hi) - 1
        after = self.values[j]
        self.starts[i + 1:j + 1] = [lo, hi]
        self.values[i + 1:j + 1] = [value, after]
        if self.starts[i] == lo:   # the piece before starts at lo: it is gone
            del self.starts[i], self.values[i]


def _lines(drawing: Drawing) -> list[_Line]:
    """Every horizontal thing of the drawing (see the module docstring)."""
    out: list[_Line] = []
    for n in drawing.nodes:
        inner = n.parent is not None
        out += [_Line(n.y, n.x, n.x + n.width, 1, inner),
                _Line(n.y + n.height, n.x, n.x + n.width, -1, inner)]
    for box in _label_boxes(drawing):
        out += [_Line(box.y, box.x, box.right), _Line(box.bottom, box.x, box.right)]
    out += [_Line(b.y, b.x, b.right) for n in drawing.nodes if (b := n.label_box) is not None]
    for p in drawing.ports:
        out += [_Line(p.y, p.x, p.x + p.width), _Line(p.y + p.height, p.x, p.x + p.width)]
    for route in drawing.edges:
        pts = route.points
        out += [_Line(p.y, p.x, p.x) for p in (*pts, *route.junction_points)]
        out += [_Line(a.y, min(a.x, b.x), max(a.x, b.x))
                for a, b in itertools.pairwise(pts) if abs(a.y - b.y) < _EPS]
    return out


def _label_boxes(drawing: Drawing) -> list[Box]:
    """The label boxes mapped like everything else (a node's own label box moves with
    its top instead: :class:`_Hung`)."""
    boxes = [b for n in drawing.nodes for b in n.extra_label_boxes]
    boxes += [e.label_box for e in drawing.edges if e.label_box is not None]
    boxes += [b for p in drawing.ports for b in (p.label_box, *p.extra_label_boxes)
              if b is not None]
    return boxes


@dataclass(frozen=True, slots=True)
class _Hung:
    """A node's own label box: its top is a line like any other (it keeps the spacing
    from what lies above it: the node's top, the jog tracks of the entering strip above
    a compound's label) and it keeps its height below that top, so it is neither a
    rigid span of the whole drawing (a long label down a LeftToRight compound's side
    would keep every band beside it open) nor a pair of lines; its bottom is a line for
    what lies below it, at ``offset`` below its top's new y."""

    top: float
    bottom: float
    x0: float
    x1: float

    @property
    def offset(self) -> float:
        return self.bottom - self.top


def _hung(drawing: Drawing) -> list[_Hung]:
    return sorted((_Hung(b.y, b.bottom, b.x, b.right) for n in drawing.nodes
                   if (b := n.label_box) is not None), key=lambda h: h.bottom)


def _rigid_spans(drawing: Drawing, rigid: frozenset[str]) -> list[tuple[float, float]]:
    spans = [(n.y, n.y + n.height) for n in drawing.nodes if n.id in rigid]
    spans += [(b.y, b.bottom) for b in _label_boxes(drawing)]
    spans += [(p.y, p.y + p.height) for p in drawing.ports]
    return spans


def _rigid_bands(ys: list[float], spans: list[tuple[float, float]]) -> list[bool]:
    """``out[i]``: whether the band from ``ys[i - 1]`` to ``ys[i]`` lies in a span."""
    depth = [0] * (len(ys) + 1)
    for top, bottom in spans:
        i, j = bisect.bisect_left(ys, top - _EPS), bisect.bisect_right(ys, bottom + _EPS)
        depth[i + 1] += 1   # bands i + 1 .. j - 1 lie between ys[i] and ys[j - 1]
        depth[j] -= 1
    out, running = [], 0
    for i in range(len(ys)):
        running += depth[i]
        out.append(running > 0)
    return out


def _mapping(drawing: Drawing, *, layer_spacing: float, spacing: float, clearance: float,
             rigid: frozenset[str], inner_layer_spacing: float) -> dict[float, float]:
    """``f`` at every distinct y of the drawing's lines (see the module docstring): one
    sweep down gives each y the least value its lines' rules and rigid bands allow
    above it; when that would grow the band above it (a rule can ask more of a far line
    than of a near one), the lines above are raised as far as needed, back up the
    drawing, before the sweep goes on (the skylines read the raised values)."""
    lines = _lines(drawing)
    lines.append(_Line(drawing.height, 0.0, 0.0))
    ys = sorted({line.y for line in lines})
    at: dict[float, list[_Line]] = {}
    for line in lines:
        at.setdefault(line.y, []).append(line)
    bands = _rigid_bands(ys, _rigid_spans(drawing, rigid))
    every, boxes = _Skyline(clearance / 2 + 0.5), _Skyline(clearance / 2 + 0.5)
    hung = _hung(drawing)
    index = {y: i for i, y in enumerate(ys)}
    tops = [index[h.top] for h in hung]
    f: list[float] = []

    def line_at(k: int) -> tuple[float, float]:
        """Old and new y of skyline entry ``k``: a y of ``ys``, or a hung label's
        bottom (entries from ``len(ys)`` on)."""
        if k < len(ys):
            return ys[k], f[k]
        h = k - len(ys)
        return hung[h].bottom, f[tops[h]] + hung[h].offset

    waiting = 0
    for i, y in enumerate(ys):
        while waiting < len(hung) and hung[waiting].bottom <= y:
            every.cover(hung[waiting].x0, hung[waiting].x1, len(ys) + waiting)
            waiting += 1
        new = ys[0] if i == 0 else f[i - 1] + (y - ys[i - 1] if bands[i] else 0.0)
        for line in at[y]:
            for k in every.seen(line.x0, line.x1):
                old, moved = line_at(k)
                new = max(new, moved + min(y - old, spacing))
            if line.face == 1:
                gap = inner_layer_spacing if line.inner else layer_spacing
                for k in boxes.seen(line.x0, line.x1):
                    new = max(new, f[k] + min(y - ys[k], gap))
        f.append(new)
        _raise_above(f, ys, i)
        for line in at[y]:
            every.cover(line.x0, line.x1, i)
            if line.face == -1:
                boxes.cover(line.x0, line.x1, i)
    return dict(zip(ys, f, strict=True))


def _raise_above(f: list[float], ys: list[float], i: int) -> None:
    """Raise ``f[i - 1]``, ``f[i - 2]``, ... until no band above ``ys[i]`` is wider than
    it was (every band above a raised one already was at most as wide)."""
    k = i
    while k > 0 and f[k] - f[k - 1] > ys[k] - ys[k - 1] + _EPS:
        f[k - 1] = f[k] - (ys[k] - ys[k - 1])
        k -= 1


def squeeze(drawing: Drawing, *, layer_spacing: float, spacing: float, clearance: float,
            rigid: frozenset[str], inner_layer_spacing: float | None = None) -> Drawing:
    """``drawing`` with its empty bands closed (see the module docstring); ``rigid``:
    the ids of the nodes that keep their height (leaves and some compounds);
    ``inner_layer_spacing``: the gap between stacked nodes inside a compound (the
    layer spacing when not given)."""
    inner = layer_spacing if inner_layer_spacing is None else inner_layer_spacing
    f = _mapping(drawing, layer_spacing=layer_spacing, spacing=spacing, clearance=clearance,
                 rigid=rigid, inner_layer_spacing=inner)

    def box(b: Box | None) -> Box | None:
        return None if b is None else replace(b, y=f[b.y])

    def node(n: NodeBox) -> NodeBox:
        top = f[n.y]
        label = n.label_box
        return replace(n, y=top, height=f[n.y + n.height] - top,
                       label_box=None if label is None else replace(label, y=f[label.y]),
                       extra_label_boxes=tuple(replace(b, y=f[b.y])
                                               for b in n.extra_label_boxes))

    def route(e: EdgeRoute) -> EdgeRoute:
        return replace(e, points=tuple(Point(p.x, f[p.y]) for p in e.points),
                       label_box=box(e.label_box),
                       junction_points=tuple(Point(p.x, f[p.y]) for p in e.junction_points))

    def port(p: PortBox) -> PortBox:
        return replace(p, y=f[p.y], label_box=box(p.label_box),
                       extra_label_boxes=tuple(replace(b, y=f[b.y])
                                               for b in p.extra_label_boxes))

    return Drawing(tuple(node(n) for n in drawing.nodes), tuple(route(e) for e in drawing.edges),
                   drawing.width, f[drawing.height], tuple(port(p) for p in drawing.ports))


def rigid_nodes(graph: Graph, drawing: Drawing) -> frozenset[str]:
    """The nodes :func:`squeeze` keeps at their height: leaves, compounds with ports of
    their own, and compounds an edge ends on at their left or right face (canonical
    frame: those faces' slots are spread over the height).

    >>> from layouts.graph import Node
    >>> g = Graph((Node("g", 9, 9, children=(Node("a", 9, 9),)),), ())
    >>> sorted(rigid_nodes(g, Drawing((), (), 0, 0)))
    ['a']
    """
    out = {n.id for n in graph.all_nodes() if not n.children or n.ports}
    sides = (Side.LEFT, Side.RIGHT)
    for e in drawing.edges:
        if e.source_end.side in sides:
            out.add(e.source)
        if e.target_end.side in sides:
            out.add(e.target)
    out.update(p.node for p in drawing.ports if p.side in sides)
    return frozenset(out)
