"""Workflow definition -> :class:`Diagram`: one node per step, one edge per transition.

Shapes, minimum sizes, paddings and badges come from :data:`renderer.styles.KIND_STYLES`;
text sizes come from the real font metrics of :mod:`renderer.fonts`. Steps and
transitions keep their definition (model) order.

Gateways (diamonds) hold their title *inside* the diamond rather than beside it: the
layout engine only reserves room for a node's box, so a title drawn outside the box could
overlap neighbouring nodes and edges. To keep the diamond from growing to twice the text
width (the ``2w x 2h`` rule), the text block takes a third of the diamond's height, which
makes the diamond only 1.5 times as wide as the text (a ``w x h`` box fits in a ``W x H``
diamond when ``w/W + h/H <= 1``).

>>> from workflow.dsl import load_definition_text
>>> d = diagram_from_definition(load_definition_text('''
... workflow: demo
... steps:
...   - { id: a, kind: Tool, tool: fetch }
...   - { id: ok, kind: Condition }
... edges:
...   - { from: a, to: ok }
... '''))
>>> [(n.id, n.shape.value) for n in d.graph.nodes]
[('a', 'rect'), ('ok', 'diamond')]
>>> d.node_view("a").subtitle
'fetch'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from layouts.graph import Edge, Graph, Node, Shape
from renderer.diagram import Diagram, EdgeView, NodeView, StepKind
from renderer.fonts import measure_text, pinned_fonts
from renderer.guards import guard_label
from renderer.styles import (
    BADGE_INSET,
    BADGE_SIZE,
    DIAMOND_TEXT_SHARE,
    EDGE_LABEL_PADDING,
    EDGE_LABEL_TEXT,
    KIND_STYLES,
    LINE_GAP,
    SUBTITLE_TEXT,
    TITLE_TEXT,
)
from workflow.dsl import Definition, DslError, Step, Transition
from workflow.kinds import KIND_NAMES, parse_kind

SUBTITLES: Mapping[StepKind, Callable[[Step], str | None]] = {
    StepKind.AGENT: lambda step: step.agent,
    StepKind.TOOL: lambda step: step.tool,
    StepKind.COMPENSATION: lambda step: step.tool,
    StepKind.SUB_WORKFLOW: lambda step: step.workflow,
    StepKind.TIMER: lambda step: None if step.delay_minutes is None
    else f"{step.delay_minutes:g} min",
}
"""Which field of a step its node shows under the title."""


@pinned_fonts()  # one environment read per diagram
def diagram_from_definition(definition: Definition) -> Diagram:
    """The diagram of a workflow definition (the definition is not changed).

    Raises :class:`workflow.dsl.DslError` for a step of an unknown kind and
    :class:`layouts.errors.InvalidGraphError` for duplicate ids or dangling transitions.

    >>> from workflow.dsl import Definition, Step, Transition
    >>> d = diagram_from_definition(Definition("w", "1", (Step("t", "Timer"),
    ...     Step("c", "Condition")), (Transition("e", "t", "c", '{"var": "go"}'),)))
    >>> d.graph.node("t").shape.value, d.graph.edges[0].label
    ('circle', 'go')
    """
    views = {step.id: _node_view(step) for step in definition.steps}
    nodes = tuple(_node(step.id, views[step.id]) for step in definition.steps)
    edges = []
    edge_views = {}
    for transition in definition.edges:
        label = _edge_label(transition)
        width, height = edge_label_size(label)
        edges.append(Edge(transition.id, transition.source, transition.target, label,
                          transition.is_loop_back, width, height))
        edge_views[transition.id] = EdgeView(label)
    graph = Graph(nodes, tuple(edges))
    graph.validate()
    return Diagram(definition.workflow, graph, views, edge_views)


def _edge_label(transition: Transition) -> str | None:
    try:
        return guard_label(transition.guard)
    except RecursionError:  # JSONLogic nested hundreds deep: json.loads reads it, we cannot
        raise DslError(f"edge '{transition.id}' has a guard nested too deeply to "
                       "show") from None


def _node_view(step: Step) -> NodeView:
    kind = _drawn_kind(step)
    subtitle = SUBTITLES[kind](step) if kind in SUBTITLES else None
    return NodeView(kind, step.id, subtitle)


def _drawn_kind(step: Step) -> StepKind:
    """The renderer's kind for a step of one of the engine's kinds
    (:data:`workflow.kinds.KIND_RULES`); :class:`DslError` for any other kind.

    >>> _drawn_kind(Step("s", "SubWorkflow"))
    <StepKind.SUB_WORKFLOW: 'SubWorkflow'>
    """
    kind = parse_kind(step.kind)
    if kind is not None:
        return StepKind(kind.value)
    if step.kind == StepKind.PLAIN:
        raise DslError(f"step '{step.id}' has kind 'Plain', which is not a workflow step kind")
    raise DslError(f"step '{step.id}' has unknown kind '{step.kind}'; expected one of "
                   f"{', '.join(KIND_NAMES)}")


def _node(node_id: str, view: NodeView) -> Node:
    width, height = node_size(view)
    return Node(node_id, width, height, KIND_STYLES[view.kind].shape, view.title)


def edge_label_size(label: str | None) -> tuple[float, float]:
    """Width and height of a guard label's box (text plus padding); ``(0, 0)`` for none.

    >>> edge_label_size(None)
    (0.0, 0.0)
    """
    if not label:
        return 0.0, 0.0
    width, height = measure_text(label, EDGE_LABEL_TEXT.size, bold=EDGE_LABEL_TEXT.bold)
    return _ceil(width + 2 * EDGE_LABEL_PADDING), _ceil(height + 2 * EDGE_LABEL_PADDING)


def text_block_size(view: NodeView) -> tuple[float, float]:
    """Size of the title (plus subtitle) lines that :mod:`renderer.svg` draws in a node.

    Diamonds draw their badge inline before the title; circles draw it before the
    subtitle; rectangles draw it in a corner (see :func:`node_size`).

    >>> one_line = text_block_size(NodeView(StepKind.TOOL, "x"))
    >>> two_lines = text_block_size(NodeView(StepKind.TOOL, "x", "sub"))
    >>> two_lines[1] > one_line[1]
    True
    """
    style = KIND_STYLES[view.kind]
    title_width, title_height = measure_text(view.title, TITLE_TEXT.size, bold=TITLE_TEXT.bold)
    inline_badge = BADGE_SIZE + LINE_GAP if style.marker and style.shape is not Shape.RECT else 0
    if style.shape is Shape.DIAMOND:
        return title_width + inline_badge, max(title_height, BADGE_SIZE)
    if not view.subtitle:
        return title_width, title_height
    sub_width, sub_height = measure_text(view.subtitle, SUBTITLE_TEXT.size,
                                         bold=SUBTITLE_TEXT.bold)
    if style.shape is Shape.CIRCLE:
        sub_width += inline_badge
    return max(title_width, sub_width), title_height + LINE_GAP + sub_height


def node_size(view: NodeView, shape: Shape | None = None) -> tuple[float, float]:
    """Box size of a node that shows ``view``: its text block plus the kind's padding,
    at least the kind's minimum size, rounded up to whole pixels. ``shape`` overrides the
    kind's shape (plain nodes read from DOT or ELK JSON may be diamonds or circles).

    >>> node_size(NodeView(StepKind.AGENT, "x"))
    (120.0, 44.0)
    """
    style = KIND_STYLES[view.kind]
    shape = shape or style.shape
    text_width, text_height = text_block_size(view)
    width = text_width + 2 * style.padding_x
    height = text_height + 2 * style.padding_y
    if shape is Shape.DIAMOND:
        height = max(style.min_height, height / DIAMOND_TEXT_SHARE)
        width = width / (1 - (text_height + 2 * style.padding_y) / height)
    elif shape is Shape.CIRCLE:
        width = height = math.hypot(width, height)
    elif style.marker:
        width += 2 * (BADGE_SIZE + BADGE_INSET)
    return max(style.min_width, _ceil(width)), max(style.min_height, _ceil(height))


def _ceil(value: float) -> float:
    """Round up to a whole pixel (as a float), ignoring float noise below 1e-9."""
    return float(math.ceil(value - 1e-9))
