"""diff_definitions and union_definition over the reference workflow and an edited copy."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from renderer.definition_diff import diff_definitions, union_definition
from workflow.dsl import Step, Transition, load_definition

REFERENCE = Path(__file__).resolve().parents[2] / "fixtures" / "document-processing.yaml"


def _edited():
    """The reference without ``quarantine`` (a clean check now goes on regardless), with a
    new ``scan-report`` after the scan, and ``notify`` allowed 9 attempts instead of 5."""
    a = load_definition(REFERENCE)
    steps = [dataclasses.replace(s, max_attempts=9) if s.id == "notify" else s
             for s in a.steps if s.id != "quarantine"]
    steps.append(Step("scan-report", "Tool", tool="reporter"))
    edges = [e for e in a.edges if "quarantine" not in (e.source, e.target)]
    edges.append(Transition("virus-scan->scan-report", "virus-scan", "scan-report"))
    return a, dataclasses.replace(a, version="2.0.0", steps=tuple(steps), edges=tuple(edges))


def test_added_removed_and_changed_steps_and_edges():
    a, b = _edited()
    diff = diff_definitions(a, b)
    assert diff.added == ("scan-report",)
    assert diff.removed == ("quarantine",)
    assert diff.changed == ("notify",)
    assert diff.added_edges == ("virus-scan->scan-report",)
    assert diff.removed_edges == ("is-clean->quarantine", "quarantine->audit-trail")
    assert diff.changed_edges == ()
    assert not diff.empty and diff_definitions(a, a).empty


def test_the_union_is_b_plus_the_removed_steps_and_their_edges():
    a, b = _edited()
    union = union_definition(a, b)
    # B's 24 steps (24 - quarantine + scan-report), then the ghost
    assert [s.id for s in union.steps] == [s.id for s in b.steps] + ["quarantine"]
    assert [e.id for e in union.edges][-2:] == ["is-clean->quarantine",
                                                "quarantine->audit-trail"]
    assert len(union.edges) == len(b.edges) + 2
    assert union.version == b.version
