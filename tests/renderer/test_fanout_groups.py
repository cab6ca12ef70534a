"""``wfr render --group-fanouts``: Fanout..Join blocks as group boxes (compound nodes),
laid out by the layered engine with every compound route contract."""

from __future__ import annotations

import json
from pathlib import Path

from layouts.api import layout
from layouts.layered.contracts.hierarchy import check_compound_layout
from layouts.options import LayoutOptions
from renderer.cli import main
from renderer.diagram import Diagram
from renderer.fanout_groups import group_fanouts
from renderer.from_definition import diagram_from_definition
from workflow.dsl import Definition, Step, Transition, load_definition

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "document-processing.yaml"


def _workflow(steps: list[tuple[str, str]], edges: list[tuple[str, str]]) -> Diagram:
    return diagram_from_definition(Definition(
        "w", "1", tuple(Step(i, k) for i, k in steps),
        tuple(Transition(f"{s}-{t}", s, t) for s, t in edges)))


def test_the_reference_workflows_enrich_block_is_one_group() -> None:
    diagram = diagram_from_definition(load_definition(FIXTURE))
    grouped = group_fanouts(diagram)
    groups = [n for n in grouped.graph.all_nodes() if n.children]
    # the fixture: enrich fans out to lookup-vendor, validate-tax, check-duplicates,
    # which all go to enrich-join
    assert [(g.id, [c.id for c in g.children]) for g in groups] == [
        ("enrich-block", ["enrich", "lookup-vendor", "validate-tax", "check-duplicates",
                          "enrich-join"])]
    assert sorted(n.id for n in grouped.graph.all_nodes() if not n.children) == sorted(
        n.id for n in diagram.graph.nodes)
    assert grouped.graph.edges == diagram.graph.edges
    result = layout(grouped.graph, engine="layered")
    assert check_compound_layout(grouped.graph, result, LayoutOptions()) == []


def test_nested_blocks_nest_and_overlapping_ones_are_left_out() -> None:
    nested = _workflow(
        [("f", "Fanout"), ("g", "Fanout"), ("a", "Tool"), ("b", "Tool"), ("k", "Join"),
         ("c", "Tool"), ("j", "Join")],
        [("f", "g"), ("g", "a"), ("g", "b"), ("a", "k"), ("b", "k"), ("k", "j"),
         ("f", "c"), ("c", "j")])
    (outer,) = group_fanouts(nested).graph.nodes
    assert outer.id == "f-block" and [c.id for c in outer.children] == ["f", "g-block", "c",
                                                                         "j"]
    assert [c.id for c in outer.children[1].children] == ["g", "a", "b", "k"]
    # f's block (f, a, j1) and g's block (g, a, j2) share a without one holding the other
    overlapping = _workflow(
        [("f", "Fanout"), ("g", "Fanout"), ("a", "Tool"), ("j1", "Join"), ("j2", "Join")],
        [("f", "a"), ("g", "a"), ("a", "j1"), ("a", "j2"), ("f", "j1"), ("g", "j2")])
    groups = [n.id for n in group_fanouts(overlapping).graph.nodes if n.children]
    assert groups == ["f-block"]


def test_a_workflow_without_blocks_is_unchanged() -> None:
    plain = _workflow([("a", "Tool"), ("b", "Tool")], [("a", "b")])
    assert group_fanouts(plain) is plain


def test_the_cli_flag_draws_the_group(tmp_path: Path) -> None:
    out = tmp_path / "groups.json"
    assert main(["render", str(FIXTURE), "--group-fanouts", "-o", str(out)]) == 0
    nodes = {n["id"]: n for n in json.loads(out.read_text())["nodes"]}
    assert nodes["lookup-vendor"]["parent"] == "enrich-block"
    assert "parent" not in nodes["receive"]
