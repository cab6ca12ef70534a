"""The security headers on the responses uvicorn makes itself (503 past the connection
limit, 400 for a request it cannot parse), against a real uvicorn on a loopback port with
the service's protocol and options (:func:`renderer.serve.server_options`), a limit of 3
connections for the test."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from renderer.security_headers import SERVICE_HEADERS, SecurityHeaders
from renderer.serve import server_options
from renderer.studio.security import SECURITY_HEADERS as STUDIO_HEADERS

LIMIT = 3


@pytest.fixture
def port() -> Iterator[int]:
    """A uvicorn serving a two-route app behind :class:`SecurityHeaders`, as the service is."""
    import uvicorn

    async def hello(request: Request) -> PlainTextResponse:
        return PlainTextResponse("hi")

    app = Starlette(routes=[Route("/api/render", hello), Route("/studio", hello)],
                    middleware=[Middleware(SecurityHeaders)])
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = int(probe.getsockname()[1])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=free, log_level="critical",
                                           lifespan="off",
                                           **server_options(limit_concurrency=LIMIT)))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started, "uvicorn did not start"
    yield free
    server.should_exit = True
    thread.join(10)


def exchange(port: int, request: bytes) -> tuple[int, list[tuple[str, str]]]:
    """Send ``request`` on a new connection; the status and the header lines (in order,
    names lowercased) of the answer, read until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = connection.recv(4096)
            if not chunk:
                break
            answer += chunk
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    status = int(head[0].split()[1])
    headers = [(name.strip().lower(), value.strip())
               for name, value in (line.split(":", 1) for line in head[1:])]
    return status, headers


def get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n".encode()


def security_headers(headers: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Each security header's values (a list, so a header sent twice shows)."""
    wanted = {name.lower() for name in SERVICE_HEADERS}
    found: dict[str, list[str]] = {}
    for name, value in headers:
        if name in wanted:
            found.setdefault(name, []).append(value)
    return found


def expected(defaults: dict[str, str]) -> dict[str, list[str]]:
    return {name.lower(): [value] for name, value in defaults.items()}


def over_the_limit(port: int, path: str) -> tuple[int, list[tuple[str, str]]]:
    """A request sent while ``LIMIT`` other connections are open (idle)."""
    idle = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(LIMIT)]
    try:
        deadline = time.monotonic() + 5
        while True:  # until uvicorn has counted the idle connections
            status, headers = exchange(port, get(path))
            if status == 503 or time.monotonic() > deadline:
                return status, headers
            time.sleep(0.05)
    finally:
        for connection in idle:
            connection.close()


def test_uvicorns_503_past_the_connection_limit_has_the_service_headers(port: int) -> None:
    status, headers = over_the_limit(port, "/api/render")
    assert status == 503
    assert security_headers(headers) == expected(dict(SERVICE_HEADERS))


def test_uvicorns_503_on_a_studio_path_has_the_studio_headers(port: int) -> None:
    status, headers = over_the_limit(port, "/studio")
    assert status == 503
    assert security_headers(headers) == expected(dict(STUDIO_HEADERS))


def test_uvicorns_400_for_a_malformed_request_has_the_service_headers(port: int) -> None:
    status, headers = exchange(port, b"NOT HTTP AT ALL\r\n\r\n")
    assert status == 400
    assert security_headers(headers) == expected(dict(SERVICE_HEADERS))


def test_an_app_response_has_each_header_once(port: int) -> None:
    status, headers = exchange(port, get("/api/render"))
    assert status == 200
    assert security_headers(headers) == expected(dict(SERVICE_HEADERS))
