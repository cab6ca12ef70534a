"""A drawing made fit to sit inside a Studio page.

The SVG writer's document (:mod:`renderer.svg`) is changed only in start tags: the XML
declaration goes, the root loses its fixed size (the page sizes it, and the ``viewBox``
keeps the aspect) and gains an id, and every step group becomes a focusable button
(``tabindex="0" role="button"``) with any extra classes a page asks for (the diff page's
``diff-added`` and so on). Attribute values stay as the writer escaped them; only
constant names and class names are added.

>>> svg = (b'<?xml version="1.0"?>\\n<svg height="9" viewBox="0 0 9 9" width="9">'
...        b'<g class="node kind-tool" data-step-id="a&amp;b" id="n"></g>'
...        b'<g class="edge" data-edge-id="e" id="edge-e"></g></svg>')
>>> for tag in inline_svg(svg, step_classes={"a&b": "diff-added"}).split("><"):
...     print(tag)
<svg viewBox="0 0 9 9" id="drawing-svg"
g class="node kind-tool diff-added" data-step-id="a&amp;b" id="n" tabindex="0" role="button"
/g
g class="edge" data-edge-id="e" id="edge-e"
/g
/svg>
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping

_START_TAG = re.compile(r"<(svg|g)(\s[^>]*)?>")
_ATTRIBUTE = re.compile(r'([A-Za-z_:][-A-Za-z0-9_:.]*)="([^"]*)"')
_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>\s*")

SVG_ID = "drawing-svg"


def inline_svg(svg: bytes, *, step_classes: Mapping[str, str] | None = None,
               edge_classes: Mapping[str, str] | None = None) -> str:
    """``svg`` as markup for an HTML page, with the changes the module describes;
    ``step_classes`` and ``edge_classes`` map step and edge ids to classes to add."""
    text = _DECLARATION.sub("", svg.decode("utf-8"), count=1)
    steps, edges = step_classes or {}, edge_classes or {}
    seen_root = False

    def rewrite(match: re.Match[str]) -> str:
        nonlocal seen_root
        name, inside = match.group(1), match.group(2) or ""
        attributes = dict(_ATTRIBUTE.findall(inside))
        if inside.rstrip().endswith("/"):  # an empty element: nothing to decorate
            return match.group(0)
        if name == "svg" and not seen_root:
            seen_root = True
            attributes.pop("width", None)
            attributes.pop("height", None)
            attributes["id"] = SVG_ID
            return _tag(name, attributes)
        classes = attributes.get("class", "").split()
        if name != "g" or not classes:
            return match.group(0)
        if classes[0] == "node" and "data-step-id" in attributes:
            extra = steps.get(html.unescape(attributes["data-step-id"]))
            if extra:
                attributes["class"] = " ".join([*classes, extra])
            attributes["tabindex"] = "0"
            attributes["role"] = "button"
            return _tag(name, attributes)
        if classes[0] == "edge" and "data-edge-id" in attributes:
            extra = edges.get(html.unescape(attributes["data-edge-id"]))
            if extra:
                attributes["class"] = " ".join([*classes, extra])
                return _tag(name, attributes)
        return match.group(0)

    return _START_TAG.sub(rewrite, text)


def _tag(name: str, attributes: Mapping[str, str]) -> str:
    rendered = "".join(f' {key}="{value}"' for key, value in attributes.items())
    return f"<{name}{rendered}>"
