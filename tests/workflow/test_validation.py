from pathlib import Path

import pytest

from workflow.dsl import load_definition, load_definition_text
from workflow.validation import validate_definition

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def errors(text, **options):
    problems = validate_definition(load_definition_text(text), **options)
    return [p.describe() for p in problems if p.is_error]


def test_every_problem_is_reported_at_once_and_names_its_place():
    found = errors("""
workflow: w
maxLoopIterations: 2
steps:
  - {id: a, kind: Tool, tool: t, failurePolicy: Fail}
  - {id: a, kind: Tool, tool: t, failurePolicy: Fail}
  - {id: b, kind: Gizmo}
  - {id: c, kind: Condition, expression: '{"bogus": 1}'}
  - {id: j, kind: Join, quorum: 3}
  - {id: p, kind: Tool, tool: t, failurePolicy: Compensate, compensation: undo}
edges:
  - {from: a, to: missing}
  - {from: a, to: j}
  - {from: c, to: j, guard: 'maybe'}
  - {from: b, to: c}
  - {from: c, to: b}
""")
    assert found == [
        "error: step 'a': duplicate step id",
        "error: step 'b': unknown kind 'Gizmo' (known: Agent, Tool, Human, Condition, Timer, "
        "SubWorkflow, Fanout, Join, Compensation)",
        "error: step 'c': expression is not valid JSONLogic: unknown operator 'bogus'",
        "error: step 'p': compensation 'undo' is not a step (nor a registered executor)",
        "error: edge 'a->missing': target 'missing' is not a step",
        "error: edge 'c->j': guard is not valid JSONLogic or one of true, false, else, "
        "compensate: not JSON: Expecting value at column 1",
        "error: step 'b': steps 'b', 'c' form a cycle with no declared isLoopBack edge",
        # j has two incoming branches (a->j, c->j) but asks for 3
        "error: step 'j': quorum 3 exceeds its 2 incoming branches",
    ]


def test_missing_failure_policy_is_a_warning_and_an_error_when_strict():
    text = "workflow: w\nsteps: [{id: a, kind: Tool, tool: t}]"
    assert errors(text) == []
    assert errors(text, strict=True) == [
        "error: step 'a': no failurePolicy; default 'Fail' applies"]


def test_loop_backs_need_a_positive_bound_and_must_close_a_loop():
    found = errors("""
workflow: w
maxLoopIterations: 0
steps: [{id: a, kind: Timer, delayMinutes: 1}, {id: b, kind: Timer, delayMinutes: 1}]
edges: [{from: a, to: b, isLoopBack: true}]
""")
    assert found == ["error: workflow: maxLoopIterations must be from 1 to 10,000, not 0",
                     "error: edge 'a->b': isLoopBack but 'b' does not lead back to 'a'"]


def test_fanout_wider_than_max_fanout_is_refused():
    steps = ", ".join(f"{{id: s{i}, kind: Timer, delayMinutes: 1}}" for i in range(17))
    edges = ", ".join(f"{{from: f, to: s{i}}}" for i in range(17))
    text = f"workflow: w\nsteps: [{{id: f, kind: Fanout}}, {steps}]\nedges: [{edges}]"
    assert errors(text) == ["error: step 'f': 17 branches exceed MaxFanout 16"]


def test_document_processing_fixture_is_valid():
    problems = validate_definition(load_definition(FIXTURES / "document-processing.yaml"))
    assert [p.describe() for p in problems] == [
        "warning: step 'archive': no failurePolicy; default 'Fail' applies"]


@pytest.mark.parametrize("known", [(), ("retract-proposal",)])
def test_repository_assessment_compensation_must_be_a_step_or_executor(known):
    problems = validate_definition(load_definition(FIXTURES / "repository-assessment.yaml"),
                                   known_executors=known)
    assert any(p.is_error for p in problems) == (known == ())
