"""The ELK JSON graph format: read an un-laid-out graph as elkjs callers write it
(:mod:`renderer.elk_read`), write a laid-out one as elkjs returns it
(:mod:`renderer.elk_write`).

>>> from layouts.graph import Graph, Node
>>> from layouts.result import Diagnostics, LayoutResult, NodeBox
>>> diagram = Diagram("g", Graph((Node("a", 80, 40),)))
>>> result = LayoutResult((NodeBox("a", 10, 20, 80, 40),), (), 100, 70,
...                       Diagnostics("hand", "draft", "TopToBottom"))
>>> data = json.loads(write_elk_json(diagram, result))
>>> data["children"][0]["x"], data["children"][0]["width"]
(10, 80)
>>> read_elk_graph(data).graph.node("a").width
80.0
"""

from __future__ import annotations

import json

from renderer.diagram import Diagram
from renderer.elk_read import DEFAULT_ROOT_ID, ElkJsonError, read_elk_graph
from renderer.elk_write import elk_document, elk_text, write_elk_json

__all__ = ["DEFAULT_ROOT_ID", "Diagram", "ElkJsonError", "elk_document", "elk_text", "json",
           "read_elk_graph", "write_elk_json"]
