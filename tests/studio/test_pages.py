"""The Studio's pages over TestClient: headers, signing in, redirects, cookies, CSRF,
escaping and 404 pages."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import api_testing
import pytest

from renderer.api.auth import Scope, TokenVerifier, issue_token
from renderer.api.session import SESSION_COOKIE, csrf_token
from renderer.api.settings import ServiceSettings
from renderer.serve import banner, dev_studio_token, studio_link
from renderer.studio.security import safe_next

token, auth, SECRET = api_testing.token, api_testing.auth, api_testing.SECRET

HOSTILE = """workflow: hostile
version: '1'
steps:
  - {id: '<script>alert(1)</script>', kind: Tool, tool: '<img src=x onerror=alert(2)>'}
  - {id: b, kind: Tool, tool: t, failurePolicy: Fail}
edges:
  - {from: '<script>alert(1)</script>', to: b}
"""

FAILING = """workflow: failing
version: '1'
steps:
  - {id: only, kind: Tool, tool: always-fails, failurePolicy: Fail}
"""


@pytest.fixture
def studio(make_service):
    service = make_service()
    service.import_definition(api_testing.FIXTURES / "document-processing.yaml")
    return service


def _sign_in(client, scope: str = "operate", tenant: str = "acme") -> str:
    kept = token(scope, tenant)
    client.cookies.set(SESSION_COOKIE, kept)
    return kept


def _start(service, name: str, tenant: str = "acme") -> str:
    started = service.client.post("/api/workflow/start", json={"workflowName": name},
                                  headers=auth("operate", tenant))
    assert started.status_code == 201, started.text
    return started.json()["workflowInstanceId"]


def test_every_studio_response_has_the_security_headers(studio):
    _sign_in(studio.client)
    run_id = _start(studio, "document-processing")
    for path in ("/studio", f"/studio/runs/{run_id}", "/studio/runs/no-such-run",
                 "/studio/login", "/studio/static/studio.js", "/studio/assets/svg-pan-zoom.min.js",
                 "/studio/definitions/document-processing/1.0.0", "/studio/nowhere"):
        response = studio.client.get(path, follow_redirects=False)
        policy = response.headers["content-security-policy"]
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
        assert directives["script-src"] == "'self'", path  # no inline scripts, no eval
        assert directives["frame-ancestors"] == "'none'"
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "no-referrer"


def test_a_page_without_a_session_redirects_to_the_login_and_back(studio):
    response = studio.client.get("/studio/runs/abc/1?x=2", follow_redirects=False)
    assert response.status_code == 303
    location = urlsplit(response.headers["location"])
    assert location.path == "/studio/login"
    assert parse_qs(location.query) == {"next": ["/studio/runs/abc/1?x=2"]}


def test_the_login_link_keeps_the_token_in_a_strict_http_only_cookie_and_drops_it_from_the_url(
        studio):
    kept = token("view")
    response = studio.client.get("/studio/login", params={"token": kept,
                                                          "next": "/studio/runs/r1"},
                                 follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/studio/runs/r1"
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}={kept};")
    flags = {part.strip().lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "path=/", "samesite=strict"} <= flags
    assert "secure" not in flags  # served over plain http here


def test_the_login_form_posts_the_token(studio):
    kept = token("view")
    response = studio.client.post("/studio/login", data={"token": kept, "next": "/studio"},
                                  follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/studio"
    assert studio.client.get("/studio").status_code == 200


def test_a_bad_token_gets_the_form_again_with_401(studio):
    response = studio.client.get("/studio/login", params={"token": "not-a-jwt"},
                                 follow_redirects=False)
    assert response.status_code == 401
    assert "set-cookie" not in response.headers
    assert 'name="token"' in response.text and "refused" in response.text


@pytest.mark.parametrize("target", [
    "https://evil.example/studio", "//evil.example/studio", "/\\evil.example/studio",
    "/api/workflow/instances", "/studiox", "/studio/../api", "javascript:alert(1)",
    "/studio\r\nSet-Cookie: x=1",
])
def test_the_login_never_redirects_off_the_studio(studio, target):
    response = studio.client.get("/studio/login", params={"token": token("view"),
                                                          "next": target},
                                 follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/studio"


def test_safe_next_keeps_studio_paths_with_their_query():
    assert safe_next("/studio/definitions/a%20b/1?x=1") == "/studio/definitions/a%20b/1?x=1"
    assert safe_next("/studio/") == "/studio/"


def test_a_valid_token_without_the_view_scope_is_a_403_page(studio):
    no_scope = issue_token(SECRET, subject="eve", tenant="acme", scopes=["other:scope"])
    studio.client.cookies.set(SESSION_COOKIE, no_scope)
    response = studio.client.get("/studio", follow_redirects=False)
    assert response.status_code == 403
    assert response.headers["content-type"].startswith("text/html")
    assert "workflow:view" in response.text
    signing_in = studio.client.get("/studio/login", params={"token": no_scope},
                                   follow_redirects=False)
    assert signing_in.status_code == 403 and "set-cookie" not in signing_in.headers


def test_an_expired_session_goes_back_to_the_login(studio):
    expired = issue_token(SECRET, subject="ada", tenant="acme", scopes=["workflow:view"],
                          ttl_seconds=60, now=1000.0)
    studio.client.cookies.set(SESSION_COOKIE, expired)
    response = studio.client.get("/studio", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/studio/login?")


def test_a_cookie_signed_post_without_the_csrf_header_is_refused(make_service):
    studio = make_service(pump=False)  # the run stays Pending: only the requests change it
    studio.import_definition(api_testing.FIXTURES / "document-processing.yaml")
    kept = _sign_in(studio.client)
    run_id = _start(studio, "document-processing")
    path = f"/api/workflow/instances/{run_id}/cancel"
    refused = studio.client.post(path, json={})
    assert refused.status_code == 403
    assert studio.client.get(f"/api/workflow/instances/{run_id}").json()["state"] != "Cancelled"
    wrong = studio.client.post(path, json={}, headers={"x-csrf-token": "0" * 32})
    assert wrong.status_code == 403
    accepted = studio.client.post(path, json={}, headers={
        "x-csrf-token": csrf_token(kept, studio.runtime.csrf_key)})
    assert accepted.status_code == 200 and accepted.json()["state"] == "Cancelled"


def test_the_page_carries_the_sessions_csrf_token(studio):
    kept = _sign_in(studio.client)
    page = studio.client.get("/studio").text
    assert f'name="csrf" value="{csrf_token(kept, studio.runtime.csrf_key)}"' in page


def test_sign_out_needs_the_csrf_token_and_clears_the_cookie(studio):
    kept = _sign_in(studio.client)
    refused = studio.client.post("/studio/logout", data={"csrf": "nope"},
                                 follow_redirects=False)
    assert refused.status_code == 403
    done = studio.client.post("/studio/logout",
                              data={"csrf": csrf_token(kept, studio.runtime.csrf_key)},
                              follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"] == "/studio/login"
    cookie = done.headers["set-cookie"]
    assert cookie.startswith(f'{SESSION_COOKIE}="";') and "Max-Age=0" in cookie


def test_a_login_post_from_another_site_is_refused(studio):
    response = studio.client.post("/studio/login", data={"token": token("view")},
                                  headers={"origin": "https://evil.example"},
                                  follow_redirects=False)
    assert response.status_code == 403 and "set-cookie" not in response.headers


def test_hostile_step_text_is_escaped_in_the_page(studio):
    _sign_in(studio.client)
    studio.import_definition(HOSTILE)
    run_id = _start(studio, "hostile")
    for path in (f"/studio/runs/{run_id}", "/studio/definitions/hostile/1"):
        page = studio.client.get(path).text
        assert "<script>alert" not in page and "<img src=x" not in page
        # the SVG writer escapes the step's title, Jinja2 the page, tojson the script data
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert "\\u003cscript\\u003ealert(1)" in page
        assert page.count("<script") == 3  # the JSON block and the two script files


def test_unknown_runs_definitions_and_paths_are_404_pages(studio):
    _sign_in(studio.client)
    for path in ("/studio/runs/no-such-run", "/studio/runs/a/b/c",
                 "/studio/definitions/document-processing/9.9.9",
                 "/studio/definitions/nothing/1", "/studio/definitions/nothing/diff",
                 "/studio/elsewhere"):
        response = studio.client.get(path)
        assert response.status_code == 404, path
        assert response.headers["content-type"].startswith("text/html")
        assert "Not found" in response.text and "Traceback" not in response.text


def test_another_tenants_run_is_a_404_page(studio):
    run_id = _start(studio, "document-processing")
    _sign_in(studio.client, tenant="globex")
    assert studio.client.get(f"/studio/runs/{run_id}").status_code == 404


def test_the_front_page_lists_definitions_versions_and_runs_by_state(studio):
    _sign_in(studio.client)
    studio.import_definition(FAILING)
    failed = _start(studio, "failing")
    studio.wait_for(failed, lambda r: r["state"] == "Failed")
    page = studio.client.get("/studio").text
    assert 'href="/studio/definitions/document-processing/1.0.0"' in page
    assert f'href="/studio/runs/{failed}"' in page
    only_failed = studio.client.get("/studio", params={"state": "Failed"}).text
    assert f'href="/studio/runs/{failed}"' in only_failed
    assert "Completed (0)" in only_failed and "Failed (1)" in only_failed
    assert studio.client.get("/studio", params={"state": "Completed"}).text.count(
        'href="/studio/runs/') == 0
    assert studio.client.get("/studio", params={"state": "Sleeping"}).status_code == 400


def test_a_failed_run_offers_retry_to_operators_only(studio):
    studio.import_definition(FAILING)
    failed = _start(studio, "failing")
    studio.wait_for(failed, lambda r: r["state"] == "Failed")
    _sign_in(studio.client, "operate")
    assert '<button type="button" id="retry" data-action="retry">' in studio.client.get(
        f"/studio/runs/{failed}").text
    _sign_in(studio.client, "view")
    assert '<button type="button" id="retry" data-action="retry" hidden>' in studio.client.get(
        f"/studio/runs/{failed}").text


def test_the_run_page_draws_the_run_with_focusable_steps(studio):
    _sign_in(studio.client)
    run_id = _start(studio, "document-processing")
    page = studio.client.get(f"/studio/runs/{run_id}").text
    assert '<?xml' not in page
    assert page.count('tabindex="0" role="button"') == 24
    assert page.count('<g class="node ') == 24


def test_the_dev_banner_links_to_the_studio_with_an_operate_token_of_tenant_dev():
    settings = ServiceSettings(dev=True, jwt_secret=SECRET)
    studio_token = dev_studio_token(settings)
    assert studio_token is not None
    principal = TokenVerifier.from_settings(settings).verify(studio_token)
    assert principal.tenant == "dev" and principal.allows(Scope.OPERATE)
    lines = banner("127.0.0.1", 8000, dev_secret_source=".wfr/dev.json",
                   studio_token=studio_token).splitlines()
    assert lines[-1] == ("  the Studio:   http://127.0.0.1:8000/studio/login?token="
                         f"{studio_token}&next=%2Fstudio")
    assert dev_studio_token(ServiceSettings(jwt_secret=SECRET)) is None  # not in production


def test_the_banners_link_signs_in(studio):
    link = studio_link("http://testserver/", token("operate"))
    response = studio.client.get(link, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/studio"


def test_the_run_page_opens_sub_workflows_when_asked_and_refuses_a_bad_switch(make_service):
    service = make_service()
    service.import_definition("workflow: inner\nversion: '1'\nsteps:\n"
                              "  - {id: x, kind: Human, failurePolicy: Fail}\n")
    service.import_definition("workflow: outer\nversion: '1'\nsteps:\n"
                              "  - {id: s, kind: SubWorkflow, workflow: inner}\n")
    _sign_in(service.client, "view")
    run_id = _start(service, "outer")
    service.wait_for(run_id, lambda r: bool(r.get("children")))
    plain = service.client.get(f"/studio/runs/{run_id}")
    opened = service.client.get(f"/studio/runs/{run_id}", params={"expandSubworkflows": "1"})
    assert plain.status_code == opened.status_code == 200
    assert 'data-step-id="s/x"' not in plain.text and 'data-step-id="s/x"' in opened.text
    assert 'id="view-expand" class="view-switch on"' in opened.text
    refused = service.client.get(f"/studio/runs/{run_id}", params={"groupFanouts": "perhaps"})
    assert refused.status_code == 400 and "groupFanouts" in refused.text


def test_the_definition_page_opens_sub_workflows_with_the_childs_step_fields(make_service):
    service = make_service()
    service.import_definition("workflow: inner\nversion: '1'\nsteps:\n"
                              "  - {id: x, kind: Tool, tool: mailer, failurePolicy: Fail}\n")
    service.import_definition("workflow: outer\nversion: '1'\nsteps:\n"
                              "  - {id: s, kind: SubWorkflow, workflow: inner}\n")
    _sign_in(service.client, "view")
    opened = service.client.get("/studio/definitions/outer/1",
                                params={"expandSubworkflows": "true"})
    assert opened.status_code == 200
    assert 'data-step-id="s/x"' in opened.text
    assert '"s/x": {"failurePolicy": "Fail", "id": "x", "kind": "Tool", "tool": "mailer"}' in (
        opened.text)


def test_a_trailing_slash_redirects_to_the_page_without_it(studio):
    _sign_in(studio.client)
    for path, target in (("/studio/", "/studio"), ("/studio//", "/studio"),
                         ("/studio/definitions/document-processing/1.0.0/",
                          "/studio/definitions/document-processing/1.0.0"),
                         ("/studio/?tab=runs", "/studio?tab=runs")):
        response = studio.client.get(path, follow_redirects=False)
        assert response.status_code == 307, path
        assert response.headers["location"] == target
    assert studio.client.get("/studio/").status_code == 200
    assert studio.client.get("/studio/elsewhere/").status_code == 404  # after the redirect


def test_the_run_page_lists_its_history_first_page_in_order(studio, monkeypatch):
    import re

    from renderer.studio import pages

    _sign_in(studio.client)
    run_id = _start(studio, "document-processing")
    studio.wait_for(run_id, lambda r: r["state"].startswith("WaitingFor"))  # it stays there
    history = studio.client.get(f"/api/workflow/instances/{run_id}/events",
                                params={"limit": "500"}).json()["items"]
    assert len(history) > 3
    row = re.compile(r'<tr data-seq="(\d+)"><td>\d+</td><td>([^<]*)</td><td>([^<]*)</td>'
                     r'<td>([^<]*)</td>')
    page = studio.client.get(f"/studio/runs/{run_id}").text
    shown = row.findall(page)
    assert [(int(seq), at, kind) for seq, at, _, kind in shown] == [
        (e["seq"], e["at"], e["kind"]) for e in history]
    assert shown[0][2] == "+0.000 s"
    assert f"({len(history)} events)" in page
    assert re.search(r'id="history-more" hidden', page)  # everything is on the page
    monkeypatch.setattr(pages, "HISTORY_PAGE", 3)
    page = studio.client.get(f"/studio/runs/{run_id}").text
    assert [int(seq) for seq, *_ in row.findall(page)] == [e["seq"] for e in history[:3]]
    assert f"({len(history)} events)" in page
    assert 'id="history-more">' in page  # shown: the rest is a click away


def test_the_front_page_shows_when_each_run_started_and_how_long_a_finished_one_took(studio):
    import re
    from datetime import datetime

    _sign_in(studio.client)
    studio.import_definition(FAILING)
    failed = _start(studio, "failing")
    record = studio.wait_for(failed, lambda r: r["state"] == "Failed")
    waiting = _start(studio, "document-processing")
    studio.wait_for(waiting, lambda r: r["state"].startswith("WaitingFor"))
    page = studio.client.get("/studio").text
    cells = {run: re.findall(r"<td>([^<]*)</td>", row) for run, row in re.findall(
        r'<tr>\s*<td><a href="/studio/runs/([^"]+)">.*?</td>(.*?)</tr>', page, re.S)}
    # workflow, (state cell has a span), reference, started, took, updated
    _, reference, started, took, updated = cells[failed]
    assert (reference, started, updated) == ("", record["createdAt"], record["updatedAt"])
    seconds = (datetime.fromisoformat(record["updatedAt"].replace("Z", "+00:00"))
               - datetime.fromisoformat(record["createdAt"].replace("Z", "+00:00"))
               ).total_seconds()
    assert seconds < 1 and took.endswith(" ms")  # a failure within a second
    # the record's times are rounded to the millisecond, the page's duration is not
    assert abs(float(took.removesuffix(" ms")) - seconds * 1000) <= 1.5
    assert cells[waiting][3] == ""  # still waiting: no duration yet
