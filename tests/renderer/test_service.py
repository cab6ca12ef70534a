"""The Starlette service: every route, every error status, and a slow layout that does not
stall the server."""

from __future__ import annotations

import json
import logging
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import anyio
import httpx
import pytest
from starlette.requests import Request

from renderer import service
from renderer.cli import main
from renderer.isolation import DEFAULT_POOL_SIZE, GRACE_SECONDS, WorkerPool
from renderer.serve import banner
from renderer.service import create_app
from renderer.web import MAX_BODY_BYTES, RequestProblem, read_body

with warnings.catch_warnings():
    # starlette 1.x prefers the httpx2 package; the httpx it falls back to works the same.
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "document-processing.yaml"
GRAPH = {
    "nodes": [{"id": "a", "width": 80, "height": 40}, {"id": "b", "width": 80, "height": 40}],
    "edges": [{"id": "ab", "source": "a", "target": "b"}],
}

PROVIDER_SOURCE = '''
import os, pathlib, time
from layouts.registry import Availability

class SlowProvider:
    """Writes its pid to the file named by the first node's label, then sleeps 30 s."""
    name = "test-service-slow"
    def availability(self):
        return Availability(True)
    def layout(self, graph, options):
        pathlib.Path(graph.nodes[0].label).write_text(str(os.getpid()))
        time.sleep(30)

class MissingProvider:
    name = "test-service-missing"
    def availability(self):
        return Availability(False, "libmissing not found; pip install libmissing")
    def layout(self, graph, options):
        raise AssertionError("an unavailable provider must not be called")

class CrashingProvider:
    name = "test-service-crash"
    def availability(self):
        return Availability(True)
    def layout(self, graph, options):
        os._exit(3)
'''
TEST_ENGINES = {"test-service-slow": "SlowProvider",
                "test-service-missing": "MissingProvider",
                "test-service-crash": "CrashingProvider"}


@pytest.fixture(scope="module")
def test_engines(tmp_path_factory: pytest.TempPathFactory,
                 provider_module: Callable[..., AbstractContextManager[None]]) -> Iterator[None]:
    """Misbehaving providers, importable by the workers (registered, then undone)."""
    with provider_module(tmp_path_factory.mktemp("providers"),
                         "wfr_service_providers", PROVIDER_SOURCE, TEST_ENGINES):
        yield


@pytest.fixture(scope="module")
def client(test_engines: None) -> Iterator[TestClient]:
    with TestClient(create_app(pool=WorkerPool(size=2))) as started:
        yield started


def post_render(client: TestClient, body: bytes | str, **query: str) -> httpx.Response:
    response: httpx.Response = client.post("/api/render", params=query, content=body,
                                           headers={"content-type": "application/yaml"})
    return response


def test_render_gives_the_same_svg_bytes_as_the_cli(
    client: TestClient, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    response = post_render(client, FIXTURE.read_bytes(), engine="graphviz")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    assert main(["render", str(FIXTURE), "--engine", "graphviz"]) == 0
    assert response.content == capsysbinary.readouterr().out
    drawing = client.get("/drawings/document-processing.svg", params={"engine": "graphviz"})
    assert drawing.status_code == 200
    assert drawing.headers["content-type"].startswith("image/svg+xml")
    assert drawing.content == response.content


def test_render_json_with_query_options(client: TestClient) -> None:
    response = post_render(client, json.dumps(GRAPH), engine="graphviz", format="json",
                           direction="LR", effort="draft", timeBudget="5")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    result = response.json()
    assert result["diagnostics"]["direction"] == "LeftToRight"
    assert result["diagnostics"]["effort"] == "draft"


@pytest.mark.parametrize(("query", "body", "status", "named"), [
    ({"format": "png"}, json.dumps(GRAPH), 400, "png"),
    ({"engine": "no-such-engine"}, json.dumps(GRAPH), 400, "no-such-engine"),
    ({"effort": "max"}, json.dumps(GRAPH), 400, "effort"),
    ({"timeBudget": "0"}, json.dumps(GRAPH), 400, "time_budget"),
    ({"zoom": "2"}, json.dumps(GRAPH), 400, "zoom"),
    ({"engine": "graphviz"}, "this is : not [ a graph {", 400, ""),
    ({"engine": "graphviz"}, json.dumps({
        "nodes": [{"id": "a", "width": 10, "height": 10}],
        "edges": [{"id": "to-nowhere", "source": "a", "target": "zz"}]}), 422, "to-nowhere"),
    ({"engine": "graphviz"}, json.dumps({
        "nodes": [{"id": "twice", "width": 10, "height": 10},
                  {"id": "twice", "width": 10, "height": 10}]}), 422, "twice"),
    ({"engine": "test-service-missing"}, json.dumps(GRAPH), 503, "libmissing"),
    ({"engine": "test-service-crash"}, json.dumps(GRAPH), 503, "exit code 3"),
])
def test_bad_input_gets_a_4xx_json_error_naming_the_problem(
    client: TestClient, query: dict[str, str], body: str, status: int, named: str
) -> None:
    response = post_render(client, body, **query)
    assert response.status_code == status
    message = response.json()["error"]
    assert isinstance(message, str) and message and named in message


def test_a_body_over_the_limit_gets_413_even_without_a_length(client: TestClient) -> None:
    big = b"#" * (MAX_BODY_BYTES + 1)
    assert post_render(client, big).status_code == 413

    def chunks() -> Iterator[bytes]:  # sent chunked: no content-length to trust
        for _ in range(3):
            yield b"#" * (MAX_BODY_BYTES // 2)

    response = client.post("/api/render", content=chunks())
    assert response.status_code == 413
    assert str(MAX_BODY_BYTES) in response.json()["error"]


def request_receiving(*messages: dict[str, object]) -> Request:
    """A request whose body arrives as the given ASGI messages."""
    pending = list(messages)

    async def receive() -> dict[str, object]:
        return pending.pop(0)

    scope = {"type": "http", "method": "POST", "path": "/api/render", "headers": [],
             "query_string": b""}
    return Request(scope, receive)


def test_the_body_is_read_in_chunks_up_to_the_limit() -> None:
    request = request_receiving(
        {"type": "http.request", "body": b"abc", "more_body": True},
        {"type": "http.request", "body": b"de", "more_body": False})
    assert anyio.run(read_body, request, 5) == b"abcde"
    over = request_receiving(
        {"type": "http.request", "body": b"abc", "more_body": True},
        {"type": "http.request", "body": b"def", "more_body": True})  # never asked for more
    with pytest.raises(RequestProblem) as info:
        anyio.run(read_body, over, 5)
    assert info.value.status == 413


def test_a_client_that_disconnects_mid_body_gets_400() -> None:
    request = request_receiving({"type": "http.request", "body": b"abc", "more_body": True},
                                {"type": "http.disconnect"})
    with pytest.raises(RequestProblem) as info:
        anyio.run(read_body, request)
    assert info.value.status == 400 and "disconnected" in str(info.value)


def test_an_unsupported_content_type_gets_415(client: TestClient) -> None:
    response = client.post("/api/render", content=b"\x89PNG",
                           headers={"content-type": "image/png"})
    assert response.status_code == 415
    assert "image/png" in response.json()["error"]


def test_a_slow_layout_gets_504_while_the_server_keeps_answering(
    client: TestClient, tmp_path: Path
) -> None:
    marker = tmp_path / "slow-worker.pid"
    graph = {"nodes": [{"id": "a", "width": 10, "height": 10, "label": str(marker)}]}
    responses: list[httpx.Response] = []
    slow = threading.Thread(target=lambda: responses.append(post_render(
        client, json.dumps(graph), engine="test-service-slow", timeBudget="1")))
    slow.start()
    deadline = time.monotonic() + 30
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert marker.exists(), "the slow layout never started"
    health = client.get("/healthz")
    assert health.status_code == 200 and health.json() == {"status": "ok"}
    assert slow.is_alive()  # /healthz answered while the slow layout was still running
    slow.join(60)
    assert responses[0].status_code == 504
    assert f"{1 + GRACE_SECONDS:g} s" in responses[0].json()["error"]


def test_a_bug_is_logged_and_gives_500(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: object, **kwargs: object) -> str:
        raise KeyError("unexpected")

    monkeypatch.setattr(service, "response_key", broken)
    with caplog.at_level(logging.ERROR, logger="renderer.service"):
        response = post_render(client, json.dumps(GRAPH))
    assert response.status_code == 500
    assert response.json() == {"error": "internal error: KeyError"}
    assert "internal error in POST /api/render" in caplog.text


def test_engines_lists_availability_and_reasons(client: TestClient) -> None:
    rows = {row["name"]: row for row in client.get("/api/engines").json()}
    assert rows["graphviz"]["available"] is True
    assert rows["test-service-missing"] == {
        "name": "test-service-missing", "available": False,
        "reason": "libmissing not found; pip install libmissing"}


def test_readyz_needs_the_pool_and_the_default_engine(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service, "DEFAULT_ENGINE", "graphviz")
    assert client.get("/readyz").status_code == 200
    monkeypatch.setattr(service, "DEFAULT_ENGINE", "test-service-missing")
    missing = client.get("/readyz")
    assert missing.status_code == 503 and "libmissing" in missing.json()["error"]
    not_started = TestClient(create_app(pool=WorkerPool(size=1)))  # no lifespan: no pool
    stopped = not_started.get("/readyz")
    assert stopped.status_code == 503 and "not running" in stopped.json()["error"]


def test_schemas_and_the_openapi_document(client: TestClient) -> None:
    from layouts.schemas import all_schemas

    schemas = all_schemas()
    for name in ("graph", "options", "result"):
        assert client.get(f"/api/schemas/{name}").json() == schemas[name]
    missing = client.get("/api/schemas/nope")
    assert missing.status_code == 404 and "nope" in missing.json()["error"]
    document = client.get("/openapi.json").json()
    assert document["openapi"] == "3.1.0"
    assert {"/api/render", "/api/engines", "/healthz", "/readyz", "/openapi.json",
            "/drawings/{file}", "/api/schemas/{name}", "/"} <= set(document["paths"])
    components = document["components"]["schemas"]
    assert components["Graph"] == schemas["graph"]
    assert components["LayoutResult"] == schemas["result"]
    parameters = {p["name"] for p in document["paths"]["/api/render"]["post"]["parameters"]}
    assert {"format", "engine", "direction", "effort", "timeBudget", "nodeSpacing"} <= parameters


def test_fixture_drawings_by_name(client: TestClient) -> None:
    as_json = client.get("/drawings/document-processing.json", params={"engine": "graphviz"})
    assert len(as_json.json()["nodes"]) == 24  # the fixture's 24 steps
    for bad in ("nope.svg", "document-processing.png", "..%2Fpyproject.svg",
                "document-processing"):
        response = client.get(f"/drawings/{bad}")
        assert response.status_code == 404, bad
        assert "error" in response.json()


def test_index_links_the_fixture_drawings(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert 'href="/drawings/document-processing.svg"' in page.text
    assert 'href="/drawings/repository-assessment.svg"' in page.text


def test_unknown_routes_get_a_json_404(client: TestClient) -> None:
    response = client.get("/no/such/route")
    assert response.status_code == 404 and response.json() == {"error": "Not Found"}


def test_serve_prints_the_address_and_the_reference_drawing() -> None:
    assert banner("127.0.0.1", 8000) == (
        "Serving on http://127.0.0.1:8000/ ; reference drawing: "
        "http://127.0.0.1:8000/drawings/document-processing.svg")


@pytest.mark.explicit
def test_the_real_server_serves_the_reference_drawing_and_stops_cleanly() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "renderer.serve", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert server.stdout is not None
        assert server.stdout.readline().startswith(f"Serving on http://127.0.0.1:{port}/")
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/readyz").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        drawing = httpx.get(f"{base}/drawings/document-processing.svg", timeout=60)
        assert drawing.status_code == 200 and drawing.content.startswith(b"<?xml")
        workers = children_of(server.pid)
        assert len(workers) == DEFAULT_POOL_SIZE
    finally:
        server.send_signal(signal.SIGINT)
        assert server.wait(30) == 0
        server.stdout.close()  # type: ignore[union-attr]
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)


def children_of(pid: int) -> list[int]:
    """Process ids whose parent is ``pid``, read from /proc (Linux)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def test_curl_default_form_content_type_is_read_as_the_raw_body(client: TestClient) -> None:
    # `curl --data-binary @file` sends application/x-www-form-urlencoded
    text = (Path(__file__).resolve().parents[2] / "fixtures" / "repository-assessment.yaml"
            ).read_bytes()
    response = client.post("/api/render?format=json&engine=grandalf", content=text,
                           headers={"content-type": "application/x-www-form-urlencoded"})
    assert response.status_code == 200
    assert len(response.json()["nodes"]) == 6
