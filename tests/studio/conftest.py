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
import sys
import threading
from collections.abc import Iterator
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


def start_live(database: Path, registry: Any) -> tuple[Any, Any, threading.Thread]:
    """The API tests' live service (``api_testing.start_live``), on a free loopback port."""
    live, server, thread = api_testing.start_live(database, registry)
    return live, server, thread


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
