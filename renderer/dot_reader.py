"""DOT text -> :class:`Diagram`, read with pygraphviz (Graphviz's own parser).

What a Graphviz user writes is kept where our drawing can show it:

- ``rankdir`` (TB, LR, BT, RL) becomes the diagram's ``direction``, ``nodesep`` and
  ``ranksep`` (inches) its ``node_spacing`` and ``layer_spacing``; an option the caller
  gives wins over them.
- Shapes (:data:`DOT_OUTLINES`: box, ellipse, circle, doublecircle, diamond, plaintext,
  plain, point, note, tab, folder, cylinder, hexagon, record, ...) are drawn as such;
  the layout clips routes to ellipses, circles and diamonds, and to the box otherwise.
- Sizes: ``width``/``height`` in inches (72 px each) are minimums, as in Graphviz,
  exact with ``fixedsize=true``; ``width=0`` lets the label alone decide.
- Labels: ``\\N``, ``\\G``, ``\\n``/``\\l``/``\\r`` escapes; HTML-like labels as their
  text with line breaks; record labels as fields (:mod:`renderer.dot_labels`); ``xlabel``
  next to the node; an edge's ``xlabel`` when it has no ``label``.
- ``color``, ``fillcolor``, ``fontcolor``, ``penwidth`` and ``style`` (filled, dashed,
  dotted, bold, rounded, invis), every colour validated (:mod:`renderer.colours`).
- Undirected graphs and ``dir``/``arrowhead``/``arrowtail`` decide the arrowheads.
- Clusters (``subgraph cluster_*``, nested to any depth) become compound nodes, drawn
  as boxes with their ``label`` by engines that lay out compound nodes (elkjs); for the
  others the diagram carries a flat fallback graph and a warning (see
  :attr:`Diagram.flat_fallback`). A node in two clusters belongs to the first.
- ``rank=same/min/max/source/sink`` subgraphs become the graph's rank groups
  (:attr:`layouts.graph.Graph.rank_groups`); the layout's warnings name every group an
  engine could not keep.

Edge ids come from the ``id`` attribute (which must be unique), else ``"<tail>-><head>"``
(``#n`` appended for parallel edges); ``loopBack=true`` marks a declared back edge.
A syntax error names its line (from Graphviz's ``dot`` when it is installed; without it
pygraphviz alone reads the file). What the drawing cannot show is listed in the
diagram's ``warnings``.

>>> d = read_dot('digraph flow { rankdir=LR; a [shape=diamond, width=2]; a -> b [id=e1] }')
>>> d.name, d.graph.node("a").shape.value, d.graph.node("a").width, d.graph.edges[0].id
('flow', 'diamond', 144.0, 'e1')
>>> d.option_values["direction"], d.graph.node("b").shape.value
('LeftToRight', 'ellipse')
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from layouts.errors import InvalidOptionError
from layouts.graph import (
    Edge,
    Graph,
    Node,
    Port,
    PortConstraints,
    PortSide,
    RankGroup,
    RankKind,
)
from layouts.options import parse_direction
from layouts.result import Box
from renderer.colours import read_colour
from renderer.diagram import Diagram, EdgeView, NodeView, StepKind
from renderer.dot_labels import (
    HTML_MARK,
    RecordField,
    RecordSyntaxError,
    html_text,
    mark_html_strings,
    parse_record,
)
from renderer.figures import (
    LAYOUT_SHAPES,
    Dash,
    EdgeEnd,
    EdgeFigure,
    Figure,
    Outline,
    Paint,
)
from renderer.fonts import measure_text
from renderer.from_definition import edge_label_size
from renderer.record_layout import FIELD_PADDING_X, FIELD_PADDING_Y, field_boxes, natural_size
from renderer.styles import DOT_LABEL_TEXT
from workflow.dsl import generated_edge_id

PIXELS_PER_INCH = 72.0
DEFAULT_WIDTH = 0.75 * PIXELS_PER_INCH
DEFAULT_HEIGHT = 0.5 * PIXELS_PER_INCH
POINT_SIZE = 0.05 * PIXELS_PER_INCH
PERIPHERY_GAP = 4.0
MIN_SIZE = 1.0

DOT_OUTLINES: Mapping[str, Outline] = {
    "box": Outline.BOX, "rect": Outline.BOX, "rectangle": Outline.BOX,
    "square": Outline.BOX, "plaintext": Outline.NONE, "plain": Outline.NONE,
    "none": Outline.NONE, "underline": Outline.NONE,
    "ellipse": Outline.ELLIPSE, "oval": Outline.ELLIPSE, "egg": Outline.ELLIPSE,
    "circle": Outline.CIRCLE, "doublecircle": Outline.DOUBLE_CIRCLE,
    "mcircle": Outline.CIRCLE, "point": Outline.POINT,
    "diamond": Outline.DIAMOND, "mdiamond": Outline.DIAMOND,
    "note": Outline.NOTE, "tab": Outline.TAB, "folder": Outline.FOLDER,
    "cylinder": Outline.CYLINDER, "hexagon": Outline.HEXAGON,
    "octagon": Outline.OCTAGON, "doubleoctagon": Outline.OCTAGON,
    "tripleoctagon": Outline.OCTAGON, "triangle": Outline.TRIANGLE,
    "invtriangle": Outline.INVERTED_TRIANGLE, "parallelogram": Outline.PARALLELOGRAM,
    "trapezium": Outline.TRAPEZIUM, "invtrapezium": Outline.TRAPEZIUM,
    "house": Outline.HOUSE, "invhouse": Outline.HOUSE, "box3d": Outline.BOX_3D,
    "component": Outline.COMPONENT, "record": Outline.BOX, "mrecord": Outline.ROUNDED,
    "msquare": Outline.BOX, "pentagon": Outline.HEXAGON, "septagon": Outline.OCTAGON,
    "star": Outline.DIAMOND, "cds": Outline.BOX, "folder ": Outline.FOLDER,
}
"""Every Graphviz shape we draw, by its (lower-case) name; others draw as a box."""

RANKDIR_DIRECTIONS: Mapping[str, str] = {
    "TB": "TopToBottom", "LR": "LeftToRight", "BT": "BottomToTop", "RL": "RightToLeft"}
TRUE_WORDS = frozenset({"true", "yes", "1"})
SYNTAX_CHECK_SECONDS = 10.0
NODE_ATTRIBUTES = ("label", "shape", "width", "height", "fixedsize", "xlabel", "color",
                   "fillcolor", "fontcolor", "style", "penwidth", "peripheries")
EDGE_ATTRIBUTES = ("id", "label", "xlabel", "loopBack", "color", "style", "penwidth", "dir",
                   "arrowhead", "arrowtail", "tailport", "headport")
_SQUARE_SHAPES = frozenset({"square", "msquare", "circle", "doublecircle", "mcircle",
                            "point"})
_DIAMOND_LIKE = frozenset({Outline.DIAMOND})
_WIDENED = {Outline.ELLIPSE: math.sqrt(2), Outline.HEXAGON: 1.25, Outline.OCTAGON: 1.2,
            Outline.TRIANGLE: 2.0, Outline.INVERTED_TRIANGLE: 2.0,
            Outline.PARALLELOGRAM: 1.3, Outline.TRAPEZIUM: 1.3, Outline.HOUSE: 1.2}
"""How much wider than the label box a shape must be for the label to fit inside."""


class DotReadError(ValueError):
    """The text is not DOT that can be read, or pygraphviz is missing."""


def read_dot(text: str, *, default_name: str = "graph") -> Diagram:
    """A diagram from DOT text (positions in the text are ignored)."""
    return diagram_from_dot_graph(parse_dot(text), default_name=default_name)


def dot_counts(agraph: Any) -> tuple[int, int]:
    """Number of nodes and edges of a parsed DOT graph (cheap: no sizes measured)."""
    return int(agraph.number_of_nodes()), int(agraph.number_of_edges())


@dataclass(frozen=True, slots=True)
class _GraphContext:
    """What every node and edge of one graph is read with: ``flow_sides`` are the sides
    edges enter and leave a node by along ``rankdir`` (record ports sit there)."""

    name: str
    directed: bool
    vertical_records: bool
    flow_sides: tuple[PortSide, PortSide] = (PortSide.NORTH, PortSide.SOUTH)


FLOW_SIDES: Mapping[str, tuple[PortSide, PortSide]] = {
    "TB": (PortSide.NORTH, PortSide.SOUTH), "BT": (PortSide.SOUTH, PortSide.NORTH),
    "LR": (PortSide.WEST, PortSide.EAST), "RL": (PortSide.EAST, PortSide.WEST)}
"""(entry, exit) side of every node for each ``rankdir``."""


def dot_texts(agraph: Any) -> Iterator[tuple[str, str | None]]:
    """Every node name and label, edge id and label of a parsed DOT graph, as
    ``(where, text)`` pairs (for the reader's label-length limit; nothing measured)."""
    for node_name in _node_names(agraph):
        yield "a node name", node_name
        yield f"node {node_name[:40]!r} label", agraph.get_node(node_name).attr.get("label")
    for edge in agraph.edges():
        where = f"edge {str(edge[0])[:20]!r} -> {str(edge[1])[:20]!r}"
        yield f"{where} id", edge.attr.get("id")
        yield f"{where} label", edge.attr.get("label")


def diagram_from_dot_graph(agraph: Any, *, default_name: str = "graph") -> Diagram:
    """A diagram from a graph parsed by :func:`parse_dot`."""
    name = agraph.name or default_name
    defaults, warnings = _graph_defaults(agraph)
    rankdir = str(agraph.graph_attr.get("rankdir") or "TB").upper()
    context = _GraphContext(name, bool(agraph.is_directed()), rankdir in ("LR", "RL"),
                            FLOW_SIDES.get(rankdir, FLOW_SIDES["TB"]))
    nodes, views = [], {}
    wanted = compass_ports(agraph)
    for node_name in _node_names(agraph):
        attributes = _attributes(agraph.get_node(node_name).attr, NODE_ATTRIBUTES)
        node, view = _node(str(node_name), attributes, context, wanted.get(str(node_name), ()))
        nodes.append(node)
        views[node.id] = view
    ports = {p.id for n in nodes for p in n.ports}
    edges, edge_views, unknown = _edges(agraph, context, ports)
    if unknown:
        warnings.append(f"{unknown} edge end(s) name a port that is not a record field; "
                        "they attach to the whole node")
    groups = rank_groups(agraph)
    flat = Graph(tuple(replace(n, ports=(), port_constraints=PortConstraints.UNDEFINED)
                       for n in nodes),
                 tuple(replace(e, source_port=None, target_port=None) for e in edges),
                 rank_groups=groups)
    flat.validate()
    tree = _clusters(agraph, {n.id for n in nodes}, context)
    views.update({cluster.id: cluster.view for cluster in _walk(tree)})
    graph = Graph(_nest(tree, nodes) if tree else tuple(nodes), tuple(edges),
                  rank_groups=groups)
    graph.validate()
    if graph.is_flat():
        return Diagram(name, flat, views, edge_views, option_values=defaults,
                       warnings=tuple(warnings))
    return Diagram(name, graph, views, edge_views, option_values=defaults,
                   warnings=tuple(warnings), flat_fallback=flat)


@dataclass(frozen=True, slots=True)
class _Cluster:
    """A cluster subgraph: its compound node's id and view, the ids of the nodes that
    belong to it directly, and its sub-clusters."""

    id: str
    view: NodeView
    label_size: tuple[float, float]
    members: tuple[str, ...]
    children: tuple[_Cluster, ...]


def _walk(tree: tuple[_Cluster, ...]) -> list[_Cluster]:
    out: list[_Cluster] = []
    stack = list(reversed(tree))
    while stack:
        cluster = stack.pop()
        out.append(cluster)
        stack.extend(reversed(cluster.children))
    return out


def _clusters(agraph: Any, node_ids: set[str], context: _GraphContext) -> tuple[_Cluster, ...]:
    """The cluster tree, each node in the first (deepest) cluster that has it."""
    taken: set[str] = set()
    used_ids = set(node_ids)

    def visit(graph: Any) -> tuple[_Cluster, ...]:
        found: list[_Cluster] = []
        for sub in graph.subgraphs():
            name = str(sub.name or "")
            inner = visit(sub)
            if not name.startswith("cluster"):
                found.extend(inner)
                continue
            members = tuple(str(n) for n in sub.nodes() if str(n) not in taken)
            taken.update(members)
            cluster_id = str(sub.graph_attr.get("id") or "") or name   # our writer's id
            while cluster_id in used_ids:
                cluster_id += "_"
            used_ids.add(cluster_id)
            found.append(_cluster(sub, cluster_id, members, inner, context))
        return tuple(found)

    return visit(agraph)


def _cluster(sub: Any, cluster_id: str, members: tuple[str, ...],
             inner: tuple[_Cluster, ...], context: _GraphContext) -> _Cluster:
    attributes = _attributes(sub.graph_attr, ("label", "color", "fillcolor", "bgcolor",
                                              "fontcolor", "style", "penwidth"))
    if "fillcolor" not in attributes and "bgcolor" in attributes:
        attributes = {**attributes, "fillcolor": attributes["bgcolor"], "style":
                      attributes.get("style", "") + ",filled"}
    title = _label_text(attributes.get("label"), "", context.name)
    styles = _styles(attributes)
    figure = Figure(Outline.CLUSTER, _paint(attributes, styles), hidden="invis" in styles)
    width, height = measure_text(title, DOT_LABEL_TEXT.size) if title else (0.0, 0.0)
    view = NodeView(StepKind.PLAIN, title, figure=figure)
    return _Cluster(cluster_id, view, (math.ceil(width) + 16.0, math.ceil(height) + 8.0)
                    if title else (0.0, 0.0), members, inner)


def _nest(tree: tuple[_Cluster, ...], nodes: list[Node]) -> tuple[Node, ...]:
    """The root's nodes: the clusters (as compound nodes) and the nodes of no cluster,
    in the order the nodes were declared."""
    by_id = {n.id: n for n in nodes}
    home: dict[str, _Cluster] = {}
    for cluster in _walk(tree):
        home.update({member: cluster for member in cluster.members})

    def compound(cluster: _Cluster) -> Node:
        children = [by_id[m] for m in cluster.members if m in by_id and home[m] is cluster]
        children += [compound(c) for c in cluster.children]
        width, height = cluster.label_size
        return Node(cluster.id, max(width, MIN_SIZE), max(height, MIN_SIZE), label=
                    cluster.view.title, children=tuple(children), label_width=width,
                    label_height=height)

    roots = [compound(c) for c in tree]
    return (*roots, *(n for n in nodes if n.id not in home))


SPACING_ATTRIBUTES: Mapping[str, str] = {"nodesep": "node_spacing",
                                         "ranksep": "layer_spacing"}
"""Graph attributes in inches and the layout option each one sets (in px)."""


def _graph_defaults(agraph: Any) -> tuple[dict[str, object], list[str]]:
    """Layout options the graph asks for (``rankdir``, ``nodesep``, ``ranksep``) and what
    it asked for in vain.

    >>> _graph_defaults(parse_dot("digraph { ranksep=1; nodesep=0.25; rankdir=RL }"))
    ({'direction': 'RightToLeft', 'node_spacing': 18.0, 'layer_spacing': 72.0}, [])
    """
    values: dict[str, object] = {}
    warnings: list[str] = []
    rankdir = str(agraph.graph_attr.get("rankdir") or "").strip().upper()
    direction = RANKDIR_DIRECTIONS.get(rankdir)
    if rankdir and direction is None:
        warnings.append(f"rankdir={rankdir} is not TB, LR, BT or RL; drawn top to bottom")
    elif direction is not None:
        try:
            parse_direction(direction)
            values["direction"] = direction
        except InvalidOptionError:
            warnings.append(f"rankdir={rankdir} needs the {direction} direction, which this "
                            "build lacks; drawn top to bottom")
    for attribute, option in SPACING_ATTRIBUTES.items():
        raw = str(agraph.graph_attr.get(attribute) or "").split()
        try:
            inches = float(raw[0]) if raw else math.nan
        except ValueError:
            inches = math.nan
        if math.isfinite(inches) and 0.02 <= inches <= 10:
            values[option] = round(inches * PIXELS_PER_INCH, 2)
        elif raw:
            warnings.append(f"{attribute}={' '.join(raw)} is not a number of inches from "
                            "0.02 to 10; ignored")
    return values, warnings


def rank_groups(agraph: Any) -> tuple[RankGroup, ...]:
    """Every ``rank=same/min/max/source/sink`` subgraph (nested at any depth, clusters
    too) as a rank group of its nodes, in the order the subgraphs appear; empty ones
    dropped.

    >>> groups = rank_groups(parse_dot("digraph { a -> b; {rank=same; b; c} {rank=min; a} }"))
    >>> [(g.kind.value, g.nodes) for g in groups]
    [('same', ('b', 'c')), ('min', ('a',))]
    """
    out = []
    stack = list(reversed(agraph.subgraphs()))
    while stack:
        sub = stack.pop()
        kind = str(sub.graph_attr.get("rank") or "").strip().lower()
        nodes = tuple(str(n) for n in sub.nodes())
        if kind in RankKind._value2member_map_ and nodes:
            out.append(RankGroup(nodes, RankKind(kind)))
        stack.extend(reversed(sub.subgraphs()))
    return tuple(out)


def _node_names(agraph: Any) -> list[str]:
    """The node names; a node named ``""`` is a :class:`DotReadError` (Graphviz keeps it
    anonymous, and pygraphviz then fails with a ``TypeError`` on its missing name)."""
    try:
        return [str(node_name) for node_name in agraph.nodes()]
    except TypeError:
        raise DotReadError('a node has the empty name ""; give every node a name') from None


def parse_dot(text: str) -> Any:
    """The ``pygraphviz.AGraph`` of DOT text; :class:`DotReadError` names the problem.
    HTML-like labels come back marked (see :func:`renderer.dot_labels.mark_html_strings`)."""
    try:
        import pygraphviz
    except ImportError:
        raise DotReadError("reading DOT needs pygraphviz, which is not installed (pip install "
                           "pygraphviz; it needs Debian's graphviz and libgraphviz-dev)") from None
    # Check the syntax with dot first: libcgraph prints its own error to the process's
    # stderr when it fails to parse, which would break the CLI's one-line error.
    problem = _syntax_problem(text)
    if problem is not None:
        raise DotReadError(f"not valid DOT: {problem}")
    try:
        return pygraphviz.AGraph(string=mark_html_strings(text))
    except (pygraphviz.DotError, ValueError, TypeError) as exc:
        raise DotReadError(f"not valid DOT: {exc}") from None


def syntax_check_command() -> list[str] | None:
    """Graphviz's parse-only ``gc`` (it counts nodes and edges), else ``dot -Tcanon``
    (which lays the graph out as well: 3.3 s instead of 0.2 s for 3,000 record nodes);
    ``None`` without Graphviz's tools."""
    gc, dot = shutil.which("gc"), shutil.which("dot")
    if gc is not None:
        return [gc]
    return [dot, "-Tcanon"] if dot is not None else None


def _syntax_problem(text: str) -> str | None:
    """Graphviz's own message (with its line number) for text that failed to parse;
    ``None`` when it parses (or Graphviz's tools are not installed: pygraphviz then
    reports alone)."""
    command = syntax_check_command()
    if command is None:
        return None
    try:
        done = subprocess.run(command, input=text.encode("utf-8"),
                              capture_output=True, timeout=SYNTAX_CHECK_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    message = done.stderr.decode("utf-8", "replace").strip().replace("<stdin>: ", "")
    lines = [line.removeprefix("Error: ") for line in message.splitlines()]
    syntax = [line for line in lines if "syntax error" in line]
    # only a parse error counts (gc exits 0 even then): dot also fails on what its own
    # drawing needs (an <IMG> file that is not there), which our drawing never reads
    return syntax[0] if syntax else None


_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def _attributes(attr: Any, keys: tuple[str, ...]) -> dict[str, str]:
    """The effective values of ``keys``, defaults from ``node [...]``/``edge [...]``
    statements included (iterating pygraphviz attributes yields only local values)."""
    values = {key: attr.get(key) for key in keys}
    return {key: str(value) for key, value in values.items() if value not in (None, "")}


def _label_text(raw: str | None, default: str, graph_name: str) -> str:
    """A DOT label as plain text: HTML-like labels as their text, escapes read left to
    right (so ``\\\\n`` stays a backslash followed by ``n``)."""
    if raw is None or raw == "":
        return default
    if raw.startswith(HTML_MARK):
        return html_text(raw.removeprefix(HTML_MARK))
    replacements = {"N": default, "G": graph_name, "n": "\n", "l": "\n", "r": "\n",
                    "\\": "\\"}
    text = _ESCAPE.sub(lambda m: replacements.get(m.group(1), m.group(0)), raw)
    return text.rstrip("\n") or default


def _inches(attributes: Mapping[str, str], key: str, where: str) -> float | None:
    """A size in px from inches; ``width=0`` is allowed (the label decides)."""
    raw = attributes.get(key)
    if raw is None or raw == "":
        return None
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0 or value > 10_000:
        raise DotReadError(f"{where} has {key}={raw!r}; it must be a number of inches from "
                           "0 to 10000")
    return value * PIXELS_PER_INCH


def _styles(attributes: Mapping[str, str]) -> set[str]:
    return {part.strip().lower().split("(")[0] for part in attributes.get("style", "").split(",")
            if part.strip()}


def _pen_width(attributes: Mapping[str, str], styles: set[str], default: float) -> float:
    raw = attributes.get("penwidth")
    try:
        width = float(raw) if raw is not None else default
    except ValueError:
        width = default
    width = width if math.isfinite(width) and 0 <= width <= 20 else default
    return max(width, 2.0) if "bold" in styles else width


def _dash(styles: set[str]) -> Dash:
    if "dashed" in styles:
        return Dash.DASHED
    return Dash.DOTTED if "dotted" in styles else Dash.SOLID


def _paint(attributes: Mapping[str, str], styles: set[str]) -> Paint:
    stroke = read_colour(attributes.get("color"))
    filled = bool(styles & {"filled", "radial", "striped", "wedged"})
    fill = read_colour(attributes.get("fillcolor")) or (stroke if filled else None)
    return Paint(fill=fill, stroke=stroke, text=read_colour(attributes.get("fontcolor")),
                 stroke_width=_pen_width(attributes, styles, 1.2), dash=_dash(styles),
                 filled=filled)


def _outline(shape_name: str, styles: set[str]) -> Outline:
    outline = DOT_OUTLINES.get(shape_name, Outline.BOX)
    if outline is Outline.BOX and "rounded" in styles:
        return Outline.ROUNDED
    return outline


def _node(node_id: str, attributes: Mapping[str, str], context: _GraphContext,
          compass: tuple[tuple[str, str], ...] = ()) -> tuple[Node, NodeView]:
    shape_name = attributes.get("shape", "ellipse").strip().lower()
    styles = _styles(attributes)
    outline = _outline(shape_name, styles)
    raw_label = attributes.get("label")
    record = None
    if shape_name in ("record", "mrecord") and not (raw_label or "").startswith(HTML_MARK):
        try:
            record = parse_record(raw_label if raw_label is not None else "\\N")
        except RecordSyntaxError as exc:
            raise DotReadError(f"node '{node_id}': {exc}") from None
        record = _record_texts(record, node_id, context.name)
        title = " | ".join(record.texts())
    else:
        title = _label_text(raw_label, node_id, context.name)
    xlabel = _label_text(attributes.get("xlabel"), "", context.name) or None
    figure = Figure(outline, _paint(attributes, styles), record=record,
                    record_vertical=context.vertical_records, xlabel=xlabel,
                    peripheries=2 if outline is Outline.DOUBLE_CIRCLE else 1,
                    hidden="invis" in styles)
    if outline is Outline.POINT:
        title = ""
    width, height = _node_size(figure, title, shape_name, attributes, f"node '{node_id}'")
    view = NodeView(StepKind.PLAIN, title, figure=figure)
    ports = _record_ports(node_id, figure, width, height, context) if record else ()
    ports += _compass_ports(node_id, figure, width, height, compass)
    constraints = PortConstraints.FIXED_POS if ports else PortConstraints.UNDEFINED
    options: tuple[tuple[str, str], ...] = ()
    if record is not None:   # dot draws the record itself and routes to its fields
        options = (("graphviz.shape", shape_name), ("graphviz.label", raw_label or "\\N"))
    return Node(node_id, width, height, LAYOUT_SHAPES[outline], title, ports=ports,
                port_constraints=constraints, layout_options=options), view


def record_port_id(node_id: str, field: str, exit_side: bool) -> str:
    """The id of a record field's port: one where edges enter, one where they leave.

    >>> record_port_id("s", "f0", True)
    's:f0:out'
    """
    return f"{node_id}:{field}:{'out' if exit_side else 'in'}"


def _record_ports(node_id: str, figure: Figure, width: float, height: float,
                  context: _GraphContext) -> tuple[Port, ...]:
    """Two ports per named field, on the node's entry and exit sides across from the
    field's centre (Graphviz clips an edge to its field; a layered drawing enters and
    leaves a node along the flow)."""
    assert figure.record is not None
    ports: list[Port] = []
    seen: set[str] = set()
    for box, leaf in field_boxes(figure.record, Box(0, 0, width, height),
                                 not figure.record_vertical):
        if leaf.port is None or leaf.port in seen:
            continue
        seen.add(leaf.port)
        for exit_side, side in ((False, context.flow_sides[0]), (True, context.flow_sides[1])):
            x = {PortSide.WEST: 0.0, PortSide.EAST: width}.get(side, box.center.x)
            y = {PortSide.NORTH: 0.0, PortSide.SOUTH: height}.get(side, box.center.y)
            ports.append(Port(record_port_id(node_id, leaf.port, exit_side), side, x=x, y=y,
                              layout_options=((GRAPHVIZ_PORT, leaf.port),)))
    return tuple(ports)


COMPASS_SIDES: Mapping[str, PortSide] = {
    "n": PortSide.NORTH, "ne": PortSide.NORTH, "nw": PortSide.NORTH,
    "s": PortSide.SOUTH, "se": PortSide.SOUTH, "sw": PortSide.SOUTH,
    "e": PortSide.EAST, "w": PortSide.WEST}
"""The side of the node each compass point is on (corners: their north/south face)."""
GRAPHVIZ_PORT = "graphviz.port"
GRAPHVIZ_COMPASS = "graphviz.compass"
"""Port options for the graphviz provider: the record field and compass point dot
routes an edge end to (``node:port:compass``)."""


def compass_port_id(node_id: str, field: str, compass: str) -> str:
    """The id of the port for ``node:field:compass`` (``field`` empty: ``node:compass``).

    >>> compass_port_id("a", "f0", "n"), compass_port_id("a", "", "se")
    ('a:f0:n', 'a::se')
    """
    return f"{node_id}:{field}:{compass}"


def split_port(raw: str | None) -> tuple[str, str]:
    """``(field, compass)`` of a DOT edge end's port (``tailport``/``headport``): a field
    name, a compass point, or both as ``field:compass``; ``_``/``c`` mean no compass.

    >>> split_port("f0:ne"), split_port("sw"), split_port("f1"), split_port("f0:_")
    (('f0', 'ne'), ('', 'sw'), ('f1', ''), ('f0', ''))
    """
    parts = [p.strip() for p in (raw or "").split(":")]
    field, compass = (parts[0], parts[1].lower()) if len(parts) > 1 else (parts[0], "")
    if not compass and (field.lower() in COMPASS_SIDES or field in ("_", "c")):
        field, compass = "", field.lower()
    return field, compass if compass in COMPASS_SIDES else ""


def compass_ports(agraph: Any) -> dict[str, tuple[tuple[str, str], ...]]:
    """Each node -> the ``(field, compass)`` pairs its edge ends name with a compass
    point, in the order first met."""
    wanted: dict[str, dict[tuple[str, str], None]] = {}
    fields: dict[str, set[str]] = {}
    for edge in agraph.edges():
        for node_name, key in ((str(edge[0]), "tailport"), (str(edge[1]), "headport")):
            field, compass = split_port(edge.attr.get(key))
            if not field and compass:   # a record field named like a compass point wins
                if node_name not in fields:
                    fields[node_name] = record_fields(agraph.get_node(node_name).attr)
                if compass in fields[node_name]:
                    continue
            if compass:
                wanted.setdefault(node_name, {})[(field, compass)] = None
    return {node: tuple(pairs) for node, pairs in wanted.items()}


def record_fields(attr: Any) -> set[str]:
    """The port names of a record node's fields (none for other nodes or a bad label)."""
    values = _attributes(attr, ("shape", "label"))
    if values.get("shape", "").strip().lower() not in ("record", "mrecord"):
        return set()
    label = values.get("label", "\\N")
    if label.startswith(HTML_MARK):
        return set()
    try:
        return set(parse_record(label).ports())
    except RecordSyntaxError:
        return set()


def _compass_ports(node_id: str, figure: Figure, width: float, height: float,
                   wanted: tuple[tuple[str, str], ...]) -> tuple[Port, ...]:
    """A port per ``(field, compass)``: at the compass point of the node's box, or, for
    a record field, where the field meets the node's face on that side."""
    fields = {}
    if figure.record is not None:
        fields = {leaf.port: box for box, leaf in field_boxes(
            figure.record, Box(0, 0, width, height), not figure.record_vertical)
            if leaf.port is not None}
    ports = []
    for field, compass in wanted:
        if field and field not in fields:
            continue   # not a field of this node: the edge attaches to the whole node
        area = fields.get(field, Box(0, 0, width, height))
        x = {"e": width, "w": 0.0}.get(compass[-1], area.center.x)
        y = {"n": 0.0, "s": height}.get(compass[0], area.center.y)
        options = (((GRAPHVIZ_PORT, field),) if field else ()) + ((GRAPHVIZ_COMPASS, compass),)
        ports.append(Port(compass_port_id(node_id, field, compass), COMPASS_SIDES[compass],
                          x=x, y=y, layout_options=options))
    return tuple(ports)


def _record_texts(field: RecordField, node_id: str, graph_name: str) -> RecordField:
    """The record with every field's escapes read (a lone ``\\N`` is the node's name)."""
    if not field.children:
        return replace(field, text=_label_text(field.text, "", graph_name)
                       if field.text != "\\N" else node_id)
    return replace(field, children=tuple(_record_texts(c, node_id, graph_name)
                                         for c in field.children))


def _label_box(figure: Figure, title: str) -> tuple[float, float]:
    """The box the label needs inside the node, padding included."""
    if figure.record is not None:
        return natural_size(figure.record, horizontal=not figure.record_vertical)
    if not title:
        return 0.0, 0.0
    width, height = measure_text(title, DOT_LABEL_TEXT.size, bold=DOT_LABEL_TEXT.bold)
    return width + 2 * FIELD_PADDING_X, height + 2 * FIELD_PADDING_Y


def _node_size(figure: Figure, title: str, shape_name: str, attributes: Mapping[str, str],
               where: str) -> tuple[float, float]:
    """Graphviz's sizing: ``width``/``height`` (default 0.75 x 0.5 in) are minimums
    around the label, exact with ``fixedsize``; circles and squares stay square."""
    given_width = _inches(attributes, "width", where)
    given_height = _inches(attributes, "height", where)
    if figure.outline is Outline.POINT:
        side = min(v for v in (given_width, given_height, POINT_SIZE) if v is not None)
        return max(side, MIN_SIZE), max(side, MIN_SIZE)
    plain = shape_name == "plain"
    min_width = given_width if given_width is not None else (0.0 if plain else DEFAULT_WIDTH)
    min_height = given_height if given_height is not None else (0.0 if plain else
                                                                 DEFAULT_HEIGHT)
    fixed = attributes.get("fixedsize", "").lower() in TRUE_WORDS | {"shape"}
    label_width, label_height = _label_box(figure, title)
    if figure.outline in (Outline.CIRCLE, Outline.DOUBLE_CIRCLE):
        label_width = label_height = math.hypot(label_width, label_height)
    elif figure.outline in _DIAMOND_LIKE:
        label_width, label_height = 2 * label_width, 2 * label_height
    else:
        factor = _WIDENED.get(figure.outline, 1.0)
        label_width *= factor
        label_height *= math.sqrt(2) if figure.outline is Outline.ELLIPSE else 1.0
    extra = 2 * PERIPHERY_GAP * (figure.peripheries - 1)
    if fixed and (given_width is not None or given_height is not None):
        width, height = min_width, min_height
    else:
        width = max(min_width, float(math.ceil(label_width + extra)))
        height = max(min_height, float(math.ceil(label_height + extra)))
    if shape_name in _SQUARE_SHAPES:
        width = height = max(width, height)
    return max(width, MIN_SIZE), max(height, MIN_SIZE)


_DIR_ENDS: Mapping[str, tuple[bool, bool]] = {
    "forward": (True, False), "back": (False, True), "both": (True, True),
    "none": (False, False)}
"""(head, tail) arrowheads of each ``dir`` value."""


def _edge_figure(attributes: Mapping[str, str], directed: bool) -> EdgeFigure:
    styles = _styles(attributes)
    default_dir = "forward" if directed else "none"
    head, tail = _DIR_ENDS.get(attributes.get("dir", default_dir).lower(),
                               _DIR_ENDS[default_dir])
    head = head and attributes.get("arrowhead", "normal").lower() != "none"
    tail = tail and attributes.get("arrowtail", "normal").lower() != "none"
    return EdgeFigure(
        stroke=read_colour(attributes.get("color")),
        stroke_width=_pen_width(attributes, styles, 1.4), dash=_dash(styles),
        head=EdgeEnd.ARROW if head else EdgeEnd.NONE,
        tail=EdgeEnd.ARROW if tail else EdgeEnd.NONE, hidden="invis" in styles)


def _edge_port(node_id: str, raw: str | None, exit_side: bool, ports: set[str]
               ) -> tuple[str | None, bool]:
    """The port id an edge end names (``field``, ``compass`` or ``field:compass``), and
    whether the end named a field that is not a port of the node."""
    field, compass = split_port(raw)
    if not field and not compass:
        return None, False
    if not field and record_port_id(node_id, compass, exit_side) in ports:
        field, compass = compass, ""   # Graphviz: a port name before a compass point
    port = (compass_port_id(node_id, field, compass) if compass
            else record_port_id(node_id, field, exit_side))
    return (port, False) if port in ports else (None, True)


def _edges(agraph: Any, context: _GraphContext, ports: set[str]
           ) -> tuple[list[Edge], dict[str, EdgeView], int]:
    """The edges; an ``id`` given twice is left for ``Graph.validate`` to refuse."""
    seen: dict[str, int] = {}
    given = {str(e.attr.get("id")) for e in agraph.edges() if e.attr.get("id")}
    edges, views, unknown = [], {}, 0
    for edge in agraph.edges():
        tail, head = str(edge[0]), str(edge[1])
        attributes = _attributes(edge.attr, EDGE_ATTRIBUTES)
        edge_id = attributes.get("id") or generated_edge_id(f"{tail}->{head}", seen, given)
        raw_label = attributes.get("label") or attributes.get("xlabel")
        label = _label_text(raw_label, "", context.name) if raw_label else None
        width, height = edge_label_size(label)
        loop_back = attributes.get("loopBack", "").lower() in TRUE_WORDS
        source_port, bad_tail = _edge_port(tail, attributes.get("tailport"), True, ports)
        target_port, bad_head = _edge_port(head, attributes.get("headport"), False, ports)
        unknown += bad_tail + bad_head
        edges.append(Edge(edge_id, tail, head, label or None, loop_back, width, height,
                          source_port=source_port, target_port=target_port))
        views[edge_id] = EdgeView(label or None, figure=_edge_figure(attributes,
                                                                     context.directed))
    return edges, views, unknown
