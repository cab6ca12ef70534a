"""DOT text -> :class:`Diagram`, read with pygraphviz (Graphviz's own parser).

Node sizes come from ``width``/``height`` (inches, 72 px each) where given, else from the
measured label (``\\N`` is the node name; ``\\n``, ``\\l``, ``\\r`` break lines). Shapes:
``diamond``/``Mdiamond`` -> diamond, ``circle``/``doublecircle``/``Mcircle``/``point`` ->
circle, anything else -> rect. Edge ids come from the ``id`` attribute (which must be
unique), else ``"<tail>-><head>"`` (``#n`` appended for parallel edges); ``loopBack=true``
marks a declared back edge. A syntax error names its line (taken from Graphviz's ``dot``).

>>> d = read_dot('digraph flow { a [shape=diamond, width=1]; a -> b [id=e1] }')
>>> d.name, d.graph.node("a").shape.value, d.graph.node("a").width, d.graph.edges[0].id
('flow', 'diamond', 72.0, 'e1')
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from typing import Any

from layouts.graph import Edge, Graph, Node, Shape
from renderer.diagram import Diagram, EdgeView, NodeView, StepKind
from renderer.from_definition import edge_label_size, node_size

PIXELS_PER_INCH = 72.0
DOT_SHAPES: Mapping[str, Shape] = {
    "diamond": Shape.DIAMOND, "mdiamond": Shape.DIAMOND,
    "circle": Shape.CIRCLE, "doublecircle": Shape.CIRCLE, "mcircle": Shape.CIRCLE,
    "point": Shape.CIRCLE,
}
TRUE_WORDS = frozenset({"true", "yes", "1"})
SYNTAX_CHECK_SECONDS = 10.0
NODE_ATTRIBUTES = ("label", "shape", "width", "height")
EDGE_ATTRIBUTES = ("id", "label", "loopBack")


class DotReadError(ValueError):
    """The text is not DOT that can be read, or pygraphviz is missing."""


def read_dot(text: str, *, default_name: str = "graph") -> Diagram:
    """A diagram of plain nodes from DOT text (positions in the text are ignored)."""
    return diagram_from_dot_graph(parse_dot(text), default_name=default_name)


def dot_counts(agraph: Any) -> tuple[int, int]:
    """Number of nodes and edges of a parsed DOT graph (cheap: no sizes measured)."""
    return int(agraph.number_of_nodes()), int(agraph.number_of_edges())


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
    """A diagram of plain nodes from a graph parsed by :func:`parse_dot`."""
    name = agraph.name or default_name
    nodes, views = [], {}
    for node_name in _node_names(agraph):
        attributes = _attributes(agraph.get_node(node_name).attr, NODE_ATTRIBUTES)
        node, view = _node(str(node_name), attributes, name)
        nodes.append(node)
        views[node.id] = view
    edges = _edges(agraph, name)
    graph = Graph(tuple(nodes), tuple(edges))
    graph.validate()
    edge_views = {e.id: EdgeView(e.label) for e in edges if e.label}
    return Diagram(name, graph, views, edge_views)


def _node_names(agraph: Any) -> list[str]:
    """The node names; a node named ``""`` is a :class:`DotReadError` (Graphviz keeps it
    anonymous, and pygraphviz then fails with a ``TypeError`` on its missing name)."""
    try:
        return [str(node_name) for node_name in agraph.nodes()]
    except TypeError:
        raise DotReadError('a node has the empty name ""; give every node a name') from None


def parse_dot(text: str) -> Any:
    """The ``pygraphviz.AGraph`` of DOT text; :class:`DotReadError` names the problem."""
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
        return pygraphviz.AGraph(string=text)
    except (pygraphviz.DotError, ValueError, TypeError) as exc:
        raise DotReadError(f"not valid DOT: {exc}") from None


def _syntax_problem(text: str) -> str | None:
    """Graphviz's own message (with its line number) for text that failed to parse.

    Graphviz's ``nop`` only parses and prints the graph back (``dot -Tcanon`` would lay it
    out first, which took seconds for large graphs)."""
    nop = shutil.which("nop")
    if nop is None:
        return None
    try:
        done = subprocess.run([nop], input=text.encode("utf-8"),
                              capture_output=True, timeout=SYNTAX_CHECK_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode == 0:
        return None
    message = done.stderr.decode("utf-8", "replace").strip().replace("<stdin>: ", "")
    return message.removeprefix("Error: ").splitlines()[0] if message else "Graphviz rejected it"


_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def _attributes(attr: Any, keys: tuple[str, ...]) -> dict[str, str]:
    """The effective values of ``keys``, defaults from ``node [...]``/``edge [...]``
    statements included (iterating pygraphviz attributes yields only local values)."""
    values = {key: attr.get(key) for key in keys}
    return {key: str(value) for key, value in values.items() if value not in (None, "")}


def _label_text(raw: str | None, default: str, graph_name: str) -> str:
    """A DOT label as plain text: escapes are read left to right, so ``\\\\n`` stays a
    backslash followed by ``n``."""
    if raw is None or raw == "":
        return default
    replacements = {"N": default, "G": graph_name, "n": "\n", "l": "\n", "r": "\n",
                    "\\": "\\"}
    text = _ESCAPE.sub(lambda m: replacements.get(m.group(1), m.group(0)), raw)
    return text.rstrip("\n") or default


def _inches(attributes: Mapping[str, str], key: str, where: str) -> float | None:
    raw = attributes.get(key)
    if raw is None or raw == "":
        return None
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise DotReadError(f"{where} has {key}={raw!r}; it must be a number of inches > 0")
    return value * PIXELS_PER_INCH


def _node(node_id: str, attributes: Mapping[str, str], graph_name: str) -> tuple[Node, NodeView]:
    title = _label_text(attributes.get("label"), node_id, graph_name)
    shape = DOT_SHAPES.get(attributes.get("shape", "").lower(), Shape.RECT)
    view = NodeView(StepKind.PLAIN, title)
    measured_width, measured_height = node_size(view, shape)
    where = f"node '{node_id}'"
    width = _inches(attributes, "width", where) or measured_width
    height = _inches(attributes, "height", where) or measured_height
    return Node(node_id, width, height, shape, title), view


def _generated_id(base: str, seen: dict[str, int], given: set[str]) -> str:
    """``base``, then ``base#2``, ``base#3``... for parallel edges without an ``id``,
    skipping the ids given explicitly."""
    while True:
        count = seen.get(base, 0) + 1
        seen[base] = count
        edge_id = base if count == 1 else f"{base}#{count}"
        if edge_id not in given:
            return edge_id


def _edges(agraph: Any, graph_name: str) -> list[Edge]:
    """The edges; an ``id`` given twice is left for ``Graph.validate`` to refuse."""
    seen: dict[str, int] = {}
    given = {str(e.attr.get("id")) for e in agraph.edges() if e.attr.get("id")}
    edges = []
    for edge in agraph.edges():
        tail, head = str(edge[0]), str(edge[1])
        attributes = _attributes(edge.attr, EDGE_ATTRIBUTES)
        edge_id = attributes.get("id") or _generated_id(f"{tail}->{head}", seen, given)
        raw_label = attributes.get("label")
        label = _label_text(raw_label, "", graph_name) if raw_label else None
        width, height = edge_label_size(label)
        loop_back = attributes.get("loopBack", "").lower() in TRUE_WORDS
        edges.append(Edge(edge_id, tail, head, label or None, loop_back, width, height))
    return edges
