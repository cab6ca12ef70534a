"""Output formats: one table of formats, their media types and file extensions.

>>> format_for_path("out/run.elk.json"), format_for_path("graph.GV")
(<OutputFormat.ELK: 'elk'>, <OutputFormat.DOT: 'dot'>)
>>> MEDIA_TYPES[OutputFormat.SVG]
'image/svg+xml'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from pathlib import PurePath

from layouts.result import LayoutResult
from renderer.bpmn_writer import write_bpmn
from renderer.diagram import Diagram
from renderer.dot_writer import write_dot
from renderer.elk_json import write_elk_json
from renderer.svg import write_svg


class OutputFormat(StrEnum):
    """What a laid-out diagram can be written as."""

    SVG = "svg"
    JSON = "json"
    ELK = "elk"
    DOT = "dot"
    BPMN = "bpmn"
    """The BPMN input written back with new diagram interchange (BPMN input only)."""


MEDIA_TYPES: Mapping[OutputFormat, str] = {
    OutputFormat.SVG: "image/svg+xml",
    OutputFormat.JSON: "application/json",
    OutputFormat.ELK: "application/json",
    OutputFormat.DOT: "text/vnd.graphviz",
    OutputFormat.BPMN: "application/xml",
}

EXTENSIONS: tuple[tuple[str, OutputFormat], ...] = (
    # longest first, so ".elk.json" wins over ".json"
    (".elk.json", OutputFormat.ELK),
    (".svg", OutputFormat.SVG),
    (".json", OutputFormat.JSON),
    (".dot", OutputFormat.DOT),
    (".gv", OutputFormat.DOT),
    (".bpmn", OutputFormat.BPMN),
)


def _write_json(diagram: Diagram, result: LayoutResult) -> bytes:
    return result.to_json().encode("utf-8")


WRITERS: Mapping[OutputFormat, Callable[[Diagram, LayoutResult], bytes]] = {
    OutputFormat.SVG: write_svg,
    OutputFormat.JSON: _write_json,
    OutputFormat.ELK: write_elk_json,
    OutputFormat.DOT: write_dot,
    OutputFormat.BPMN: write_bpmn,
}


def format_for_path(path: str | PurePath) -> OutputFormat:
    """The output format a file name asks for, by its extension (case-insensitive).

    Raises ``ValueError`` naming an unknown extension and the known ones.
    """
    name = PurePath(path).name.lower()
    for extension, output_format in EXTENSIONS:
        if name.endswith(extension):
            return output_format
    known = ", ".join(extension for extension, _ in EXTENSIONS)
    suffix = PurePath(name).suffix or "(none)"
    raise ValueError(f"unknown output extension {suffix!r} of '{path}'; expected one of {known}")


def write_output(diagram: Diagram, result: LayoutResult, fmt: OutputFormat | str) -> bytes:
    """The diagram laid out as ``result``, written in format ``fmt`` (``json`` is our
    result schema, :meth:`LayoutResult.to_json`); ``fmt`` is case-insensitive.

    Raises ``ValueError`` naming an unknown format.

    >>> from layouts.graph import Graph, Node
    >>> from layouts.result import Diagnostics, LayoutResult, NodeBox
    >>> result = LayoutResult((NodeBox("a", 0, 0, 9, 9),), (), 9, 9,
    ...                       Diagnostics("hand", "draft", "TopToBottom"))
    >>> write_output(Diagram("d", Graph((Node("a", 9, 9),))), result, "dot")[:11]
    b'digraph "d"'
    """
    try:
        output_format = OutputFormat(str(fmt).strip().lower())
    except ValueError:
        known = ", ".join(f.value for f in OutputFormat)
        raise ValueError(f"unknown output format {fmt!r}; expected one of {known}") from None
    return WRITERS[output_format](diagram, result)
