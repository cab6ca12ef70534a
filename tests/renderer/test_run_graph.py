"""Run drawings: a real engine run on a SQLite store, drawn with its states as SVG, JSON and
ELK JSON, laid out in process (counted). Expected states follow from the definitions below
and the engine's documented rules; times from the fixed clock (1000 s after the epoch is
00:16:40 UTC)."""

from __future__ import annotations

import dataclasses
import itertools
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from layouts.api import layout
from layouts.graph import Graph
from layouts.options import LayoutOptions
from layouts.result import LayoutResult
from renderer.api.graph_schemas import run_graph_schema
from renderer.cli import main
from renderer.diagram import NodeView, StepKind, StepState
from renderer.drawings import GraphDrawer
from renderer.from_definition import diagram_from_definition, node_size
from renderer.layout_cache import LayoutCache
from renderer.run_graph import with_states
from renderer.run_overlay import run_overlay
from renderer.writers import OutputFormat
from workflow.dsl import load_definition_text
from workflow.engine import Engine
from workflow.executors import ExecutorRegistry
from workflow.pump import pump
from workflow.sqlite_store import SqliteStore

SVG = "{http://www.w3.org/2000/svg}"
CLOCK = 1000.0
AT_CLOCK = "1970-01-01T00:16:40.000Z"
APPROVAL = """
workflow: approval
version: "1"
steps:
  - {id: prepare, kind: Tool, tool: notifier, failurePolicy: Fail}
  - {id: big, kind: Condition, expression: '{">": [{"var": "prepare.amount"}, 100]}'}
  - {id: review, kind: Human, failurePolicy: Fail}
  - {id: auto, kind: Tool, tool: erp-connector, failurePolicy: Fail}
  - {id: book, kind: Tool, tool: erp-connector, failurePolicy: Fail}
edges:
  - {from: prepare, to: big}
  - {from: big, to: review, guard: "true"}
  - {from: big, to: auto, guard: "false"}
  - {from: review, to: book}
  - {from: auto, to: book}
"""
REVISED = """
workflow: revised
version: "1"
steps:
  - {id: draft, kind: Tool, tool: notifier, failurePolicy: Fail}
  - {id: review, kind: Human, failurePolicy: Fail}
  - {id: ok, kind: Condition, expression: '{"==": [{"var": "review.decision"}, "approve"]}'}
  - {id: revise, kind: Tool, tool: notifier, failurePolicy: Fail}
  - {id: publish, kind: Tool, tool: erp-connector, failurePolicy: Fail}
edges:
  - {from: draft, to: review}
  - {from: review, to: ok}
  - {from: ok, to: publish, guard: "true"}
  - {from: ok, to: revise, guard: "false"}
  - {from: revise, to: draft, isLoopBack: true}
"""
# the amount 500 > 100 sends the approval run to the review
EXECUTORS = ExecutorRegistry({"notifier": lambda payload: {"amount": 500},
                              "erp-connector": lambda payload: {"posted": True}})
WAITING_STATES = {"prepare": "Succeeded", "big": "Succeeded", "review": "Waiting",
                  "auto": "Skipped", "book": "Pending"}
WAITING_EDGES = {"prepare->big": "taken", "big->review": "taken", "big->auto": "not-taken",
                 "review->book": "pending", "auto->book": "not-taken"}


class Counting:
    """An in-process layout runner that counts its layouts."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, graph: Graph, engine: str, options: LayoutOptions) -> LayoutResult:
        self.calls += 1
        return layout(graph, engine=engine, options=options)


def _engine(store: SqliteStore, *texts: str) -> Engine:
    ids = itertools.count(1)
    engine = Engine(store, EXECUTORS, clock=lambda: CLOCK, new_id=lambda: f"run{next(ids)}")
    for text in texts:
        engine.register(load_definition_text(text))
    return engine


@pytest.fixture
def store(tmp_path: Path):
    found = SqliteStore(tmp_path / "w.db")
    yield found
    found.close()


class Scene:
    """An engine, a drawer counting its layouts, and helpers to draw runs."""

    def __init__(self, store: SqliteStore) -> None:
        self.store = store
        self.engine = _engine(store, APPROVAL, REVISED)
        self.runner = Counting()
        self.drawer = GraphDrawer(LayoutCache(self.runner, store))

    def started(self, workflow: str) -> str:
        run = self.engine.start(workflow)
        pump(self.engine)
        return run.run_id

    def decide(self, run_id: str, step_id: str, decision: str) -> None:
        self.engine.decide(run_id, step_id, decision)
        pump(self.engine)

    def draw(self, run_id: str, fmt: OutputFormat, **options: object) -> bytes:
        run = self.engine.run(run_id)
        definition = self.engine.definition(run.workflow, run.version, tenant=run.tenant)
        return self.drawer.run(definition.definition, run, self.store.queued_for(run_id), fmt,
                               "layered", LayoutOptions.from_mapping(options))

    def json(self, run_id: str) -> dict:
        return json.loads(self.draw(run_id, OutputFormat.JSON))


@pytest.fixture
def scene(store: SqliteStore) -> Scene:
    return Scene(store)


def _by_id(items: list[dict]) -> dict[str, dict]:
    return {item["id"]: item for item in items}


def test_json_of_a_run_waiting_for_a_human(scene: Scene) -> None:
    run_id = scene.started("approval")
    document = scene.json(run_id)
    nodes, edges = _by_id(document["nodes"]), _by_id(document["edges"])
    assert {key: node["state"] for key, node in nodes.items()} == WAITING_STATES
    assert {key: edge["state"] for key, edge in edges.items()} == WAITING_EDGES
    # a Human step's box is its kind's minimum, 120 x 44: the short title fits inside it
    assert {k: v for k, v in nodes["review"].items() if k not in ("x", "y")} == {
        "id": "review", "width": 120, "height": 44, "shape": "rect",
        "state": "Waiting", "attempts": 1, "iteration": 0, "startedAt": AT_CLOCK,
        "finishedAt": None, "error": None, "waitingFor": "decision"}
    # auto was skipped, never started: no attempt, but a finish time
    assert (nodes["auto"]["attempts"], nodes["auto"]["startedAt"],
            nodes["auto"]["finishedAt"]) == (0, None, AT_CLOCK)
    assert (nodes["book"]["attempts"], nodes["book"]["startedAt"]) == (0, None)
    run = scene.engine.run(run_id)
    # the review's attempt started its default 60-minute timeout: due at 1000 + 3600 s
    assert document["run"] == {
        "workflowInstanceId": run_id, "workflowName": "approval", "workflowVersion": "1",
        "state": "WaitingForHuman", "revision": run.revision,
        "timers": [{"stepId": "review", "attemptId": "review@0.1", "purpose": "timeout",
                    "dueAt": "1970-01-01T01:16:40.000Z"}],
        "compensation": {"pending": [], "compensated": []}}
    jsonschema.validate(document, run_graph_schema())


def test_svg_of_a_run_names_states_by_class(scene: Scene) -> None:
    root = ET.fromstring(scene.draw(scene.started("approval"), OutputFormat.SVG))
    nodes = {g.get("data-step-id"): g.get("class", "").split()
             for g in root.iter(f"{SVG}g") if g.get("data-step-id")}
    assert {key: [c for c in classes if c.startswith("state-")]
            for key, classes in nodes.items()} == {
        key: [f"state-{state.lower()}"] for key, state in WAITING_STATES.items()}
    edges = {g.get("data-edge-id"): g.get("class", "").split()
             for g in root.iter(f"{SVG}g") if g.get("data-edge-id")}
    assert {key: [c for c in classes if c.startswith("edge-")]
            for key, classes in edges.items()} == {
        key: [f"edge-{state}"] for key, state in WAITING_EDGES.items()}


def test_elk_json_of_a_run_has_states_on_children_and_edges(scene: Scene) -> None:
    run_id = scene.started("approval")
    document = json.loads(scene.draw(run_id, OutputFormat.ELK))
    children, edges = _by_id(document["children"]), _by_id(document["edges"])
    assert {key: child["state"] for key, child in children.items()} == WAITING_STATES
    assert {key: edge["state"] for key, edge in edges.items()} == WAITING_EDGES
    assert children["review"]["waitingFor"] == "decision"
    assert children["review"]["labels"][0]["text"] == "review"  # ELK's own keys stay
    assert (document["run"]["workflowInstanceId"], document["run"]["state"]) == (
        run_id, "WaitingForHuman")


def test_a_loop_back_counts_its_iterations(scene: Scene) -> None:
    run_id = scene.started("revised")
    scene.decide(run_id, "review", "reject")  # ok is false: revise runs, the loop-back resets
    document = scene.json(run_id)
    nodes, edges = _by_id(document["nodes"]), _by_id(document["edges"])
    loop = edges["revise->draft"]
    assert (loop["state"], loop["iterations"], loop["loopBack"]) == ("taken", 1, True)
    # the body (draft and everything after it) runs again in iteration 1
    assert {key: (node["state"], node["iteration"]) for key, node in nodes.items()} == {
        "draft": ("Succeeded", 1), "review": ("Waiting", 1), "ok": ("Pending", 1),
        "revise": ("Pending", 1), "publish": ("Pending", 1)}
    assert "iterations" not in edges["draft->review"]
    svg = ET.fromstring(scene.draw(run_id, OutputFormat.SVG))
    (group,) = [g for g in svg.iter(f"{SVG}g") if g.get("data-edge-id") == "revise->draft"]
    assert group.get("data-iterations") == "1"
    assert group.get("class") == "edge loop-back edge-taken"


def test_a_loop_back_its_source_skipped_is_not_taken(scene: Scene) -> None:
    run_id = scene.started("revised")
    scene.decide(run_id, "review", "approve")  # ok is true: revise is skipped, publish runs
    document = scene.json(run_id)
    loop = _by_id(document["edges"])["revise->draft"]
    assert (loop["state"], loop["iterations"]) == ("not-taken", 0)
    assert document["run"]["state"] == "Completed"
    assert _by_id(document["nodes"])["revise"]["state"] == "Skipped"


def test_nodes_stay_put_when_the_run_moves_on(scene: Scene) -> None:
    run_id = scene.started("approval")
    before = scene.json(run_id)
    scene.decide(run_id, "review", "approve")
    after = scene.json(run_id)
    assert after["run"]["state"] == "Completed"
    assert _by_id(after["nodes"])["book"]["state"] == "Succeeded"
    place = ("x", "y", "width", "height")
    assert [[n[k] for k in ("id", *place)] for n in after["nodes"]] == [
        [n[k] for k in ("id", *place)] for n in before["nodes"]]
    assert [e["points"] for e in after["edges"]] == [e["points"] for e in before["edges"]]
    assert scene.runner.calls == 1  # the second drawing took the first one's layout


def test_every_format_and_the_definition_share_one_layout(scene: Scene) -> None:
    run_id = scene.started("approval")
    for fmt in (OutputFormat.SVG, OutputFormat.JSON, OutputFormat.ELK):
        scene.draw(run_id, fmt)
    definition = load_definition_text(APPROVAL)
    plain = scene.drawer.definition(definition, OutputFormat.JSON, "layered",
                                    LayoutOptions(), tenant="default")
    assert scene.runner.calls == 1
    # the definition's drawing is the plain layout result, with no run fields
    assert "run" not in json.loads(plain)
    assert all("state" not in node for node in json.loads(plain)["nodes"])
    scene.draw(run_id, OutputFormat.JSON, direction="LR")  # other options: another layout
    assert scene.runner.calls == 2


def test_states_and_attempts_never_change_a_node_size() -> None:
    for kind in StepKind:
        plain = NodeView(kind, "a title", "a subtitle")
        sizes = {node_size(dataclasses.replace(plain, state=state, attempts=attempts))
                 for state in StepState for attempts in (None, 1, 2, 17)}
        assert sizes == {node_size(plain)}, kind


def test_a_run_view_keeps_the_definitions_layout_graph(scene: Scene) -> None:
    run_id = scene.started("approval")
    definition = load_definition_text(APPROVAL)
    diagram = diagram_from_definition(definition)
    viewed = with_states(diagram, run_overlay(definition, scene.engine.run(run_id)))
    assert viewed.graph is diagram.graph
    assert viewed.node_view("review").state is StepState.WAITING
    assert diagram.node_view("review").state is None  # the caller's diagram is unchanged


# --- wfr render --run -------------------------------------------------------------------

def test_wfr_render_run_writes_the_drawing_with_states(scene: Scene, tmp_path: Path) -> None:
    run_id = scene.started("approval")
    expected = scene.draw(run_id, OutputFormat.JSON)
    out = tmp_path / "run.json"
    code = main(["render", "--run", run_id, "--db", scene.store.path, "-o", str(out)])
    assert code == 0
    assert out.read_bytes() == expected  # the stored layout: no layout runs in the CLI
    assert scene.runner.calls == 1
    svg = tmp_path / "run.svg"
    assert main(["render", "--run", run_id, "--db", scene.store.path, "-o", str(svg)]) == 0
    assert b'data-step-id="review"' in svg.read_bytes()


@pytest.mark.parametrize(("argv", "message"), [
    (["--run", "nope"], "wfr render: no run 'nope' in {db}\n"),
    (["--run", "r", "--db", "{missing}"], "wfr render: no workflow store at {missing}\n"),
    (["--run", "r", "--format", "dot"], "wfr render: a run is drawn as svg, json, elk, not dot\n"),
    (["--db", "{db}"],
     "wfr render: give a FILE to draw, or --run RUN_ID (see wfr render --help)\n"),
    (["x.yaml", "--db", "{db}"],
     "wfr render: --db names the store of --run; give --run RUN_ID too (see wfr render "
     "--help)\n"),
    (["x.yaml", "--run", "r"],
     "wfr render: give a FILE or --run RUN_ID, not both (see wfr render --help)\n"),
])
def test_wfr_render_run_refusals_are_one_line_and_exit_2(
        scene: Scene, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
        message: str) -> None:
    missing = tmp_path / "missing.db"
    names = {"db": scene.store.path, "missing": str(missing)}
    argv = [part.format(**names) for part in argv]
    if "--db" not in argv:
        argv += ["--db", scene.store.path]
    assert main(["render", *argv]) == 2
    assert capsys.readouterr().err == message.format(**names)
    assert not missing.exists()  # a missing store is not created


def test_wfr_render_run_draws_a_run_of_the_postgresql_store(pg_server, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    import uuid

    import psycopg

    from workflow.postgres_store import PostgresStore

    schema = f"render_{uuid.uuid4().hex[:8]}"
    url = f"{pg_server.url}?schema={schema}"
    store = PostgresStore(url, max_connections=2)
    try:
        scene = Scene(store)  # type: ignore[arg-type]
        run_id = scene.started("approval")
        expected = scene.draw(run_id, OutputFormat.JSON)  # laid out once, cached in the store
        out = tmp_path / "run.json"
        assert main(["render", "--run", run_id, "--db", url, "-o", str(out)]) == 0
        assert out.read_bytes() == expected  # the layout the store cached: no new layout
        assert scene.runner.calls == 1
        drawn = json.loads(out.read_bytes())
        assert _by_id(drawn["nodes"])["review"]["state"] == "Waiting"  # read from PostgreSQL
        svg = tmp_path / "run.svg"
        assert main(["render", "--run", run_id, "--db", url, "-o", str(svg)]) == 0
        assert b'data-step-id="review"' in svg.read_bytes()
        capsys.readouterr()
        assert main(["render", "--run", "nope", "--db", url]) == 2
        assert capsys.readouterr().err == f"wfr render: no run 'nope' in {url}\n"
    finally:
        store.close()
        with psycopg.connect(pg_server.url, autocommit=True) as db:
            db.execute(f"DROP SCHEMA {schema} CASCADE")
