#!/usr/bin/env python3
"""Time to first paint of the Studio's run page, and the size of its script.

    python tools/studio_paint.py [--steps 500] [--visits 3]

Starts the service on a free loopback port with a temporary store and the demo executors,
starts a run of the reference workflow (fixtures/document-processing.yaml, 24 steps) and
one of a generated workflow (workflow/generate.py, ``--steps`` steps), opens each run page
in headless Debian chromium ``--visits`` times and prints the browser's own
``first-contentful-paint`` (``performance.getEntriesByType('paint')``, from navigation
start, the sign-in redirect included). The first visit of a workflow lays it out (the
layout is cached after it); later visits draw from the cache. Also prints the bytes of the
page's JavaScript: the Studio's script and svg-pan-zoom, as served.
"""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SECRET = "studio-paint-" + "x" * 32


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--visits", type=int, default=3)
    args = parser.parse_args()

    import httpx
    import uvicorn
    from playwright.sync_api import sync_playwright

    from renderer.api.auth import issue_token
    from renderer.api.runtime import WorkflowRuntime
    from renderer.api.settings import ServiceSettings
    from renderer.isolation import WorkerPool
    from renderer.service import create_app
    from workflow.demo import RECORDS_ARCHIVAL
    from workflow.dsl import load_definition, load_definition_text
    from workflow.generate import generate_definition

    folder = tempfile.TemporaryDirectory()
    settings = ServiceSettings(jwt_secret=SECRET, database=f"{folder.name}/paint.db", dev=True)
    runtime = WorkflowRuntime.create(settings)
    app = create_app(pool=WorkerPool(size=1), settings=settings, runtime=runtime)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    url = f"http://127.0.0.1:{port}"
    try:
        tenant = "paint"
        engine = runtime.engine
        engine.register(load_definition_text(RECORDS_ARCHIVAL), tenant=tenant)
        reference = engine.register(load_definition(ROOT / "fixtures" /
                                                    "document-processing.yaml"), tenant=tenant)
        generated = engine.register(generate_definition(args.steps, seed=1), tenant=tenant)
        runs = {f"reference ({len(reference.definition.steps)} steps)":
                engine.start(reference.definition.workflow, tenant=tenant).run_id,
                f"generated ({len(generated.definition.steps)} steps)":
                engine.start(generated.definition.workflow, tenant=tenant).run_id}
        token = issue_token(SECRET, subject="paint", tenant=tenant, scopes=["workflow:view"])
        with httpx.Client(base_url=url) as client:
            sizes = {path: len(client.get(path).content)
                     for path in ("/studio/static/studio.js",
                                  "/studio/assets/svg-pan-zoom.min.js")}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                                 args=CHROMIUM_ARGS)
            for label, run_id in runs.items():
                paints = []
                for _ in range(args.visits):
                    page = browser.new_page(viewport={"width": 1400, "height": 900})
                    query = urlencode({"token": token, "next": f"/studio/runs/{run_id}"})
                    page.goto(f"{url}/studio/login?{query}")
                    page.wait_for_function("() => performance.getEntriesByType('paint')"
                                           ".length > 1")
                    paints.append(page.evaluate(
                        "() => performance.getEntriesByType('paint').find("
                        "e => e.name === 'first-contentful-paint').startTime"))
                    nodes = page.locator("#drawing-svg g.node").count()
                    html = page.evaluate("() => document.documentElement.outerHTML.length")
                    page.close()
                shown = ", ".join(f"{p:.0f}" for p in paints)
                print(f"{label}: first-contentful-paint {shown} ms (visit 1 lays it out); "
                      f"{nodes} steps drawn; page {html / 1024:.0f} KiB")
            browser.close()
        for path, size in sizes.items():
            print(f"{path}: {size} bytes")
        print(f"JavaScript in total: {sum(sizes.values())} bytes")
    finally:
        server.should_exit = True
        thread.join(30)
        folder.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
