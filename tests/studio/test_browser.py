"""The Studio in headless chromium against a live service: the reference workflow's run
page, pan and zoom, the step panel, approving a Human step with live updates, the version
diff and a 404 page. Screenshots go to tests/artifacts/ (kept by the CI lane).

The reference run (fixtures/document-processing.yaml, 24 steps) is driven as in
tests/renderer/api/test_end_to_end.py: enrichment reports low confidence, so the run waits
for the Human step ``review``. The intake tool fails its very first call, so the first
run's ``receive`` step has two attempts (Retry policy, one failed then one succeeded).
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import api_testing
import httpx
import pytest
import studio_testing
from studio_testing import ARTIFACTS

from renderer.diagram import StepState
from renderer.studio.pages import EVENT_KINDS
from renderer.styles import STATE_STYLES
from workflow.definitions import canonical_form
from workflow.demo import DEMO_OUTPUTS, RECORDS_ARCHIVAL
from workflow.dsl import load_definition
from workflow.executors import ExecutorRegistry

API = "/api/workflow"
REFERENCE = api_testing.FIXTURES / "document-processing.yaml"
LOW = {"confidence": 0.5}
VIEWPORT = {"width": 1400, "height": 900}
MATRIX = re.compile(r"matrix\(([^)]*)\)")


def _registry() -> ExecutorRegistry:
    outputs = {**DEMO_OUTPUTS, "vendor-registry": {"vendor": "ACME", **LOW},
               "tax-validator": {"taxValid": True, **LOW},
               "duplicate-detector": {"duplicate": False, **LOW}}
    calls = {"intake": 0}

    def intake(payload: object) -> object:
        calls["intake"] += 1
        if calls["intake"] == 1:
            raise RuntimeError("intake busy")
        return DEMO_OUTPUTS["document-intake"]

    executors: dict[str, Any] = {name: api_testing.fixed(value) for name, value in outputs.items()}
    return ExecutorRegistry({**executors, "document-intake": intake})


def _version_two() -> dict[str, Any]:
    """Version 2.0.0 of the reference: ``quarantine`` renamed ``isolate`` (one step removed,
    one added, the same edges) and ``notify`` allowed 7 attempts instead of 5 (changed)."""
    old = load_definition(REFERENCE)
    steps = [dataclasses.replace(s, id="isolate") if s.id == "quarantine" else
             dataclasses.replace(s, max_attempts=7) if s.id == "notify" else s
             for s in old.steps]
    edges = [dataclasses.replace(e, id=e.id.replace("quarantine", "isolate"),
                                 source=e.source.replace("quarantine", "isolate"),
                                 target=e.target.replace("quarantine", "isolate"))
             for e in old.edges]
    return canonical_form(dataclasses.replace(old, version="2.0.0", steps=tuple(steps),
                                              edges=tuple(edges)))


@dataclasses.dataclass
class Reference:
    live: Any
    viewed: str  # a run waiting for review, whose receive step took two attempts
    approved: str  # a run waiting for review, approved by a test

    def login_url(self, next_path: str, scope: str = "operate") -> str:
        query = httpx.QueryParams({"token": api_testing.token(scope), "next": next_path})
        return f"{self.live.url}/studio/login?{query}"


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Iterator[Reference]:
    live, server, thread = studio_testing.start_live(
        tmp_path_factory.mktemp("studio") / "studio.db", _registry())
    try:
        with httpx.Client(base_url=live.url, timeout=30) as client:
            admin = {**api_testing.auth("admin"), "content-type": "application/yaml"}
            for text in (RECORDS_ARCHIVAL.encode(), REFERENCE.read_bytes(),
                         json.dumps(_version_two()).encode()):
                imported = client.post(f"{API}/definitions", content=text, headers=admin)
                assert imported.status_code == 201, imported.text
            runs = [_start_and_wait_for_review(client) for _ in range(2)]
        yield Reference(live, *runs)
    finally:
        server.should_exit = True
        thread.join(30)


def _start_and_wait_for_review(client: httpx.Client) -> str:
    started = client.post(f"{API}/start", json={"workflowName": "document-processing",
                                                "workflowVersion": "1.0.0"},
                          headers=api_testing.auth("operate"))
    assert started.status_code == 201, started.text
    run_id = started.json()["workflowInstanceId"]
    deadline = time.monotonic() + 30
    while not client.get(f"{API}/tasks", params={"workflowInstanceId": run_id,
                                                 "status": "open"},
                         headers=api_testing.auth("view")).json()["items"]:
        assert time.monotonic() < deadline, "the run never waited for review"
        time.sleep(0.05)
    return run_id


@pytest.fixture
def page(browser, reference) -> Iterator[Any]:
    """A fresh browser context (no cookies) and page; console errors are collected."""
    context = browser.new_context(viewport=VIEWPORT)
    opened = context.new_page()
    opened.errors = []
    opened.on("console", lambda m: opened.errors.append(m.text) if m.type == "error" else None)
    opened.on("pageerror", lambda error: opened.errors.append(str(error)))
    yield opened
    context.close()


def _open(page: Any, reference: Reference, path: str, scope: str = "operate") -> Any:
    response = page.goto(reference.login_url(path, scope))
    assert page.url == reference.live.url + path  # the sign-in redirect dropped the token
    page.wait_for_function("() => document.querySelector('.svg-pan-zoom_viewport')")
    return response


def _matrix(page: Any) -> list[float]:
    """The viewport's transform once svg-pan-zoom has drawn (it updates on the next frame)."""
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => "
                  "requestAnimationFrame(done)))")
    transform = page.get_attribute("#drawing-svg .svg-pan-zoom_viewport", "transform")
    found = MATRIX.fullmatch(transform or "")
    assert found, transform
    return [float(v) for v in found.group(1).split(",")]


def _classes(page: Any, step_id: str) -> list[str]:
    return (page.get_attribute(f'#drawing-svg g.node[data-step-id="{step_id}"]', "class")
            or "").split()


def test_the_run_page_draws_all_24_steps_without_console_errors(page, reference):
    _open(page, reference, f"/studio/runs/{reference.viewed}")
    drawn = page.eval_on_selector_all("#drawing-svg g.node[data-step-id]",
                                      "groups => groups.map(g => g.dataset.stepId)")
    assert sorted(drawn) == sorted(s.id for s in load_definition(REFERENCE).steps)
    assert len(drawn) == 24
    assert "state-waiting" in _classes(page, "review")
    assert "state-succeeded" in _classes(page, "receive")
    assert "state-skipped" in _classes(page, "quarantine")  # the scan was clean
    assert page.text_content("#run-state") == "WaitingForHuman"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.click('g.node[data-step-id="review"]')
    page.wait_for_selector("#panel:not([hidden])")
    page.screenshot(path=str(ARTIFACTS / "studio-run.png"))
    assert page.errors == []


def test_zoom_and_pan_change_the_drawings_transform(page, reference):
    _open(page, reference, f"/studio/runs/{reference.viewed}")
    first = _matrix(page)
    page.click('[data-zoom="in"]')
    # svg-pan-zoom's zoomIn scales by 1 + zoomScaleSensitivity (0.25 here)
    assert _matrix(page)[0] == pytest.approx(first[0] * 1.25)
    page.keyboard.press("+")
    assert _matrix(page)[0] == pytest.approx(first[0] * 1.25 ** 2)
    page.keyboard.press("-")
    assert _matrix(page)[0] == pytest.approx(first[0] * 1.25)
    box = page.locator("#drawing").bounding_box()
    page.mouse.move(box["x"] + 40, box["y"] + box["height"] - 40)  # empty corner
    page.mouse.wheel(0, -200)
    page.wait_for_function(f"() => document.querySelector('.svg-pan-zoom_viewport')"
                           f".transform.baseVal.consolidate().matrix.a > {first[0] * 1.26}")
    before_drag = _matrix(page)
    page.mouse.down()
    page.mouse.move(box["x"] + 160, box["y"] + box["height"] - 80, steps=6)
    page.mouse.up()
    dragged = _matrix(page)
    assert dragged[0] == pytest.approx(before_drag[0])  # a pan does not zoom
    assert dragged[4] - before_drag[4] == pytest.approx(120, abs=1.5)
    assert dragged[5] - before_drag[5] == pytest.approx(-40, abs=1.5)
    page.click('[data-zoom="fit"]')
    assert _matrix(page)[0] == pytest.approx(first[0])  # the first view was fitted
    page.click('[data-zoom="reset"]')
    assert _matrix(page) == pytest.approx(first)
    assert page.errors == []


def test_a_click_or_enter_on_a_step_opens_its_attempts(page, reference):
    _open(page, reference, f"/studio/runs/{reference.viewed}")
    page.click('g.node[data-step-id="receive"]')
    page.wait_for_selector("#panel:not([hidden])")
    assert page.text_content("#panel h2") == "receive"
    rows = page.eval_on_selector_all("#panel tr.attempt",
                                     "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
    assert [row[2] for row in rows] == ["failed", "succeeded"]
    assert rows[0][1] == "receive@0.1" and rows[1][1] == "receive@0.2"
    assert rows[0][4] == "executor 'document-intake' failed: intake busy"
    assert "documentId" in page.text_content("#panel pre.output")
    page.focus('g.node[data-step-id="virus-scan"]')
    page.keyboard.press("Enter")
    assert page.text_content("#panel h2") == "virus-scan"
    assert page.locator("#panel tr.attempt").count() == 1
    page.click('g.node[data-step-id="review"]')
    assert page.locator("#panel button[data-decision]").count() == 2
    assert page.errors == []


def test_a_viewer_gets_no_decision_buttons(page, reference):
    _open(page, reference, f"/studio/runs/{reference.viewed}", scope="view")
    page.click('g.node[data-step-id="review"]')
    assert page.text_content("#panel h2") == "review"
    assert page.locator("#panel button[data-decision]").count() == 0


def test_approving_review_moves_the_run_on_and_the_page_follows_without_reload(
        page, reference):
    run_id = reference.approved
    _open(page, reference, f"/studio/runs/{run_id}")
    page.wait_for_selector("#live.on")
    page.evaluate("() => { window.notReloaded = true; }")
    outline = 'g.node[data-step-id="receive"] > :first-child'
    where = page.eval_on_selector(outline, "e => [e.getAttribute('x'), e.getAttribute('y')]")
    page.click('g.node[data-step-id="review"]')
    page.click('#panel button[data-decision="approve"]')
    page.wait_for_selector('g.node[data-step-id="review"].state-succeeded', timeout=5000)
    page.wait_for_selector('g.node[data-step-id="settle-window"].state-waiting', timeout=5000)
    page.wait_for_function("() => document.getElementById('run-state').textContent"
                           " === 'WaitingForTimer'", timeout=5000)

    # a transition the page did not cause: the 30-minute settle window passes
    reference.live.clock.offset += 30 * 60 + 1
    moved = time.monotonic()
    reference.live.runtime.pump.wake()
    page.wait_for_selector('g.node[data-step-id="audit-trail"].state-succeeded',
                           timeout=10000)
    followed = time.monotonic() - moved
    page.wait_for_function("() => document.getElementById('run-state').textContent"
                           " === 'Completed'", timeout=5000)
    succeeded = STATE_STYLES[StepState.SUCCEEDED]
    colours = page.eval_on_selector('g.node[data-step-id="audit-trail"] > :first-child',
                                    "e => [e.getAttribute('fill'), e.getAttribute('stroke')]")
    assert colours == [succeeded.fill, succeeded.stroke]
    assert page.evaluate("() => window.notReloaded") is True
    assert page.eval_on_selector(outline, "e => [e.getAttribute('x'), e.getAttribute('y')]"
                                 ) == where  # restyled in place: nothing moved
    assert page.get_attribute('g.edge[data-edge-id="approved->settle-window"]', "class"
                              ).split()[-1] == "edge-taken"
    print(f"\nthe page showed the finished run {followed:.2f} s after the timer came due")
    assert followed < 5.0
    assert page.errors == []
    kinds = {e.kind for e in reference.live.runtime.store.outbox()}
    assert kinds <= set(EVENT_KINDS)  # the page listens for every kind a run emitted


def _history_rows(page: Any) -> list[list[str]]:
    return page.eval_on_selector_all(
        "#history-rows tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))")


def test_the_history_pages_in_follows_live_and_opens_a_rows_step(page, reference,
                                                                   monkeypatch):
    from renderer.studio import pages

    monkeypatch.setattr(pages, "HISTORY_PAGE", 5)  # the page shows 5, then 5 more per click
    with httpx.Client(base_url=reference.live.url, timeout=30) as client:
        run_id = _start_and_wait_for_review(client)

        def api_history() -> list[dict[str, Any]]:
            return client.get(f"{API}/instances/{run_id}/events", params={"limit": "500"},
                              headers=api_testing.auth("view")).json()["items"]

        before = api_history()
        assert len(before) > 10  # so the first page and one more leave some to load
        _open(page, reference, f"/studio/runs/{run_id}")
        page.wait_for_selector("#live.on")
        page.click("#history summary")
        assert [row[0] for row in _history_rows(page)] == [str(e["seq"]) for e in before[:5]]
        assert page.text_content("#history-count") == f"({len(before)} events)"
        while page.is_visible("#history-more"):
            shown = len(_history_rows(page))
            page.click("#history-more")
            page.wait_for_function(f"() => document.querySelectorAll('#history-rows tr')"
                                   f".length > {shown} || document.getElementById("
                                   f"'history-more').hidden")
        rows = _history_rows(page)
        assert [(row[0], row[3], row[4]) for row in rows] == [
            (str(e["seq"]), e["kind"], e["stepId"] or "") for e in before]
        assert rows[0][2] == "+0.000 s" and rows[0][3] == "run.created"

        (task,) = client.get(f"{API}/tasks", params={"workflowInstanceId": run_id,
                                                      "status": "open"},
                             headers=api_testing.auth("view")).json()["items"]
        done = client.post(f"{API}/tasks/{task['taskId']}/complete",
                           json={"decision": "approve"}, headers=api_testing.auth("operate"))
        assert done.status_code == 200, done.text
        page.wait_for_function("() => document.getElementById('run-state').textContent"
                               " === 'WaitingForTimer'", timeout=5000)
        after = api_history()
        assert len(after) > len(before)  # the approval's events came after the page was built
        page.wait_for_function("() => document.querySelector("
                               "'#timeline-svg [data-timeline-step=\"settle-window\"]')",
                               timeout=5000)  # the timeline is redrawn live too
        page.wait_for_function(f"() => document.querySelectorAll('#history-rows tr').length"
                               f" >= {len(after)}", timeout=5000)
        rows = _history_rows(page)
        assert [(row[0], row[3], row[4]) for row in rows] == [
            (str(e["seq"]), e["kind"], e["stepId"] or "") for e in after]  # once each, in order
        assert page.text_content("#history-count") == f"({len(after)} events)"
    page.click('#history-rows [data-history-step="virus-scan"] >> nth=0')
    page.wait_for_selector("#panel:not([hidden])")
    assert page.text_content("#panel h2") == "virus-scan"
    assert "selected" in _classes(page, "virus-scan")
    page.screenshot(path=str(ARTIFACTS / "studio-history.png"))
    assert page.errors == []


def _timeline(page: Any) -> list[dict[str, Any]]:
    return page.eval_on_selector_all("#timeline-svg g.timeline-row", """rows => rows.map(r => ({
        step: r.dataset.timelineStep,
        bars: [...r.querySelectorAll('rect')].map(b => ({
            x: +b.getAttribute('x'), width: +b.getAttribute('width'),
            state: b.dataset.state}))}))""")


def test_the_timeline_shows_each_started_step_and_its_attempts_in_order(page, reference):
    record = httpx.get(f"{reference.live.url}{API}/instances/{reference.viewed}",
                       headers=api_testing.auth("view")).json()
    started = [s for s in record["steps"] if s["attempts"] or s["startedAt"]]

    def first_start(step: dict[str, Any]) -> str:
        return step["attempts"][0]["startedAt"] if step["attempts"] else step["startedAt"]

    # ISO-8601 UTC times of one format sort as text
    expected = [s["stepId"] for s in sorted(started, key=lambda s: (first_start(s), s["stepId"]))]
    _open(page, reference, f"/studio/runs/{reference.viewed}")
    page.click("#timeline summary")
    rows = _timeline(page)
    assert [row["step"] for row in rows] == expected
    label, width = 200, 760  # the time axis runs from x = 200 to x = 960
    bars = [bar for row in rows for bar in row["bars"]]
    assert all(label - 0.01 <= bar["x"] and bar["x"] + bar["width"] <= label + width + 0.01
               for bar in bars)
    assert max(bar["x"] + bar["width"] for bar in bars) == pytest.approx(label + width, abs=0.01)
    receive = next(row for row in rows if row["step"] == "receive")
    assert [bar["state"] for bar in receive["bars"]] == ["failed", "succeeded"]
    assert receive["bars"][0]["x"] <= receive["bars"][1]["x"]
    assert next(row for row in rows if row["step"] == "review")["bars"][-1]["state"] in (
        "running", "waiting")
    page.click('#timeline-svg [data-timeline-step="virus-scan"] text')
    assert page.text_content("#panel h2") == "virus-scan"
    assert page.errors == []


STUDIO_DATA = re.compile(r'(<script type="application/json" id="studio-data">)(.*?)(</script>)',
                         re.DOTALL)
HTML_SAFE_JSON = (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"), ("'", "\\u0027"))
"""What Jinja's ``tojson`` escapes in the page's JSON block."""


def _serve_changed_record(page: Any, url: str, change: Any) -> None:
    """Serve the page at ``url`` with ``change(record)`` applied to the run record it embeds
    (the ``#studio-data`` block the timeline is drawn from)."""
    def handle(route: Any) -> None:
        response = route.fetch()
        html = response.text()
        found = STUDIO_DATA.search(html)
        assert found, "the run page has no #studio-data block"
        data = json.loads(found.group(2))
        change(data["record"])
        text = json.dumps(data)
        for character, escape in HTML_SAFE_JSON:
            text = text.replace(character, escape)
        route.fulfill(response=response, body=html[:found.start(2)] + text + html[found.end(2):])

    page.route(url, handle)


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_a_running_attempt_that_starts_after_the_records_update_stays_on_the_time_axis(
        page, reference):
    # The engine stamps a run's updatedAt before the attempt its last transition opens, so
    # under load the running review attempt can start a few ms after updatedAt and after
    # every other attempt ended: its bar must still end on the axis (x = 960), 2 px wide,
    # not past it. The record is made so here (+5 ms), the rest is the real viewed run.
    def review_starts_last(record: dict[str, Any]) -> None:
        times = [_instant(t) for step in record["steps"] for a in step["attempts"]
                 for t in (a["startedAt"], a["endedAt"]) if t]
        review = next(s for s in record["steps"] if s["stepId"] == "review")
        assert review["attempts"][-1]["endedAt"] is None
        review["attempts"][-1]["startedAt"] = _iso(max(times) + timedelta(milliseconds=5))
        assert _instant(record["updatedAt"]) < max(times) + timedelta(milliseconds=5)

    path = f"/studio/runs/{reference.viewed}"
    _serve_changed_record(page, reference.live.url + path, review_starts_last)
    _open(page, reference, path)
    page.click("#timeline summary")
    rows = _timeline(page)
    label, width = 200, 760
    bars = [bar for row in rows for bar in row["bars"]]
    assert all(label - 0.01 <= bar["x"] and bar["x"] + bar["width"] <= label + width + 0.01
               for bar in bars)
    review = next(row for row in rows if row["step"] == "review")["bars"][-1]
    assert review["width"] == 2  # it has just started: the minimum width
    assert review["x"] + review["width"] == pytest.approx(label + width, abs=0.01)
    assert rows[-1]["step"] == "review"  # it started last
    assert page.errors == []


def test_an_operator_cancels_a_run_after_confirming_and_a_viewer_cannot(page, reference):
    with httpx.Client(base_url=reference.live.url, timeout=30) as client:
        run_id = _start_and_wait_for_review(client)
    _open(page, reference, f"/studio/runs/{run_id}", scope="view")
    assert not page.is_visible("#cancel-run")  # a viewer has no operator buttons
    _open(page, reference, f"/studio/runs/{run_id}")
    page.wait_for_selector("#live.on")
    assert page.is_visible("#cancel-run") and not page.is_visible("#resume")
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click("#cancel-run")
    time.sleep(0.3)
    assert page.text_content("#run-state") == "WaitingForHuman"  # dismissed: nothing sent
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#cancel-run")
    page.wait_for_function("() => document.getElementById('run-state').textContent"
                           " === 'Cancelled'", timeout=5000)
    page.wait_for_selector("#cancel-run[hidden]", state="attached")
    record = httpx.get(f"{reference.live.url}{API}/instances/{run_id}",
                       headers=api_testing.auth("view")).json()
    assert record["state"] == "Cancelled"
    page.click("#history summary")
    page.wait_for_function("() => [...document.querySelectorAll('#history-rows tr')]"
                           ".some(r => r.cells[3].textContent === 'run.cancelled')",
                           timeout=5000)
    assert page.errors == []


def test_an_operator_resumes_a_repaired_run(page, reference):
    with httpx.Client(base_url=reference.live.url, timeout=30) as client:
        run_id = _start_and_wait_for_review(client)
        record = client.get(f"{API}/instances/{run_id}",
                            headers=api_testing.auth("view")).json()
        repaired = client.post(f"{API}/instances/{run_id}/repair",
                               json={"rewindTo": "review",
                                     "expectedRevision": record["revision"]},
                               headers=api_testing.auth("operate"))
        assert repaired.status_code == 200, repaired.text
        assert repaired.json()["state"] == "Suspended"
    _open(page, reference, f"/studio/runs/{run_id}")
    assert page.is_visible("#resume")
    page.click("#resume")
    # resumed at review, a Human step: the run waits for its decision again
    page.wait_for_function("() => document.getElementById('run-state').textContent"
                           " === 'WaitingForHuman'", timeout=5000)
    page.wait_for_selector("#resume[hidden]", state="attached")
    assert page.errors == []


def test_the_diff_page_marks_added_removed_and_changed_steps(page, reference):
    path = "/studio/definitions/document-processing/diff?from=1.0.0&to=2.0.0"
    response = page.goto(reference.login_url(path))
    assert response.status == 200
    page.wait_for_function("() => document.querySelector('.svg-pan-zoom_viewport')")
    assert _classes(page, "isolate")[-1] == "diff-added"
    assert _classes(page, "quarantine")[-1] == "diff-removed"
    assert _classes(page, "notify")[-1] == "diff-changed"
    assert page.locator("#drawing-svg g.node.diff-added").count() == 1
    assert page.locator("#drawing-svg g.node.diff-removed").count() == 1
    ghost = page.eval_on_selector('g.node[data-step-id="quarantine"]',
                                  "g => [getComputedStyle(g).opacity, getComputedStyle("
                                  "g.firstElementChild).strokeDasharray]")
    assert ghost[0] == "0.45" and ghost[1] != "none"
    ghost_edges = page.eval_on_selector_all("#drawing-svg g.edge.diff-removed",
                                            "groups => groups.map(g => g.dataset.edgeId)")
    assert sorted(ghost_edges) == ["is-clean->quarantine", "quarantine->audit-trail"]
    page.click('g.node[data-step-id="notify"]')
    cells = page.eval_on_selector_all("#panel table.changes td", "cells => cells.map("
                                      "c => c.textContent)")
    assert cells == ["maxAttempts", "5", "7"]
    page.screenshot(path=str(ARTIFACTS / "studio-diff.png"))
    assert page.errors == []


def test_an_unknown_run_is_a_404_page(page, reference):
    page.goto(reference.login_url("/studio"))
    response = page.goto(f"{reference.live.url}/studio/runs/no-such-run")
    assert response.status == 404
    assert page.text_content("h1") == "Not found"
    assert "no-such-run" in page.text_content("main")


def test_the_run_page_shows_its_drawing_with_javascript_off(browser, reference):
    context = browser.new_context(viewport=VIEWPORT, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(reference.login_url(f"/studio/runs/{reference.viewed}"))
        assert page.locator("#drawing-svg g.node").count() == 24
        box = page.locator("#drawing-svg").bounding_box()
        assert box["width"] > 600 and box["height"] > 400  # sized by the page, not zero
        assert page.locator(".svg-pan-zoom_viewport").count() == 0  # no script ran
    finally:
        context.close()
