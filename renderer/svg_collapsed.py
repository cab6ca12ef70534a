"""The marker of a collapsed compound node in SVG: a small boxed "+" in the node's
bottom-right corner and, beside it, how many nodes it hides.

>>> from layouts.graph import Graph, Node
>>> from layouts.result import Diagnostics, LayoutResult, NodeBox
>>> graph = Graph((Node("g", 120, 60, collapsed=True, children=(Node("a", 9, 9),
...                                                             Node("b", 9, 9))),))
>>> result = LayoutResult((NodeBox("g", 0, 0, 120, 60),), (), 120, 60,
...                       Diagnostics("demo", "draft", "TopToBottom"))
>>> [m.attribs["class"] for m in collapsed_markers(SvgDrawing(), graph, result)]
['collapsed-marker']
"""

from __future__ import annotations

from typing import Any

from layouts.collapse import hidden_count
from layouts.graph import Graph
from layouts.result import LayoutResult
from renderer.styles import BADGE_TEXT
from renderer.svg_element import SvgDrawing
from renderer.svg_nodes import draw_text
from renderer.svg_nodes import format_number as _n

MARKER_SIZE = 12.0
INSET = 4.0


def collapsed_markers(drawing: SvgDrawing, graph: Graph, result: LayoutResult
                      ) -> list[Any]:
    """One marker group per collapsed node of ``graph`` drawn in ``result``."""
    drawn = {n.id: n for n in result.nodes}
    out = []
    for node in graph.all_nodes():
        box = drawn.get(node.id)
        if not (node.collapsed and node.children) or box is None:
            continue
        x = box.x + box.width - INSET - MARKER_SIZE
        y = box.y + box.height - INSET - MARKER_SIZE
        group = drawing.g(class_="collapsed-marker")
        group["data-hidden"] = str(hidden_count(graph, node.id))
        group.add(drawing.rect(insert=(_n(x), _n(y)), size=(_n(MARKER_SIZE), _n(MARKER_SIZE)),
                               rx="2", fill="#ffffff", stroke="#455a64", stroke_width="1"))
        c = MARKER_SIZE / 2
        group.add(drawing.path(d=f"M {_n(x + 3)} {_n(y + c)} H {_n(x + MARKER_SIZE - 3)} "
                                 f"M {_n(x + c)} {_n(y + 3)} V {_n(y + MARKER_SIZE - 3)}",
                               stroke="#455a64", stroke_width="1.5"))
        group.add(draw_text(drawing, str(hidden_count(graph, node.id)), x - 3, y,
                            BADGE_TEXT, anchor="end", css_class="subtitle"))
        out.append(group)
    return out
