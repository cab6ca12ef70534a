"""An svgwrite drawing as XML text, written in one walk of svgwrite's own elements.

``svgwrite.Drawing.tostring()`` first builds an ElementTree of the drawing (one
``Element`` per svgwrite element, each attribute converted and set), then ElementTree walks
that tree twice (once to collect namespaces, once to write). For the reference drawing the
tree building alone was a third of the writer's time. :func:`xml_text` writes the same
bytes straight from the svgwrite elements with ElementTree's own escaping
(``tests/renderer/test_svg.py`` checks them against ``tostring()`` on every fixture):
attributes sorted by name as svgwrite sorts them, ``None`` and empty values left out,
empty elements as ``<tag ... />``. Elements whose class writes its XML its own way (a
``<style>``'s CDATA section, a ``<title>``, a ``<use>``'s reference), and any element in
svgwrite's validating ``debug`` mode, go through their own ``get_xml()``.

>>> import svgwrite
>>> drawing = svgwrite.Drawing(size=(10, 10), debug=False)
>>> _ = drawing.add(drawing.text("a < b", insert=(1, 2)))
>>> xml_text(drawing) == drawing.tostring()
True
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

from svgwrite.base import BaseElement
from svgwrite.drawing import Drawing
from svgwrite.etree import CDATA_TAG, CDATA_TPL
from svgwrite.text import TSpan

_escape_attribute: Callable[[str], str] = getattr(ET, "_escape_attrib")  # noqa: B009
_escape_text: Callable[[str], str] = getattr(ET, "_escape_cdata")  # noqa: B009
_needs_escape = re.compile('[&<>"\r\n\t]').search
"""Whether an attribute value holds a character that ``_escape_attribute`` replaces (one
scan instead of its seven; most values are numbers and colours)."""

_PLAIN_XML = BaseElement.get_xml
"""The ``get_xml`` of elements that are only their attributes and children."""
_TEXT_XML = TSpan.get_xml
"""The ``get_xml`` of ``<text>``/``<tspan>``: attributes, then ``str(element.text)``."""
_DRAWING_XML = Drawing.get_xml
"""The root's ``get_xml``: it first sets the namespace and profile attributes."""


def xml_text(drawing: Any) -> str:
    """The XML of ``drawing`` (any svgwrite element), as ``drawing.tostring()`` gives it."""
    parts: list[str] = []
    _emit(drawing, parts.append)
    return "".join(parts)


def _emit(element: Any, write: Callable[[str], object]) -> None:
    """Write one svgwrite element and its children."""
    get_xml = type(element).get_xml
    if get_xml not in (_PLAIN_XML, _TEXT_XML, _DRAWING_XML) or element.debug:
        _write(element.get_xml(), write)  # its own XML, exactly as svgwrite builds it
        return
    if get_xml is _DRAWING_XML:
        element.attribs.update(_root_attributes(element))  # as Drawing.get_xml does
    write("<" + element.elementname)
    for name, value in sorted(element.attribs.items()):
        if value is not None:
            # value_to_string is str() for a str unless svgwrite validates (debug: above)
            text_value = value if type(value) is str else element.value_to_string(value)
            if text_value:
                if _needs_escape(text_value):
                    text_value = _escape_attribute(text_value)
                write(f' {name}="{text_value}"')
    text = str(element.text) if get_xml is _TEXT_XML else None
    children = element.elements
    if text or children:
        write(">")
        if text:
            write(_escape_text(text))
        for child in children:
            _emit(child, write)
        write("</" + element.elementname + ">")
    else:
        write(" />")


def _root_attributes(drawing: Drawing) -> dict[str, str]:
    return {"xmlns": "http://www.w3.org/2000/svg",
            "xmlns:xlink": "http://www.w3.org/1999/xlink",
            "xmlns:ev": "http://www.w3.org/2001/xml-events",
            "baseProfile": drawing.profile, "version": drawing.version}


def _write(element: ET.Element, write: Callable[[str], object]) -> None:
    """Write an ElementTree element (what svgwrite's ``get_xml()`` returns)."""
    tag = element.tag
    if tag == CDATA_TAG:
        write(CDATA_TPL % element.text)
        return
    write("<" + tag)
    for name, value in element.items():
        write(f' {name}="{_escape_attribute(value)}"')
    text = element.text
    if text or len(element):
        write(">")
        if text:
            write(_escape_text(text))
        for child in element:
            _write(child, write)
        write("</" + tag + ">")
    else:
        write(" />")
    if element.tail:
        write(_escape_text(element.tail))
