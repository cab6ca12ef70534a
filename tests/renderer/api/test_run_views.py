"""Run views with SubWorkflow steps opened in place and Fanout..Join blocks boxed
(``expandSubworkflows``, ``groupFanouts``), over HTTP and from ``wfr render --run``.

Expected states follow from the definitions below and the engine's rules: ``prepare`` (a
Tool) succeeds at once, ``contract`` starts a child run of ``child`` 1.x, whose ``check``
succeeds and whose ``sign`` (a Human step) waits; so the parent waits on its child and
``book`` is still Pending. In ``held`` the Human step ``hold`` comes first, so its
SubWorkflow step has started no child run yet.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from api_testing import SUBWORKFLOW_CHILD, SUBWORKFLOW_PARENT, assert_refused, auth

from renderer.cli import main

API = "/api/workflow"
SVG = "{http://www.w3.org/2000/svg}"
CHILD_1_0, PARENT = SUBWORKFLOW_CHILD, SUBWORKFLOW_PARENT
CHILD_1_1 = """
workflow: child
version: "1.1"
steps:
  - {id: check, kind: Tool, tool: notifier, failurePolicy: Fail}
  - {id: sign, kind: Human, failurePolicy: Fail}
  - {id: archive, kind: Tool, tool: notifier, failurePolicy: Fail}
edges:
  - {from: check, to: sign}
  - {from: sign, to: archive}
"""
HELD = """
workflow: held
version: "1"
steps:
  - {id: hold, kind: Human, failurePolicy: Fail}
  - {id: contract, kind: SubWorkflow, workflow: child, version: "1.x"}
edges:
  - {from: hold, to: contract}
"""
FANOUT = """
workflow: fan
version: "1"
steps:
  - {id: split, kind: Fanout}
  - {id: left, kind: Tool, tool: notifier, failurePolicy: Fail}
  - {id: right, kind: Tool, tool: notifier, failurePolicy: Fail}
  - {id: merge, kind: Join}
  - {id: sign, kind: Human, failurePolicy: Fail}
edges:
  - {from: split, to: left}
  - {from: split, to: right}
  - {from: left, to: merge}
  - {from: right, to: merge}
  - {from: merge, to: sign}
"""


def _by_id(items: list[dict]) -> dict[str, dict]:
    return {item["id"]: item for item in items}


def start(service, workflow: str) -> str:
    started = service.client.post(f"{API}/start", json={"workflowName": workflow},
                                  headers=auth("operate"))
    assert started.status_code == 201, started.text
    return started.json()["workflowInstanceId"]


def graph(service, run_id: str, **params: str):
    return service.client.get(f"{API}/instances/{run_id}/graph", params=params,
                              headers=auth("view"))


@pytest.fixture
def signing(make_service):
    """A parent run whose child run waits at ``sign``: (service, parent id, child id)."""
    service = make_service()
    for text in (CHILD_1_0, PARENT):
        service.import_definition(text)
    run_id = start(service, "parent")
    record = service.wait_for(run_id, lambda r: any(
        c["state"] == "WaitingForHuman" for c in r.get("children", [])))
    (child,) = record["children"]
    assert child["state"] == "WaitingForHuman", record
    return service, run_id, child["workflowInstanceId"]


def test_an_opened_subworkflow_shows_its_child_runs_states(signing) -> None:
    service, run_id, child_id = signing
    response = graph(service, run_id, format="json", expandSubworkflows="true")
    assert response.status_code == 200, response.text
    nodes = _by_id(response.json()["nodes"])
    assert {k: n["state"] for k, n in nodes.items()} == {
        "prepare": "Succeeded", "contract": "Waiting", "book": "Pending",
        "contract/check": "Succeeded", "contract/sign": "Waiting"}
    assert nodes["contract/sign"]["parent"] == "contract"
    assert nodes["contract/sign"]["waitingFor"] == "decision"
    assert nodes["contract"]["childRun"] == {"workflowInstanceId": child_id,
                                             "state": "WaitingForHuman"}
    assert "childRun" not in nodes["prepare"]
    edges = _by_id(response.json()["edges"])
    assert edges["contract/check->sign"]["state"] == "taken"
    assert edges["contract->book"]["state"] == "pending"
    # the child box holds its steps
    box, sign = nodes["contract"], nodes["contract/sign"]
    assert box["x"] <= sign["x"] and sign["x"] + sign["width"] <= box["x"] + box["width"]
    assert box["y"] <= sign["y"] and sign["y"] + sign["height"] <= box["y"] + box["height"]


def test_the_plain_run_view_is_unchanged_by_the_view_names(signing) -> None:
    service, run_id, _ = signing
    plain = graph(service, run_id, format="json")
    off = graph(service, run_id, format="json", expandSubworkflows="false",
                groupFanouts="0")
    assert plain.status_code == off.status_code == 200
    assert plain.content == off.content
    assert set(_by_id(plain.json()["nodes"])) == {"prepare", "contract", "book"}


def test_svg_and_elk_carry_the_child_states(signing) -> None:
    service, run_id, child_id = signing
    svg = graph(service, run_id, expandSubworkflows="true")
    assert svg.status_code == 200
    classes = {g.get("data-step-id"): g.get("class", "").split()
               for g in ET.fromstring(svg.content).iter(f"{SVG}g") if g.get("data-step-id")}
    assert "state-waiting" in classes["contract/sign"]
    assert "state-succeeded" in classes["contract/check"]
    elk = graph(service, run_id, format="elk", expandSubworkflows="true").json()
    contract = _by_id(elk["children"])["contract"]
    assert contract["childRun"]["workflowInstanceId"] == child_id
    inner = _by_id(contract["children"])
    assert {k: c["state"] for k, c in inner.items()} == {"contract/check": "Succeeded",
                                                         "contract/sign": "Waiting"}
    (inner_edge,) = contract["edges"]  # declared in the box that holds both ends
    assert (inner_edge["id"], inner_edge["state"]) == ("contract/check->sign", "taken")


def test_a_run_shows_the_child_version_it_ran_not_the_newest(signing) -> None:
    service, run_id, _ = signing
    service.import_definition(CHILD_1_1)  # 1.x now resolves to 1.1, with one more step
    drawn = graph(service, run_id, format="json", expandSubworkflows="true").json()
    assert "contract/archive" not in _by_id(drawn["nodes"])  # the child run ran 1.0
    definition = service.client.get(f"{API}/definitions/parent/versions/1/graph",
                                    params={"format": "json", "expandSubworkflows": "true"},
                                    headers=auth("view"))
    assert definition.status_code == 200, definition.text
    nodes = _by_id(definition.json()["nodes"])
    assert {"contract/check", "contract/sign", "contract/archive"} <= set(nodes)
    assert all("state" not in n for n in nodes.values())  # a definition has no states


def test_a_child_not_started_yet_is_drawn_pending(make_service) -> None:
    service = make_service()
    for text in (CHILD_1_0, HELD):
        service.import_definition(text)
    run_id = start(service, "held")
    service.wait_for(run_id, lambda r: r["state"] == "WaitingForHuman")
    nodes = _by_id(graph(service, run_id, format="json", expandSubworkflows="true"
                         ).json()["nodes"])
    assert {k: n["state"] for k, n in nodes.items()} == {
        "hold": "Waiting", "contract": "Pending", "contract/check": "Pending",
        "contract/sign": "Pending"}
    assert "childRun" not in nodes["contract"]


def test_grouped_fanouts_in_a_run_view(make_service) -> None:
    service = make_service()
    service.import_definition(FANOUT)
    run_id = start(service, "fan")
    service.wait_for(run_id, lambda r: r["state"] == "WaitingForHuman")
    nodes = _by_id(graph(service, run_id, format="json", groupFanouts="true").json()["nodes"])
    block = nodes["split-block"]  # the group box: no step, so no state
    assert "state" not in block
    assert {k for k, n in nodes.items() if n.get("parent") == "split-block"} == {
        "split", "left", "right", "merge"}
    assert (nodes["left"]["state"], nodes["sign"]["state"]) == ("Succeeded", "Waiting")


def test_a_view_value_that_is_not_yes_or_no_is_a_400(signing) -> None:
    service, run_id, _ = signing
    assert_refused(graph(service, run_id, expandSubworkflows="maybe"), 400,
                   "expandSubworkflows", "maybe")


def test_a_missing_child_definition_is_a_clear_error(make_service) -> None:
    service = make_service()
    service.import_definition(HELD)  # child is never imported
    run_id = start(service, "held")
    service.wait_for(run_id, lambda r: r["state"] == "WaitingForHuman")
    assert_refused(graph(service, run_id, expandSubworkflows="true"), 400,
                   "contract", "child")


def test_wfr_render_run_expands_with_the_child_states(signing, tmp_path, capsys) -> None:
    service, run_id, child_id = signing
    database = service.runtime.settings.database
    out = tmp_path / "run.json"
    code = main(["render", "--run", run_id, "--db", str(database), "--expand-subworkflows",
                 "--format", "json", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    import json

    nodes = _by_id(json.loads(out.read_text())["nodes"])
    assert nodes["contract/sign"]["state"] == "Waiting"
    assert nodes["contract"]["childRun"]["workflowInstanceId"] == child_id
