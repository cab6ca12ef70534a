"""Racing operators over real HTTP: of 20 concurrent cancels of one waiting run exactly one
succeeds and 19 get 409, with one terminal change stored; of 20 concurrent completions of one
task (half approve, half reject) exactly one succeeds and one decision is applied."""

from __future__ import annotations

import sqlite3
import threading
import time

import httpx
from api_testing import auth

API = "/api/workflow"
DEFINITION = """
workflow: approval
version: "1"
steps:
  - {id: review, kind: Human, failurePolicy: Fail}
  - {id: book, kind: Tool, tool: erp-connector, failurePolicy: Fail}
edges: [{from: review, to: book}]
"""
CALLERS = 20


def waiting_run(service) -> tuple[str, str]:
    with httpx.Client(base_url=service.url, timeout=30) as client:
        client.post(f"{API}/definitions", content=DEFINITION,
                    headers={**auth("admin"), "content-type": "application/yaml"})
        run_id = client.post(f"{API}/start", json={"workflowName": "approval"},
                             headers=auth("operate")).json()["workflowInstanceId"]
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            tasks = client.get(f"{API}/tasks", params={"workflowInstanceId": run_id},
                               headers=auth("view")).json()["items"]
            if tasks:
                return run_id, tasks[0]["taskId"]
            time.sleep(0.02)
    raise AssertionError("the run never waited for its review")


def race(url: str, calls: list[tuple[str, dict]]) -> list[httpx.Response]:
    """Send every (path, json) at once, from one thread each, released together."""
    barrier = threading.Barrier(len(calls))
    responses: list[httpx.Response | None] = [None] * len(calls)

    def call(index: int, path: str, body: dict) -> None:
        with httpx.Client(base_url=url, timeout=60) as client:
            barrier.wait()
            responses[index] = client.post(path, json=body, headers=auth("operate",
                                                                          subject=f"op{index}"))

    threads = [threading.Thread(target=call, args=(i, p, b)) for i, (p, b) in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert all(r is not None for r in responses)
    return [r for r in responses if r is not None]


def test_twenty_cancels_of_one_waiting_run(live_service):
    service = live_service()
    run_id, _ = waiting_run(service)
    responses = race(service.url, [(f"{API}/instances/{run_id}/cancel", {})] * CALLERS)
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] + [409] * (CALLERS - 1), [r.text for r in responses]
    for response in responses:
        if response.status_code == 409:
            assert response.json()["state"] == "Cancelled" or "changed" in response.json()["error"]
    db = sqlite3.connect(service.runtime.settings.database)
    terminal = db.execute("SELECT COUNT(*) FROM outbox WHERE run_id = ? AND kind = "
                          "'run.cancelled'", (run_id,)).fetchone()[0]
    audits = db.execute("SELECT COUNT(*) FROM audit WHERE target = ? AND action = 'run.cancel'",
                        (run_id,)).fetchone()[0]
    assert (terminal, audits) == (1, 1)


def test_twenty_completions_of_one_task(live_service):
    service = live_service()
    run_id, task_id = waiting_run(service)
    decisions = ["approve", "reject"] * (CALLERS // 2)
    responses = race(service.url, [(f"{API}/tasks/{task_id}/complete", {"decision": d})
                                   for d in decisions])
    winners = [d for d, r in zip(decisions, responses, strict=True) if r.status_code == 200]
    assert len(winners) == 1, [r.text for r in responses]
    assert sorted(r.status_code for r in responses) == [200] + [409] * (CALLERS - 1)
    db = sqlite3.connect(service.runtime.settings.database)
    applied = db.execute("SELECT COUNT(*) FROM outbox WHERE run_id = ? AND kind = "
                         "'step.succeeded' AND step_id = 'review'", (run_id,)).fetchone()[0]
    decided = db.execute("SELECT status, decision FROM tasks WHERE task_id = ?",
                         (task_id,)).fetchone()
    output = db.execute("SELECT output FROM step_runs WHERE run_id = ? AND step_id = 'review'",
                        (run_id,)).fetchone()[0]
    assert applied == 1
    assert decided == ("completed", winners[0])
    assert f'"decision": "{winners[0]}"' in output
