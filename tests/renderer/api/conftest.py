"""A workflow service on a temporary SQLite store, with tokens for every scope.

Test modules import the helpers here as ``api_testing`` (pytest's importlib import mode
does not make a conftest importable by name, so it registers itself under that name).
"""

from __future__ import annotations

import sys
import threading
import time
import warnings
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from renderer.api.auth import issue_token
from renderer.api.runtime import WorkflowRuntime
from renderer.api.settings import ServiceSettings
from renderer.isolation import WorkerPool
from renderer.service import create_app
from workflow.demo import DEMO_OUTPUTS
from workflow.executors import Executor, ExecutorRegistry

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

SECRET = "test-secret-" + "x" * 32
FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
SCOPES = {"view": "workflow:view", "operate": "workflow:operate", "admin": "workflow:admin"}
HUMAN_FLOW = """
workflow: approval
version: "1"
steps:
  - {id: prepare, kind: Tool, tool: notifier, failurePolicy: Fail}
  - {id: review, kind: Human, assignee: finance, failurePolicy: Fail}
  - {id: book, kind: Tool, tool: erp-connector, failurePolicy: Fail}
edges:
  - {from: prepare, to: review}
  - {from: review, to: book}
"""
"""A definition whose runs wait for a human task at ``review``."""
SUBWORKFLOW_CHILD = """
workflow: child
version: "1.0"
steps:
  - {id: check, kind: Tool, tool: notifier, failurePolicy: Fail}
  - {id: sign, kind: Human, failurePolicy: Fail}
edges:
  - {from: check, to: sign}
"""
SUBWORKFLOW_PARENT = """
workflow: parent
version: "1"
steps:
  - {id: prepare, kind: Tool, tool: notifier, failurePolicy: Fail}
  - {id: contract, kind: SubWorkflow, workflow: child, version: "1.x"}
  - {id: book, kind: Tool, tool: erp-connector, failurePolicy: Fail}
edges:
  - {from: prepare, to: contract}
  - {from: contract, to: book}
"""
"""A parent whose SubWorkflow step ``contract`` starts a child run that waits at ``sign``
(``prepare`` and ``check`` succeed at once with the demo executors)."""


def assert_answer(response: httpx.Response, allowed: Collection[int]) -> None:
    """The product's rule for any input: an allowed status, and a 4xx names the problem in
    a JSON body ``{"error": "<message>"}``."""
    assert response.status_code in allowed, (response.status_code, response.text[:300])
    if response.status_code >= 400:
        assert response.headers["content-type"].startswith("application/json"), response.text
        message = response.json()["error"]
        assert isinstance(message, str) and message.strip(), response.text


def assert_refused(response: httpx.Response, status: int, *fragments: str) -> None:
    """``status`` with a JSON error whose message has each of ``fragments``."""
    assert_answer(response, {status})
    message = response.json()["error"]
    assert all(fragment in message for fragment in fragments), message


def token(scope: str = "admin", tenant: str = "acme", subject: str = "ada") -> str:
    """A bearer token of ``tenant`` with one scope tier (view, operate or admin)."""
    return issue_token(SECRET, subject=subject, tenant=tenant, scopes=[SCOPES[scope]])


def auth(scope: str = "admin", tenant: str = "acme", subject: str = "ada") -> dict[str, str]:
    return {"authorization": f"Bearer {token(scope, tenant, subject)}"}


class Clock:
    """Real time plus a jump the test controls (to make timers come due)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


def fixed(output: object) -> Executor:
    return lambda payload: output


def executors(**overrides: object) -> ExecutorRegistry:
    """The demo executors with some outputs replaced."""
    outputs = {**DEMO_OUTPUTS, **overrides}
    return ExecutorRegistry({name: fixed(value) for name, value in outputs.items()})


@dataclass
class Service:
    client: TestClient
    runtime: WorkflowRuntime
    clock: Clock
    lock: threading.Lock = field(default_factory=threading.Lock)

    def wait_for(self, run_id: str, predicate: Callable[[dict], bool], seconds: float = 10.0,
                 tenant: str = "acme") -> dict:
        """Poll the run record until ``predicate`` holds (the pump runs in the background)."""
        deadline = time.monotonic() + seconds
        while True:
            record = self.client.get(f"/api/workflow/instances/{run_id}",
                                     headers=auth("view", tenant)).json()
            if predicate(record) or time.monotonic() > deadline:
                return record
            self.runtime.pump.wake()
            time.sleep(0.02)

    def import_definition(self, path: Path | str, tenant: str = "acme") -> dict:
        text = Path(path).read_bytes() if isinstance(path, Path) else path.encode()
        response = self.client.post("/api/workflow/definitions", content=text,
                                    headers={**auth("admin", tenant),
                                             "content-type": "application/yaml"})
        assert response.status_code in (200, 201), response.text
        return response.json()


@contextmanager
def running_service(database: Path, registry: ExecutorRegistry | None = None
                    ) -> Iterator[Service]:
    """A started service on ``database`` for as long as the block runs (for fixtures of a
    wider scope than ``make_service``)."""
    clock = Clock()
    settings = ServiceSettings(jwt_secret=SECRET, database=str(database))
    runtime = WorkflowRuntime.create(settings, clock=clock, executors=registry or executors())
    with TestClient(create_app(pool=WorkerPool(size=1), settings=settings,
                               runtime=runtime)) as client:
        yield Service(client, runtime, clock)


@pytest.fixture
def make_service(tmp_path) -> Iterator[Callable[..., Service]]:
    """Factory: make_service(executors=None, pump=True) -> a started service."""
    started: list[TestClient] = []

    def make(registry: ExecutorRegistry | None = None, *, pump: bool = True) -> Service:
        clock = Clock()
        settings = ServiceSettings(jwt_secret=SECRET,
                                   database=str(tmp_path / f"w{len(started)}.db"))
        runtime = WorkflowRuntime.create(settings, embedded_pump=pump, clock=clock,
                                         executors=registry or executors())
        client = TestClient(create_app(pool=WorkerPool(size=1), settings=settings,
                                       runtime=runtime))
        client.__enter__()
        started.append(client)
        return Service(client, runtime, clock)

    yield make
    for client in started:
        client.__exit__(None, None, None)


@dataclass
class LiveService:
    """The service on a real loopback port (uvicorn in a thread), for concurrent clients."""

    url: str
    runtime: WorkflowRuntime
    clock: Clock


def start_live(database: Path, registry: ExecutorRegistry | None = None
               ) -> tuple[LiveService, Any, threading.Thread]:
    """A service on a free port of 127.0.0.1 (uvicorn in a daemon thread) over a fresh
    store at ``database``; the caller stops the server (``should_exit``) and joins."""
    import socket

    import uvicorn

    clock = Clock()
    settings = ServiceSettings(jwt_secret=SECRET, database=str(database))
    runtime = WorkflowRuntime.create(settings, clock=clock, executors=registry or executors())
    app = create_app(pool=WorkerPool(size=1), settings=settings, runtime=runtime)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.02)
    return LiveService(f"http://127.0.0.1:{port}", runtime, clock), server, thread


@pytest.fixture
def live_service(tmp_path) -> Iterator[Callable[..., LiveService]]:
    """Factory: live_service(executors=None) -> a service listening on 127.0.0.1."""
    servers: list[tuple[Any, threading.Thread]] = []

    def make(registry: ExecutorRegistry | None = None) -> LiveService:
        live, server, thread = start_live(tmp_path / f"live{len(servers)}.db", registry)
        servers.append((server, thread))
        return live

    yield make
    for server, thread in servers:
        server.should_exit = True
        thread.join(30)


sys.modules.setdefault("api_testing", sys.modules[__name__])
