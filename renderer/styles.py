"""How each step kind and run state looks, declared once as data.

The sizing code (:mod:`renderer.from_definition`) and the SVG writer (:mod:`renderer.svg`)
both read these tables, so a node is always sized for exactly what is drawn in it.

>>> KIND_STYLES[StepKind.CONDITION].shape
<Shape.DIAMOND: 'diamond'>
>>> KIND_STYLES[StepKind.AGENT].marker
'A'
>>> STATE_STYLES[StepState.FAILED].stroke
'#c62828'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from layouts.graph import Shape
from renderer.diagram import StepKind, StepState


@dataclass(frozen=True, slots=True)
class TextStyle:
    """Font size in px and weight of one kind of text."""

    size: float
    bold: bool = False


TITLE_TEXT = TextStyle(12.0, bold=True)
SUBTITLE_TEXT = TextStyle(10.5)
EDGE_LABEL_TEXT = TextStyle(10.5)
BADGE_TEXT = TextStyle(9.0, bold=True)
ATTEMPTS_TEXT = TextStyle(9.0, bold=True)
DOT_LABEL_TEXT = TextStyle(12.0)
"""Labels of nodes read from DOT or BPMN."""

FONT_FAMILY = "DejaVu Sans, Verdana, sans-serif"

LINE_GAP = 2.0
"""Vertical gap between a node's title and subtitle, in px."""

BADGE_SIZE = 14.0
"""Side of the square kind badge drawn in a rectangle's top-left corner, in px."""

BADGE_INSET = 5.0
"""Gap between the badge and the node's border, in px."""

EDGE_LABEL_PADDING = 3.0
"""Padding around a guard label's text inside its label box, in px."""

CORNER_RADIUS = 6.0


@dataclass(frozen=True, slots=True)
class KindStyle:
    """Shape, minimum size, text padding and colours of one step kind.

    ``padding_x``/``padding_y`` are the gaps between the text block and the node's
    border (rectangles also reserve room for the badge on both sides, so centred text
    never runs under it). ``marker`` is the badge glyph; ``None`` draws no badge."""

    shape: Shape
    min_width: float
    min_height: float
    padding_x: float
    padding_y: float
    marker: str | None
    marker_colour: str
    fill: str
    stroke: str


KIND_STYLES: Mapping[StepKind, KindStyle] = {
    # shape, min width, min height, padding x, padding y, badge, badge colour, fill, stroke
    StepKind.AGENT: KindStyle(
        Shape.RECT, 120.0, 44.0, 8.0, 7.0, "A", "#6a1b9a", "#f3e5f5", "#6a1b9a"),
    StepKind.TOOL: KindStyle(
        Shape.RECT, 120.0, 44.0, 8.0, 7.0, "T", "#1565c0", "#e3f2fd", "#1565c0"),
    StepKind.HUMAN: KindStyle(
        Shape.RECT, 120.0, 44.0, 8.0, 7.0, "H", "#ef6c00", "#fff3e0", "#ef6c00"),
    StepKind.SUB_WORKFLOW: KindStyle(
        Shape.RECT, 120.0, 44.0, 8.0, 7.0, "S", "#00695c", "#e0f2f1", "#00695c"),
    StepKind.COMPENSATION: KindStyle(
        Shape.RECT, 120.0, 44.0, 8.0, 7.0, "C", "#ad1457", "#fce4ec", "#ad1457"),
    StepKind.CONDITION: KindStyle(
        Shape.DIAMOND, 64.0, 56.0, 6.0, 4.0, "?", "#f9a825", "#fffde7", "#9e7700"),
    StepKind.FANOUT: KindStyle(
        Shape.DIAMOND, 64.0, 56.0, 6.0, 4.0, "+", "#2e7d32", "#e8f5e9", "#2e7d32"),
    StepKind.JOIN: KindStyle(
        Shape.DIAMOND, 64.0, 56.0, 6.0, 4.0, "⋈", "#2e7d32", "#e8f5e9", "#2e7d32"),
    StepKind.TIMER: KindStyle(
        Shape.CIRCLE, 56.0, 56.0, 6.0, 6.0, "◷", "#455a64", "#eceff1", "#455a64"),
    StepKind.PLAIN: KindStyle(
        Shape.RECT, 60.0, 36.0, 10.0, 8.0, None, "#546e7a", "#fafafa", "#546e7a"),
}

DIAMOND_TEXT_SHARE = 1 / 3
"""Share of a diamond's height taken by its text block. A ``w x h`` text box fits in a
``W x H`` diamond when ``w/W + h/H <= 1``; with ``h = H/3`` the width is ``W = 1.5 w``."""


@dataclass(frozen=True, slots=True)
class StateStyle:
    """Colours of a node in a run view."""

    fill: str
    stroke: str
    stroke_width: float = 1.5
    dashed: bool = False


STATE_STYLES: Mapping[StepState, StateStyle] = {
    StepState.PENDING: StateStyle("#f5f5f5", "#9e9e9e", dashed=True),
    StepState.READY: StateStyle("#e3f2fd", "#64b5f6"),
    StepState.RUNNING: StateStyle("#bbdefb", "#1565c0", stroke_width=3.0),
    StepState.WAITING: StateStyle("#fff8e1", "#ff8f00", stroke_width=2.5),
    StepState.SUCCEEDED: StateStyle("#e8f5e9", "#2e7d32", stroke_width=2.0),
    StepState.FAILED: StateStyle("#ffebee", "#c62828", stroke_width=3.0),
    StepState.SKIPPED: StateStyle("#fafafa", "#bdbdbd", dashed=True),
    StepState.COMPENSATING: StateStyle("#fce4ec", "#ad1457", stroke_width=2.5),
    StepState.COMPENSATED: StateStyle("#f3e5f5", "#7b1fa2", stroke_width=2.0),
    StepState.CANCELLED: StateStyle("#eeeeee", "#616161", dashed=True),
}


@dataclass(frozen=True, slots=True)
class EdgeStyle:
    """Stroke of one edge variant (plain, taken or not taken in a run) and the id of
    its arrowhead marker. Loop-back edges use the same variants, dashed."""

    marker_id: str
    stroke: str
    stroke_width: float


EDGE_STYLES: Mapping[str, EdgeStyle] = {
    "normal": EdgeStyle("arrow-normal", "#455a64", 1.4),
    "taken": EdgeStyle("arrow-taken", "#2e7d32", 2.8),
    "not-taken": EdgeStyle("arrow-not-taken", "#bdbdbd", 1.2),
}

LOOP_BACK_DASH = "6 4"
