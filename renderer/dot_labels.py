"""DOT's two structured label kinds: HTML-like labels and record labels.

**HTML-like labels** (``label=<...>``) are shown as their text: ``<BR/>`` and the end of
a table row break lines, table cells are separated by a space, entities are decoded,
and every tag is dropped (never drawn as markup). Graphviz's parser keeps no trace of
which strings were HTML once pygraphviz hands them over, so :func:`mark_html_strings`
rewrites each ``<...>`` string of the DOT text as a quoted string starting with
:data:`HTML_MARK` before parsing.

**Record labels** (``shape=record``/``Mrecord``) are fields separated by ``|``; braces
flip a group between horizontal and vertical; ``<port>`` names a field (see
http://graphviz.org/doc/info/shapes.html#record).

>>> html_text("<B>Total</B><BR/>a &amp; b")
'Total\\na & b'
>>> parse_record("<in> a|{b|<out> c}").children[1].children[1].port
'out'
>>> mark_html_strings('a [label=<x<BR/>y>]') == 'a [label="' + HTML_MARK + 'x<BR/>y"]'
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

HTML_MARK = "\ue000"
"""Start of a DOT string that was an HTML-like label (a private-use character)."""

LINE_BREAK_TAGS = frozenset({"br"})
ROW_END_TAGS = frozenset({"tr"})
CELL_TAGS = frozenset({"td"})


class _TextOfHtml(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.row_cells = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in LINE_BREAK_TAGS:
            self.parts.append("\n")
        elif tag in CELL_TAGS:
            if self.row_cells:
                self.parts.append(" ")
            self.row_cells += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in ROW_END_TAGS:
            self.parts.append("\n")
            self.row_cells = 0

    def handle_data(self, data: str) -> None:
        self.parts.append(" ".join(data.split()) if data.strip() else "")


def html_text(markup: str) -> str:
    """The text an HTML-like label shows, one string with ``\\n`` between lines."""
    parser = _TextOfHtml()
    parser.feed(markup)
    parser.close()
    lines = [line.strip() for line in "".join(parser.parts).split("\n")]
    return "\n".join(line for line in lines if line)


_PLAIN_RUN = re.compile(r'[^"<>/#\n]+')


def mark_html_strings(text: str) -> str:
    """DOT ``text`` with each HTML string ``<...>`` (outside quoted strings and comments)
    turned into a quoted string that starts with :data:`HTML_MARK`; an unbalanced ``<``
    is left for Graphviz's parser to report."""
    out: list[str] = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if c == '"':
            j = _quoted_end(text, i)
            out.append(text[i:j])
            i, line_start = j, False
        elif c == "<":
            j = _html_end(text, i)
            if j < 0:
                out.append(text[i:])
                break
            inner = text[i + 1:j - 1].replace("\\", "\\\\").replace('"', '\\"')
            out.append(f'"{HTML_MARK}{inner}"')
            i, line_start = j, False
        elif text.startswith("//", i) or (c == "#" and line_start):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(text[i:j])
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(text[i:j])
            i = j
        else:
            match = _PLAIN_RUN.match(text, i)
            j = match.end() if match else i + 1
            out.append(text[i:j])
            line_start = text[i:j].endswith("\n") or (line_start and not text[i:j].strip())
            i = j
    return "".join(out)


def _quoted_end(text: str, start: int) -> int:
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return len(text)


def _html_end(text: str, start: int) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "<":
            depth += 1
        elif text[i] == ">":
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


@dataclass(frozen=True, slots=True)
class RecordField:
    """One field of a record label: a leaf with ``text`` (and maybe a ``port``), or a
    group of ``children`` laid out across the parent's direction."""

    text: str = ""
    port: str | None = None
    children: tuple[RecordField, ...] = ()

    def ports(self) -> list[str]:
        """Every port name, in the order the fields are written.

        >>> parse_record("<a> x|{<b> y|z}").ports()
        ['a', 'b']
        """
        own = [self.port] if self.port else []
        return own + [p for child in self.children for p in child.ports()]

    def texts(self) -> list[str]:
        """The text of every leaf, in order (``\\N``-style escapes already read)."""
        if not self.children:
            return [self.text] if self.text else []
        return [t for child in self.children for t in child.texts()]


class RecordSyntaxError(ValueError):
    """A record label with unbalanced braces or a broken port name."""


def parse_record(label: str) -> RecordField:
    """The field tree of a record label (the root is a group)."""
    fields, end = _record_group(label, 0)
    if end < len(label):
        raise RecordSyntaxError(f"record label {label[:40]!r} has an unmatched '}}'")
    return RecordField(children=tuple(fields))


def _record_group(label: str, start: int) -> tuple[list[RecordField], int]:
    fields: list[RecordField] = []
    current: list[str] = []
    port: str | None = None
    nested: RecordField | None = None
    i = start
    while i < len(label):
        c = label[i]
        if c == "\\" and i + 1 < len(label):
            current.append(label[i:i + 2] if label[i + 1] in "nlr" else label[i + 1])
            i += 2
            continue
        if c == "{":
            children, i = _record_group(label, i + 1)
            if i >= len(label):
                raise RecordSyntaxError(f"record label {label[:40]!r} has an unclosed '{{'")
            nested = RecordField(children=tuple(children))
            i += 1
            continue
        if c in "|}":
            fields.append(nested or RecordField(_clean("".join(current)), port))
            current, port, nested = [], None, None
            if c == "}":
                return fields, i
            i += 1
            continue
        if c == "<":
            close = label.find(">", i)
            if close < 0:
                raise RecordSyntaxError(f"record label {label[:40]!r} has an unclosed '<'")
            port = label[i + 1:close].strip() or None
            i = close + 1
            continue
        current.append(c)
        i += 1
    fields.append(nested or RecordField(_clean("".join(current)), port))
    return fields, i


def _clean(text: str) -> str:
    return " ".join(text.split(" ")).strip()
