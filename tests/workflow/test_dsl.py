from pathlib import Path

import pytest

from workflow.dsl import DslError, load_definition, load_definition_text

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_document_processing_fixture_reads_in_model_order() -> None:
    d = load_definition(FIXTURES / "document-processing.yaml")
    # counted in the fixture file: 24 steps, 31 edges, one declared loop-back
    assert (d.workflow, d.version, d.max_loop_iterations) == ("document-processing", "1.0.0", 3)
    assert len(d.steps) == 24 and len(d.edges) == 31
    assert d.steps[0].id == "receive" and d.steps[-1].id == "audit-trail"
    loop_backs = [e for e in d.edges if e.is_loop_back]
    assert [(e.source, e.target) for e in loop_backs] == [("request-changes", "classify")]
    post = next(s for s in d.steps if s.id == "post-to-erp")
    assert (post.failure_policy, post.compensation) == ("Compensate", "reverse-posting")
    join = next(s for s in d.steps if s.id == "enrich-join")
    assert join.quorum == 2


def test_repository_assessment_fixture_reads() -> None:
    d = load_definition(FIXTURES / "repository-assessment.yaml")
    assert [s.kind for s in d.steps] == ["Agent", "Tool", "Agent", "Condition", "Human", "Agent"]
    assert d.steps[2].timeout_minutes == 45.0
    assert d.max_loop_iterations is None


def test_parallel_edges_get_distinct_ids() -> None:
    d = load_definition_text(
        "workflow: w\nsteps: [{id: a, kind: Tool}, {id: b, kind: Tool}]\n"
        "edges: [{from: a, to: b}, {from: a, to: b}]\n"
    )
    assert [e.id for e in d.edges] == ["a->b", "a->b#2"]


def test_an_edge_id_given_twice_is_refused_not_renamed() -> None:
    with pytest.raises(DslError, match="edges\\[1\\] repeats the edge id 'e'"):
        load_definition_text(
            "workflow: w\nsteps: [{id: a, kind: Tool}, {id: b, kind: Tool}]\n"
            "edges: [{id: e, from: a, to: b}, {id: e, from: b, to: a}]\n")


def test_generated_edge_ids_skip_the_ids_given_explicitly() -> None:
    # the first edge's generated id would be "a->b", which the second edge names itself
    d = load_definition_text(
        "workflow: w\nsteps: [{id: a, kind: Tool}, {id: b, kind: Tool}]\n"
        "edges: [{from: a, to: b}, {id: a->b, from: b, to: a}]\n")
    assert [e.id for e in d.edges] == ["a->b#2", "a->b"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("workflow: w\n", "missing 'steps'"),
        ("workflow: w\nsteps: {}\n", "'steps' must be a list"),
        ("workflow: w\nsteps: [{id: a}]\n", "needs 'id' and 'kind'"),
        ("workflow: w\nsteps: [{id: a, kind: Tool, colour: red}]\n", "unknown field 'colour'"),
        ("workflow: w\nsteps: [{id: a, kind: Join, quorum: two}]\n", "'quorum'"),
        ("workflow: w\nsteps: []\nedges: [{from: a}]\n", "needs 'from' and 'to'"),
        ("workflow: w\nsteps: []\nedges: [{from: a, to: b, isLoopBack: maybe}]\n", "isLoopBack"),
        ("workflow: [w\n", "not valid YAML at line 2"),
        ("- just a list\n", "must be a mapping"),
    ],
)
def test_malformed_definitions_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(DslError, match=message):
        load_definition_text(text)


def test_unreadable_file_is_a_dsl_error(tmp_path: Path) -> None:
    with pytest.raises(DslError, match="cannot read"):
        load_definition(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(DslError, match="not valid JSON"):
        load_definition(bad)
