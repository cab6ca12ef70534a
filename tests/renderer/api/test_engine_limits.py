"""The engine's limits over HTTP (issue 15): a SubWorkflow cycle is refused at import with
422 naming it, and a decision that lost its race is a 409."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from api_testing import HUMAN_FLOW, Service, auth, running_service

API = "/api/workflow"
ADMIN = auth("admin", "acme")
YAML = {**ADMIN, "content-type": "application/yaml"}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with running_service(tmp_path_factory.mktemp("limits") / "w.db") as service:
        yield service


def test_a_definition_starting_itself_is_refused_at_import(world: Service) -> None:
    response = world.client.post(f"{API}/definitions", headers=YAML, content=(
        b"workflow: rec\nversion: '1'\nsteps: [{id: again, kind: SubWorkflow, "
        b"workflow: rec, failurePolicy: Fail}]\n"))
    assert response.status_code == 422, response.text
    assert "SubWorkflow recursion" in response.json()["error"]
    assert "(rec -> rec)" in response.json()["error"]


def test_a_cycle_through_another_definition_is_refused_at_import(world: Service) -> None:
    world.import_definition("workflow: ping\nversion: '1'\nsteps: [{id: to-pong, "
                            "kind: SubWorkflow, workflow: pong, failurePolicy: Fail}]\n")
    response = world.client.post(f"{API}/definitions", headers=YAML, content=(
        b"workflow: pong\nversion: '1'\nsteps: [{id: to-ping, kind: SubWorkflow, "
        b"workflow: ping, failurePolicy: Fail}]\n"))
    assert response.status_code == 422, response.text
    assert response.json()["problems"] == [{
        "severity": "error", "subject": "step 'to-ping'",
        "message": "SubWorkflow recursion: pong 1 (step 'to-ping') -> ping 1 (step 'to-pong') "
                   "-> pong 1"}]


def test_the_second_decision_of_one_task_is_a_409(world: Service) -> None:
    world.import_definition(HUMAN_FLOW)
    run_id = world.client.post(f"{API}/start", json={"workflowName": "approval"},
                               headers=ADMIN).json()["workflowInstanceId"]
    record = world.wait_for(run_id, lambda record: record["state"] == "WaitingForHuman", 20)
    task = record["tasks"][0]["taskId"]
    first = world.client.post(f"{API}/tasks/{task}/complete", json={"decision": "approve"},
                              headers=ADMIN)
    second = world.client.post(f"{API}/tasks/{task}/complete", json={"decision": "reject"},
                               headers=ADMIN)
    assert (first.status_code, second.status_code) == (200, 409), second.text
