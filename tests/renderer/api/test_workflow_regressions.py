"""Regression tests of the workflow API, each naming the input that once gave a 500 (or a
wrong status or answer) when the API was fuzzed (test_workflow_fuzz.py with schemathesis,
test_workflow_hostile.py with hypothesis)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from api_testing import HUMAN_FLOW, Service, assert_refused, auth, running_service

from renderer.openapi import openapi_document

API = "/api/workflow"
ADMIN = auth("admin", "acme")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """One service for the module's tests."""
    with running_service(tmp_path_factory.mktemp("regressions") / "w.db") as service:
        yield service


@pytest.mark.parametrize("reference", ["", "yesterday", "2020-13-01T00:00:00Z"])
def test_a_retention_reference_that_is_no_time_is_400(world: Service, reference: str) -> None:
    # '{"referenceUtc": ""}' was a 500: jsonschema checks 'date-time' only with an optional
    # package, so the handler's parse raised ValueError
    response = world.client.post(f"{API}/retention", json={"referenceUtc": reference},
                                 headers=ADMIN)
    assert_refused(response, 400, "body.referenceUtc", "date-time")


def test_a_retention_cutoff_before_year_1000_is_an_iso_time(world: Service) -> None:
    # '{"referenceUtc": "0266-03-26T17:16:07.93Z"}' answered "before": "266-02-24T...",
    # which is no date-time (strftime does not pad the year)
    response = world.client.post(f"{API}/retention",
                                 json={"referenceUtc": "0266-03-26T17:16:07.93Z"},
                                 headers=ADMIN)
    assert response.status_code == 200, response.text
    assert response.json()["before"] == "0266-02-24T17:16:07.930Z"


@pytest.mark.parametrize("reference", ["0001-01-01T00:00:00Z", "0001-01-31T00:00:00+05:00"])
def test_a_retention_cutoff_before_the_year_1_is_400(world: Service, reference: str) -> None:
    # '{"referenceUtc": "0001-01-01T00:00:00Z"}' was a 500: less 30 days of retention the
    # cutoff is in the year 0, which no datetime can write
    response = world.client.post(f"{API}/retention", json={"referenceUtc": reference},
                                 headers=ADMIN)
    assert_refused(response, 400, "body.referenceUtc", "before the year 1")


NUMBER_PARAMETERS = [("instances", "limit"), ("tasks", "limit"), ("events", "limit"),
                     ("events", "after"), ("audit", "limit"), ("audit", "after")]


@pytest.mark.parametrize(("listing", "name"), NUMBER_PARAMETERS)
@pytest.mark.parametrize("value", ["²", "9" * 5000])
def test_a_number_int_cannot_read_is_a_400_naming_its_parameter(
        world: Service, listing: str, name: str, value: str) -> None:
    # GET /events?after=² and ?limit=99...9 (5000 digits) were 500s: str.isdigit takes '²'
    # and int() refuses it and more than 4300 digits; on /instances ?limit=² was a 400 that
    # named 'after'
    response = world.client.get(f"{API}/{listing}", params={name: value}, headers=ADMIN)
    assert_refused(response, 400, f"query parameter {name!r}")


def test_a_limit_with_leading_zeros_is_still_a_limit(world: Service) -> None:
    response = world.client.get(f"{API}/events", params={"limit": "0002"}, headers=ADMIN)
    assert response.status_code == 200 and len(response.json()["items"]) <= 2



def waiting_run(service: Service) -> tuple[str, str]:
    """A new run of ``approval`` waiting for its human task: its id and the task's id."""
    service.import_definition(HUMAN_FLOW)
    started = service.client.post(f"{API}/start", json={"workflowName": "approval"},
                                  headers=ADMIN)
    assert started.status_code == 201, started.text
    run_id = started.json()["workflowInstanceId"]
    record = service.wait_for(run_id, lambda r: r["state"] == "WaitingForHuman", 20)
    assert record["state"] == "WaitingForHuman", record["state"]
    return run_id, record["tasks"][0]["taskId"]


NON_FINITE = [("/start", '{"workflowName": "approval", "payload": NaN}'),
              ("/start", '{"workflowName": "approval", "payload": [Infinity, -Infinity]}'),
              ("/start", '{"workflowName": "approval", "payload": {"x": 1e400}}'),
              ("/tasks/{task}/complete", '{"decision": "approve", "input": {"x": NaN}}'),
              ("/instances/{run}/resume", '{"decision": "approve", "data": {"x": -Infinity}}'),
              ("/instances/{run}/repair", '{"rewindTo": "prepare", "input": {"x": 1e999}}')]


@pytest.mark.parametrize(("route", "body"), NON_FINITE)
def test_a_json_body_with_a_non_finite_number_is_400(world: Service, route: str,
                                                     body: str) -> None:
    # '{"workflowName": "approval", "payload": NaN}' was a 201, and from then on every
    # GET of the run a 500 (NaN is no JSON, so the record could not be written); a task
    # completed with {"x": NaN} poisoned its run the same way
    run_id, task_id = waiting_run(world)
    path = API + route.replace("{run}", run_id).replace("{task}", task_id)
    response = world.client.post(path, content=body,
                                 headers={**ADMIN, "content-type": "application/json"})
    assert_refused(response, 400, "body is not valid JSON")
    assert world.client.get(f"{API}/instances/{run_id}", headers=ADMIN).status_code == 200
    assert world.client.get(f"{API}/instances", headers=ADMIN).status_code == 200


def test_a_json_body_with_a_large_finite_number_is_still_read(world: Service) -> None:
    waiting_run(world)
    response = world.client.post(f"{API}/start", content='{"workflowName": "approval", '
                                 '"payload": {"big": 1e308, "huge": 1' + "0" * 400 + '}}',
                                 headers={**ADMIN, "content-type": "application/json"})
    assert response.status_code == 201, response.text
    run_id = response.json()["workflowInstanceId"]
    record = world.client.get(f"{API}/instances/{run_id}", headers=ADMIN).json()
    assert record["input"] == {"big": 1e308, "huge": 10**400}


SURROGATES = [("/start", '{"workflowName": "\\ud800"}', "body.workflowName"),
              ("/start", '{"workflowName": "approval", "businessReference": "a\\udc00"}',
               "body.businessReference"),
              ("/start", '{"workflowName": "approval", "payload": {"n": ["\\udfff"]}}',
               "body.payload.n[0]"),
              ("/start", '{"workflowName": "approval", "payload": {"\\ud800": 1}}',
               "body.payload (a key)"),
              ("/tasks/{task}/complete", '{"decision": "approve", "input": {"x": "\\ud800"}}',
               "body.input.x"),
              ("/instances/{run}/cancel", '{"reason": "\\udfff"}', "body.reason"),
              ("/instances/{run}/repair", '{"rewindTo": "\\ud800"}', "body.rewindTo"),
              ("/signals/dead-letters/replay", '{"signalIds": ["\\ud800"]}',
               "body.signalIds[0]")]


@pytest.mark.parametrize(("route", "body", "where"), SURROGATES)
def test_a_json_body_with_a_lone_surrogate_is_400(world: Service, route: str, body: str,
                                                  where: str) -> None:
    # '{"workflowName": "\ud800"}' was a 500 (SQLite cannot encode the name), and a payload
    # with "\udc00" a 201 whose run no GET could write as JSON any more
    run_id, task_id = waiting_run(world)
    path = API + route.replace("{run}", run_id).replace("{task}", task_id)
    response = world.client.post(path, content=body,
                                 headers={**ADMIN, "content-type": "application/json"})
    assert_refused(response, 400, where, "lone surrogate")
    assert world.client.get(f"{API}/instances/{run_id}", headers=ADMIN).status_code == 200


def test_a_json_body_with_a_surrogate_pair_is_text(world: Service) -> None:
    waiting_run(world)
    response = world.client.post(f"{API}/start", content='{"workflowName": "approval", '
                                 '"businessReference": "\\ud83d\\ude00 \\u00e9"}',
                                 headers={**ADMIN, "content-type": "application/json"})
    assert response.status_code == 201, response.text
    run_id = response.json()["workflowInstanceId"]
    record = world.client.get(f"{API}/instances/{run_id}", headers=ADMIN).json()
    assert record["businessReference"] == "\U0001f600 é"


TIMES = [('{"workflow": "t", "version": "1", "steps": [{"id": "t", "kind": "Timer", '
          '"delayMinutes": NaN}]}', "delayMinutes", "nan"),
         ("workflow: t\nversion: '2'\nsteps: [{id: t, kind: Timer, delayMinutes: .inf}]\n",
          "delayMinutes", "inf"),
         ("workflow: t\nversion: '3'\nsteps: [{id: h, kind: Human, timeoutMinutes: -.inf}]\n",
          "timeoutMinutes", "-inf"),
         ('{"workflow": "t", "version": "4", "steps": [{"id": "t", "kind": "Timer", '
          '"delayMinutes": 1e300}]}', "delayMinutes", "1e+300"),
         ('{"workflow": "t", "version": "5", "steps": [{"id": "h", "kind": "Human", '
          '"timeoutMinutes": 1e300}]}', "timeoutMinutes", "1e+300")]


@pytest.mark.parametrize(("document", "field", "value"), TIMES)
def test_a_delay_or_timeout_no_clock_can_reach_is_invalid(world: Service, document: str,
                                                          field: str, value: str) -> None:
    # a Timer with delayMinutes NaN or a Human step with timeoutMinutes .inf was imported
    # (201), then GET of its version was a 500 (NaN is no JSON); with 1e300 minutes every
    # GET of a run was a 500 (a due time after the year 9999 cannot be written)
    headers = {**ADMIN, "content-type": "application/yaml"}
    imported = world.client.post(f"{API}/definitions", content=document, headers=headers)
    assert_refused(imported, 422, field, "up to 1,000,000,000", value)
    checked = world.client.post(f"{API}/definitions/validate", content=document,
                                headers=headers).json()
    assert checked["valid"] is False
    assert any(field in p["message"] for p in checked["problems"]), checked


def test_a_delay_of_a_thousand_years_is_still_valid(world: Service) -> None:
    world.import_definition("workflow: slow\nversion: '1'\n"
                            "steps: [{id: t, kind: Timer, delayMinutes: 525600000}]\n")
    started = world.client.post(f"{API}/start", json={"workflowName": "slow"}, headers=ADMIN)
    run_id = started.json()["workflowInstanceId"]
    record = world.wait_for(run_id, lambda r: r["state"] == "WaitingForTimer")
    assert record["state"] == "WaitingForTimer"
    assert [t["dueAt"][:2] for t in record["timers"]] == ["30"]  # the year 30xx


@pytest.mark.parametrize("content_type", ["multipart/form-data; boundary=x", "image/png",
                                          "application/xml"])
@pytest.mark.parametrize("route", ["/definitions", "/definitions/validate"])
def test_a_definition_sent_as_no_text_is_415(world: Service, route: str,
                                             content_type: str) -> None:
    # a YAML definition sent as multipart/form-data (or image/png) was imported with a 201:
    # the definition endpoints read any body as text, unlike every other endpoint
    response = world.client.post(f"{API}{route}", content=HUMAN_FLOW.replace("approval", "typed"),
                                 headers={**ADMIN, "content-type": content_type})
    assert_refused(response, 415, "unsupported content type")


@pytest.mark.parametrize("content_type", [None, "application/yaml", "text/yaml", "text/plain",
                                          "application/json", "application/x-www-form-urlencoded",
                                          "application/octet-stream", "TEXT/YAML; charset=utf-8"])
def test_a_definition_sent_as_text_is_read(world: Service, content_type: str | None) -> None:
    headers = dict(ADMIN) if content_type is None else {**ADMIN, "content-type": content_type}
    response = world.client.post(f"{API}/definitions", content=HUMAN_FLOW, headers=headers)
    assert response.status_code in (200, 201), response.text


@pytest.mark.parametrize("method", ["OPTIONS", "PUT", "DELETE", "PATCH"])
def test_a_405_on_the_definitions_names_both_methods_in_allow(world: Service,
                                                              method: str) -> None:
    # OPTIONS /api/workflow/definitions answered 405 with "Allow: POST": GET and POST were
    # two routes, and Starlette names only the methods of the first one that matches
    response = world.client.request(method, f"{API}/definitions", headers=ADMIN)
    assert_refused(response, 405, "Method Not Allowed")
    allowed = {m.strip() for m in response.headers["allow"].split(",")}
    assert {"GET", "POST"} <= allowed, response.headers["allow"]


def test_the_definitions_path_still_lists_imports_and_answers_head(world: Service) -> None:
    world.import_definition(HUMAN_FLOW)
    listed = world.client.get(f"{API}/definitions", headers=ADMIN)
    assert listed.status_code == 200
    assert "approval" in [item["workflowName"] for item in listed.json()["items"]]
    assert world.client.head(f"{API}/definitions", headers=ADMIN).status_code == 200


def _query_schema(path: str, name: str) -> dict[str, Any]:
    operation = openapi_document()["paths"][API + path]["get"]
    (parameter,) = [p for p in operation["parameters"] if p["name"] == name]
    schema: dict[str, Any] = parameter["schema"]
    return schema


@pytest.mark.parametrize(("path", "name", "good", "bad"), [
    ("/instances", "status", "waitingforhuman", ""), ("/tasks", "status", "OPEN", "opened"),
    ("/events", "after", "0", ""), ("/audit", "after", "18", "-1")])
def test_the_declared_query_schemas_are_what_the_listings_take(
        world: Service, path: str, name: str, good: str, bad: str) -> None:
    # GET /instances?status= (empty) and /events?after= were 400s for values the OpenAPI
    # document allowed ({"type": "string"}), found by schemathesis' positive-data check
    schema = _query_schema(path, name)
    for value in schema.get("enum", []):
        assert world.client.get(f"{API}{path}", params={name: value},
                                headers=ADMIN).status_code == 200, value
    assert world.client.get(f"{API}{path}", params={name: good},
                            headers=ADMIN).status_code == 200
    assert_refused(world.client.get(f"{API}{path}", params={name: bad}, headers=ADMIN), 400,
                   repr(name))
    assert not jsonschema.Draft202012Validator(schema).is_valid(bad)


@pytest.mark.parametrize(("body", "content_type"), [
    (None, None), ("[null, null]", "application/json"), ("{}", "text/yaml"),
    ("7", "application/yaml")])
def test_validate_declares_any_body_as_it_reports_the_problems_of_any(
        world: Service, body: str | None, content_type: str | None) -> None:
    # POST /definitions/validate without a body, or with the JSON [null, null], is a 200
    # that reports the document's problem, while the OpenAPI document said the body was
    # required and an object (schemathesis' negative-data check)
    operation = openapi_document()["paths"][f"{API}/definitions/validate"]["post"]
    assert operation["requestBody"]["required"] is False
    assert {media["schema"]["type"] if media["schema"] else "any"
            for media in operation["requestBody"]["content"].values()} == {"any"}
    headers = dict(ADMIN) if content_type is None else {**ADMIN, "content-type": content_type}
    response = world.client.post(f"{API}/definitions/validate", content=body, headers=headers)
    assert response.status_code == 200 and response.json()["valid"] is False


@pytest.mark.parametrize(("query", "headers", "named"), [
    ({}, {"last-event-id": "yesterday"}, "header 'Last-Event-ID'"),
    ({"after": "2"}, {"last-event-id": "-1"}, "header 'Last-Event-ID'"),
    ({"after": "²"}, {}, "query parameter 'after'")])
def test_a_bad_resume_point_of_the_event_stream_names_where_it_is(
        world: Service, query: dict[str, str], headers: dict[str, str], named: str) -> None:
    # Last-Event-ID: yesterday was refused as "query parameter 'after' must be a sequence
    # number": the header's value was checked as if it were the query parameter
    response = world.client.get(f"{API}/events/stream", params=query,
                                headers={**ADMIN, **headers})
    assert_refused(response, 400, named, "must be a sequence number")
