"""Hostile input to the workflow API that schemathesis's generation may not reach: definition
documents (YAML alias bombs, deep nesting, huge numbers, NaN/inf, non-string ids, unknown
fields, bad JSONLogic), odd path ids, odd query values, wrong content types, empty and
non-object bodies, lone surrogates and Idempotency-Key edge cases. Each answer is a 4xx with
``{"error": "<message>"}``, or a 2xx where the input is in fact valid; never a 5xx.

After each request that was accepted, the records it touched are read back, so input that is
stored fine but breaks a later read (a NaN, a time no clock can write) fails here too.

The inputs that once gave a 500 have their regression tests in test_workflow_regressions.py.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import yaml
from api_testing import HUMAN_FLOW, Service, assert_answer, assert_refused, auth, running_service
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

API = "/api/workflow"
ADMIN = auth("admin", "acme")
FUZZ = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
IMPORT = {200, 201, 400, 409, 413, 415, 422}
VALIDATE = {200, 400, 413, 415}
BODY = {200, 201, 400, 404, 409, 413, 415, 422}
READ = {200, 400, 404}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """One service with the definition ``approval`` (for every test of the module)."""
    with running_service(tmp_path_factory.mktemp("hostile") / "w.db") as service:
        service.import_definition(HUMAN_FLOW)
        yield service


def waiting_run(service: Service) -> tuple[str, str]:
    """A new run of ``approval`` waiting for its human task: its id and the task's id."""
    started = service.client.post(f"{API}/start", json={"workflowName": "approval"},
                                  headers=ADMIN)
    assert started.status_code == 201, started.text
    run_id = started.json()["workflowInstanceId"]
    record = service.wait_for(run_id, lambda r: r["state"] == "WaitingForHuman", 20)
    assert record["state"] == "WaitingForHuman", record["state"]
    return run_id, record["tasks"][0]["taskId"]


def read_back(service: Service, response: httpx.Response) -> None:
    """Every record an accepted request may have written still reads as JSON."""
    if response.status_code >= 300:
        return
    body = response.json()
    run_ids = {body.get("workflowInstanceId"), (body.get("run") or {}).get("workflowInstanceId")}
    for run_id in run_ids - {None}:
        assert_answer(service.client.get(f"{API}/instances/{quote(run_id, safe='')}",
                                          headers=ADMIN), {200})
    if "graphHash" in body:
        name, version = quote(body["workflowName"], safe=""), quote(body["version"], safe="")
        # a name or version with a slash is no path segment: it cannot be read back by path
        if "%2F" not in name + version:
            assert_answer(service.client.get(f"{API}/definitions/{name}/versions/{version}",
                                              headers=ADMIN), {200})
    for listing in ("instances", "tasks", "events", "audit", "definitions"):
        assert_answer(service.client.get(f"{API}/{listing}", headers=ADMIN), {200})


# --- strategies ----------------------------------------------------------------------------

TEXT = st.text(max_size=12)
NUMBERS = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, 0.5, 1e-324, 1e300, 10**400, 2**63, -(2**63) - 1]),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, TEXT,
                    st.sampled_from(["\ud800", "a\udfffb", "\x00", "../..", "é" * 3]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)), max_leaves=8)
JSONLOGIC = st.recursive(
    st.one_of(st.integers(-3, 3), st.booleans(), st.none(), st.sampled_from(["x", "review"])),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["var", "==", "!=", "<", "and", "or", "!", "if", "in",
                                         "missing", "+", "/", "foo", ""]), inner,
                        min_size=1, max_size=2)),
    max_leaves=10).map(lambda rule: json.dumps(rule, allow_nan=True))
STEP_FIELDS = ["id", "kind", "tool", "agent", "assignee", "failurePolicy", "maxAttempts",
               "timeoutMinutes", "delayMinutes", "expression", "quorum", "workflow",
               "version", "compensation", "label", "actionClass", "colour"]
EDGE_FIELDS = ["from", "to", "guard", "isLoopBack", "id", "weight"]
TOP_FIELDS = ["workflow", "version", "steps", "edges", "input", "output",
              "maxLoopIterations", "owner"]


def base_definition(name: str) -> dict[str, Any]:
    return {"workflow": name, "version": "1", "steps": [
        {"id": "a", "kind": "Tool", "tool": "notifier"},
        {"id": "h", "kind": "Human", "assignee": "finance", "timeoutMinutes": 30},
        {"id": "t", "kind": "Timer", "delayMinutes": 5},
        {"id": "c", "kind": "Condition", "expression": '{"==": [{"var": "h.decision"}, 1]}'},
        {"id": "z", "kind": "Tool", "tool": "audit-journal"}],
        "edges": [{"from": "a", "to": "h"}, {"from": "h", "to": "t"}, {"from": "t", "to": "c"},
                  {"from": "c", "to": "z", "guard": "true"}]}


@st.composite
def definitions(draw: st.DrawFn) -> dict[str, Any]:
    """A valid definition with a few fields replaced, added or removed."""
    document = base_definition(draw(st.sampled_from(["fz", "fz-2", "approval"])))
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(["top", "step", "edge"]))
        if where == "top":
            target, field = document, draw(st.sampled_from(TOP_FIELDS))
        else:  # a step or an edge, unless an earlier change replaced them all
            items = document.get("steps" if where == "step" else "edges")
            if not isinstance(items, list) or not items:
                continue
            target = draw(st.sampled_from(items))
            field = draw(st.sampled_from(STEP_FIELDS if where == "step" else EDGE_FIELDS))
        if not isinstance(target, dict):
            continue
        value = draw(st.one_of(VALUES, JSONLOGIC) if field in ("expression", "guard")
                     else VALUES)
        if draw(st.booleans()) and field in target:
            del target[field]
        else:
            target[field] = value
    return document


def serialize(document: object, form: str) -> bytes:
    if form == "json":
        return json.dumps(document, allow_nan=True).encode("utf-8", "surrogatepass")
    text = yaml.safe_dump(document, allow_unicode=False)
    return text.encode("utf-8", "surrogatepass")


# --- definition documents ------------------------------------------------------------------

@FUZZ
@given(document=definitions(), form=st.sampled_from(["json", "yaml"]))
def test_a_mangled_definition_is_imported_or_refused_with_a_reason(
        world: Service, document: dict[str, Any], form: str) -> None:
    body = serialize(document, form)
    media = "application/json" if form == "json" else "application/yaml"
    headers = {**ADMIN, "content-type": media}
    checked = world.client.post(f"{API}/definitions/validate", content=body, headers=headers)
    assert_answer(checked, VALIDATE)
    imported = world.client.post(f"{API}/definitions", content=body, headers=headers)
    assert_answer(imported, IMPORT)
    read_back(world, imported)
    if imported.status_code in (200, 201) and checked.status_code == 200:
        assert checked.json()["valid"], checked.json()


BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
    for i in range(8)) + "workflow: bomb\nversion: '1'\nsteps: [{id: a, kind: Tool, tool: t}]\n"
HOSTILE_DOCUMENTS = {
    "alias bomb": BOMB,
    "deep flow nesting": "workflow: deep\nversion: '1'\nsteps: " + "[" * 5000 + "]" * 5000,
    "deep block nesting": "workflow: deep\nversion: '1'\nsteps:\n" + "".join(
        "  " * i + "- \n" for i in range(400)),
    "deep JSON nesting": '{"workflow": "deep", "steps": ' + "[" * 50000 + "]" * 50000 + "}",
    "huge integer": "workflow: big\nversion: '1'\nmaxLoopIterations: " + "9" * 5000
                    + "\nsteps: [{id: a, kind: Tool, tool: notifier}]\n",
    "huge float token": '{"workflow": "big", "version": "1", "steps": [{"id": "t", '
                        '"kind": "Timer", "delayMinutes": 1e400}]}',
    "NaN delay (JSON)": '{"workflow": "nan", "version": "1", "steps": [{"id": "t", '
                        '"kind": "Timer", "delayMinutes": NaN}]}',
    "NaN delay (YAML)": "workflow: nan\nversion: '1'\nsteps: [{id: t, kind: Timer, "
                        "delayMinutes: .nan}]\n",
    "infinite timeout": "workflow: inf\nversion: '1'\nsteps: [{id: h, kind: Human, "
                        "timeoutMinutes: .inf}]\n",
    "delay past the year 9999": '{"workflow": "far", "version": "1", "steps": [{"id": "t", '
                                '"kind": "Timer", "delayMinutes": 1e300}]}',
    "timeout past the year 9999": '{"workflow": "far", "version": "2", "steps": [{"id": "h", '
                                  '"kind": "Human", "timeoutMinutes": 1e300}]}',
    "non-string step id": "workflow: ids\nversion: '1'\nsteps: [{id: [1, 2], kind: Tool, "
                          "tool: notifier}]\n",
    "mapping as workflow name": "workflow: {a: 1}\nversion: '1'\nsteps: []\n",
    "unknown fields": "workflow: extra\nversion: '1'\ncolour: red\nsteps: [{id: a, "
                      "kind: Tool, tool: notifier, weight: 3}]\n",
    "bad JSONLogic": "workflow: logic\nversion: '1'\nsteps: [{id: c, kind: Condition, "
                     "expression: '{\"foo\": [1]}'}, {id: z, kind: Tool, tool: notifier}]\n"
                     "edges: [{from: c, to: z, guard: '{\"var\": {}}'}]\n",
    "JSONLogic that is no JSON": "workflow: logic2\nversion: '1'\nsteps: [{id: c, "
                                 "kind: Condition, expression: '{\"==\": [1'}]\n",
    "lone surrogate": 'workflow: "w\\ud800"\nversion: "1"\nsteps: []\n',
    "binary": "\x00\x01\x02\xff",
    "a list": "- workflow: w\n- steps: []\n",
    "a number": "7",
    "empty": "",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_DOCUMENTS))
def test_a_hostile_definition_is_refused_or_reported(world: Service, name: str) -> None:
    body = HOSTILE_DOCUMENTS[name].encode("utf-8", "surrogateescape")
    for media in ("application/yaml", "application/json"):
        headers = {**ADMIN, "content-type": media}
        assert_answer(world.client.post(f"{API}/definitions/validate", content=body,
                                        headers=headers), VALIDATE)
        imported = world.client.post(f"{API}/definitions", content=body, headers=headers)
        assert_answer(imported, IMPORT)
        read_back(world, imported)
        if name != "unknown fields":  # the DSL reader ignores unknown keys
            assert imported.status_code >= 400, (name, imported.text)


# --- odd path ids --------------------------------------------------------------------------

ODD_IDS = ["..", "../..", "a/../b", "%2e%2e", "%2F", "a%2Fb", "%00", "%ff", "%", "%%",
           "%ED%A0%80", "x" * 5000, "é/ü", "\u202e", "a b", "a?b", "a#b", ";", "~", "r1/1/2",
           " ", "\t", "*", "\ud800"]
ID_ROUTES = [("GET", "/instances/{id}", None), ("POST", "/instances/{id}/retry", {}),
             ("POST", "/instances/{id}/repair", {"rewindTo": "prepare"}),
             ("POST", "/instances/{id}/resume", {}), ("POST", "/instances/{id}/cancel", {}),
             ("POST", "/tasks/{id}/complete", {"decision": "approve"}),
             ("GET", "/definitions/{id}/versions", None),
             ("GET", "/definitions/approval/versions/{id}", None),
             ("GET", "/definitions/{id}/versions/1", None)]
ENCODINGS = {"all": "", "keep slashes": "/", "keep percent": "/%"}


def assert_id_refused(service: Service, route: tuple[str, str, Any], raw: str,
                      encoding: str) -> None:
    """No such run, task or definition: a JSON 404 (or 400/405), or the redirect that drops
    a trailing slash. A path the client rewrote (dot segments) asks for another resource,
    so only the product's rule holds for it."""
    method, template, body = route
    encoded = quote(raw.encode("utf-8", "surrogatepass"), safe=ENCODINGS[encoding])
    path = API + template.replace("{id}", encoded)
    response = service.client.request(method, path, json=body, headers=ADMIN,
                                      follow_redirects=False)
    if response.request.url.raw_path.decode() != path:
        assert_answer(response, {200, 307, 400, 404, 405})
    else:
        assert_answer(response, {307, 400, 404, 405})


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """A service with no definitions, runs or tasks, so that no generated id exists."""
    with running_service(tmp_path_factory.mktemp("bare") / "w.db") as service:
        yield service


@pytest.mark.parametrize("raw", ODD_IDS)
def test_an_odd_path_id_is_a_json_404(bare: Service, raw: str) -> None:
    for route in ID_ROUTES:
        for encoding in ENCODINGS:
            assert_id_refused(bare, route, raw, encoding)


@FUZZ
@given(route=st.sampled_from(ID_ROUTES), raw=st.text(min_size=1, max_size=30),
       encoding=st.sampled_from(sorted(ENCODINGS)))
def test_any_path_id_is_a_json_404(bare: Service, route: tuple[str, str, Any], raw: str,
                                   encoding: str) -> None:
    assert_id_refused(bare, route, raw, encoding)


# --- odd query values ----------------------------------------------------------------------

QUERY_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
LIMITS = st.one_of(QUERY_TEXT, st.integers().map(str), st.sampled_from(
    ["-1", "0", "501", "1e3", " 5", "5 ", "+5", "0x10", "²", "٣", "１２", "9" * 5000, ""]))


def cursors() -> st.SearchStrategy[str]:
    as_cursor = VALUES.map(lambda value: base64.urlsafe_b64encode(
        json.dumps(value, allow_nan=True).encode("utf-8", "surrogatepass")).decode().rstrip("="))
    return st.one_of(QUERY_TEXT, as_cursor, st.sampled_from(
        ["", "=", "====", "AAAA", "eyJ4IjoxfQ", "WzEsICJcdWQ4MDAiXQ", "WzFlNDAwLCAiYSJd",
         "W05hTiwgImEiXQ", "WzEsIDJd", "bnVsbA", "%FF", "\x00"]))


def statuses(values: list[str]) -> st.SearchStrategy[str]:
    odd_case = st.tuples(st.sampled_from(values), st.randoms(use_true_random=False)).map(
        lambda pair: "".join(c.upper() if pair[1].random() < 0.5 else c.lower()
                             for c in pair[0]))
    return st.one_of(odd_case, QUERY_TEXT, st.sampled_from(["", " Running", "running\x00"]))


RUN_STATES = ["Pending", "Running", "WaitingForHuman", "Completed", "Cancelled"]
QUERIES = st.one_of(
    st.fixed_dictionaries({}, optional={"limit": LIMITS, "after": cursors(),
                                        "status": statuses(RUN_STATES),
                                        "workflowName": QUERY_TEXT,
                                        "businessReference": QUERY_TEXT}).map(
        lambda query: ("instances", query)),
    st.fixed_dictionaries({}, optional={"limit": LIMITS, "after": cursors(),
                                        "status": statuses(["Open", "Completed", "Cancelled"]),
                                        "assignee": QUERY_TEXT,
                                        "workflowInstanceId": QUERY_TEXT}).map(
        lambda query: ("tasks", query)),
    st.sampled_from(["events", "audit"]).flatmap(lambda listing: st.fixed_dictionaries(
        {}, optional={"limit": LIMITS, "after": st.one_of(LIMITS, cursors())}).map(
        lambda query: (listing, query))),
    st.dictionaries(QUERY_TEXT, QUERY_TEXT, min_size=1, max_size=2).map(
        lambda query: ("definitions", query)),
)


@FUZZ
@given(request=QUERIES)
def test_an_odd_query_value_is_a_json_400_or_a_page(world: Service,
                                                    request: tuple[str, dict[str, str]]
                                                    ) -> None:
    listing, query = request
    response = world.client.get(f"{API}/{listing}", params=query, headers=ADMIN)
    assert_answer(response, READ)


ODD_NUMBERS = ["-1", "0", "501", "1e3", " 5", "5 ", "+5", "0x10", "²", "٣", "１２", "9" * 5000,
               "", "1" * 19]
ODD_CURSORS = ["", "=", "====", "AAAA", "eyJ4IjoxfQ", "WzEsICJcdWQ4MDAiXQ", "WzFlNDAwLCAiYSJd",
               "W05hTiwgImEiXQ", "WzEsIDJd", "bnVsbA", "%FF", "\x00", "²"]


@pytest.mark.parametrize("listing", ["instances", "tasks", "events", "audit"])
def test_an_odd_limit_or_cursor_is_a_json_400_or_a_page(world: Service, listing: str) -> None:
    for name, values in (("limit", ODD_NUMBERS), ("after", ODD_CURSORS + ODD_NUMBERS)):
        for value in values:
            response = world.client.get(f"{API}/{listing}", params={name: value},
                                        headers=ADMIN)
            assert_answer(response, READ)
            if response.status_code == 400:
                assert repr(name) in response.json()["error"], (value, response.text)


def test_an_odd_case_status_is_the_same_filter(world: Service) -> None:
    canonical = world.client.get(f"{API}/instances", params={"status": "WaitingForHuman"},
                                 headers=ADMIN)
    odd = world.client.get(f"{API}/instances", params={"status": "wAITINGfORhUMAN"},
                           headers=ADMIN)
    assert canonical.status_code == odd.status_code == 200
    assert canonical.json() == odd.json()


# --- bodies --------------------------------------------------------------------------------

JSON_ROUTES = ["/start", "/instances/{run}/retry", "/instances/{run}/repair",
               "/instances/{run}/resume", "/instances/{run}/cancel", "/tasks/{task}/complete",
               "/signals/dead-letters/replay", "/retention"]
CONTENT_TYPES = st.sampled_from([
    None, "application/json", "application/json; charset=latin-1", "APPLICATION/JSON",
    "application/problem+json", "text/plain", "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x", "application/xml", "application/yaml", "", ";", "*/*",
    "application/json;;;", "image/png"])
HOSTILE_BODIES = [
    b"", b" ", b"\n", b"null", b"[]", b"1", b'"x"', b"true", b"{", b"{}", b"\xff\xfe{}",
    b"\xef\xbb\xbf{}", b'{"a": 1}', b'{"a": NaN}', b"[" * 100000,
    b'{"workflowName": "\\ud800"}', b'{"workflowName": "approval", "payload": NaN}',
    b'{"workflowName": "approval", "payload": [Infinity, -Infinity]}',
    b'{"workflowName": "approval", "payload": 1e400}',
    b'{"workflowName": "approval", "payload": 1' + b"0" * 5000 + b"}",
    b'{"workflowName": "approval", "payload": "\\udc00"}',
    b'{"workflowName": "approval", "payload": {"\\udc00": 1}}',
    b'{"workflowName": "approval", "businessReference": "\\udc00"}',
    b'{"decision": "approve", "input": {"x": NaN}}',
    b'{"decision": "approve", "input": {"\\ud800": 1}}',
    b'{"rewindTo": "prepare", "input": {"x": Infinity}}', b'{"rewindTo": "\\ud800"}',
    b'{"reason": "\\udfff"}', b'{"data": {"x": NaN}, "decision": "approve"}',
    b'{"stepId": "\\ud800", "decision": "approve"}', b'{"signalIds": ["\\ud800"]}',
    b'{"referenceUtc": "\\ud800"}', b'{"expectedRevision": 100000000000000000000000000000}',
    b'{"expectedRevision": 1.5}', b'{"expectedRevision": -0}', b'{"expectedRevision": 1e400}',
]


@pytest.mark.parametrize("body", HOSTILE_BODIES, ids=lambda body: repr(body[:50]))
def test_a_hostile_json_body_is_refused_or_applied(world: Service, body: bytes) -> None:
    for template in JSON_ROUTES:
        run_id, task_id = world_run(world)
        path = API + template.replace("{run}", run_id).replace("{task}", task_id)
        response = world.client.post(path, content=body,
                                     headers={**ADMIN, "content-type": "application/json"})
        assert_answer(response, BODY)
        read_back(world, response)


@FUZZ
@given(template=st.sampled_from(JSON_ROUTES), content_type=CONTENT_TYPES,
       body=st.one_of(st.binary(max_size=40), VALUES.map(lambda value: json.dumps(
           value, allow_nan=True).encode("utf-8", "surrogatepass"))))
def test_any_json_body_is_refused_or_applied(world: Service, template: str, body: bytes,
                                             content_type: str | None) -> None:
    run_id, task_id = world_run(world)
    path = API + template.replace("{run}", run_id).replace("{task}", task_id)
    headers = dict(ADMIN) if content_type is None else {**ADMIN, "content-type": content_type}
    response = world.client.post(path, content=body, headers=headers)
    assert_answer(response, BODY)
    read_back(world, response)


_RUNS: list[tuple[str, str]] = []


def world_run(world: Service) -> tuple[str, str]:
    """A run waiting for its task, new once a fuzzed verb has moved the last one on."""
    if _RUNS:
        run_id, task_id = _RUNS[-1]
        state = world.client.get(f"{API}/instances/{run_id}", headers=ADMIN).json()["state"]
        if state == "WaitingForHuman":
            return run_id, task_id
    _RUNS.append(waiting_run(world))
    return _RUNS[-1]


@pytest.mark.parametrize("route", ["/definitions", "/definitions/validate", "/start",
                                   "/retention"])
def test_a_body_over_the_size_limit_is_413(world: Service, route: str) -> None:
    body = b'{"workflowName": "' + b"x" * (3 * 1024 * 1024) + b'"}'
    response = world.client.post(f"{API}{route}", content=body,
                                 headers={**ADMIN, "content-type": "application/json"})
    assert_refused(response, 413, "exceeds the limit")


@pytest.mark.parametrize(("query", "headers"), [
    ({"after": value}, {}) for value in ["", "-1", "x", "²", "9" * 19, "1e3"]] + [
    ({}, {"last-event-id": value}) for value in ["x", "-1", "²", "9" * 5000]] + [
    ({"limit": "5"}, {}), ({"after": "1", "colour": "red"}, {})])
def test_a_bad_resume_point_of_the_event_stream_is_a_json_400(
        world: Service, query: dict[str, str], headers: dict[str, str]) -> None:
    response = world.client.get(f"{API}/events/stream", params=query,
                                headers={**ADMIN, **{k: v.encode() for k, v in headers.items()}})
    assert_answer(response, {400})


# --- Idempotency-Key -----------------------------------------------------------------------

KEYS = st.one_of(
    st.binary(min_size=0, max_size=210).filter(lambda key: b"\r" not in key and b"\n" not in key
                                               and b"\x00" not in key),
    st.sampled_from([b"", b" ", b"a" * 200, b"a" * 201, b"\xe9t\xe9", b"k\tk", b"  padded  "]),
)


@FUZZ
@given(key=KEYS, payload=VALUES)
def test_an_idempotency_key_is_used_once_per_request(world: Service, key: bytes,
                                                     payload: object) -> None:
    body = json.dumps({"workflowName": "approval", "payload": payload},
                      allow_nan=True).encode("utf-8", "surrogatepass")
    headers = {**ADMIN, "content-type": "application/json", "idempotency-key": key}
    first = world.client.post(f"{API}/start", content=body, headers=headers)
    assert_answer(first, {201, 400, 422})
    read_back(world, first)
    if first.status_code != 201:
        return
    again = world.client.post(f"{API}/start", content=body, headers=headers)
    assert_answer(again, {201})
    assert again.json()["workflowInstanceId"] == first.json()["workflowInstanceId"]
    other = world.client.post(f"{API}/start", json={"workflowName": "approval",
                                                    "payload": ["x" * 20]}, headers=headers)
    assert_refused(other, 422, "different request")
