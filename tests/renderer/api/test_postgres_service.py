"""The service on the shared PostgreSQL store (``WFR_DATABASE_URL``): a run started over
HTTP waits for its human task, the task is completed, the run finishes; another tenant
sees none of it; the events and the audit trail are there."""

from __future__ import annotations

import uuid

import psycopg
from api_testing import HUMAN_FLOW, SECRET, Clock, auth, executors
from starlette.testclient import TestClient

from renderer.api.runtime import WorkflowRuntime
from renderer.api.settings import ServiceSettings, load_settings
from renderer.isolation import WorkerPool
from renderer.service import create_app
from workflow.postgres_store import PostgresStore

API = "/api/workflow"


def test_the_setting_takes_a_postgres_url():
    settings = load_settings({"WFR_DATABASE_URL": "postgresql://u:pw@h/db"})
    assert settings.database_url == "postgresql://u:pw@h/db"
    assert "pw" not in repr(settings)


def test_a_run_over_http_on_postgres(pg_server, tmp_path):
    schema = f"svc_{uuid.uuid4().hex[:8]}"
    settings = ServiceSettings(jwt_secret=SECRET, database=str(tmp_path / "unused.db"),
                               database_url=f"{pg_server.url}?schema={schema}")
    runtime = WorkflowRuntime.create(settings, clock=Clock(), executors=executors())
    assert isinstance(runtime.store, PostgresStore) and runtime.store.schema == schema
    try:
        with TestClient(create_app(pool=WorkerPool(size=1), settings=settings,
                                   runtime=runtime)) as client:
            imported = client.post(f"{API}/definitions", content=HUMAN_FLOW.encode(),
                                   headers={**auth("admin"), "content-type": "application/yaml"})
            assert imported.status_code == 201, imported.text
            started = client.post(f"{API}/start", json={"workflowName": "approval"},
                                  headers={**auth("operate"), "Idempotency-Key": "k1"})
            assert started.status_code == 201, started.text
            run_id = started.json()["workflowInstanceId"]
            again = client.post(f"{API}/start", json={"workflowName": "approval"},
                                headers={**auth("operate"), "Idempotency-Key": "k1"})
            assert again.json()["workflowInstanceId"] == run_id
            task = _wait(client, lambda: client.get(
                f"{API}/tasks", params={"status": "open"}, headers=auth("view")).json()["items"])
            done = client.post(f"{API}/tasks/{task[0]['taskId']}/complete",
                               json={"decision": "approve"}, headers=auth("operate"))
            assert done.status_code == 200, done.text
            _wait(client, lambda: client.get(f"{API}/instances/{run_id}", headers=auth("view")
                                             ).json()["state"] == "Completed")
            assert client.get(f"{API}/instances/{run_id}",
                              headers=auth("view", "globex")).status_code == 404
            assert client.get(f"{API}/tasks", headers=auth("view", "globex")).json()["items"] == []
            events = client.get(f"{API}/events", params={"after": 0},
                                headers=auth("view")).json()["items"]
            kinds = [e["kind"] for e in events]
            assert kinds[0] == "run.created" and kinds[-1] == "run.completed", kinds
            seqs = [e["seq"] for e in events]
            assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
            audit = client.get(f"{API}/audit", headers=auth("admin")).json()["items"]
            assert {"run.start", "task.complete"} <= {a["action"] for a in audit}
            assert client.get("/readyz").status_code == 200
    finally:
        runtime.close()
        with psycopg.connect(pg_server.url, autocommit=True) as db:
            db.execute(f"DROP SCHEMA {schema} CASCADE")


def _wait(client, probe, seconds=15.0):
    import time

    deadline = time.monotonic() + seconds
    while not (found := probe()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)
    return found
