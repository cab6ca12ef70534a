"""Any supported input -> :class:`Diagram`, detecting the format from the text.

Formats, checked in this order:

0. gzip-compressed input (by its magic bytes; ``.gv.gz``) is decompressed first, up to
   :attr:`InputLimits.max_bytes` of output, so a small "gzip bomb" is refused;
1. DOT (a file named ``*.dot``/``*.gv``, or text starting ``digraph``, ``graph`` or
   ``strict``), read with pygraphviz, in the ``charset`` it declares (UTF-8 by default,
   ``latin1`` and every other encoding Python knows);
1b. BPMN 2.0 XML (a ``*.bpmn`` file, or XML in the BPMN model namespace), read by
   :mod:`renderer.bpmn_reader` with defusedxml;
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

import codecs
import re
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath

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
from workflow.documents import DOCUMENT_LIMITS, DocumentError, DocumentLimits, parse_document
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
    max_bytes: int = DOCUMENT_LIMITS.max_bytes
    max_values: int = DOCUMENT_LIMITS.max_values
    """Values in the parsed document counted with YAML aliases expanded (see
    :mod:`workflow.documents`)."""
    max_depth: int = DOCUMENT_LIMITS.max_depth
    """Levels of lists and objects, YAML aliases followed."""
    max_label_length: int = 1000
    """Characters of one node or edge id, label or subtitle: text is measured glyph by
    glyph and drawn on one line, so a megabyte label only costs time and memory."""


INPUT_LIMITS = InputLimits()
_DOCUMENT_LIMITS = DocumentLimits(INPUT_LIMITS.max_bytes, INPUT_LIMITS.max_values,
                                  INPUT_LIMITS.max_depth)

DOT_EXTENSIONS = (".dot", ".gv", ".dot.gz", ".gv.gz")
BPMN_EXTENSIONS = (".bpmn", ".bpmn.gz", ".bpmn2", ".bpmn20.xml")
GZIP_MAGIC = b"\x1f\x8b"
_CHARSET = re.compile(rb"\bcharset\s*=\s*\"?([A-Za-z0-9_.:-]+)")
_CHARSET_TEXT = re.compile(r"\bcharset\s*=\s*(\"[^\"]*\"|[A-Za-z0-9_.:-]+)")
_XML_START = re.compile(r"\A\s*<")
_DOT_START = re.compile(r"(strict\s+)?(di)?graph\b(?!\s*:)", re.IGNORECASE)
"""DOT's first keyword, but not a YAML key such as ``graph:``."""
_LEADING_COMMENTS = re.compile(r"\A(\s+|//[^\n]*|#[^\n]*|/\*.*?\*/)*", re.DOTALL)
KNOWN_FORMATS = ("a workflow definition (YAML/JSON with 'workflow' and 'steps'), ELK JSON "
                 "(an object with 'children'), graph JSON (an object with 'nodes') or DOT "
                 "('digraph ...')")


def read_diagram(data: bytes | str, *, filename: str | None = None) -> Diagram:
    """Read a diagram from DOT, a workflow definition, ELK JSON or graph JSON.

    ``filename`` (optional) helps detection (``.dot``/``.gv``) and names the diagram.
    """
    raw = _gunzip(data) if isinstance(data, bytes) and data[:2] == GZIP_MAGIC else data
    name = PurePath(filename).name.split(".")[0] if filename else "graph"
    if _looks_like_bpmn(raw, filename):
        from renderer.bpmn_reader import BpmnReadError, read_bpmn

        size = len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
        if size > INPUT_LIMITS.max_bytes:
            raise ReaderError(f"input has {size} bytes; the limit is {INPUT_LIMITS.max_bytes}")
        try:
            diagram = read_bpmn(raw.encode("utf-8") if isinstance(raw, str) else raw,
                                default_name=name)
        except BpmnReadError as exc:
            raise ReaderError(str(exc)) from None
        _check_counts(len(diagram.graph.nodes), len(diagram.graph.edges))
        return diagram
    text = _decode_dot(raw, filename) if isinstance(raw, bytes) else _decode(raw)
    if _looks_like_dot(text, filename):
        try:
            agraph = parse_dot(text)
            _check_counts(*dot_counts(agraph))
            _check_texts(dot_texts(agraph))
            return diagram_from_dot_graph(agraph, default_name=name)
        except DotReadError as exc:
            raise ReaderError(str(exc)) from None
    if _XML_START.match(text.lstrip("\ufeff")):
        raise ReaderError("input is XML but not BPMN 2.0 (no element in the namespace "
                          "http://www.omg.org/spec/BPMN/20100524/MODEL); expected "
                          f"{KNOWN_FORMATS}")
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


def _gunzip(data: bytes) -> bytes:
    """Decompress gzip ``data``, refusing output beyond the byte limit (never inflating
    more than the limit plus one byte)."""
    limit = INPUT_LIMITS.max_bytes
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        raise ReaderError(f"input is not valid gzip: {exc}") from None
    if len(out) > limit:
        raise ReaderError(f"gzip input decompresses to more than {limit} bytes, the limit")
    if not inflater.eof:
        raise ReaderError("gzip input is truncated")
    return out


def _decode_dot(data: bytes, filename: str | None) -> str:
    """DOT bytes in the ``charset`` they declare (graph attribute); other input as UTF-8.

    >>> _decode_dot('graph { charset=latin1; a [label="caf\xe9"] }'.encode("latin-1"), None)[-8:]
    'café"] }'
    """
    head = data[:4096].decode("latin-1")
    found = _CHARSET.search(data) if _looks_like_dot(head, filename) else None
    if found is None:
        return _decode(data)
    charset = found.group(1).decode("ascii")
    try:
        codec = codecs.lookup(charset.replace("_", "-"))
    except LookupError:
        raise ReaderError(f"DOT input declares charset={charset!r}, which is not an encoding "
                          "this reader knows") from None
    try:
        text = _decode(data) if codec.name == "utf-8" else data.decode(codec.name)
    except UnicodeDecodeError as exc:
        raise ReaderError(f"input is not {charset} text (bad byte at offset "
                          f"{exc.start})") from None
    # the text is Unicode now, and is handed on as UTF-8: say so, or pygraphviz would
    # decode its attribute values in the declared charset once more
    return _CHARSET_TEXT.sub('charset="UTF-8"', text)


def _looks_like_bpmn(data: bytes | str, filename: str | None) -> bool:
    if filename and filename.lower().endswith(BPMN_EXTENSIONS):
        return True
    head = data[:65536] if isinstance(data, str) else data[:65536].decode("latin-1")
    return (_XML_START.match(head.lstrip("\ufeff")) is not None
            and "omg.org/spec/BPMN/20100524/MODEL" in head)


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
    """The document in ``text``, read by :func:`workflow.documents.parse_document` (the
    same guarded reading as the workflow DSL's) under :data:`INPUT_LIMITS`."""
    if not text.strip():
        raise ReaderError(f"input is empty; expected {KNOWN_FORMATS}")
    try:
        return parse_document(text, limits=_DOCUMENT_LIMITS)
    except DocumentError as exc:
        raise ReaderError(str(exc)) from None


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
