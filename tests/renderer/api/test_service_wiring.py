"""The workflow parts of the service: /metrics and its scope, /readyz with the store and the
pump, tokens for the render endpoints when the settings ask for them."""

from __future__ import annotations

import time

from api_testing import SECRET, auth
from prometheus_client.parser import text_string_to_metric_families

from renderer.api.runtime import WorkflowRuntime
from renderer.api.settings import ServiceSettings
from renderer.isolation import WorkerPool
from renderer.service import create_app

API = "/api/workflow"
FLOW = ("workflow: one\nversion: '1'\n"
        "steps: [{id: a, kind: Tool, tool: notifier, failurePolicy: Fail}]\n")


def samples(text: str, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name:
                found[tuple(sorted(sample.labels.items()))] = sample.value
    return found


def test_metrics_need_the_view_scope_and_count_runs_steps_and_renders(make_service):
    service = make_service()
    assert service.client.get("/metrics").status_code == 401
    # and the OpenAPI document says so
    metrics = service.client.get("/openapi.json").json()["paths"]["/metrics"]["get"]
    assert metrics["security"] == [{"bearer": ["workflow:view"]}]
    service.import_definition(FLOW)
    run_id = service.client.post(f"{API}/start", json={"workflowName": "one"},
                                 headers=auth("operate")).json()["workflowInstanceId"]
    service.wait_for(run_id, lambda r: r["state"] == "Completed")
    rendered = service.client.post("/api/render?format=svg&engine=layered", content=FLOW,
                                   headers={"content-type": "application/yaml"})
    assert rendered.status_code == 200
    rejected = service.client.post(f"{API}/definitions", content="workflow: w\nsteps: 3\n",
                                   headers={**auth("admin"), "content-type": "text/yaml"})
    assert rejected.status_code == 400
    text = service.client.get("/metrics", headers=auth("view")).text
    runs = samples(text, "wfr_runs")
    assert runs[(("state", "Completed"), ("tenant", "acme"), ("workflow", "one"))] == 1.0
    assert runs[(("state", "Failed"), ("tenant", "acme"), ("workflow", "one"))] == 0.0
    steps = samples(text, "wfr_step_duration_seconds_count")
    assert steps[(("kind", "Tool"), ("tenant", "acme"))] == 1.0  # one attempt of step a
    renders = samples(text, "wfr_render_duration_seconds_count")
    assert renders[(("engine", "layered"), ("format", "svg"))] == 1.0
    rejections = samples(text, "wfr_definition_rejections_total")
    assert rejections[(("reason", "unreadable"),)] == 1.0


def test_metrics_open_to_a_scraper_when_the_setting_says_so(tmp_path):
    from starlette.testclient import TestClient

    settings = ServiceSettings(jwt_secret=SECRET, database=str(tmp_path / "w.db"),
                               metrics_public=True)
    with TestClient(create_app(pool=WorkerPool(size=1), settings=settings)) as client:
        response = client.get("/metrics")
        assert response.status_code == 200 and "wfr_runs" in response.text
        metrics = client.get("/openapi.json").json()["paths"]["/metrics"]["get"]
        assert "security" not in metrics


def test_render_endpoints_need_a_token_only_when_configured(tmp_path):
    from starlette.testclient import TestClient

    settings = ServiceSettings(jwt_secret=SECRET, database=str(tmp_path / "w.db"),
                               render_requires_token=True)
    with TestClient(create_app(pool=WorkerPool(size=1), settings=settings)) as client:
        body = {"content": FLOW, "headers": {"content-type": "application/yaml"}}
        assert client.post("/api/render?format=json", **body).status_code == 401
        assert client.get("/drawings/document-processing.svg").status_code == 401
        ok = client.post("/api/render?format=json", content=FLOW,
                         headers={"content-type": "application/yaml", **auth("view")})
        assert ok.status_code == 200
        assert client.get("/healthz").status_code == 200


def test_readyz_reports_a_stopped_pump(make_service):
    service = make_service()
    assert service.client.get("/readyz").status_code == 200
    service.runtime.pump.stop()
    response = service.client.get("/readyz")
    assert response.status_code == 503 and "pump" in response.json()["error"]


def test_a_run_started_over_http_advances_with_no_other_process(make_service):
    service = make_service()
    service.import_definition(FLOW)
    run_id = service.client.post(f"{API}/start", json={"workflowName": "one"},
                                 headers=auth("operate")).json()["workflowInstanceId"]
    deadline = time.monotonic() + 10
    while service.client.get(f"{API}/instances/{run_id}",
                             headers=auth("view")).json()["state"] != "Completed":
        assert time.monotonic() < deadline
        time.sleep(0.01)  # no wake: the pump was woken by the start itself


def test_dev_mode_imports_the_fixtures_for_the_dev_tenant(tmp_path):
    settings = ServiceSettings(jwt_secret=SECRET, database=str(tmp_path / "w.db"), dev=True)
    runtime = WorkflowRuntime.create(settings, embedded_pump=False)
    runtime.start()
    names = sorted({row.workflow for row in runtime.store.definition_rows("dev")})
    runtime.close()
    assert names == ["document-processing", "records-archival", "repository-assessment"]
    assert runtime.executors_note.startswith("demo executors")


def test_the_subworkflow_depth_setting_reaches_the_engine(tmp_path):
    settings = ServiceSettings(jwt_secret=SECRET, database=str(tmp_path / "w.db"),
                               max_subworkflow_depth=3)
    runtime = WorkflowRuntime.create(settings, embedded_pump=False)
    try:
        assert runtime.engine.max_subworkflow_depth == 3
    finally:
        runtime.close()


def test_a_bug_in_a_workflow_route_is_a_json_500_with_the_security_headers(
        tmp_path, monkeypatch):
    from starlette.testclient import TestClient

    import renderer.api.workflow as workflow_api

    def broken(run):
        raise KeyError("a bug")

    monkeypatch.setattr(workflow_api, "summary", broken)  # what the listing writes each run with
    settings = ServiceSettings(jwt_secret=SECRET, database=str(tmp_path / "w.db"))
    app = create_app(pool=WorkerPool(size=1), settings=settings)
    with TestClient(app, raise_server_exceptions=False) as client:
        client.post(f"{API}/definitions", content=FLOW,
                    headers={**auth("admin"), "content-type": "application/yaml"})
        client.post(f"{API}/start", json={"workflowName": "one"}, headers=auth("operate"))
        response = client.get(f"{API}/instances", headers=auth("view"))
    assert response.status_code == 500
    assert response.json() == {"error": "internal error: KeyError"}
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "content-security-policy" in response.headers
