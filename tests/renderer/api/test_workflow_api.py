"""The workflow API over HTTP, endpoint by endpoint, on a real SQLite store with the pump
running in the background. Expected states follow from the fixture definitions and the
engine's documented rules."""

from __future__ import annotations

import sqlite3

import pytest
from api_testing import FIXTURES, HUMAN_FLOW, auth, executors

API = "/api/workflow"


def start(service, name="approval", tenant="acme", **fields):
    response = service.client.post(f"{API}/start", json={"workflowName": name, **fields},
                                   headers=auth("operate", tenant))
    assert response.status_code == 201, response.text
    return response.json()


def waiting_for_review(service, tenant="acme"):
    service.import_definition(HUMAN_FLOW, tenant)
    run = start(service, tenant=tenant)
    return service.wait_for(run["workflowInstanceId"],
                            lambda r: r["state"] == "WaitingForHuman", tenant=tenant)


# --- definitions -------------------------------------------------------------------------

def test_validate_reports_every_problem_and_stores_nothing(make_service):
    service = make_service()
    bad = "workflow: w\nsteps: [{id: a, kind: Robot}, {id: a, kind: Tool, tool: t}]\n"
    response = service.client.post(f"{API}/definitions/validate", content=bad,
                                   headers={**auth("view"), "content-type": "text/yaml"})
    assert response.status_code == 200
    body = response.json()
    assert body["valid"] is False
    messages = [(p["severity"], p["subject"], p["message"]) for p in body["problems"]]
    assert ("error", "step 'a'", "duplicate step id") in messages
    assert any(m.startswith("unknown kind 'Robot'") for _, _, m in messages)
    assert service.client.get(f"{API}/definitions", headers=auth("view")).json() == {
        "items": []}


def test_validate_of_unreadable_text_is_one_document_problem(make_service):
    response = make_service().client.post(f"{API}/definitions/validate", content=b"key: [unclosed",
                                          headers=auth("view"))
    assert response.status_code == 200
    (problem,) = response.json()["problems"]
    assert problem["subject"] == "document" and "not valid YAML" in problem["message"]


def test_import_is_idempotent_and_a_changed_graph_under_one_version_is_a_conflict(make_service):
    service = make_service()
    headers = {**auth("admin"), "content-type": "application/yaml"}
    first = service.client.post(f"{API}/definitions", content=HUMAN_FLOW, headers=headers)
    assert first.status_code == 201
    assert (first.json()["workflowName"], first.json()["version"], first.json()["steps"]) == (
        "approval", "1", 3)
    again = service.client.post(f"{API}/definitions", content=HUMAN_FLOW, headers=headers)
    assert again.status_code == 200 and again.json()["graphHash"] == first.json()["graphHash"]
    changed = HUMAN_FLOW.replace("assignee: finance", "assignee: legal")
    conflict = service.client.post(f"{API}/definitions", content=changed, headers=headers)
    assert conflict.status_code == 409
    message = conflict.json()["error"]
    assert first.json()["graphHash"][:12] in message  # both hashes are named
    assert "offered" in message and message.count("hash") >= 1


def test_import_of_an_invalid_definition_is_422_with_its_problems(make_service):
    response = make_service().client.post(
        f"{API}/definitions", content="workflow: w\nsteps: [{id: a, kind: Robot}]\n",
        headers={**auth("admin"), "content-type": "application/yaml"})
    assert response.status_code == 422
    assert any("Robot" in p["message"] for p in response.json()["problems"])


@pytest.mark.parametrize(("find", "replace", "named"), [
    ("workflow: approval", "workflow: team/approval", "workflow name 'team/approval'"),
    ('version: "1"', 'version: "1/beta"', "version '1/beta'")])
def test_a_name_or_version_with_a_slash_is_refused(make_service, find, replace, named):
    # imported, it could not be read back: /definitions/{name}/versions/{version} splits it
    service = make_service()
    response = service.client.post(
        f"{API}/definitions", content=HUMAN_FLOW.replace(find, replace),
        headers={**auth("admin"), "content-type": "application/yaml"})
    assert response.status_code == 422, response.text
    assert any(named in p["message"] and "'/'" in p["message"]
               for p in response.json()["problems"])
    listing = service.client.get(f"{API}/definitions", headers=auth("view")).json()
    assert listing == {"items": []}


def test_definitions_versions_and_documents(make_service):
    service = make_service()
    service.import_definition(HUMAN_FLOW)
    service.import_definition(HUMAN_FLOW.replace('version: "1"', 'version: "2"'))
    listing = service.client.get(f"{API}/definitions", headers=auth("view")).json()
    assert listing == {"items": [{"workflowName": "approval", "versions": ["1", "2"],
                                  "latest": "2"}]}
    versions = service.client.get(f"{API}/definitions/approval/versions",
                                  headers=auth("view")).json()["items"]
    assert [(v["version"], v["steps"]) for v in versions] == [("1", 3), ("2", 3)]
    document = service.client.get(f"{API}/definitions/approval/versions/2",
                                  headers=auth("view")).json()
    assert document["document"]["workflow"] == "approval"
    assert [s["id"] for s in document["document"]["steps"]] == ["prepare", "review", "book"]
    missing = service.client.get(f"{API}/definitions/approval/versions/9", headers=auth("view"))
    assert missing.status_code == 404 and "version 9" in missing.json()["error"]


# --- start and instances -------------------------------------------------------------------

def test_start_returns_the_new_run_and_its_entry_steps(make_service):
    service = make_service()
    service.import_definition(HUMAN_FLOW)
    run = start(service, businessReference="order-7")
    assert (run["workflowName"], run["workflowVersion"], run["state"]) == ("approval", "1",
                                                                           "Pending")
    assert [t["stepId"] for t in run["nextTasks"]] == ["prepare"]


def test_start_of_an_unknown_workflow_is_404_and_unknown_fields_are_400(make_service):
    service = make_service()
    unknown = service.client.post(f"{API}/start", json={"workflowName": "nope"},
                                  headers=auth("operate"))
    assert unknown.status_code == 404 and "nope" in unknown.json()["error"]
    extra = service.client.post(f"{API}/start", json={"workflowName": "x", "colour": 1},
                                headers=auth("operate"))
    assert extra.status_code == 400 and "'colour'" in extra.json()["error"]
    typed = service.client.post(f"{API}/start", json={"workflowName": ["x"]},
                                headers=auth("operate"))
    assert typed.status_code == 400 and "workflowName" in typed.json()["error"]


def test_an_idempotency_key_returns_the_first_run(make_service):
    service = make_service()
    service.import_definition(HUMAN_FLOW)
    headers = {**auth("operate"), "idempotency-key": "order-7-start"}
    body = {"workflowName": "approval", "payload": {"n": 1}}
    first = service.client.post(f"{API}/start", json=body, headers=headers)
    second = service.client.post(f"{API}/start", json=body, headers=headers)
    assert first.json()["workflowInstanceId"] == second.json()["workflowInstanceId"]
    other = service.client.post(f"{API}/start", json={**body, "payload": {"n": 2}},
                                headers=headers)
    assert other.status_code == 422 and "different request" in other.json()["error"]
    runs = service.client.get(f"{API}/instances", headers=auth("view")).json()["items"]
    assert len(runs) == 1


def test_instances_filter_and_page_with_a_cursor(make_service):
    service = make_service(pump=False)
    service.import_definition(HUMAN_FLOW)
    ids = [start(service, businessReference=f"ref-{i % 2}")["workflowInstanceId"]
           for i in range(5)]
    seen, cursor = [], None
    while True:
        query = {"limit": "2", **({"after": cursor} if cursor else {})}
        page = service.client.get(f"{API}/instances", params=query, headers=auth("view")).json()
        assert len(page["items"]) <= 2
        seen += [r["workflowInstanceId"] for r in page["items"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert sorted(seen) == sorted(ids) and len(seen) == 5  # every run once, over 3 pages
    filtered = service.client.get(f"{API}/instances", params={"businessReference": "ref-1"},
                                  headers=auth("view")).json()["items"]
    assert sorted(r["workflowInstanceId"] for r in filtered) == sorted(ids[1::2])
    pending = service.client.get(f"{API}/instances", params={"status": "pending"},
                                 headers=auth("view")).json()["items"]
    assert len(pending) == 5  # no pump: every run is still Pending
    bad = service.client.get(f"{API}/instances", params={"status": "Sleeping"},
                             headers=auth("view"))
    assert bad.status_code == 400 and "Sleeping" in bad.json()["error"]
    cursor_error = service.client.get(f"{API}/instances", params={"after": "garbage"},
                                      headers=auth("view"))
    assert cursor_error.status_code == 400
    unknown = service.client.get(f"{API}/instances", params={"colour": "x"},
                                 headers=auth("view"))
    assert unknown.status_code == 400 and "'colour'" in unknown.json()["error"]


def test_the_instance_record_has_steps_attempts_tasks_and_timers(make_service):
    service = make_service()
    record = waiting_for_review(service)
    steps = {s["stepId"]: s for s in record["steps"]}
    assert list(steps) == ["prepare", "review", "book"]  # every step, in definition order
    assert steps["prepare"]["state"] == "Succeeded"
    assert [(a["attemptId"], a["outcome"]) for a in steps["prepare"]["attempts"]] == [
        ("prepare@0.1", "succeeded")]
    assert steps["review"]["state"] == "Waiting" and steps["review"]["waitingFor"] == "decision"
    assert steps["book"]["state"] == "Pending" and steps["book"]["attempts"] == []
    (task,) = record["tasks"]
    assert (task["stepId"], task["assignee"], task["status"]) == ("review", "finance", "open")
    # a Human step gets the default timeout (60 minutes) as a queued timer
    (timer,) = record["timers"]
    assert (timer["stepId"], timer["purpose"]) == ("review", "timeout")
    # revision = events processed: the Start, then the outcome of prepare's attempt
    assert record["revision"] == 2 and record["variables"] == {}


# --- operator verbs --------------------------------------------------------------------------

def test_cancel_a_waiting_run_then_every_verb_on_it_is_a_conflict(make_service):
    service = make_service()
    record = waiting_for_review(service)
    run_id = record["workflowInstanceId"]
    response = service.client.post(f"{API}/instances/{run_id}/cancel", json={},
                                   headers=auth("operate"))
    assert response.status_code == 200 and response.json()["state"] == "Cancelled"
    for verb in ("cancel", "retry", "resume"):
        again = service.client.post(f"{API}/instances/{run_id}/{verb}", json={},
                                    headers=auth("operate"))
        assert again.status_code == 409, verb
        assert again.json()["state"] == "Cancelled"
        assert again.json()["revision"] == response.json()["revision"]
    tasks = service.client.get(f"{API}/tasks", params={"workflowInstanceId": run_id},
                               headers=auth("view")).json()["items"]
    assert [t["status"] for t in tasks] == ["cancelled"]


def test_a_stale_expected_revision_is_a_conflict(make_service):
    service = make_service()
    record = waiting_for_review(service)
    run_id, revision = record["workflowInstanceId"], record["revision"]
    stale = service.client.post(f"{API}/instances/{run_id}/cancel",
                                json={"expectedRevision": revision - 1}, headers=auth("operate"))
    assert stale.status_code == 409
    assert (stale.json()["state"], stale.json()["revision"]) == ("WaitingForHuman", revision)
    fresh = service.client.post(f"{API}/instances/{run_id}/cancel",
                                json={"expectedRevision": revision}, headers=auth("operate"))
    assert fresh.status_code == 200


def test_completing_a_task_moves_the_run_on_and_a_second_completion_conflicts(make_service):
    service = make_service()
    record = waiting_for_review(service)
    run_id = record["workflowInstanceId"]
    listed = service.client.get(f"{API}/tasks", params={"status": "open",
                                                        "assignee": "finance"},
                                headers=auth("view")).json()["items"]
    (task,) = listed
    done = service.client.post(f"{API}/tasks/{task['taskId']}/complete",
                               json={"decision": "approve", "input": {"note": "ok"}},
                               headers=auth("operate", subject="bob"))
    assert done.status_code == 200, done.text
    assert (done.json()["task"]["status"], done.json()["task"]["closedBy"]) == ("completed",
                                                                                "bob")
    final = service.wait_for(run_id, lambda r: r["state"] == "Completed")
    review = next(s for s in final["steps"] if s["stepId"] == "review")
    assert review["output"] == {"note": "ok", "decision": "approve"}
    again = service.client.post(f"{API}/tasks/{task['taskId']}/complete",
                                json={"decision": "reject"}, headers=auth("operate"))
    assert again.status_code == 409
    missing = service.client.post(f"{API}/tasks/t-nope/complete", json={"decision": "approve"},
                                  headers=auth("operate"))
    assert missing.status_code == 404


def test_retry_runs_a_failed_run_again_from_its_failed_step(make_service):
    calls = {"n": 0}

    def flaky(payload):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("ERP down")
        return {"posted": True}

    service = make_service(executors().with_executor("erp-connector", flaky))
    service.import_definition(HUMAN_FLOW.replace("kind: Human, assignee: finance",
                                                 "kind: Tool, tool: audit-journal"))
    run_id = start(service)["workflowInstanceId"]
    failed = service.wait_for(run_id, lambda r: r["state"] == "Failed")
    assert "ERP down" in failed["reason"]
    retried = service.client.post(f"{API}/instances/{run_id}/retry", json={},
                                  headers=auth("operate"))
    assert retried.status_code == 200 and retried.json()["state"] == "Running"
    done = service.wait_for(run_id, lambda r: r["state"] == "Completed")
    book = next(s for s in done["steps"] if s["stepId"] == "book")
    assert [(a["attemptId"], a["outcome"]) for a in book["attempts"]] == [
        ("book@0.1", "failed"), ("book@0.2", "succeeded")]
    again = service.client.post(f"{API}/instances/{run_id}/retry", json={},
                                headers=auth("operate"))
    assert again.status_code == 409 and again.json()["state"] == "Completed"


def test_repair_rewinds_and_waits_for_resume(make_service):
    service = make_service()
    record = waiting_for_review(service)
    run_id = record["workflowInstanceId"]
    repaired = service.client.post(f"{API}/instances/{run_id}/repair",
                                   json={"rewindTo": "prepare", "input": {"fixed": True}},
                                   headers=auth("operate"))
    assert repaired.status_code == 200, repaired.text
    assert repaired.json()["state"] == "Suspended"
    suspended = service.wait_for(run_id, lambda r: True)
    assert {s["stepId"]: s["state"] for s in suspended["steps"]} == {
        "prepare": "Pending", "review": "Pending", "book": "Pending"}
    assert suspended["input"] == {"fixed": True}
    unknown = service.client.post(f"{API}/instances/{run_id}/repair",
                                  json={"rewindTo": "nowhere"}, headers=auth("operate"))
    assert unknown.status_code == 409 and "nowhere" in unknown.json()["error"]
    resumed = service.client.post(f"{API}/instances/{run_id}/resume", json={},
                                  headers=auth("operate"))
    assert resumed.status_code == 200 and resumed.json()["state"] == "Running"
    waiting = service.wait_for(run_id, lambda r: r["state"] == "WaitingForHuman")
    decided = service.client.post(f"{API}/instances/{run_id}/resume",
                                  json={"decision": "approve"}, headers=auth("operate"))
    assert decided.status_code == 200, decided.text
    done = service.wait_for(run_id, lambda r: r["state"] == "Completed")
    prepare = next(s for s in done["steps"] if s["stepId"] == "prepare")
    assert prepare["iteration"] == 1  # the rewound step ran again as a new iteration
    assert waiting["state"] == "WaitingForHuman"


# --- signals, events, retention, audit ---------------------------------------------------------

def test_dead_letters_are_listed_per_tenant_and_replayed(make_service):
    from workflow.store import Commit, QueuedSignal

    service = make_service()
    record = waiting_for_review(service)
    run_id = record["workflowInstanceId"]
    bogus = QueuedSignal("bogus-1", run_id, "no-such-kind", {}, 0.0)
    service.runtime.store.commit(Commit(None, enqueue=(bogus,)), at=0.0)
    deadline_record = None
    for _ in range(500):
        letters = service.client.get(f"{API}/signals/dead-letters",
                                     headers=auth("view")).json()["items"]
        if letters:
            deadline_record = letters
            break
        service.runtime.pump.wake()
        import time
        time.sleep(0.02)
    assert deadline_record is not None
    (letter,) = deadline_record
    assert (letter["signalId"], letter["workflowInstanceId"]) == ("bogus-1", run_id)
    assert "no-such-kind" in letter["error"]
    other = service.client.get(f"{API}/signals/dead-letters", headers=auth("view", "globex"))
    assert other.json()["items"] == []
    not_mine = service.client.post(f"{API}/signals/dead-letters/replay",
                                   json={"signalIds": ["bogus-1"]},
                                   headers=auth("admin", "globex"))
    assert not_mine.status_code == 404
    replayed = service.client.post(f"{API}/signals/dead-letters/replay",
                                   json={"signalIds": ["bogus-1"]}, headers=auth("admin"))
    assert replayed.status_code == 200 and replayed.json() == {"replayed": ["bogus-1"]}
    actions = [a["action"] for a in service.client.get(f"{API}/audit",
                                                       headers=auth("admin")).json()["items"]]
    assert "signal.replay" in actions


def test_the_event_feed_is_ordered_resumable_and_per_tenant(make_service):
    service = make_service()
    record = waiting_for_review(service)
    waiting_for_review(service, tenant="globex")
    feed = service.client.get(f"{API}/events", params={"after": "0", "limit": "500"},
                              headers=auth("view")).json()
    kinds = [e["kind"] for e in feed["items"]]
    assert kinds[:2] == ["run.created", "run.started"]
    assert "task.requested" in kinds
    assert {e["workflowInstanceId"] for e in feed["items"]} == {record["workflowInstanceId"]}
    seqs = [e["seq"] for e in feed["items"]]
    assert seqs == sorted(seqs) and feed["last"] == seqs[-1]
    rest = service.client.get(f"{API}/events", params={"after": str(seqs[2])},
                              headers=auth("view")).json()["items"]
    assert [e["seq"] for e in rest] == seqs[3:]


def test_a_runs_history_is_its_own_events_in_order_a_page_at_a_time(make_service):
    service = make_service()
    record = waiting_for_review(service)
    run_id = record["workflowInstanceId"]
    other = start(service)  # a second run of the same tenant: not in the first's history
    service.wait_for(other["workflowInstanceId"], lambda r: r["state"] == "WaitingForHuman")
    path = f"{API}/instances/{run_id}/events"
    history = service.client.get(path, params={"limit": "500"}, headers=auth("view")).json()
    items = history["items"]
    assert {e["workflowInstanceId"] for e in items} == {run_id}
    assert [e["kind"] for e in items][:2] == ["run.created", "run.started"]
    assert ("task.requested", "review") in [(e["kind"], e["stepId"]) for e in items]
    seqs = [e["seq"] for e in items]
    assert seqs == sorted(seqs) and history["last"] == seqs[-1]
    feed = service.client.get(f"{API}/events", params={"limit": "500"},
                              headers=auth("view")).json()["items"]
    assert items == [e for e in feed if e["workflowInstanceId"] == run_id]  # same rows
    first = service.client.get(path, params={"limit": "2"}, headers=auth("view")).json()
    rest = service.client.get(path, params={"after": str(first["last"])},
                              headers=auth("view")).json()
    assert first["items"] + rest["items"] == items
    assert service.client.get(path, params={"after": str(seqs[-1])},
                              headers=auth("view")).json() == {"items": [], "last": seqs[-1]}
    assert service.client.get(path, headers=auth("view", "globex")).status_code == 404
    assert service.client.get(f"{API}/instances/nope/events",
                              headers=auth("view")).status_code == 404
    bad = service.client.get(path, params={"limit": "0"}, headers=auth("view"))
    assert bad.status_code == 400 and "limit" in bad.json()["error"]
    assert service.client.get(path).status_code == 401


def test_retention_purges_only_old_finished_runs_of_the_callers_tenant(make_service):
    service = make_service()
    for tenant in ("acme", "globex"):
        run_id = waiting_for_review(service, tenant)["workflowInstanceId"]
        service.client.post(f"{API}/instances/{run_id}/cancel", json={},
                            headers=auth("operate", tenant))
    now_run = service.client.post(f"{API}/retention", json={}, headers=auth("admin"))
    assert now_run.json()["purged"] == 0  # finished just now: within the 30 days kept
    later = service.client.post(f"{API}/retention", json={"referenceUtc": "2999-01-01T00:00:00Z"},
                                headers=auth("admin"))
    assert later.status_code == 200 and later.json()["purged"] == 1
    assert service.client.get(f"{API}/instances", headers=auth("view")).json()["items"] == []
    assert len(service.client.get(f"{API}/instances",
                                  headers=auth("view", "globex")).json()["items"]) == 1


def test_every_state_change_writes_an_audit_row_in_its_transaction(make_service):
    service = make_service()
    record = waiting_for_review(service)
    run_id = record["workflowInstanceId"]
    cancelled = service.client.post(f"{API}/instances/{run_id}/cancel", json={},
                                    headers=auth("operate", subject="carol")).json()
    rows = service.client.get(f"{API}/audit", headers=auth("admin")).json()["items"]
    assert [r["action"] for r in rows] == ["definition.import", "run.start", "run.cancel"]
    cancel = rows[-1]
    assert (cancel["actor"], cancel["target"]) == ("carol", run_id)
    assert cancel["revisionBefore"] == record["revision"]
    assert cancel["revisionAfter"] == cancelled["revision"] == record["revision"] + 1
    # the audit row and the run change are one transaction: the stored rows agree
    db = sqlite3.connect(service.runtime.settings.database)
    stored = db.execute("SELECT revision FROM runs WHERE run_id = ?", (run_id,)).fetchone()[0]
    assert stored == cancel["revisionAfter"]


def test_another_tenants_run_and_task_are_404_never_403(make_service):
    service = make_service()
    record = waiting_for_review(service)
    run_id = record["workflowInstanceId"]
    (task,) = record["tasks"]
    other = auth("admin", "globex")
    assert service.client.get(f"{API}/instances/{run_id}", headers=other).status_code == 404
    assert service.client.post(f"{API}/instances/{run_id}/cancel", json={},
                               headers=other).status_code == 404
    assert service.client.post(f"{API}/tasks/{task['taskId']}/complete",
                               json={"decision": "approve"}, headers=other).status_code == 404
    assert service.client.get(f"{API}/instances", headers=other).json()["items"] == []
    assert service.client.get(f"{API}/tasks", headers=other).json()["items"] == []
    assert service.client.get(f"{API}/events", headers=other).json()["items"] == []


def test_the_reference_workflow_imports(make_service):
    service = make_service()
    imported = service.import_definition(FIXTURES / "document-processing.yaml")
    assert imported["steps"] == 24


def test_the_diff_of_two_versions(make_service):
    service = make_service()
    service.import_definition(HUMAN_FLOW)
    second = (HUMAN_FLOW.replace('version: "1"', 'version: "2"')
              .replace("assignee: finance", "assignee: legal")
              .replace("  - {id: book, kind: Tool, tool: erp-connector, failurePolicy: Fail}",
                       "  - {id: post, kind: Tool, tool: erp-connector, failurePolicy: Fail}")
              .replace("{from: review, to: book}", "{from: review, to: post}"))
    service.import_definition(second)
    diff = service.client.get(f"{API}/definitions/approval/diff", params={"from": "1", "to": "2"},
                              headers=auth("view"))
    assert diff.status_code == 200, diff.text
    body = diff.json()
    assert body["steps"]["added"] == ["post"] and body["steps"]["removed"] == ["book"]
    assert body["steps"]["changed"] == [{"id": "review", "fields": {
        "assignee": {"from": "finance", "to": "legal"}}}]
    assert body["edges"]["added"] == ["review->post"]
    assert body["edges"]["removed"] == ["review->book"]
    missing = service.client.get(f"{API}/definitions/approval/diff", params={"from": "1"},
                                 headers=auth("view"))
    assert missing.status_code == 400 and "'to'" in missing.json()["error"]
    unknown = service.client.get(f"{API}/definitions/approval/diff",
                                 params={"from": "1", "to": "7"}, headers=auth("view"))
    assert unknown.status_code == 404
