"""``wfr render --expand-subworkflows``: SubWorkflow steps as boxes holding their child
workflow's steps, found in the store by name and version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from layouts.api import layout
from layouts.layered.contracts.hierarchy import check_compound_layout
from layouts.options import LayoutOptions
from renderer.cli import main
from renderer.subworkflows import expand_subworkflows
from workflow.definitions import VersionRegistry
from workflow.demo import RECORDS_ARCHIVAL
from workflow.dsl import Definition, DslError, Step, load_definition, load_definition_text
from workflow.sqlite_store import SqliteStore

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "document-processing.yaml"


def _store(path: Path, *definitions: Definition) -> Path:
    store = SqliteStore(path)
    try:
        for d in definitions:
            store.save_definition(VersionRegistry().register(d), at=0.0)
    finally:
        store.close()
    return path


def test_the_reference_workflows_archive_step_holds_the_archival_workflow() -> None:
    child = load_definition_text(RECORDS_ARCHIVAL)
    diagram = expand_subworkflows(load_definition(FIXTURE), lambda name, version: child)
    archive = diagram.graph.node("archive")
    assert [c.id for c in archive.children] == [f"archive/{s.id}" for s in child.steps]
    inner = {e.id for e in diagram.graph.edges if e.id.startswith("archive/")}
    assert inner == {f"archive/{e.id}" for e in child.edges}
    result = layout(diagram.graph, engine="layered")
    assert check_compound_layout(diagram.graph, result, LayoutOptions()) == []


def test_a_workflow_that_contains_itself_is_refused() -> None:
    looping = Definition("loop", "1", (Step("again", "SubWorkflow", workflow="loop",
                                             version="1"),), ())
    with pytest.raises(DslError, match="step 'again': sub-workflow 'loop' 1 contains itself"):
        expand_subworkflows(looping, lambda name, version: looping)


def test_the_cli_expands_from_the_store_and_names_a_missing_child(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _store(tmp_path / "w.db", load_definition_text(RECORDS_ARCHIVAL))
    out = tmp_path / "expanded.json"
    assert main(["render", str(FIXTURE), "--expand-subworkflows", "--db", str(db),
                 "-o", str(out)]) == 0
    parents = {n["id"]: n.get("parent") for n in json.loads(out.read_text())["nodes"]}
    assert {k for k, v in parents.items() if v == "archive"} and parents["archive"] is None
    empty = _store(tmp_path / "empty.db")
    assert main(["render", str(FIXTURE), "--expand-subworkflows", "--db", str(empty),
                 "-o", str(tmp_path / "x.json")]) == 2
    assert "cannot expand sub-workflow 'records-archival' 1.x" in capsys.readouterr().err


def test_the_expanded_box_shows_its_badge_title_and_child_workflow_above_its_children(
        ) -> None:
    import xml.etree.ElementTree as ET

    from renderer.svg import write_svg

    child = load_definition_text(RECORDS_ARCHIVAL)
    diagram = expand_subworkflows(load_definition(FIXTURE), lambda name, version: child)
    result = layout(diagram.graph, engine="layered")
    archive = result.node("archive")
    heading = archive.label_box
    assert heading is not None
    children = [n for n in result.nodes if n.parent == "archive"]
    assert archive.x <= heading.x and heading.right <= archive.x + archive.width
    assert archive.y <= heading.y and heading.bottom <= min(n.y for n in children)
    svg = ET.fromstring(write_svg(diagram, result))
    ns = "{http://www.w3.org/2000/svg}"
    group = next(g for g in svg.iter(f"{ns}g") if g.get("data-step-id") == "archive")
    texts = {t.get("class"): t for t in group.iter(f"{ns}text")}
    assert texts["badge"].text == "S"
    assert texts["title"].text == "archive" and texts["subtitle"].text == child.workflow
    # left-aligned after the 14 px badge and its 2 px gap, within the heading's box
    assert float(texts["title"].get("x", "nan")) == pytest.approx(heading.x + 14 + 2, abs=0.01)
    assert texts["title"].get("text-anchor") == "start"
