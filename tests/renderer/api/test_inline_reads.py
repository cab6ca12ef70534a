"""Which workflow API handlers run on the event loop: a short read does, a write or a big
record goes to a thread, and both answer the same."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from api_testing import HUMAN_FLOW, SECRET, Service, auth, running_service
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from renderer.api.auth import Principal, Scope, TokenVerifier
from renderer.api.gate import Gate
from renderer.api.http import Call, endpoint
from renderer.api.settings import ServiceSettings
from renderer.api.workflow import INLINE_RECORD_BYTES
from workflow.sqlite_store import SqliteStore

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

API = "/api/workflow"
VIEW = auth("view", "acme")


def threads_of(inline: bool) -> tuple[int, int]:
    """(the event loop's thread, the handler's thread) of one call of an endpoint."""
    seen: dict[str, int] = {}

    def handler(call: Call) -> Response:
        seen["handler"] = threading.get_ident()
        return JSONResponse({})

    async def loop_thread(request: Request) -> Response:
        seen["loop"] = threading.get_ident()
        return JSONResponse({})

    gate = Gate(TokenVerifier.from_settings(ServiceSettings(jwt_secret=SECRET)), b"k" * 32)
    app = Starlette(routes=[
        Route("/read", endpoint(handler, Scope.VIEW, lambda: gate, lambda call: inline)),
        Route("/loop", loop_thread)])
    with TestClient(app) as client:
        assert client.get("/read", headers=VIEW).status_code == 200
        assert client.get("/loop").status_code == 200
    return seen["loop"], seen["handler"]


def test_an_inline_call_runs_on_the_event_loop() -> None:
    loop, handler = threads_of(inline=True)
    assert handler == loop


def test_other_calls_run_in_a_thread() -> None:
    loop, handler = threads_of(inline=False)
    assert handler != loop


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with running_service(tmp_path_factory.mktemp("inline") / "w.db") as service:
        response = service.client.post(f"{API}/definitions", content=HUMAN_FLOW,
                                       headers={**auth("admin", "acme"),
                                                "content-type": "application/yaml"})
        assert response.status_code == 201, response.text
        yield service


def start(world: Service, run_input: object) -> str:
    response = world.client.post(f"{API}/start", json={"workflowName": "approval",
                                                       "payload": run_input},
                                 headers=auth("operate", "acme"))
    assert response.status_code == 201, response.text
    run_id: str = response.json()["workflowInstanceId"]
    return run_id


def test_a_small_record_is_read_inline_and_a_big_one_in_a_thread(world: Service) -> None:
    small = start(world, {"note": "short"})
    big = start(world, {"note": "x" * (INLINE_RECORD_BYTES + 1)})
    api = world.runtime.api
    assert api.small_record(Call(_principal(), {"id": small}, {}, {}, b"", ""))
    assert not api.small_record(Call(_principal(), {"id": big}, {}, {}, b"", ""))
    assert not api.small_record(Call(_principal(), {"id": "no-such-run"}, {}, {}, b"", ""))
    for run_id, note in ((small, "short"), (big, "x" * (INLINE_RECORD_BYTES + 1))):
        response = world.client.get(f"{API}/instances/{run_id}", headers=VIEW)
        assert response.status_code == 200, response.text
        assert response.json()["input"] == {"note": note}
    assert world.client.get(f"{API}/instances/no-such-run", headers=VIEW).status_code == 404


def test_a_shared_memory_store_never_reads_inline(tmp_path: Path) -> None:
    # the one connection of ':memory:' is locked while a commit runs
    assert SqliteStore(":memory:").local_read_size("any") is None
    on_file = SqliteStore(tmp_path / "w.db")
    assert on_file.local_read_size("any") is None  # no such run


def _principal() -> Principal:
    return Principal("ada", "acme", frozenset(Scope))
