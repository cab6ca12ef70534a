"""The graph endpoints over HTTP: a run's drawing with its states, a definition's drawing,
the layout cache behind both (counted through the service's own worker pool), ETag/304,
tenants and bad queries. Expected states follow from the definition below and the engine's
rules: the amount 500 > 100 sends the run to the human review."""

from __future__ import annotations

import contextlib
import hashlib
import json
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from api_testing import SECRET, auth, executors

from layouts.graph import Graph
from layouts.options import LayoutOptions
from layouts.result import LayoutResult
from renderer.api.runtime import WorkflowRuntime
from renderer.api.settings import ServiceSettings
from renderer.cli import main
from renderer.isolation import WorkerPool
from renderer.render import LayoutRunner
from renderer.service import create_app

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

API = "/api/workflow"
SVG = "{http://www.w3.org/2000/svg}"
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
WAITING_STATES = {"prepare": "Succeeded", "big": "Succeeded", "review": "Waiting",
                  "auto": "Skipped", "book": "Pending"}
WAITING_EDGES = {"prepare->big": "taken", "big->review": "taken", "big->auto": "not-taken",
                 "review->book": "pending", "auto->book": "not-taken"}
DEFINITION_GRAPH = f"{API}/definitions/approval/versions/1/graph"


class Counting:
    """Passes layouts on to the service's runner (its worker pool) and counts them."""

    def __init__(self, runner: LayoutRunner | None) -> None:
        assert runner is not None
        self.runner = runner
        self.calls = 0

    def __call__(self, graph: Graph, engine: str, options: LayoutOptions) -> LayoutResult:
        self.calls += 1
        return self.runner(graph, engine, options)


def counted(runtime: WorkflowRuntime) -> Counting:
    counting = Counting(runtime.layout_runner)
    runtime.use_layout_runner(counting)
    return counting


@contextlib.contextmanager
def service_on(database: Path) -> Iterator[tuple[TestClient, WorkflowRuntime]]:
    """A started service on the store ``database`` (a second one on the same file is the
    service after a restart)."""
    settings = ServiceSettings(jwt_secret=SECRET, database=str(database))
    runtime = WorkflowRuntime.create(settings, executors=executors(notifier={"amount": 500}))
    with TestClient(create_app(pool=WorkerPool(size=1), settings=settings,
                               runtime=runtime)) as client:
        yield client, runtime


def import_approval(client: TestClient, tenant: str = "acme") -> None:
    response = client.post(f"{API}/definitions", content=APPROVAL,
                           headers={**auth("admin", tenant), "content-type": "application/yaml"})
    assert response.status_code == 201, response.text


@pytest.fixture
def waiting(make_service):
    """A service with one approval run of acme waiting for its review; (service, run id)."""
    service = make_service(executors(notifier={"amount": 500}))
    import_approval(service.client)
    started = service.client.post(f"{API}/start", json={"workflowName": "approval"},
                                  headers=auth("operate"))
    run_id = started.json()["workflowInstanceId"]
    record = service.wait_for(run_id, lambda r: r["state"] == "WaitingForHuman")
    assert record["state"] == "WaitingForHuman"
    return service, run_id


def graph(service, run_id: str, tenant: str = "acme", **params: str):
    return service.client.get(f"{API}/instances/{run_id}/graph", params=params,
                              headers=auth("view", tenant))


def _by_id(items: list[dict]) -> dict[str, dict]:
    return {item["id"]: item for item in items}


def test_the_run_graph_as_svg_json_and_elk(waiting) -> None:
    service, run_id = waiting
    svg = graph(service, run_id)  # svg unless asked otherwise
    assert svg.status_code == 200 and svg.headers["content-type"] == "image/svg+xml"
    root = ET.fromstring(svg.content)
    nodes = {g.get("data-step-id"): g.get("class", "").split()
             for g in root.iter(f"{SVG}g") if g.get("data-step-id")}
    assert {k: f"state-{v.lower()}" in nodes[k] for k, v in WAITING_STATES.items()} == {
        k: True for k in WAITING_STATES}
    edges = {g.get("data-edge-id"): g.get("class", "").split()
             for g in root.iter(f"{SVG}g") if g.get("data-edge-id")}
    assert {k: f"edge-{v}" in edges[k] for k, v in WAITING_EDGES.items()} == {
        k: True for k in WAITING_EDGES}

    as_json = graph(service, run_id, format="json")
    assert as_json.headers["content-type"] == "application/json"
    document = as_json.json()
    assert {k: n["state"] for k, n in _by_id(document["nodes"]).items()} == WAITING_STATES
    assert {k: e["state"] for k, e in _by_id(document["edges"]).items()} == WAITING_EDGES
    review = _by_id(document["nodes"])["review"]
    assert (review["attempts"], review["iteration"], review["waitingFor"]) == (1, 0, "decision")
    assert (document["run"]["workflowInstanceId"], document["run"]["state"]) == (
        run_id, "WaitingForHuman")
    (timer,) = document["run"]["timers"]  # the review's default timeout
    assert (timer["stepId"], timer["purpose"]) == ("review", "timeout")

    elk = graph(service, run_id, format="elk").json()
    assert {k: c["state"] for k, c in _by_id(elk["children"]).items()} == WAITING_STATES
    assert {k: e["state"] for k, e in _by_id(elk["edges"]).items()} == WAITING_EDGES
    assert elk["run"]["revision"] == document["run"]["revision"]


def test_a_state_change_moves_no_node_and_lays_out_nothing(waiting) -> None:
    service, run_id = waiting
    counting = counted(service.runtime)
    before = graph(service, run_id, format="json").json()
    (task,) = service.client.get(f"{API}/tasks", headers=auth("view")).json()["items"]
    done = service.client.post(f"{API}/tasks/{task['taskId']}/complete",
                               json={"decision": "approve"}, headers=auth("operate"))
    assert done.status_code == 200, done.text
    service.wait_for(run_id, lambda r: r["state"] == "Completed")
    after = graph(service, run_id, format="json").json()
    assert _by_id(after["nodes"])["book"]["state"] == "Succeeded"
    place = ("id", "x", "y", "width", "height")
    assert [[n[k] for k in place] for n in after["nodes"]] == [
        [n[k] for k in place] for n in before["nodes"]]
    assert [e["points"] for e in after["edges"]] == [e["points"] for e in before["edges"]]
    assert counting.calls == 1  # one layout: the first request's


def test_the_cache_answers_again_and_after_a_restart(tmp_path: Path) -> None:
    database = tmp_path / "w.db"
    with service_on(database) as (client, runtime):
        counting = counted(runtime)
        import_approval(client)
        first = client.get(DEFINITION_GRAPH, params={"format": "json"}, headers=auth("view"))
        again = client.get(DEFINITION_GRAPH, params={"format": "json"}, headers=auth("view"))
        assert first.status_code == again.status_code == 200
        assert again.content == first.content and counting.calls == 1
    with service_on(database) as (client, runtime):  # the same store, a new process's state
        counting = counted(runtime)
        restarted = client.get(DEFINITION_GRAPH, params={"format": "json"},
                               headers=auth("view"))
        assert restarted.content == first.content and counting.calls == 0
        other = client.get(DEFINITION_GRAPH, params={"format": "json", "direction": "LR"},
                           headers=auth("view"))
        assert other.status_code == 200 and counting.calls == 1  # other options, new layout


def test_a_definition_graph_is_the_render_endpoints_drawing(waiting) -> None:
    service, _ = waiting
    drawn = service.client.get(DEFINITION_GRAPH, params={"format": "json", "effort": "draft"},
                               headers=auth("view"))
    rendered = service.client.post("/api/render", params={"format": "json", "effort": "draft"},
                                   content=APPROVAL,
                                   headers={"content-type": "application/yaml"})
    assert drawn.status_code == rendered.status_code == 200
    assert drawn.content == rendered.content  # no states, no run object
    svg = service.client.get(DEFINITION_GRAPH, headers=auth("view"))
    assert svg.headers["content-type"] == "image/svg+xml"
    classes = {c for g in ET.fromstring(svg.content).iter(f"{SVG}g")
               for c in g.get("class", "").split()}
    assert not {c for c in classes if c.startswith("state-")}
    assert not classes & {"edge-taken", "edge-not-taken", "edge-pending"}


def test_etag_and_if_none_match(waiting) -> None:
    service, run_id = waiting
    first = graph(service, run_id)
    etag = first.headers["etag"]
    assert etag == f'"{hashlib.sha256(first.content).hexdigest()}"'
    assert first.headers["cache-control"] == "private, no-cache"
    assert graph(service, run_id).headers["etag"] == etag  # the same bytes again
    for header in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        response = service.client.get(f"{API}/instances/{run_id}/graph",
                                      headers={**auth("view"), "if-none-match": header})
        assert response.status_code == 304, header
        assert response.content == b"" and response.headers["etag"] == etag
    stale = service.client.get(f"{API}/instances/{run_id}/graph",
                               headers={**auth("view"), "if-none-match": '"other"'})
    assert stale.status_code == 200 and stale.content == first.content
    as_json = graph(service, run_id, format="json")
    assert as_json.headers["etag"] != etag  # another format, other bytes
    definition = service.client.get(DEFINITION_GRAPH, headers=auth("view"))
    conditional = service.client.get(DEFINITION_GRAPH, headers={
        **auth("view"), "if-none-match": definition.headers["etag"]})
    assert conditional.status_code == 304


def test_another_tenants_run_and_definition_are_not_found(waiting) -> None:
    service, run_id = waiting
    theirs = graph(service, run_id, tenant="globex")
    assert theirs.status_code == 404 and run_id in theirs.json()["error"]
    missing = graph(service, "no-such-run")
    assert missing.status_code == 404
    child = graph(service, "parent/archive@0.1")  # child run ids have a slash: still routed
    assert child.status_code == 404 and "no run 'parent/archive@0.1'" in child.json()["error"]
    definition = service.client.get(DEFINITION_GRAPH, headers=auth("view", "globex"))
    assert definition.status_code == 404
    unknown_version = service.client.get(f"{API}/definitions/approval/versions/9/graph",
                                         headers=auth("view"))
    assert unknown_version.status_code == 404
    assert service.client.get(f"{API}/instances/{run_id}/graph").status_code == 401


@pytest.mark.parametrize(("params", "message"), [
    ({"effort": "bogus"}, "effort 'bogus' is not one of draft, balanced, best"),
    ({"timeBudget": "0"}, "time_budget '0' must be between 0.001 and 600"),
    ({"colour": "red"}, "unknown layout option 'colour'"),
    ({"engine": "nope"}, "unknown layout engine 'nope'"),
    ({"format": "png"}, "format 'png' is not one of svg, json, elk"),
    ({"format": "dot"}, "format 'dot' is not one of svg, json, elk"),
])
def test_bad_queries_are_400_naming_the_problem(waiting, params, message) -> None:
    service, run_id = waiting
    for response in (graph(service, run_id, **params),
                     service.client.get(DEFINITION_GRAPH, params=params, headers=auth("view"))):
        assert response.status_code == 400, response.text
        assert message in response.json()["error"]


def test_the_routes_are_in_the_openapi_document(waiting) -> None:
    service, _ = waiting
    paths = service.client.get("/openapi.json").json()["paths"]
    for path in (f"{API}/instances/{{id}}/graph",
                 f"{API}/definitions/{{name}}/versions/{{version}}/graph"):
        operation = paths[path]["get"]
        names = {p["name"] for p in operation["parameters"]}
        assert {"format", "engine", "direction", "effort", "timeBudget", "seed",
                "If-None-Match"} <= names, path
        assert set(operation["responses"]["200"]["content"]) == {"image/svg+xml",
                                                                  "application/json"}
        assert "ETag" in operation["responses"]["200"]["headers"]
        assert {"304", "400", "401", "403", "404", "504"} <= set(operation["responses"])
        assert "409" not in operation["responses"]  # a drawing changes nothing
        assert operation["security"] == [{"bearer": ["workflow:view"]}]


def test_wfr_render_run_gives_the_endpoints_bytes(waiting, tmp_path: Path) -> None:
    service, run_id = waiting
    counting = counted(service.runtime)
    for fmt in ("svg", "json", "elk"):
        served = graph(service, run_id, format=fmt, direction="LR")
        out = tmp_path / f"run.{fmt}"
        assert main(["render", "--run", run_id, "--db", service.runtime.settings.database,
                     "--direction", "LR", "--format", fmt, "-o", str(out)]) == 0
        assert out.read_bytes() == served.content, fmt
    assert counting.calls == 1  # the CLI took the service's stored layout
    assert json.loads((tmp_path / "run.json").read_text())["run"]["state"] == "WaitingForHuman"
