"""Workflow definition -> diagram. Expected counts come from reading the fixtures by hand:

document-processing: 24 steps; Condition x4 (is-clean, doc-type, confident, approved),
Fanout x1 (enrich), Join x1 (enrich-join) -> 6 diamonds; Timer x1 (settle-window) -> 1
circle; the other 24 - 6 - 1 = 17 steps are Tool/Agent/Human/SubWorkflow/Compensation
rectangles. 31 transitions, one loop-back (request-changes -> classify).

repository-assessment: 6 steps; one Condition (confident) -> 1 diamond, 5 rectangles, 6 edges.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from layouts.errors import InvalidGraphError
from layouts.graph import Shape
from renderer.diagram import NodeView, StepKind
from renderer.fonts import measure_text
from renderer.from_definition import diagram_from_definition, node_size
from renderer.guards import guard_label
from renderer.styles import BADGE_INSET, BADGE_SIZE, KIND_STYLES, LINE_GAP, TITLE_TEXT
from workflow.dsl import DslError, load_definition, load_definition_text

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_document_processing_shapes_and_counts() -> None:
    diagram = diagram_from_definition(load_definition(FIXTURES / "document-processing.yaml"))
    shapes = Counter(node.shape for node in diagram.graph.nodes)
    assert shapes == {Shape.DIAMOND: 6, Shape.CIRCLE: 1, Shape.RECT: 17}
    assert len(diagram.graph.nodes) == 24
    assert len(diagram.graph.edges) == 31
    loop_backs = [e.id for e in diagram.graph.edges if e.loop_back]
    assert loop_backs == ["request-changes->classify"]
    assert diagram.name == "document-processing"


def test_document_processing_keeps_model_order_and_views() -> None:
    diagram = diagram_from_definition(load_definition(FIXTURES / "document-processing.yaml"))
    ids = [node.id for node in diagram.graph.nodes]
    assert ids[:3] == ["receive", "virus-scan", "is-clean"]
    assert ids[-1] == "audit-trail"
    assert diagram.graph.edges[0].id == "receive->virus-scan"
    assert diagram.node_view("classify").kind is StepKind.AGENT
    assert diagram.node_view("classify").subtitle == "doc-classifier"
    assert diagram.node_view("archive").subtitle == "records-archival"
    assert diagram.node_view("settle-window").subtitle == "30 min"
    assert diagram.node_view("enrich").subtitle is None


def test_repository_assessment_counts() -> None:
    diagram = diagram_from_definition(load_definition(FIXTURES / "repository-assessment.yaml"))
    shapes = Counter(node.shape for node in diagram.graph.nodes)
    assert shapes == {Shape.DIAMOND: 1, Shape.RECT: 5}
    assert len(diagram.graph.edges) == 6


def test_guard_labels_are_short_and_measured() -> None:
    diagram = diagram_from_definition(load_definition(FIXTURES / "document-processing.yaml"))
    edge = next(e for e in diagram.graph.edges if e.id == "doc-type->extract-invoice")
    assert edge.label == 'classify.type == "invoice"'
    text_width, text_height = measure_text(edge.label, 10.5)
    assert text_width < edge.label_width <= text_width + 8
    assert text_height < edge.label_height <= text_height + 8
    assert diagram.edge_view(edge.id).label == edge.label
    plain = next(e for e in diagram.graph.edges if e.id == "receive->virus-scan")
    assert plain.label is None and plain.label_width == 0 and plain.label_height == 0


@pytest.mark.parametrize(
    ("guard", "expected"),
    [
        ("true", "true"),
        ("false", "false"),
        ("else", "else"),
        ("compensate", "compensate"),
        ('{"==": [{"var": "classify.type"}, "invoice"]}', 'classify.type == "invoice"'),
        ('{">=": [{"var": "enrich-join.confidence"}, 0.9]}', "enrich-join.confidence >= 0.9"),
        ('{"!": [{"var": "a"}]}', "not a"),
        ('{"or": [{"var": "a"}, {"and": [{"var": "b"}, {"var": "c"}]}]}', "a or (b and c)"),
        ('{"unknownop": [1, 2]}', '{"unknownop":[1,2]}'),
        ("x" * 60, "x" * 47 + "…"),
    ],
)
def test_guard_label_forms(guard: str, expected: str) -> None:
    assert guard_label(guard) == expected


def test_rect_width_fits_title_and_badges() -> None:
    text = "check-duplicates-and-more"
    title_width, _ = measure_text(text, TITLE_TEXT.size, bold=TITLE_TEXT.bold)
    width, height = node_size(NodeView(StepKind.TOOL, text))
    style = KIND_STYLES[StepKind.TOOL]
    expected = title_width + 2 * style.padding_x + 2 * (BADGE_SIZE + BADGE_INSET)
    assert width == pytest.approx(expected, abs=1.0)
    assert height == style.min_height


def test_diamond_text_block_fits_inside() -> None:
    diagram = diagram_from_definition(load_definition(FIXTURES / "document-processing.yaml"))
    for node in diagram.graph.nodes:
        if node.shape is not Shape.DIAMOND:
            continue
        title_width, title_height = measure_text(node.id, TITLE_TEXT.size, bold=True)
        block_width = title_width + BADGE_SIZE + LINE_GAP  # badge drawn before the title
        block_height = max(title_height, BADGE_SIZE)
        # a w x h box centred in a W x H diamond fits when w/W + h/H <= 1
        assert block_width / node.width + block_height / node.height <= 1.0, node.id


def test_circle_holds_its_text_block() -> None:
    diagram = diagram_from_definition(load_definition(FIXTURES / "document-processing.yaml"))
    timer = diagram.graph.node("settle-window")
    title_width, _ = measure_text("settle-window", TITLE_TEXT.size, bold=True)
    assert timer.width == timer.height
    assert timer.width > title_width  # the diagonal of the text block is at least its width


def test_unknown_kind_is_named() -> None:
    definition = load_definition_text("workflow: w\nsteps:\n  - { id: a, kind: Robot }\n")
    with pytest.raises(DslError, match="step 'a' has unknown kind 'Robot'"):
        diagram_from_definition(definition)


def test_dangling_transition_is_invalid_graph() -> None:
    definition = load_definition_text(
        "workflow: w\nsteps:\n  - { id: a, kind: Tool }\nedges:\n  - { from: a, to: ghost }\n")
    with pytest.raises(InvalidGraphError, match="ghost") as caught:
        diagram_from_definition(definition)
    assert caught.value.offending_id == "a->ghost"


def test_duplicate_step_is_invalid_graph() -> None:
    definition = load_definition_text(
        "workflow: w\nsteps:\n  - { id: a, kind: Tool }\n  - { id: a, kind: Agent }\n")
    with pytest.raises(InvalidGraphError, match="duplicate node id 'a'"):
        diagram_from_definition(definition)


def test_every_engine_step_kind_is_drawn_with_a_style_of_its_own() -> None:
    # the renderer's node kinds are the engine's step kinds plus those of graphs that are
    # not workflows: a kind added to the engine must not fall through to a plain box
    from workflow.kinds import StepKind as EngineKind

    drawn = {kind.value for kind in StepKind}
    assert {kind.value for kind in EngineKind} <= drawn
    assert drawn - {kind.value for kind in EngineKind} == {StepKind.PLAIN.value}
    for kind in EngineKind:
        assert KIND_STYLES[StepKind(kind.value)] != KIND_STYLES[StepKind.PLAIN], kind
