"""A run page with its sub-workflow opened in place, in headless chromium against a live
service: the child run's steps are drawn inside the SubWorkflow step with their own states,
the panel shows a child step's record with its decision, and approving it there moves the
child run and then the parent on, followed live without a reload.

The parent (``api_testing.SUBWORKFLOW_PARENT``): ``prepare`` succeeds at once and
``contract`` starts a child run, whose ``check`` succeeds and whose Human step ``sign``
waits; approving ``sign`` ends the child run, so ``contract`` succeeds and ``book`` runs:
the parent completes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import api_testing
import httpx
import pytest
import studio_testing
from studio_testing import ARTIFACTS

API = "/api/workflow"
OPENED = "?expandSubworkflows=true"


@pytest.fixture(scope="module")
def live(tmp_path_factory) -> Iterator[tuple[Any, str]]:
    """A live service with one ``parent`` run whose child waits at ``sign``."""
    service, server, thread = studio_testing.start_live(
        tmp_path_factory.mktemp("opened") / "opened.db", api_testing.executors())
    try:
        with httpx.Client(base_url=service.url, timeout=30) as client:
            admin = {**api_testing.auth("admin"), "content-type": "application/yaml"}
            for text in (api_testing.SUBWORKFLOW_CHILD, api_testing.SUBWORKFLOW_PARENT):
                imported = client.post(f"{API}/definitions", content=text, headers=admin)
                assert imported.status_code == 201, imported.text
            started = client.post(f"{API}/start", json={"workflowName": "parent"},
                                  headers=api_testing.auth("operate"))
            run_id = started.json()["workflowInstanceId"]
            deadline = time.monotonic() + 30
            while not client.get(f"{API}/tasks", params={"status": "open"},
                                 headers=api_testing.auth("view")).json()["items"]:
                assert time.monotonic() < deadline, "the child run never waited at sign"
                time.sleep(0.05)
        yield service, run_id
    finally:
        server.should_exit = True
        thread.join(30)


def _sign_in(page: Any, url: str, path: str, scope: str) -> None:
    """Open ``path`` through the login link with a token of ``scope``."""
    query = httpx.QueryParams({"token": api_testing.token(scope), "next": path})
    page.goto(f"{url}/studio/login?{query}")


def _drawn_steps(page: Any) -> list[str]:
    return sorted(page.eval_on_selector_all("#drawing-svg g.node[data-step-id]",
                                            "groups => groups.map(g => g.dataset.stepId)"))


def _classes(page: Any, step_id: str) -> list[str]:
    return (page.get_attribute(f'#drawing-svg g.node[data-step-id="{step_id}"]', "class")
            or "").split()


def test_the_opened_child_run_is_drawn_decided_and_followed_live(browser, live) -> None:
    service, run_id = live
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        _sign_in(page, service.url, f"/studio/runs/{run_id}{OPENED}", "operate")
        page.wait_for_function("() => document.querySelector('.svg-pan-zoom_viewport')")
        page.wait_for_selector("#live.on")
        assert _drawn_steps(page) == ["book", "contract", "contract/check", "contract/sign",
                                      "prepare"]
        assert "state-waiting" in _classes(page, "contract/sign")
        assert "state-succeeded" in _classes(page, "contract/check")
        assert page.get_attribute("#view-expand", "aria-pressed") == "true"
        page.evaluate("() => { window.notReloaded = true; }")

        page.click('g.node[data-step-id="contract/sign"]')
        page.wait_for_selector("#panel:not([hidden])")
        assert page.text_content("#panel h2") == "contract/sign"
        assert "child run" in page.text_content("#panel dl")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "studio-run-opened.png"))
        page.click('#panel button[data-decision="approve"]')
        page.wait_for_selector('g.node[data-step-id="contract/sign"].state-succeeded',
                               timeout=5000)
        page.wait_for_selector('g.node[data-step-id="book"].state-succeeded', timeout=10000)
        page.wait_for_function("() => document.getElementById('run-state').textContent"
                               " === 'Completed'", timeout=10000)
        assert "state-succeeded" in _classes(page, "contract")
        assert page.evaluate("() => window.notReloaded") is True
        assert errors == []
    finally:
        context.close()


def test_the_view_switch_closes_the_sub_workflow_again(browser, live) -> None:
    service, run_id = live
    context = browser.new_context()
    page = context.new_page()
    try:
        _sign_in(page, service.url, f"/studio/runs/{run_id}{OPENED}", "view")
        page.click("#view-expand")
        page.wait_for_selector('g.node[data-step-id="contract"]')
        assert _drawn_steps(page) == ["book", "contract", "prepare"]
        assert page.get_attribute("#view-expand", "aria-pressed") == "false"
    finally:
        context.close()
