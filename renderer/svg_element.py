"""A small typed SVG builder: elements as plain attribute dicts, written in one pass.

:class:`SvgDrawing` offers the part of svgwrite's element factory the drawing modules use
(``g``, ``rect``, ``text``, ``tspan``, ``path``, ``polygon``, ``circle``, ``ellipse``,
``marker``, ``style``) with svgwrite's argument and attribute rules, and
:meth:`SvgElement.tostring` writes the bytes svgwrite's ``tostring()`` gives for the same
calls, without svgwrite's per-element parameter objects, validator lookups and
ElementTree (``tests/renderer/test_svg.py`` checks the bytes against svgwrite itself, as
an oracle, on every fixture). The rules kept:

- keyword names: a trailing ``_`` dropped, inner ``_`` as ``-`` (``class_`` -> ``class``,
  ``stroke_width`` -> ``stroke-width``); item assignment keeps the name as given;
- values: ``str()`` of anything not a string; ``None`` and empty values left out;
  attributes sorted by name, escaped as ElementTree escapes them (``&<>"`` and
  ``\\r\\n\\t``); text escaped for ``&<>``;
- an element without text or children as ``<tag ... />``; a ``<style>``'s content as a
  CDATA section; the root with svgwrite's namespaces, ``baseProfile="full"`` and
  ``version="1.1"``, its ``<title>`` first and its ``<defs>`` next.

>>> drawing = SvgDrawing(size=("10", "10"), viewBox="0 0 10 10")
>>> label = drawing.add(drawing.text("a < b", insert=("1", "2"), class_="label"))
>>> label.tostring()
'<text class="label" x="1" y="2">a &lt; b</text>'
>>> drawing.rect(insert=(0, 0), size=(4.0, 2), rx=None, fill_opacity="").tostring()
'<rect height="2" width="4.0" x="0" y="0" />'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from enum import Enum

AttributeValue = object
"""What an attribute may hold: a string, a number (written with ``str()``) or ``None``."""

SVG_NAMESPACES = {"xmlns": "http://www.w3.org/2000/svg",
                  "xmlns:xlink": "http://www.w3.org/1999/xlink",
                  "xmlns:ev": "http://www.w3.org/2001/xml-events",
                  "baseProfile": "full", "version": "1.1"}
"""The root's attributes svgwrite adds (its default ``full`` profile)."""

_ATTRIBUTE_SPECIAL = re.compile('[&<>"\r\n\t]')
_TEXT_SPECIAL = re.compile("[&<>]")
_ATTRIBUTE_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                      "\r": "&#13;", "\n": "&#10;", "\t": "&#09;"}
"""ElementTree's attribute escapes (``xml.etree.ElementTree._escape_attrib``)."""
_TEXT_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def escape_attribute(value: str) -> str:
    """``value`` escaped for a double-quoted attribute, as ElementTree escapes it.

    >>> escape_attribute('a&b "c"\\n')
    'a&amp;b &quot;c&quot;&#10;'
    """
    if _ATTRIBUTE_SPECIAL.search(value) is None:  # most values: numbers and colours
        return value
    return _ATTRIBUTE_SPECIAL.sub(lambda m: _ATTRIBUTE_ESCAPES[m.group(0)], value)


def escape_text(text: str) -> str:
    """``text`` escaped as element content.

    >>> escape_text("x < y & z > \\"q\\"")
    'x &lt; y &amp; z &gt; "q"'
    """
    if _TEXT_SPECIAL.search(text) is None:
        return text
    return _TEXT_SPECIAL.sub(lambda m: _TEXT_ESCAPES[m.group(0)], text)


def attribute_name(keyword: str) -> str:
    """The SVG attribute a keyword argument names (svgwrite's rule).

    >>> attribute_name("class_"), attribute_name("stroke_width"), attribute_name("id")
    ('class', 'stroke-width', 'id')
    """
    name = _NAMES.get(keyword)
    if name is None:
        name = _NAMES[keyword] = keyword.rstrip("_").replace("_", "-")
    return name


_NAMES: dict[str, str] = {}
"""Keyword -> attribute name, filled as keywords are first seen (the drawing modules use
a few dozen)."""


class Content(Enum):
    """How an element's text is written."""

    TEXT = "text"
    """Escaped character data (``<text>``, ``<tspan>``, ``<title>``)."""
    CDATA = "cdata"
    """A CDATA section, unescaped (``<style>``)."""


class SvgElement:
    """One SVG element: its tag, attributes, text and children.

    >>> group = SvgElement("g", {"id": "nodes"})
    >>> _ = group.add(SvgElement("circle", {"r": 2}))
    >>> group["data-step-id"] = "a"
    >>> group.update({"class_": "node"})
    >>> group.tostring()
    '<g class="node" data-step-id="a" id="nodes"><circle r="2" /></g>'
    """

    __slots__ = ("attribs", "content", "elements", "tag", "text")

    def __init__(self, tag: str, attribs: dict[str, AttributeValue] | None = None,
                 text: str | None = None, content: Content = Content.TEXT) -> None:
        self.tag = tag
        self.attribs: dict[str, AttributeValue] = attribs if attribs is not None else {}
        self.elements: list[SvgElement] = []
        self.text = text
        self.content = content

    def add(self, element: SvgElement) -> SvgElement:
        """Append ``element`` as the last child; returns it."""
        self.elements.append(element)
        return element

    def update(self, attribs: Mapping[str, AttributeValue]) -> None:
        """Set attributes named as keyword arguments are (see :func:`attribute_name`)."""
        names, own = _NAMES, self.attribs
        for key, value in attribs.items():
            name = names.get(key)
            own[attribute_name(key) if name is None else name] = value

    def __getitem__(self, name: str) -> AttributeValue:
        return self.attribs[name]

    def __setitem__(self, name: str, value: AttributeValue) -> None:
        self.attribs[name] = value

    def tostring(self) -> str:
        """This element and its children as XML text."""
        parts: list[str] = []
        self.write(parts.append)
        return "".join(parts)

    def write(self, write: Callable[[str], object]) -> None:
        """Write this element and its children, one string at a time."""
        write("<" + self.tag + _attribute_text(self.attribs))
        text, children = self.text, self.elements
        if not text and not children:
            write(" />")
            return
        write(">")
        if text:
            write(escape_text(text) if self.content is Content.TEXT else f"<![CDATA[{text}]]>")
        for child in children:
            child.write(write)
        write("</" + self.tag + ">")


def _attribute_text(attribs: Mapping[str, AttributeValue]) -> str:
    """`` name="value"`` for every attribute with a non-empty value, sorted by name."""
    out = []
    special = _ATTRIBUTE_SPECIAL.search
    for name, value in sorted(attribs.items()):
        if value is None:
            continue
        text = value if type(value) is str else str(value)
        if text:
            out.append(f' {name}="{text}"' if special(text) is None
                       else f' {name}="{escape_attribute(text)}"')
    return "".join(out)


def _numbers(values: Iterable[AttributeValue]) -> str:
    """A list attribute (``x``, ``dy``): the values that are not ``None``, space-separated."""
    return " ".join(str(v) for v in values if v is not None)


Pair = tuple[AttributeValue, AttributeValue]


class SvgDrawing:
    """The root ``<svg>`` element and the factory of the others (svgwrite's names and
    arguments, so the drawing modules read as before).

    >>> drawing = SvgDrawing(size=("20", "10"), viewBox="0 0 20 10")
    >>> drawing.set_desc(title="demo")
    >>> drawing.tostring()[:60]
    '<svg baseProfile="full" height="10" version="1.1" viewBox="0'
    >>> drawing.tostring().endswith('<title>demo</title><defs /></svg>')
    True
    """

    __slots__ = ("defs", "root")

    def __init__(self, size: Pair = ("100%", "100%"), **extra: AttributeValue) -> None:
        self.root = SvgElement("svg", {"width": size[0], "height": size[1]})
        self.root.update(extra)
        self.root.attribs.update(SVG_NAMESPACES)
        self.defs = self.root.add(SvgElement("defs"))

    def add(self, element: SvgElement) -> SvgElement:
        """Append ``element`` to the root; returns it."""
        return self.root.add(element)

    def set_desc(self, title: str) -> None:
        """Put a ``<title>`` first."""
        self.root.elements.insert(0, SvgElement("title", text=title))

    def tostring(self) -> str:
        """The whole drawing as XML text."""
        return self.root.tostring()

    @staticmethod
    def _made(tag: str, extra: Mapping[str, AttributeValue],
              **fixed: AttributeValue) -> SvgElement:
        element = SvgElement(tag)
        element.update(extra)
        element.attribs.update(fixed)
        return element

    def g(self, **extra: AttributeValue) -> SvgElement:
        return self._made("g", extra)

    def rect(self, insert: Pair = (0, 0), size: Pair = (1, 1), rx: AttributeValue = None,
             ry: AttributeValue = None, **extra: AttributeValue) -> SvgElement:
        element = self._made("rect", extra, x=insert[0], y=insert[1], width=size[0],
                             height=size[1])
        if rx is not None:
            element.attribs["rx"] = rx
        if ry is not None:
            element.attribs["ry"] = ry
        return element

    def circle(self, center: Pair = (0, 0), r: AttributeValue = 1,
               **extra: AttributeValue) -> SvgElement:
        return self._made("circle", extra, cx=center[0], cy=center[1], r=r)

    def ellipse(self, center: Pair = (0, 0), r: Pair = (1, 1),
                **extra: AttributeValue) -> SvgElement:
        return self._made("ellipse", extra, cx=center[0], cy=center[1], rx=r[0], ry=r[1])

    def path(self, d: str | None = None, **extra: AttributeValue) -> SvgElement:
        return self._made("path", extra, d=d or "")

    def polygon(self, points: Iterable[Pair] = (), **extra: AttributeValue) -> SvgElement:
        element = self._made("polygon", extra)
        element.attribs["points"] = " ".join(f"{x},{y}" for x, y in points)
        return element

    def text(self, text: str, insert: Pair | None = None, **extra: AttributeValue
             ) -> SvgElement:
        return self._text("text", text, insert, extra)

    def tspan(self, text: str, insert: Pair | None = None, x: Iterable[AttributeValue] | None
              = None, dy: Iterable[AttributeValue] | None = None,
              **extra: AttributeValue) -> SvgElement:
        element = self._text("tspan", text, insert, extra)
        if x is not None:
            element.attribs["x"] = _numbers(x)
        if dy is not None:
            element.attribs["dy"] = _numbers(dy)
        return element

    def _text(self, tag: str, text: str, insert: Pair | None,
              extra: Mapping[str, AttributeValue]) -> SvgElement:
        element = self._made(tag, extra)
        element.text = str(text)
        if insert is not None:
            element.attribs["x"] = _numbers((insert[0],))
            element.attribs["y"] = _numbers((insert[1],))
        return element

    def marker(self, insert: Pair, size: Pair, orient: str,
               **extra: AttributeValue) -> SvgElement:
        return self._made("marker", extra, refX=insert[0], refY=insert[1],
                          markerWidth=size[0], markerHeight=size[1], orient=orient)

    def style(self, content: str) -> SvgElement:
        return SvgElement("style", {"type": "text/css"}, content, Content.CDATA)
