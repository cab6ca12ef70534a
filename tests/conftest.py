"""Fixtures every test folder may use: a throwaway PostgreSQL server for the session.

``pg_server`` starts one server (``initdb`` + ``pg_ctl`` from Debian's ``postgresql``
package, on a free loopback port, as ``nobody`` when the tests run as root) the first time
a test asks for it and stops it when the session ends. Without the package the tests that
need it skip and say what to install; under ``CI=true`` they fail instead, so a missing
install step cannot pass green.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest

from workflow.pg_server import PgServer, PostgresMissingError, PostgresStartError, start_server


def skip_or_fail(reason: str) -> None:
    """Skip with ``reason``; under ``CI=true`` fail instead."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true, so this cannot be skipped: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One PostgreSQL server for the whole session."""
    try:
        server = start_server()
    except (PostgresMissingError, PostgresStartError) as error:
        skip_or_fail(f"PostgreSQL tests need a server: {error}")
        raise  # not reached: skip_or_fail raises
    yield server
    server.stop()


# test modules import these helpers as ``pg_testing`` (pytest's importlib mode has no
# importable ``conftest``)
sys.modules.setdefault("pg_testing", sys.modules[__name__])
