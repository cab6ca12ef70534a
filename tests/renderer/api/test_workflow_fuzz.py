"""Fuzzing every operation of /api/workflow (and /metrics) from the service's own
/openapi.json with schemathesis: whatever the generated request, valid or not, the answer is
never a 5xx, every 4xx is ``{"error": "<message>"}``, every response fits its declared
status, media type and schema, a request the schema forbids is refused, and a 405 names the
path's methods in Allow. (Not checked: that every schema-valid request is accepted, since a
reused Idempotency-Key is a 422 and an opaque ``after`` cursor cannot be described by a
schema, so a made-up one is a 400.)

The service runs for the whole module on a temporary SQLite store with the pump, started by
a TestClient (its lifespan); schemathesis reaches the same ASGI app in-process over its own
transport, with the lifespan scope declined so its plugin's per-test lifespan shutdown cannot
close the store under the later operations. Before fuzzing, a definition with a Human step is
imported and a dead letter queued, and each operation gets a fresh run waiting for its human
task, so generated requests also hit ids that exist (the hooks below mix real ids, names and
versions into the generated ones). Every case carries an admin token of tenant acme, but
those that leave the Authorization header out on purpose.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from typing import Any

import pytest
import schemathesis
from api_testing import HUMAN_FLOW, Service, auth, running_service
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    allow_header_conformance,
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from renderer.api.schemas import BodyError, validate_body
from renderer.api.workflow import PREFIX, ROUTES
from renderer.openapi import openapi_document
from workflow.store import Commit, QueuedSignal

API = "/api/workflow"
ADMIN = auth("admin", "acme")
KNOWN: dict[str, list[str]] = {"name": ["approval"], "version": ["1"], "id": [],
                               "signal": ["bogus-1"]}
"""Ids that exist once the module's service is seeded; the hooks mix them into requests."""

SCHEMA = (schemathesis.openapi.from_dict(openapi_document(), config=schemathesis.Config())
          .include(path_regex=f"^({API}/|/metrics$)")
          .exclude(path=f"{API}/events/stream"))  # endless; tests/renderer/api covers it
FUZZ = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
AsgiApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def without_lifespan(app: AsgiApp) -> AsgiApp:
    """``app`` for requests only: a lifespan scope is declined (the TestClient owns it)."""

    async def requests_only(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            raise RuntimeError("the lifespan is run by the module's TestClient")
        await app(scope, receive, send)

    return requests_only


def waiting_run(service: Service) -> tuple[str, list[str]]:
    """A new run of ``approval`` waiting for its human task: its id and its task ids."""
    started = service.client.post(f"{API}/start", json={"workflowName": "approval"},
                                  headers=ADMIN)
    assert started.status_code == 201, started.text
    run_id = started.json()["workflowInstanceId"]
    record = service.wait_for(run_id, lambda r: r["state"] == "WaitingForHuman", 20)
    assert record["state"] == "WaitingForHuman", record["state"]
    return run_id, [t["taskId"] for t in record["tasks"]]


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """The service with the definition ``approval`` and one dead letter."""
    with running_service(tmp_path_factory.mktemp("fuzz") / "w.db") as service:
        service.import_definition(HUMAN_FLOW)
        run_id, _ = waiting_run(service)
        service.runtime.store.commit(Commit(None, enqueue=(
            QueuedSignal(KNOWN["signal"][0], run_id, "no-such-kind", {}, 0.0),)), at=0.0)
        deadline = time.monotonic() + 20
        while not service.client.get(f"{API}/signals/dead-letters",
                                     headers=ADMIN).json()["items"]:
            assert time.monotonic() < deadline, "the bogus signal never became a dead letter"
            service.runtime.pump.wake()
            time.sleep(0.02)
        yield service


@pytest.fixture
def service_app(seeded: Service) -> AsgiApp:
    """The seeded service's app with a fresh waiting run (and its task) for each operation,
    so a cancel or a purge fuzzed earlier leaves the later operations something to act on."""
    run_id, task_ids = waiting_run(seeded)
    KNOWN["id"] = [run_id, *task_ids]
    return without_lifespan(seeded.client.app)


@SCHEMA.auth()
class AdminToken:
    """The admin token of tenant acme on every case, but those that leave the Authorization
    header out on purpose (schemathesis then expects a 401)."""

    def get(self, case: schemathesis.Case, ctx: schemathesis.AuthContext) -> str:
        return ADMIN["authorization"]

    def set(self, case: schemathesis.Case, data: str, ctx: schemathesis.AuthContext) -> None:
        case.headers = {**(case.headers or {}), "Authorization": data}


def one_of_known(value: object, kind: str) -> st.SearchStrategy[object]:
    """The generated ``value`` or, as often, an id of ``kind`` that exists."""
    known = KNOWN[kind]
    return st.one_of(st.just(value), st.sampled_from(known)) if known else st.just(value)


@SCHEMA.hook
def flatmap_path_parameters(context: schemathesis.HookContext, path_parameters: dict[str, Any]
                            ) -> st.SearchStrategy[dict[str, Any]]:
    if not isinstance(path_parameters, dict):
        return st.just(path_parameters)
    names = [n for n in ("name", "version", "id") if n in path_parameters]
    if not names:
        return st.just(path_parameters)
    return st.fixed_dictionaries({n: one_of_known(path_parameters[n], n) for n in names}).map(
        lambda chosen: {**path_parameters, **chosen})


REQUESTS = {PREFIX + spec.path: spec.request for spec in ROUTES if spec.request}


def is_valid(path: str, body: Any) -> bool:
    """Whether ``body`` fits the request schema of ``path`` (so it came from a positive
    case, which a real name or id keeps positive)."""
    try:
        validate_body(REQUESTS[path], body)
    except (BodyError, KeyError):
        return False
    return True


@SCHEMA.hook
def flatmap_body(context: schemathesis.HookContext, body: Any) -> st.SearchStrategy[Any]:
    operation = context.operation
    if operation is None or not is_valid(operation.path, body):
        return st.just(body)
    if operation.path.endswith("/start"):
        return one_of_known(body["workflowName"], "name").map(
            lambda name: {**body, "workflowName": name})
    if operation.path.endswith("/replay"):
        return st.one_of(st.just(body), st.just({**body, "signalIds": KNOWN["signal"]}))
    return st.just(body)


def error_body(ctx: Any, response: schemathesis.Response, case: schemathesis.Case) -> bool:
    """A 4xx names the problem: a JSON object with a non-empty ``error`` string."""
    if 400 <= response.status_code < 500:
        content_type = response.headers.get("content-type", [""])[0]
        assert content_type.startswith("application/json"), (
            f"{response.status_code} with content type {content_type!r}: "
            f"{response.text[:200]!r}")
        body = response.json()
        assert isinstance(body, dict) and isinstance(body.get("error"), str) \
            and body["error"].strip(), f"{response.status_code} without an error: {body!r}"
    return True


CHECKS = [not_a_server_error, error_body, response_schema_conformance, status_code_conformance,
          content_type_conformance, negative_data_rejection, allow_header_conformance,
          unsupported_method]


@SCHEMA.parametrize()
@FUZZ
def test_no_workflow_operation_answers_a_server_error(case: schemathesis.Case,
                                                      service_app: AsgiApp) -> None:
    case.call_and_validate(app=service_app, checks=CHECKS)

