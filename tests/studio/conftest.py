"""Shared set-up of the Studio's tests: the API test helpers (``api_testing``), a started
service on a temporary store for TestClient checks, a live service on a loopback port for
the browser, and headless Debian chromium through playwright.

The browser fixture skips naming the install command when chromium or playwright is
missing, and fails instead under ``CI=true`` (a missing install step must not pass green).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def _api_testing() -> Any:
    """tests/renderer/api/conftest.py as the module ``api_testing`` (it registers itself
    under that name when pytest loads it first)."""
    if "api_testing" not in sys.modules:
        path = ROOT / "tests" / "renderer" / "api" / "conftest.py"
        spec = importlib.util.spec_from_file_location("api_testing", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["api_testing"] = module
        spec.loader.exec_module(module)
    return sys.modules["api_testing"]


api_testing = _api_testing()
make_service = api_testing.make_service  # the API tests' factory fixture, here too


def unavailable(reason: str) -> NoReturn:
    """Skip with ``reason``; under ``CI=true`` fail instead."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true, so this cannot be skipped: {reason}")
    pytest.skip(reason)


@dataclass
class Live:
    """The service on a loopback port (uvicorn in a thread) with its runtime and clock."""

    url: str
    runtime: Any
    clock: Any


def start_live(database: Path, registry: Any) -> tuple[Live, Any, threading.Thread]:
    """A service like the API tests' ``live_service``, on a free port of 127.0.0.1."""
    import uvicorn

    from renderer.api.runtime import WorkflowRuntime
    from renderer.api.settings import ServiceSettings
    from renderer.isolation import WorkerPool
    from renderer.service import create_app

    clock = api_testing.Clock()
    settings = ServiceSettings(jwt_secret=api_testing.SECRET, database=str(database))
    runtime = WorkflowRuntime.create(settings, clock=clock, executors=registry)
    app = create_app(pool=WorkerPool(size=1), settings=settings, runtime=runtime)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.02)
    return Live(f"http://127.0.0.1:{port}", runtime, clock), server, thread


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless Debian chromium, launched once for the session."""
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        unavailable("chromium is not installed (apt-get install chromium, or "
                    "make system-deps)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed (pip install -e '.[dev]')")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                              headless=True)
        try:
            yield launched
        finally:
            launched.close()


sys.modules.setdefault("studio_testing", sys.modules[__name__])
