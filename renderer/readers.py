"""Any supported input -> :class:`Diagram`, detecting the format from the text.

Formats, checked in this order:

1. DOT (a file named ``*.dot``/``*.gv``, or text starting ``digraph``, ``graph`` or
   ``strict``), read with pygraphviz;
2. a workflow definition (YAML or JSON with ``workflow`` and ``steps``), read by
   :mod:`workflow.dsl` and drawn by :mod:`renderer.from_definition`;
3. ELK JSON (an object with ``children``), read by :mod:`renderer.elk_json`;
4. our graph JSON (an object with ``nodes``), read by :meth:`Graph.from_dict`.

Unreadable input raises :class:`ReaderError` naming the problem (with the line where the
parser gives one); a readable but inconsistent graph (duplicate ids, dangling edges)
raises :class:`layouts.errors.InvalidGraphError` naming the id. Inputs beyond
:data:`INPUT_LIMITS` (nodes, edges, characters of an id or label) are refused with
:class:`InputLimitError` naming the limit, before any text is measured or laid out.

>>> diagram = read_diagram('digraph g { a -> b [label="yes"] }')
>>> [n.id for n in diagram.graph.nodes], diagram.graph.edges[0].label
(['a', 'b'], 'yes')
>>> read_diagram('{"nodes": [{"id": "a", "width": 50, "height": 20}]}').graph.nodes[0].width
50.0
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path, PurePath

import yaml

from layouts.graph import Graph
from renderer.diagram import Diagram
from renderer.dot_reader import (
    DotReadError,
    diagram_from_dot_graph,
    dot_counts,
    dot_texts,
    parse_dot,
)
from renderer.elk_json import ElkJsonError, read_elk_graph
from renderer.from_definition import diagram_from_definition
from workflow.dsl import Definition, DslError, definition_from_data, looks_like_definition


class ReaderError(ValueError):
    """The input cannot be read as any supported format; the message names the problem."""


class InputLimitError(ReaderError):
    """The input is readable but over one of :data:`INPUT_LIMITS`; the message names it."""


@dataclass(frozen=True, slots=True)
class InputLimits:
    """The largest input the renderer accepts."""

    max_nodes: int = 5000
    max_edges: int = 20000
    max_bytes: int = 20_000_000
    max_values: int = 1_000_000
    """Values in the parsed document counted with YAML aliases expanded, so a small
    "billion laughs" file cannot blow up later processing."""
    max_depth: int = 200
    """Levels of lists and objects, YAML aliases followed: a chain of anchors builds
    values far deeper than the parser allows, which recursive code (``json.dumps``,
    ``repr``) then cannot handle."""
    max_label_length: int = 1000
    """Characters of one node or edge id, label or subtitle: text is measured glyph by
    glyph and drawn on one line, so a megabyte label only costs time and memory."""


INPUT_LIMITS = InputLimits()

DOT_EXTENSIONS = (".dot", ".gv")
_DOT_START = re.compile(r"(strict\s+)?(di)?graph\b(?!\s*:)", re.IGNORECASE)
"""DOT's first keyword, but not a YAML key such as ``graph:``."""
_LEADING_COMMENTS = re.compile(r"\A(\s+|//[^\n]*|#[^\n]*|/\*.*?\*/)*", re.DOTALL)
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader (ten times faster than PyYAML's pure-Python one) when PyYAML was
built with it, which its wheels are."""
MAX_FLOW_DEPTH = 400
"""Most open ``[``/``{`` in YAML text; PyYAML's parser hits Python's recursion limit at
about 490 levels anyway."""
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
KNOWN_FORMATS = ("a workflow definition (YAML/JSON with 'workflow' and 'steps'), ELK JSON "
                 "(an object with 'children'), graph JSON (an object with 'nodes') or DOT "
                 "('digraph ...')")


def read_diagram(data: bytes | str, *, filename: str | None = None) -> Diagram:
    """Read a diagram from DOT, a workflow definition, ELK JSON or graph JSON.

    ``filename`` (optional) helps detection (``.dot``/``.gv``) and names the diagram.
    """
    text = _decode(data)
    name = PurePath(filename).name.split(".")[0] if filename else "graph"
    if _looks_like_dot(text, filename):
        try:
            agraph = parse_dot(text)
            _check_counts(*dot_counts(agraph))
            _check_texts(dot_texts(agraph))
            return diagram_from_dot_graph(agraph, default_name=name)
        except DotReadError as exc:
            raise ReaderError(str(exc)) from None
    return _read_structured(_parse(text), name)


def read_document(data: bytes | str) -> object:
    """Parse YAML or JSON text under the reader's size, depth and alias limits.

    >>> read_document(b"workflow: w")
    {'workflow': 'w'}
    """
    return _parse(_decode(data))


def read_definition_document(data: bytes | str) -> Definition:
    """A workflow definition (DSL, YAML or JSON) under the reader's limits.

    >>> read_definition_document(b"nodes: []")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    renderer.readers.ReaderError: not a workflow definition: expected a mapping with ...
    """
    document = read_document(data)
    if not looks_like_definition(document):
        raise ReaderError("not a workflow definition: expected a mapping with 'workflow' "
                          "and 'steps'")
    return definition_from_data(document)


def read_diagram_file(path: str | Path) -> Diagram:
    """Read a diagram from a file (see :func:`read_diagram`); the file name helps detection.

    >>> read_diagram_file("/nonexistent/flow.dot")
    Traceback (most recent call last):
    renderer.readers.ReaderError: cannot read /nonexistent/flow.dot: No such file or directory
    """
    file = Path(path)
    try:
        size = file.stat().st_size
        if size > INPUT_LIMITS.max_bytes:
            raise ReaderError(f"{file} has {size} bytes; the limit is "
                              f"{INPUT_LIMITS.max_bytes}")
        data = file.read_bytes()
    except OSError as exc:
        raise ReaderError(f"cannot read {file}: {exc.strerror or exc}") from None
    return read_diagram(data, filename=file.name)


def _decode(data: bytes | str) -> str:
    size = len(data.encode("utf-8")) if isinstance(data, str) else len(data)
    if size > INPUT_LIMITS.max_bytes:
        raise ReaderError(f"input has {size} bytes; the limit is {INPUT_LIMITS.max_bytes}")
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReaderError(f"input is not UTF-8 text (bad byte at offset {exc.start})") from None


def _looks_like_dot(text: str, filename: str | None) -> bool:
    if filename and filename.lower().endswith(DOT_EXTENSIONS):
        return True
    start = _LEADING_COMMENTS.match(text)
    rest = text[start.end():] if start else text
    return _DOT_START.match(rest) is not None


def _parse(text: str) -> object:
    """JSON when the text starts like JSON (for exact error positions), else YAML."""
    if not text.strip():
        raise ReaderError(f"input is empty; expected {KNOWN_FORMATS}")
    from_json = text.lstrip()[0] in "{["
    if not from_json:
        _check_flow_depth(text)
    try:
        data = json.loads(text) if from_json else yaml.load(text, Loader=SAFE_LOADER)
    except json.JSONDecodeError as exc:
        raise ReaderError(f"not valid JSON at line {exc.lineno} column {exc.colno}: "
                          f"{exc.msg}") from None
    except yaml.YAMLError as exc:
        if "maximum nesting depth" in str(exc):  # libyaml's own limit (1000 levels)
            raise ReaderError("input is nested too deeply to read") from None
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or exc
        raise ReaderError(f"not valid YAML{where}: {problem}") from None
    except RecursionError:
        raise ReaderError("input is nested too deeply to read") from None
    except ValueError as exc:  # YAML's "2020-13-01", "!!int x"; JSON's 5000-digit integers
        raise ReaderError(f"input has a value that cannot be read: {exc}") from None
    if isinstance(data, Mapping | list):
        _check_expanded_size(data)
        _check_unicode(data)
    return data


def _check_flow_depth(text: str) -> None:
    """Refuse YAML with more than :data:`MAX_FLOW_DEPTH` open brackets before parsing:
    PyYAML's scanner takes time quadratic in the open brackets (2000 ``[`` took 6 s) and
    its parser would hit the recursion limit anyway. Brackets inside quotes count too, so
    only text with hundreds of unclosed brackets in strings is refused wrongly."""
    brackets = _NOT_BRACKETS.sub("", text)
    depth = max(accumulate(1 if c in "[{" else -1 for c in brackets), default=0)
    if depth > MAX_FLOW_DEPTH:
        raise ReaderError(f"input is nested too deeply to read (more than {MAX_FLOW_DEPTH} "
                          "open brackets)")


def _containers(item: object) -> list[object]:
    values = item.values() if isinstance(item, Mapping) else item
    assert isinstance(values, Iterable)
    return [v for v in values if isinstance(v, Mapping | list)]


def _check_expanded_size(data: object) -> None:
    """Count values and levels as if YAML aliases were copied out (each shared part is
    measured once, then reused), refusing documents over the limits or that contain
    themselves."""
    limit = INPUT_LIMITS.max_values
    sizes: dict[int, int] = {}
    depths: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[object, bool]] = [(data, False)]
    while stack:
        item, finished = stack.pop()
        key = id(item)
        if finished:
            own = len(item) if isinstance(item, Mapping | list) else 0
            sizes[key] = min(limit + 1, own + sum(sizes[id(c)] for c in _containers(item)))
            depths[key] = 1 + max((depths[id(c)] for c in _containers(item)), default=0)
            if depths[key] > INPUT_LIMITS.max_depth:
                raise ReaderError(f"input is nested too deeply to read (more than "
                                  f"{INPUT_LIMITS.max_depth} levels, YAML aliases followed)")
            on_path.discard(key)
        elif key in on_path:
            raise ReaderError("input contains itself (a YAML alias inside its own anchor)")
        elif key not in sizes:
            on_path.add(key)
            stack.append((item, True))
            stack.extend((c, False) for c in _containers(item) if id(c) not in sizes)
    if sizes[id(data)] > limit:
        raise ReaderError(f"input expands to more than {limit} values (YAML aliases "
                          "repeating large parts?)")


def _check_unicode(data: object) -> None:
    """Refuse strings with lone surrogates (JSON's or YAML's ``"\\ud800"``): they are not
    Unicode text and no writer can encode them as UTF-8."""
    seen: set[int] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        texts = [*item.keys(), *item.values()] if isinstance(item, Mapping) else item
        assert isinstance(texts, Iterable)
        for text in texts:
            if isinstance(text, str) and not text.isascii():
                _check_text(text)
        stack.extend(_containers(item))


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        raise ReaderError(f"input has the lone surrogate \\u{code:04x} in {text[:40]!r}; "
                          "it is not valid Unicode text") from None


def _check_counts(nodes: int, edges: int) -> None:
    if nodes > INPUT_LIMITS.max_nodes:
        raise InputLimitError(f"input has {nodes} nodes; the limit is "
                              f"{INPUT_LIMITS.max_nodes} (max_nodes)")
    if edges > INPUT_LIMITS.max_edges:
        raise InputLimitError(f"input has {edges} edges; the limit is "
                              f"{INPUT_LIMITS.max_edges} (max_edges)")


def _check_texts(texts: Iterable[tuple[str, str | None]]) -> None:
    """Refuse the first ``(where, text)`` whose text is over the label-length limit.

    >>> _check_texts([("node 'a' label", "x" * 1001)])  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    renderer.readers.InputLimitError: node 'a' label has 1001 characters;
    the limit is 1000 (max_label_length)
    """
    limit = INPUT_LIMITS.max_label_length
    for where, text in texts:
        if text is not None and len(text) > limit:
            raise InputLimitError(f"{where} has {len(text)} characters; the limit "
                                  f"is {limit} (max_label_length)")


def definition_texts(definition: Definition) -> Iterator[tuple[str, str | None]]:
    """Every text of a definition that its drawing measures: step ids and subtitles,
    edge ids (guards are shortened to :data:`renderer.guards.MAX_LABEL_LENGTH`)."""
    for step in definition.steps:
        yield "a step id", step.id
        for name in ("agent", "tool", "workflow"):
            yield f"step {step.id[:40]!r} {name}", getattr(step, name)
    for transition in definition.edges:
        yield "an edge id", transition.id


def graph_texts(graph: Graph) -> Iterator[tuple[str, str | None]]:
    """Every id and label of a layout graph."""
    for node in graph.nodes:
        yield "a node id", node.id
        yield f"node {node.id[:40]!r} label", node.label
    for edge in graph.edges:
        yield "an edge id", edge.id
        yield f"edge {edge.id[:40]!r} label", edge.label


def _length(data: Mapping[str, object], key: str) -> int:
    value = data.get(key)
    return len(value) if isinstance(value, list) else 0


def _read_structured(data: object, name: str) -> Diagram:
    if not isinstance(data, Mapping):
        raise ReaderError(f"input is a {type(data).__name__}, not an object; expected "
                          f"{KNOWN_FORMATS}")
    if looks_like_definition(data):
        _check_counts(_length(data, "steps"), _length(data, "edges"))
        try:
            definition = definition_from_data(data)
            _check_texts(definition_texts(definition))
            return diagram_from_definition(definition)
        except DslError as exc:
            raise ReaderError(f"workflow definition: {exc}") from None
    if "children" in data:
        _check_counts(_length(data, "children"), _length(data, "edges"))
        try:
            diagram = read_elk_graph(data)
        except ElkJsonError as exc:
            raise ReaderError(f"ELK JSON: {exc}") from None
        _check_texts(graph_texts(diagram.graph))
        return diagram
    if "nodes" in data:
        _check_counts(_length(data, "nodes"), _length(data, "edges"))
        graph = Graph.from_dict(data)
        _check_texts(graph_texts(graph))
        return Diagram(name, graph)
    keys = ", ".join(sorted(str(k) for k in data)[:8]) or "none"
    raise ReaderError(f"unrecognised input (top-level keys: {keys}); expected {KNOWN_FORMATS}")
