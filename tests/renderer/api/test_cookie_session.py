"""The Studio's session cookie authenticates API calls; a state change signed in by the
cookie needs the session's CSRF token, a state change with an Authorization header not."""

from __future__ import annotations

from api_testing import HUMAN_FLOW, auth, token

from renderer.api.session import SESSION_COOKIE, csrf_token

API = "/api/workflow"


def test_the_cookie_signs_reads_in_and_state_changes_need_the_csrf_token(make_service):
    service = make_service()
    service.import_definition(HUMAN_FLOW)
    session = token("operate")
    client = service.client
    client.cookies.set(SESSION_COOKIE, session)
    try:
        assert client.get(f"{API}/instances").status_code == 200
        body = {"workflowName": "approval"}
        refused = client.post(f"{API}/start", json=body)
        assert refused.status_code == 403 and "X-CSRF-Token" in refused.json()["error"]
        other = csrf_token(token("operate", subject="mallory"), service.runtime.csrf_key)
        assert client.post(f"{API}/start", json=body,
                           headers={"x-csrf-token": other}).status_code == 403
        right = csrf_token(session, service.runtime.csrf_key)
        assert client.post(f"{API}/start", json=body,
                           headers={"x-csrf-token": right}).status_code == 201
    finally:
        client.cookies.clear()


def test_an_authorization_header_wins_over_the_cookie_and_needs_no_csrf_token(make_service):
    service = make_service()
    service.import_definition(HUMAN_FLOW)
    client = service.client
    client.cookies.set(SESSION_COOKIE, "not-a-token")
    try:
        response = client.post(f"{API}/start", json={"workflowName": "approval"},
                               headers=auth("operate"))
        assert response.status_code == 201
        assert client.get(f"{API}/instances").status_code == 401  # the cookie alone is bad
    finally:
        client.cookies.clear()
