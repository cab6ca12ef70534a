"""End to end over real HTTP: import the reference workflow (and the sub-workflow it starts),
start it, complete its human task, let its timer come due, and follow the event stream to
``run.completed``."""

from __future__ import annotations

import json
import time

import httpx
from api_testing import FIXTURES, auth, executors

from workflow.demo import RECORDS_ARCHIVAL

API = "/api/workflow"


def test_the_reference_workflow_over_http(live_service):
    # enrichment reports low confidence, so the run needs a human review
    low = {"confidence": 0.5}
    service = live_service(executors(**{"vendor-registry": {"vendor": "ACME", **low},
                                        "tax-validator": {"taxValid": True, **low},
                                        "duplicate-detector": {"duplicate": False, **low}}))
    with httpx.Client(base_url=service.url, timeout=30) as client:
        for text in (RECORDS_ARCHIVAL.encode(),
                     (FIXTURES / "document-processing.yaml").read_bytes()):
            imported = client.post(f"{API}/definitions", content=text,
                                   headers={**auth("admin"), "content-type": "application/yaml"})
            assert imported.status_code == 201, imported.text
        started = client.post(f"{API}/start", json={"workflowName": "document-processing",
                                                    "businessReference": "doc-42"},
                              headers=auth("operate"))
        run_id = started.json()["workflowInstanceId"]
        assert started.json()["nextTasks"] == [{"stepId": "receive", "kind": "Tool",
                                                "state": "Pending"}]

        task = _wait_for_task(client, run_id)
        assert task["stepId"] == "review"
        done = client.post(f"{API}/tasks/{task['taskId']}/complete",
                           json={"decision": "approve"}, headers=auth("operate"))
        assert done.status_code == 200, done.text

        _wait(lambda: _step(client, run_id, "settle-window")["waitingFor"] == "timer")
        service.clock.offset += 30 * 60 + 1  # the 30-minute settle window passes
        service.runtime.pump.wake()

        kinds = _follow_stream(service.url, run_id, until="run.completed")
        assert kinds[0] == "run.created" and kinds[-1] == "run.completed"
        assert kinds.count("task.requested") == 1

        record = client.get(f"{API}/instances/{run_id}", headers=auth("view")).json()
    states = {s["stepId"]: s["state"] for s in record["steps"]}
    assert len(states) == 24
    # the invoice path was taken; contract, triage, quarantine, request-changes were not,
    # and the compensation's "compensate" edge is never taken by routing, so it is dead too
    assert {s for s, st in states.items() if st == "Skipped"} == {
        "extract-contract", "manual-triage", "quarantine", "request-changes",
        "reverse-posting"}
    assert states["review"] == "Succeeded" and states["archive"] == "Succeeded"
    (child,) = record["children"]
    assert (child["workflowName"], child["state"]) == ("records-archival", "Completed")
    assert record["businessReference"] == "doc-42"


def _wait(predicate, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _step(client: httpx.Client, run_id: str, step_id: str) -> dict:
    record = client.get(f"{API}/instances/{run_id}", headers=auth("view")).json()
    return next(s for s in record["steps"] if s["stepId"] == step_id)


def _wait_for_task(client: httpx.Client, run_id: str) -> dict:
    found: list[dict] = []

    def open_task() -> bool:
        found[:] = client.get(f"{API}/tasks", params={"workflowInstanceId": run_id,
                                                      "status": "open"},
                              headers=auth("view")).json()["items"]
        return bool(found)

    _wait(open_task)
    return found[0]


def _follow_stream(url: str, run_id: str, until: str) -> list[str]:
    """The event kinds of ``run_id`` from the start of the stream up to ``until``."""
    kinds: list[str] = []
    last_id = None
    with httpx.stream("GET", f"{url}{API}/events/stream", headers=auth("view"),
                      timeout=httpx.Timeout(30.0)) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        data = None
        for line in response.iter_lines():
            if line.startswith("id: "):
                last_id = int(line[4:])
            elif line.startswith("data: "):
                data = json.loads(line[6:])
            elif line == "" and data is not None:
                assert data["seq"] == last_id
                if data["workflowInstanceId"] == run_id:
                    kinds.append(data["kind"])
                    if data["kind"] == until:
                        return kinds
                data = None
    raise AssertionError(f"the stream ended before {until}: {kinds}")
