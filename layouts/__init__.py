"""Graph layout with pluggable engines: ``from layouts import layout``.

>>> from layouts import Edge, Graph, Node, layout
>>> g = Graph((Node("a", 80, 40), Node("b", 80, 40)), (Edge("e", "a", "b"),))
>>> result = layout(g, engine="layered", direction="LR")
>>> result.node("a").x < result.node("b").x
True
"""

from layouts.api import EngineInfo, engines, layout
from layouts.graph import Edge, Graph, Node, Port, PortConstraints, PortSide, Shape
from layouts.options import Direction, Effort, LayoutOptions
from layouts.result import LayoutResult

__all__ = ["Direction", "Edge", "Effort", "EngineInfo", "Graph", "LayoutOptions",
           "LayoutResult", "Node", "Port", "PortConstraints", "PortSide", "Shape", "engines",
           "layout"]
