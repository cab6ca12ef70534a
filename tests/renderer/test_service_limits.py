"""The render service under attack: every render in the pool under hard limits, admission
control, cancellation, stuck workers, caching with ETags, security headers and deadlines."""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from renderer.admission import Admission, Lane, Overloaded, RenderLimits
from renderer.http_protocol import HeaderTimeoutProtocol
from renderer.isolation import PING_SECONDS, WorkerPool
from renderer.isolation_worker import RenderJob, RenderOutput
from renderer.service import FIXTURES_DIR, Service, create_app
from renderer.web import RequestProblem, read_body

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

FIXTURE = FIXTURES_DIR / "document-processing.yaml"
GRAPH = {
    "nodes": [{"id": "a", "width": 80, "height": 40}, {"id": "b", "width": 80, "height": 40}],
    "edges": [{"id": "ab", "source": "a", "target": "b"}],
}
SECURITY_HEADERS = ("content-security-policy", "x-content-type-options", "referrer-policy",
                    "x-frame-options")

PROVIDER_SOURCE = '''
import os, pathlib, time
from layouts.registry import Availability

class SlowProvider:
    """Writes its pid to the file named by the first node's label, then sleeps 30 s."""
    name = "test-limits-slow"
    def availability(self):
        return Availability(True)
    def layout(self, graph, options):
        pathlib.Path(graph.nodes[0].label).write_text(str(os.getpid()))
        time.sleep(30)

class HogProvider:
    """Takes memory 64 MiB at a time until there is no more."""
    name = "test-limits-hog"
    def availability(self):
        return Availability(True)
    def layout(self, graph, options):
        blocks = []
        while True:
            blocks.append(bytearray(64 * 1024 * 1024))
'''
TEST_ENGINES = {"test-limits-slow": "SlowProvider", "test-limits-hog": "HogProvider"}


class CountingPool(WorkerPool):
    """A pool that counts the renders it was given."""

    renders = 0

    async def render_async(self, job: RenderJob,
                           cancelled: threading.Event | None = None) -> RenderOutput:
        self.renders += 1  # the service's way in (render itself only behind it, in a thread)
        return await super().render_async(job, cancelled)


@pytest.fixture(scope="module")
def test_engines(tmp_path_factory: pytest.TempPathFactory,
                 provider_module: Callable[..., AbstractContextManager[None]]) -> Iterator[None]:
    with provider_module(tmp_path_factory.mktemp("providers"),
                         "wfr_limits_providers", PROVIDER_SOURCE, TEST_ENGINES):
        yield


@pytest.fixture(scope="module")
def pool(test_engines: None) -> CountingPool:
    return CountingPool(size=2, memory_limit_mb=1024)


@pytest.fixture(scope="module")
def client(pool: CountingPool) -> Iterator[TestClient]:
    with TestClient(create_app(pool=pool, limits=RenderLimits(max_budget=30))) as started:
        yield started


def post(client: TestClient, body: bytes | str, headers: dict[str, str] | None = None,
         **query: str) -> httpx.Response:
    response: httpx.Response = client.post("/api/render", params=query, content=body,
                                           headers=headers or {})
    return response


def slow_graph(marker: Path, padding: int = 0) -> str:
    """A graph for the slow engine that writes its worker's pid to ``marker``; ``padding``
    spaces make the body large without changing the graph."""
    graph = {"nodes": [{"id": "a", "width": 10, "height": 10, "label": str(marker)}]}
    return json.dumps(graph) + " " * padding


def wait_for(marker: Path, seconds: float = 30) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if marker.exists() and marker.read_text():
            return int(marker.read_text())
        time.sleep(0.02)
    raise AssertionError(f"{marker} never appeared")


def is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "zombie" not in Path(
        f"/proc/{pid}/status").read_text().lower()


def test_yaml_and_dot_are_parsed_in_the_worker_not_the_server(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def not_here(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed in the server process")

    from renderer import dot_reader, readers, render

    for module, name in ((render, "read_diagram"), (readers, "read_diagram"),
                         (readers, "_parse"), (dot_reader, "parse_dot"),
                         (dot_reader, "_syntax_problem")):
        monkeypatch.setattr(module, name, not_here)
    assert post(client, FIXTURE.read_bytes(), format="json").status_code == 200
    assert post(client, "digraph { a -> b }", format="json").status_code == 200
    bad_dot = post(client, "digraph { a -> }")
    assert bad_dot.status_code == 400 and "line 1" in bad_dot.json()["error"]


def test_a_render_over_the_worker_memory_limit_gets_413_and_a_fresh_worker(
    client: TestClient, pool: CountingPool
) -> None:
    before = set(pool.pids())
    response = post(client, json.dumps(GRAPH), engine="test-limits-hog")
    assert response.status_code == 413
    assert "memory" in response.json()["error"] and "1024 MiB" in response.json()["error"]
    assert set(pool.pids()) != before and len(pool.pids()) == 2
    assert post(client, json.dumps(GRAPH), engine="graphviz").status_code == 200


def test_a_budget_over_the_server_maximum_is_refused_naming_it(client: TestClient) -> None:
    response = post(client, json.dumps(GRAPH), engine="graphviz", timeBudget="600")
    assert response.status_code == 400
    assert response.json()["error"] == ("timeBudget 600 s is over this server's maximum "
                                        "of 30 s")
    assert post(client, json.dumps(GRAPH), engine="graphviz",
                timeBudget="30").status_code == 200


@pytest.mark.parametrize(("body", "named"), [
    (json.dumps({"nodes": [{"id": f"n{i}", "width": 9, "height": 9} for i in range(5001)]}),
     "5001 nodes; the limit is 5000 (max_nodes)"),
    ("digraph { " + "a" * 1001 + " }", "1001 characters; the limit is 1000 (max_label_length)"),
    ("workflow: w\nsteps: [{id: a, kind: Tool, tool: " + "t" * 2000 + "}]\n",
     "step 'a' tool has 2000 characters; the limit is 1000"),
    (json.dumps({"nodes": [{"id": "a", "width": 9, "height": 9, "label": "x" * 5000}]}),
     "node 'a' label has 5000 characters"),
])
def test_inputs_over_a_limit_get_413_naming_it(client: TestClient, body: str,
                                               named: str) -> None:
    response = post(client, body, engine="graphviz")
    assert response.status_code == 413
    assert named in response.json()["error"]


def test_a_duplicate_edge_id_in_a_definition_gets_400(client: TestClient) -> None:
    body = ("workflow: w\nsteps: [{id: a, kind: Tool}, {id: b, kind: Tool}]\n"
            "edges: [{id: e, from: a, to: b}, {id: e, from: b, to: a}]\n")
    response = post(client, body, engine="graphviz")
    assert response.status_code == 400 and "repeats the edge id 'e'" in response.json()["error"]


def test_a_client_that_disconnects_cancels_its_render(pool: CountingPool,
                                                      tmp_path: Path) -> None:
    marker = tmp_path / "cancelled.pid"
    body = slow_graph(marker).encode()
    service = Service(pool, FIXTURES_DIR)
    messages = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, object]:
        if messages:
            return messages.pop(0)
        while not marker.exists():  # the client goes away once the layout has started
            await anyio.sleep(0.02)
        return {"type": "http.disconnect"}

    scope = {"type": "http", "method": "POST", "path": "/api/render", "headers": [],
             "query_string": b"engine=test-limits-slow&timeBudget=20"}
    started = time.monotonic()
    with pytest.raises(Exception, match="cancelled"):
        anyio.run(service.render, Request(scope, receive))
    took = time.monotonic() - started
    worker = int(marker.read_text())
    assert took < 10, f"the render went on for {took:.1f} s after the client left"
    deadline = time.monotonic() + 10
    while is_running(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not is_running(worker) and worker not in pool.pids()


def test_past_its_queue_a_render_gets_503_with_retry_after(test_engines: None,
                                                           tmp_path: Path) -> None:
    limits = RenderLimits(queue_per_lane=0)
    marker = tmp_path / "busy.pid"
    with TestClient(create_app(pool=WorkerPool(size=1), limits=limits)) as busy:
        slow = threading.Thread(target=post, args=(busy, slow_graph(marker)),
                                kwargs={"engine": "test-limits-slow", "timeBudget": "1"})
        slow.start()
        wait_for(marker)
        refused = post(busy, json.dumps(GRAPH), engine="graphviz")
        assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
        assert "busy" in refused.json()["error"]
        assert slow.is_alive()  # refused at once, not after the slow render
        slow.join(30)


def test_small_renders_are_not_starved_behind_big_ones(client: TestClient,
                                                       tmp_path: Path) -> None:
    big_bytes = RenderLimits().big_input_bytes + 1
    markers = [tmp_path / "big-1.pid", tmp_path / "big-2.pid"]
    bigs = [threading.Thread(target=post, args=(client, slow_graph(m, big_bytes)),
                             kwargs={"engine": "test-limits-slow", "timeBudget": "1"})
            for m in markers]
    for big in bigs:
        big.start()
    deadline = time.monotonic() + 30
    while not any(m.exists() for m in markers) and time.monotonic() < deadline:
        time.sleep(0.02)
    small = post(client, json.dumps(GRAPH), engine="graphviz", format="json")
    assert small.status_code == 200
    assert all(big.is_alive() for big in bigs)  # the second big one still waits its turn
    assert sum(m.exists() for m in markers) == 1
    for big in bigs:
        big.join(30)


def test_readyz_reports_a_worker_that_hangs(client: TestClient, pool: CountingPool) -> None:
    deadline = time.monotonic() + 60
    while pool.starting() and time.monotonic() < deadline:  # replacements of other tests
        assert client.get("/readyz").status_code == 200
        time.sleep(0.1)
    stuck = pool.pids()[0]
    os.kill(stuck, signal.SIGSTOP)
    try:
        started = time.monotonic()
        response = client.get("/readyz")
        assert response.status_code == 503 and str(stuck) in response.json()["error"]
        assert time.monotonic() - started < PING_SECONDS + 3
    finally:
        if is_running(stuck):
            os.kill(stuck, signal.SIGCONT)
    assert stuck not in pool.pids()  # replaced
    assert client.get("/readyz").status_code == 200


def test_every_response_carries_the_security_headers(client: TestClient) -> None:
    responses = [client.get("/"), client.get("/healthz"), client.get("/no/such/page"),
                 client.get("/drawings/repository-assessment.svg"),
                 post(client, "not [ a graph", engine="graphviz"),
                 client.get("/openapi.json")]
    for response in responses:
        missing = [name for name in SECURITY_HEADERS if name not in response.headers]
        assert not missing, (response.url, missing)
        assert response.headers["x-content-type-options"] == "nosniff"
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


def test_renders_are_cached_with_etags(client: TestClient, pool: CountingPool) -> None:
    body = json.dumps({**GRAPH, "edges": []})  # a graph no other test renders
    first = post(client, body, engine="graphviz")
    renders = pool.renders
    again = post(client, body, engine="graphviz")
    assert again.status_code == 200 and again.content == first.content
    assert pool.renders == renders  # from the cache
    etag = first.headers["etag"]
    assert again.headers["etag"] == etag and etag.startswith('"')
    not_modified = post(client, body, {"if-none-match": etag}, engine="graphviz")
    assert not_modified.status_code == 304 and not_modified.content == b""
    assert post(client, body, engine="graphviz", seed="7").headers["etag"] != etag
    fresh = post(client, body, {"cache-control": "no-cache"}, engine="graphviz")
    assert fresh.content == first.content and pool.renders == renders + 2


def test_lanes_hold_at_most_their_workers_and_queue() -> None:
    async def scenario() -> list[str]:
        lane = Lane("small", workers=1, queue=1)
        events: list[str] = []
        release = anyio.Event()

        async def hold(name: str) -> None:
            try:
                async with lane.slot():
                    events.append(f"{name} runs")
                    await release.wait()
            except Overloaded as refused:
                events.append(f"{name} refused {refused.headers['Retry-After']}")

        async with anyio.create_task_group() as group:
            for name in ("first", "second", "third"):
                group.start_soon(hold, name)
                await anyio.sleep(0.01)
            release.set()
        return events

    assert anyio.run(scenario) == ["first runs", "third refused 1", "second runs"]
    assert Admission(pool_size=1, limits=RenderLimits()).big.workers == 1


def test_a_body_that_does_not_arrive_in_time_gets_408() -> None:
    async def receive() -> dict[str, Any]:
        await anyio.sleep(5)
        return {"type": "http.request", "body": b"late", "more_body": False}

    scope = {"type": "http", "method": "POST", "path": "/", "headers": [], "query_string": b""}
    with pytest.raises(RequestProblem) as info:
        anyio.run(lambda: read_body(Request(scope, receive), seconds=0.2))
    assert info.value.status == 408 and "0.2 s" in str(info.value)


class QuickHeaderTimeout(HeaderTimeoutProtocol):
    header_seconds = 0.5


@pytest.fixture
def header_timeout_server() -> Iterator[int]:
    import uvicorn

    async def hello(request: Request) -> PlainTextResponse:
        return PlainTextResponse("hi")

    app = Starlette(routes=[Route("/", hello)])
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error",
                                           http=QuickHeaderTimeout, lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    yield port
    server.should_exit = True
    thread.join(10)


@pytest.mark.parametrize("sent", [b"", b"GET / HTTP/1.1\r\nHost: x\r\n"])
def test_connections_without_complete_headers_are_closed(header_timeout_server: int,
                                                         sent: bytes) -> None:
    with socket.create_connection(("127.0.0.1", header_timeout_server), timeout=5) as idle:
        idle.sendall(sent)
        started = time.monotonic()
        assert idle.recv(100) == b""  # closed by the server, not by our 5 s timeout
        assert time.monotonic() - started < 3
    with socket.create_connection(("127.0.0.1", header_timeout_server), timeout=5) as quick:
        quick.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert quick.recv(100).startswith(b"HTTP/1.1 200")


def test_a_fresh_render_names_its_worker_stages_and_their_cpu_time(client: TestClient) -> None:
    body = json.dumps({**GRAPH, "edges": [], "nodes": GRAPH["nodes"][:1]})
    response = post(client, body, {"cache-control": "no-cache"}, engine="graphviz")
    assert response.status_code == 200
    stages = {name.strip(): float(duration) for name, _, duration in
              (item.partition(";dur=") for item in response.headers["server-timing"].split(","))}
    assert list(stages) == ["read", "layout", "write", "cpu", "pool"]
    worker = stages["read"] + stages["layout"] + stages["write"]
    # one thread's CPU time cannot exceed its wall time (each figure is rounded to 0.1 ms)
    assert 0 < stages["cpu"] <= worker + 0.15
    assert worker <= stages["pool"] + 0.15  # the pool's wait holds the worker's stages
