"""The scope matrix: every workflow endpoint x {no token, view, operate, admin, another
tenant}. A missing token is 401 with WWW-Authenticate; a token below the route's tier is 403
naming the scope it needs; the tier or above gets through; another tenant's run or task is
404, never 403 (no existence leak)."""

from __future__ import annotations

import pytest
from api_testing import auth

from renderer.api.auth import Scope
from renderer.api.workflow import PREFIX, ROUTES

TIERS = {"view": Scope.VIEW, "operate": Scope.OPERATE, "admin": Scope.ADMIN}
DEFINITION = """
workflow: approval
version: "1"
steps:
  - {id: review, kind: Human, failurePolicy: Fail}
"""


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """One service with one waiting run (and its task) of the tenant acme."""
    from api_testing import SECRET, Clock, executors

    from renderer.api.runtime import WorkflowRuntime
    from renderer.api.settings import ServiceSettings
    from renderer.isolation import WorkerPool
    from renderer.service import create_app

    with _quiet():
        from starlette.testclient import TestClient
    settings = ServiceSettings(jwt_secret=SECRET,
                               database=str(tmp_path_factory.mktemp("scopes") / "w.db"))
    runtime = WorkflowRuntime.create(settings, clock=Clock(), executors=executors())
    with TestClient(create_app(pool=WorkerPool(size=1), settings=settings,
                               runtime=runtime)) as client:
        client.post(f"{PREFIX}/definitions", content=DEFINITION,
                    headers={**auth("admin"), "content-type": "application/yaml"})
        run_id = client.post(f"{PREFIX}/start", json={"workflowName": "approval"},
                             headers=auth("operate")).json()["workflowInstanceId"]
        import time
        for _ in range(500):
            tasks = client.get(f"{PREFIX}/tasks", headers=auth("view")).json()["items"]
            if tasks:
                break
            runtime.pump.wake()
            time.sleep(0.02)
        yield client, run_id, tasks[0]["taskId"]


def _quiet():
    import contextlib
    import warnings

    stack = contextlib.ExitStack()
    stack.enter_context(warnings.catch_warnings())
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    return stack


def _call(client, spec, run_id, task_id, headers):
    path = (spec.path.replace("{name}", "approval").replace("{version}", "1")
            .replace("{id}", task_id if spec.path.startswith("/tasks") else run_id))
    bodies = {"StartRequest": {"workflowName": "approval"}, "RepairRequest": {
        "rewindTo": "review"}, "CompleteTaskRequest": {"decision": "approve"},
        "ReplayRequest": {"signalIds": ["none"]}}
    if spec.method == "GET":
        return client.get(PREFIX + path, headers=headers)
    if spec.request is None:
        return client.post(PREFIX + path, content=DEFINITION,
                           headers={**headers, "content-type": "application/yaml"})
    return client.post(PREFIX + path, json=bodies.get(spec.request, {}), headers=headers)


# state-changing routes that would change the shared run are checked here only with tokens
# that are refused; the allowed calls of those are made in test_allowed_state_changes
MUTATING = {"/instances/{id}/cancel", "/instances/{id}/retry", "/instances/{id}/repair",
            "/instances/{id}/resume", "/tasks/{id}/complete", "/retention"}


MATRIX = [(spec, who) for spec in ROUTES for who in ("none", "view", "operate", "admin")
          if not (spec.path in MUTATING and who != "none" and TIERS[who] >= spec.scope)]


@pytest.mark.parametrize(("spec", "who"), MATRIX,
                         ids=[f"{s.method} {s.path} as {w}" for s, w in MATRIX])
def test_each_route_needs_its_scope(world, spec, who):
    client, run_id, task_id = world
    headers = {} if who == "none" else auth(who)
    needed_tier = spec.scope
    response = _call(client, spec, run_id, task_id, headers)
    if who == "none":
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer")
    elif TIERS[who] < needed_tier:
        assert response.status_code == 403
        assert needed_tier.claim in response.json()["error"]
        assert "insufficient_scope" in response.headers["www-authenticate"]
    else:
        assert response.status_code not in (401, 403), response.text


@pytest.mark.parametrize("spec", [s for s in ROUTES if "{id}" in s.path],
                         ids=[f"{s.method} {s.path}" for s in ROUTES if "{id}" in s.path])
def test_another_tenants_ids_are_not_found(world, spec):
    client, run_id, task_id = world
    response = _call(client, spec, run_id, task_id, auth("admin", tenant="globex"))
    assert response.status_code == 404, response.text


@pytest.mark.parametrize("who", ["view", "operate", "admin"])
def test_another_tenant_sees_none_of_the_lists(world, who):
    client, _, _ = world
    other = auth(who, tenant="globex")
    for path in ("/instances", "/tasks", "/events", "/signals/dead-letters", "/definitions"):
        assert client.get(PREFIX + path, headers=other).json()["items"] == [], path


def test_allowed_state_changes(world):
    """The mutating routes, each with the lowest tier that may call it: repair and resume
    the waiting run, complete its new task, then cancel and retry the finished run (409s
    from its state, never 401/403)."""
    import time

    client, run_id, _ = world
    headers = auth("operate")
    assert client.post(f"{PREFIX}/instances/{run_id}/repair", json={"rewindTo": "review"},
                       headers=headers).status_code == 200
    assert client.post(f"{PREFIX}/instances/{run_id}/resume", json={},
                       headers=headers).status_code == 200
    for _ in range(500):
        tasks = client.get(f"{PREFIX}/tasks", params={"status": "open",
                                                      "workflowInstanceId": run_id},
                           headers=auth("view")).json()["items"]
        if tasks:
            break
        time.sleep(0.02)
    (task,) = tasks
    assert client.post(f"{PREFIX}/tasks/{task['taskId']}/complete", json={"decision": "approve"},
                       headers=headers).status_code == 200
    for _ in range(500):
        if client.get(f"{PREFIX}/instances/{run_id}",
                      headers=auth("view")).json()["state"] == "Completed":
            break
        time.sleep(0.02)
    for verb in ("cancel", "retry"):
        response = client.post(f"{PREFIX}/instances/{run_id}/{verb}", json={}, headers=headers)
        assert response.status_code == 409, (verb, response.text)
    assert client.post(f"{PREFIX}/retention", json={}, headers=auth("admin")).status_code == 200


def test_a_bad_or_expired_token_is_401(world):
    from renderer.api.auth import issue_token

    client, _, _ = world
    expired = issue_token("test-secret-" + "x" * 32, subject="a", tenant="acme",
                          scopes=["workflow:admin"], ttl_seconds=-3600)
    for value in ("Bearer not-a-jwt", f"Bearer {expired}", "Basic YTpi"):
        response = client.get(f"{PREFIX}/instances", headers={"authorization": value})
        assert response.status_code == 401, value
        assert response.headers["www-authenticate"].startswith("Bearer")


def test_healthz_needs_no_token_and_render_stays_open(world):
    client, _, _ = world
    assert client.get("/healthz").status_code == 200
    assert client.post("/api/render?format=json&engine=layered", content=DEFINITION,
                       headers={"content-type": "application/yaml"}).status_code == 200
