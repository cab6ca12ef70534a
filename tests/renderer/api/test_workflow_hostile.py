"""Hostile input to the workflow API that schemathesis's generation may not reach: definition
documents (YAML alias bombs, deep nesting, huge numbers, NaN/inf, non-string ids, unknown
fields, bad JSONLogic), odd path ids, odd query values, wrong content types, empty and
non-object bodies, lone surrogates and Idempotency-Key edge cases. Each answer is a 4xx with
``{"error": "<message>"}``, or a 2xx where the input is in fact valid; never a 5xx.

The regression tests name the input that once gave a 500 (or a wrong status).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from api_testing import auth

API = "/api/workflow"
ADMIN = auth("admin", "acme")


@pytest.fixture
def service(make_service: Callable[..., Any]) -> Any:
    return make_service()


def assert_refused(response: Any, status: int = 400, *fragments: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    message = response.json()["error"]
    assert all(fragment in message for fragment in fragments), message


@pytest.mark.parametrize("reference", ["", "yesterday", "2020-13-01T00:00:00Z"])
def test_a_retention_reference_that_is_no_time_is_400(service: Any, reference: str) -> None:
    # '{"referenceUtc": ""}' was a 500: jsonschema checks 'date-time' only with an optional
    # package, so the handler's parse raised ValueError
    response = service.client.post(f"{API}/retention", json={"referenceUtc": reference},
                                   headers=ADMIN)
    assert_refused(response, 400, "body.referenceUtc", "date-time")


def test_a_retention_cutoff_before_year_1000_is_an_iso_time(service: Any) -> None:
    # '{"referenceUtc": "0266-03-26T17:16:07.93Z"}' answered "before": "266-02-24T...",
    # which is no date-time (strftime does not pad the year)
    response = service.client.post(f"{API}/retention",
                                   json={"referenceUtc": "0266-03-26T17:16:07.93Z"},
                                   headers=ADMIN)
    assert response.status_code == 200, response.text
    assert response.json()["before"] == "0266-02-24T17:16:07.930Z"


@pytest.mark.parametrize("reference", ["0001-01-01T00:00:00Z", "0001-01-31T00:00:00+05:00"])
def test_a_retention_cutoff_before_the_year_1_is_400(service: Any, reference: str) -> None:
    # '{"referenceUtc": "0001-01-01T00:00:00Z"}' was a 500: less 30 days of retention the
    # cutoff is in the year 0, which no datetime can write
    response = service.client.post(f"{API}/retention", json={"referenceUtc": reference},
                                   headers=ADMIN)
    assert_refused(response, 400, "body.referenceUtc", "before the year 1")
