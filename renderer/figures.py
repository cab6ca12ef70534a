"""How a node or edge read from DOT or BPMN is drawn: its outline, paint and extras.

Workflow steps are drawn from their :class:`renderer.diagram.StepKind`; nodes from other
notations carry a :class:`Figure` instead (in :attr:`renderer.diagram.NodeView.figure`),
and edges an :class:`EdgeFigure`. The layout only sees the node's box and its outline
:class:`layouts.graph.Shape` (:data:`LAYOUT_SHAPES`); everything else here is drawing.

>>> LAYOUT_SHAPES[Outline.DOUBLE_CIRCLE].value, LAYOUT_SHAPES[Outline.CYLINDER].value
('circle', 'rect')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from layouts.graph import Shape
from renderer.colours import Colour
from renderer.dot_labels import RecordField


class Outline(StrEnum):
    """Node outlines that can be drawn (DOT's shape names, BPMN's symbols)."""

    BOX = "box"
    ROUNDED = "rounded"
    ELLIPSE = "ellipse"
    CIRCLE = "circle"
    DOUBLE_CIRCLE = "doublecircle"
    DIAMOND = "diamond"
    NONE = "none"
    POINT = "point"
    NOTE = "note"
    TAB = "tab"
    FOLDER = "folder"
    CYLINDER = "cylinder"
    HEXAGON = "hexagon"
    OCTAGON = "octagon"
    TRIANGLE = "triangle"
    INVERTED_TRIANGLE = "invtriangle"
    PARALLELOGRAM = "parallelogram"
    TRAPEZIUM = "trapezium"
    HOUSE = "house"
    BOX_3D = "box3d"
    COMPONENT = "component"
    RECORD = "record"
    CLUSTER = "cluster"
    """A DOT cluster: a labelled box around its nodes (a compound node)."""
    BPMN_EVENT = "bpmn-event"
    BPMN_GATEWAY = "bpmn-gateway"
    BPMN_ACTIVITY = "bpmn-activity"
    BPMN_ANNOTATION = "bpmn-annotation"
    """A BPMN text annotation: an open bracket on the left of its text."""


LAYOUT_SHAPES: Mapping[Outline, Shape] = {
    **{outline: Shape.RECT for outline in Outline},
    Outline.ELLIPSE: Shape.ELLIPSE,
    Outline.CIRCLE: Shape.CIRCLE,
    Outline.DOUBLE_CIRCLE: Shape.CIRCLE,
    Outline.POINT: Shape.CIRCLE,
    Outline.BPMN_EVENT: Shape.CIRCLE,
    Outline.DIAMOND: Shape.DIAMOND,
    Outline.BPMN_GATEWAY: Shape.DIAMOND,
}
"""The outline the layout clips routes to; shapes that fill their box (note, tab,
cylinder...) are laid out as rectangles."""


class Dash(StrEnum):
    SOLID = "solid"
    DASHED = "dashed"
    DOTTED = "dotted"


DASH_ARRAYS: Mapping[Dash, str | None] = {Dash.SOLID: None, Dash.DASHED: "6 4",
                                          Dash.DOTTED: "1.5 3"}


@dataclass(frozen=True, slots=True)
class Paint:
    """Colours and stroke of a figure; ``None`` colours use the notation's defaults."""

    fill: Colour | None = None
    stroke: Colour | None = None
    text: Colour | None = None
    stroke_width: float = 1.2
    dash: Dash = Dash.SOLID
    filled: bool = False
    """DOT's ``style=filled``: paint ``fill`` (or the default fill colour)."""


class BpmnEvent(StrEnum):
    """Where an event stands in the flow; it sets the circle's border."""

    START = "start"
    INTERMEDIATE_CATCH = "intermediate-catch"
    INTERMEDIATE_THROW = "intermediate-throw"
    BOUNDARY = "boundary"
    END = "end"


class BpmnMarker(StrEnum):
    """The symbol inside an event, a gateway or an activity's corner."""

    NONE = "none"
    MESSAGE = "message"
    TIMER = "timer"
    ERROR = "error"
    ESCALATION = "escalation"
    CANCEL = "cancel"
    COMPENSATION = "compensation"
    CONDITIONAL = "conditional"
    LINK = "link"
    SIGNAL = "signal"
    TERMINATE = "terminate"
    MULTIPLE = "multiple"
    EXCLUSIVE = "exclusive"
    PARALLEL = "parallel"
    INCLUSIVE = "inclusive"
    EVENT_BASED = "event-based"
    COMPLEX = "complex"
    USER = "user"
    SERVICE = "service"
    SCRIPT = "script"
    SEND = "send"
    RECEIVE = "receive"
    MANUAL = "manual"
    BUSINESS_RULE = "business-rule"
    CALL = "call"
    SUB_PROCESS = "sub-process"


@dataclass(frozen=True, slots=True)
class BpmnSymbol:
    """A BPMN flow node's notation: event position and marker, gateway marker, or an
    activity's type icon (``collapsed`` sub-processes show a ``+`` at the bottom)."""

    marker: BpmnMarker = BpmnMarker.NONE
    event: BpmnEvent | None = None
    interrupting: bool = True
    collapsed: bool = False
    thick: bool = False
    """Call activities have a thick border."""


@dataclass(frozen=True, slots=True)
class Figure:
    """What a node from DOT or BPMN looks like; ``text_below`` draws the title under
    the outline (BPMN events and gateways), ``xlabel`` next to it (DOT)."""

    outline: Outline
    paint: Paint = Paint()
    record: RecordField | None = None
    record_vertical: bool = False
    """Whether the record's top-level fields stack (DOT's ``rankdir=LR``/``RL``)."""
    xlabel: str | None = None
    bpmn: BpmnSymbol | None = None
    text_below: bool = False
    peripheries: int = 1
    hidden: bool = False
    """DOT's ``style=invis``: the node takes its place but nothing is drawn."""


class EdgeEnd(StrEnum):
    """What an edge shows at one end."""

    NONE = "none"
    ARROW = "arrow"
    DIAMOND = "diamond"
    SLASH = "slash"


@dataclass(frozen=True, slots=True)
class EdgeFigure:
    """How an edge from DOT or BPMN is drawn: colour, stroke, dash and end marks."""

    stroke: Colour | None = None
    stroke_width: float = 1.4
    dash: Dash = Dash.SOLID
    head: EdgeEnd = EdgeEnd.ARROW
    tail: EdgeEnd = EdgeEnd.NONE
    hidden: bool = False
