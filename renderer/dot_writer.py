"""Laid-out diagram -> DOT with positions, for ``neato -n2`` to redraw as it is.

One pixel is written as one point; y is flipped (DOT's origin is bottom-left). Nodes carry
``pos`` (centre), ``width``/``height`` in inches and ``fixedsize``; edges carry ``pos`` as a
B-spline whose cubic pieces are straight segments, with ``e,x,y`` for the arrowhead, and
``lp`` for the label centre. Compound nodes are ``subgraph cluster_*`` blocks nested as
they are (with the node's ``id``, ``label`` and ``bb``), so reading the text back keeps
the hierarchy; rank groups are ``{ rank=same; ... }`` subgraphs. Output is deterministic
(result order, positions to 2 decimals, sizes to 4).

>>> from layouts.graph import Graph, Node
>>> from layouts.result import Diagnostics, LayoutResult, NodeBox
>>> diagram = Diagram("g", Graph((Node("a", 72, 36),)))
>>> result = LayoutResult((NodeBox("a", 0, 0, 72, 36),), (), 72, 36,
...                       Diagnostics("hand", "draft", "TopToBottom"))
>>> print(write_dot(diagram, result).decode())  # doctest: +NORMALIZE_WHITESPACE
digraph "g" {
  graph [bb="0,0,72,36"];
  node [fixedsize=true, fontname="DejaVu Sans", fontsize=12];
  edge [fontname="DejaVu Sans", fontsize=10.5];
  "a" [pos="36,18", width=1, height=0.5, shape=box, style=rounded, label="a"];
}
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from itertools import pairwise

from layouts.graph import RankGroup, Shape
from layouts.result import EdgeRoute, LayoutResult, NodeBox, Point
from renderer.diagram import Diagram
from renderer.svg import edge_label_box, edge_labels
from renderer.svg_nodes import xml_safe

POINTS_PER_INCH = 72.0
ARROW_LENGTH = 10.0
"""Length of the arrowhead in points, cut from the end of the last segment."""

DOT_SHAPES: Mapping[Shape, str] = {
    Shape.RECT: "shape=box, style=rounded",
    Shape.DIAMOND: "shape=diamond",
    Shape.CIRCLE: "shape=circle",
    Shape.ELLIPSE: "shape=ellipse",
}


def write_dot(diagram: Diagram, result: LayoutResult) -> bytes:
    """The laid-out diagram as DOT text (UTF-8) with every position fixed."""
    height = result.height
    labels = edge_labels(diagram)
    titles = {n.id: diagram.nodes[n.id].title if n.id in diagram.nodes else (n.label or n.id)
              for n in diagram.graph.nodes}
    loop_backs = {e.id for e in diagram.graph.edges if e.loop_back}
    lines = [
        f"digraph {quote(diagram.name)} {{",
        f'  graph [bb="0,0,{_n(result.width)},{_n(height)}"];',
        '  node [fixedsize=true, fontname="DejaVu Sans", fontsize=12];',
        '  edge [fontname="DejaVu Sans", fontsize=10.5];',
    ]
    titles.update({n.id: diagram.nodes[n.id].title if n.id in diagram.nodes else n.label
                   for n in diagram.graph.all_nodes() if n.id not in titles})
    lines += _nested_lines(result, titles, height)
    lines += [_rank_line(group) for group in diagram.graph.rank_groups]
    lines += [_edge_line(route, labels.get(route.id), route.id in loop_backs, height)
              for route in result.edges]
    lines.append("}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def quote(text: str) -> str:
    r"""A DOT double-quoted string that nothing in ``text`` can leave: ``"`` escaped, and
    every run of backslashes that ends before a ``"``, a line break or the end doubled
    (DOT reads a backslash with the character after it as a pair, so an odd run there
    would escape the closing quote or eat the one that follows); control characters
    become U+FFFD. Other backslashes stay as they are, so DOT reads them back unchanged.

    >>> print(quote('say "hi"'), quote("back\\slash"), quote("tail\\"), quote('q\\"x'))
    "say \"hi\"" "back\slash" "tail\\" "q\\\"x"
    """
    escaped = _QUOTE_BREAKING_RUN.sub(lambda run: run.group(0) * 2, xml_safe(text))
    return '"' + escaped.replace('"', '\\"') + '"'


_QUOTE_BREAKING_RUN = re.compile(r'\\+(?=["\n]|\Z)')


def _label(text: str) -> str:
    r"""A quoted label: every backslash doubled (labels are DOT escape strings, which read
    ``\\`` as one backslash, so ``\N`` stays literal), line breaks as DOT's ``\n``.

    >>> print(_label('a\\N "b"\nc\\'))
    "a\\N \"b\"\nc\\"
    """
    escaped = xml_safe(text).replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\n", "\\n") + '"'


def _n(value: float, decimals: int = 2) -> str:
    text = f"{value:.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _inches(points: float) -> str:
    """Points as inches, to 4 decimals so sizes survive to 0.01 pt."""
    return _n(points / POINTS_PER_INCH, 4)


def _pos(p: Point, height: float) -> str:
    return f"{_n(p.x)},{_n(height - p.y)}"


def cluster_name(node_id: str) -> str:
    """The DOT subgraph name of a compound node: its id when that already starts with
    ``cluster`` (what DOT needs to draw it as a box), else ``cluster_`` and its id.

    >>> cluster_name("cluster_a"), cluster_name("g")
    ('cluster_a', 'cluster_g')
    """
    return node_id if node_id.startswith("cluster") else f"cluster_{node_id}"


def _nested_lines(result: LayoutResult, titles: Mapping[str, str], height: float,
                  parent: str | None = None, depth: int = 1) -> list[str]:
    """The nodes below ``parent`` in result order: leaves as node lines, compound nodes
    as ``subgraph cluster_*`` blocks (with their id, label and bounding box) holding
    their children."""
    children: dict[str | None, list[NodeBox]] = {}
    for node in result.nodes:
        children.setdefault(node.parent, []).append(node)

    def block(owner: str | None, level: int) -> list[str]:
        pad = "  " * level
        out = []
        for node in children.get(owner, []):
            if node.id not in children:
                out.append(pad + _node_line(node, titles.get(node.id, node.id), height)[2:])
                continue
            box = (f"{_n(node.x)},{_n(height - node.y - node.height)},"
                   f"{_n(node.x + node.width)},{_n(height - node.y)}")
            out.append(f"{pad}subgraph {quote(cluster_name(node.id))} {{")
            title = _label(titles.get(node.id) or "")
            out.append(f'{pad}  graph [id={quote(node.id)}, label={title}, bb="{box}"];')
            out += block(node.id, level + 1)
            out.append(f"{pad}}}")
        return out

    return block(parent, depth)


def _rank_line(group: RankGroup) -> str:
    """A rank group as DOT's anonymous ``rank`` subgraph."""
    members = " ".join(f"{quote(node_id)};" for node_id in group.nodes)
    return f"  {{ rank={group.kind.value}; {members} }}"


def _node_line(node: NodeBox, title: str, height: float) -> str:
    centre = _pos(node.center, height)
    return (f'  {quote(node.id)} [pos="{centre}", width={_inches(node.width)}, '
            f"height={_inches(node.height)}, {DOT_SHAPES[node.shape]}, "
            f"label={_label(title)}];")


def _spline(points: tuple[Point, ...], height: float) -> str:
    """``e,x,y`` then a piecewise-cubic B-spline of straight pieces (3k+1 points) that
    stops an arrowhead's length before the end point."""
    end, before = points[-1], points[-2]
    length = math.hypot(end.x - before.x, end.y - before.y)
    cut = min(ARROW_LENGTH, length / 2) / length if length > 0 else 0.0
    tip_base = Point(end.x - (end.x - before.x) * cut, end.y - (end.y - before.y) * cut)
    path = [*points[:-1], tip_base]
    controls = [path[0]]
    for previous, current in pairwise(path):
        controls += [previous, current, current]
    return " ".join([f"e,{_pos(end, height)}", *(_pos(p, height) for p in controls)])


def _edge_line(route: EdgeRoute, label: str | None, loop_back: bool, height: float) -> str:
    attributes = [f"id={quote(route.id)}"]
    if len(route.points) >= 2:
        attributes.append(f'pos="{_spline(route.points, height)}"')
    box = edge_label_box(route, label)
    if label and box is not None:
        attributes += [f"label={_label(label)}", f'lp="{_pos(box.center, height)}"']
    if route.loop_back or loop_back:
        attributes += ["style=dashed", "loopBack=true"]
    return (f"  {quote(route.source)} -> {quote(route.target)} "
            f"[{', '.join(attributes)}];")
