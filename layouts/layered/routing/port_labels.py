"""Port labels, placed inside their node next to their port (ELK's
``portLabels.placement`` INSIDE): no route runs inside a node, so a label there never
meets an edge, and :mod:`layouts.layered.port_fit` grows a node whose ports' labels
would not fit beside each other along a face or between its two flow faces and its own
label.

A label stands :data:`LABEL_GAP` px inside the port's inner edge: below a top port,
above a bottom one, centred on the port across; right of a left port and left of a
right one, centred on it along the face.

>>> from layouts.result import NodeBox, PortBox, Side
>>> node = NodeBox("a", 0, 0, 120, 60)
>>> port_label_box(node, PortBox("p", "a", 26, 57, 8, 6, Side.BOTTOM), 30, 10)
Box(x=15.0, y=43.0, width=30, height=10)
>>> port_label_box(node, PortBox("q", "a", 117, 20, 6, 8, Side.RIGHT), 30, 10)
Box(x=83.0, y=19.0, width=30, height=10)
"""

from __future__ import annotations

from layouts.result import Box, NodeBox, PortBox, Side

__all__ = ["LABEL_GAP", "port_label_box"]

LABEL_GAP = 4.0
"""Gap, in px, between a port's inner edge and its label."""


def port_label_box(node: NodeBox, port: PortBox, width: float, height: float) -> Box | None:
    """The box of a ``width`` x ``height`` label of ``port`` on ``node`` (see the module
    docstring); ``None`` for an empty label or a port without a side."""
    if width <= 0 or height <= 0 or port.side is None:
        return None
    c = port.center
    if port.side is Side.TOP:
        return Box(c.x - width / 2, max(node.y, port.y + port.height) + LABEL_GAP, width,
                   height)
    if port.side is Side.BOTTOM:
        return Box(c.x - width / 2, min(node.y + node.height, port.y) - LABEL_GAP - height, width,
                   height)
    if port.side is Side.LEFT:
        return Box(max(node.x, port.x + port.width) + LABEL_GAP, c.y - height / 2, width,
                   height)
    return Box(min(node.x + node.width, port.x) - LABEL_GAP - width, c.y - height / 2,
               width, height)
