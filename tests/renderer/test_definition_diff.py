"""Version diffs: steps and edges matched by id, changed fields with both values, and a
union graph that gives removed steps a place (drawn as ghosts)."""

from __future__ import annotations

from renderer.definition_diff import (
    GHOST_EDGE_PREFIX,
    diff_definitions,
    ghost_edge_ids,
    union_definition,
)
from renderer.from_definition import diagram_from_definition
from workflow.dsl import load_definition_text

A = load_definition_text("""
workflow: w
version: "1"
steps:
  - {id: start, kind: Tool, tool: intake}
  - {id: check, kind: Condition, expression: '{"var": "start.ok"}'}
  - {id: manual, kind: Human}
  - {id: done, kind: Tool, tool: notifier}
edges:
  - {from: start, to: check}
  - {from: check, to: manual, guard: "false"}
  - {from: check, to: done, guard: "true"}
  - {from: manual, to: done}
""")
B = load_definition_text("""
workflow: w
version: "2"
steps:
  - {id: start, kind: Tool, tool: intake-v2}
  - {id: check, kind: Condition, expression: '{"var": "start.ok"}'}
  - {id: wait, kind: Timer, delayMinutes: 5}
  - {id: done, kind: Tool, tool: notifier}
edges:
  - {from: start, to: check}
  - {from: check, to: wait, guard: "false"}
  - {from: check, to: done, guard: "true"}
  - {from: wait, to: done}
""")


def test_steps_added_removed_and_changed():
    diff = diff_definitions(A, B)
    assert diff.added_steps == ("wait",)
    assert diff.removed_steps == ("manual",)
    (change,) = diff.changed_steps
    assert (change.item_id, dict(change.fields)) == ("start", {"tool": ("intake", "intake-v2")})


def test_edges_by_id():
    diff = diff_definitions(A, B)
    assert diff.added_edges == ("check->wait", "wait->done")
    assert diff.removed_edges == ("check->manual", "manual->done")
    assert diff.changed_edges == ()


def test_a_version_against_itself_has_no_changes():
    data = diff_definitions(A, A).to_dict()
    assert data == {"steps": {"added": [], "removed": [], "changed": []},
                    "edges": {"added": [], "removed": [], "changed": []}}


def test_the_union_is_b_plus_the_removed_steps_and_their_edges_and_draws():
    union = union_definition(A, B)
    assert [s.id for s in union.steps] == ["start", "check", "wait", "done", "manual"]
    assert [e.id for e in union.edges] == [e.id for e in B.edges] + [
        "check->manual", "manual->done"]
    assert ghost_edge_ids(A, B) == ("check->manual", "manual->done")
    diagram = diagram_from_definition(union)  # a valid graph: every edge end exists
    assert {n.id for n in diagram.graph.nodes} == {"start", "check", "wait", "done", "manual"}
    assert A.steps[2].id == "manual" and len(B.steps) == 4  # the inputs are unchanged


def test_a_removed_edge_whose_id_b_reuses_gets_a_ghost_id():
    a = load_definition_text("workflow: w\nsteps: [{id: x, kind: Fanout}, {id: y, kind: Fanout}]"
                             "\nedges: [{id: e, from: x, to: y}]")
    b = load_definition_text("workflow: w\nversion: '2'\nsteps: [{id: x, kind: Fanout}, "
                             "{id: z, kind: Fanout}]\nedges: [{id: e, from: x, to: z}]")
    union = union_definition(a, b)
    assert [(e.id, e.source, e.target) for e in union.edges] == [
        ("e", "x", "z"), (GHOST_EDGE_PREFIX + "e", "x", "y")]
    (change,) = diff_definitions(a, b).changed_edges
    assert dict(change.fields) == {"to": ("y", "z")}
