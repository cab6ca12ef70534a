"""What every endpoint shares: the JSON error body, refusals with a status, bodies bounded
in size and in time.

>>> error_response(404, "no run r1").body
b'{"error":"no run r1"}'
"""

from __future__ import annotations

from collections.abc import Mapping

import anyio
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse

MAX_BODY_BYTES = 2 * 1024 * 1024
"""Largest accepted request body (2 MiB); larger bodies get 413 while being read."""

BODY_SECONDS = 30.0
"""Time a client has to send its whole body; a slower one gets 408."""


class RequestProblem(Exception):
    """A request the service refuses, with its HTTP status."""

    headers: Mapping[str, str] | None = None
    """Extra response headers (``Retry-After`` of a 503)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def error_response(
    status: int, message: str, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The JSON body of every error: ``{"error": message}``."""
    return JSONResponse({"error": message}, status_code=status, headers=headers)


async def read_body(request: Request, limit: int = MAX_BODY_BYTES,
                    seconds: float = BODY_SECONDS) -> bytes:
    """The request body; :class:`RequestProblem` 413 as soon as it passes ``limit`` bytes,
    408 when it has not all arrived within ``seconds``."""
    declared = request.headers.get("content-length", "")
    too_large = RequestProblem(413, f"request body exceeds the limit of {limit} bytes")
    if declared.isdigit() and int(declared) > limit:
        raise too_large
    chunks: list[bytes] = []
    size = 0
    try:
        with anyio.fail_after(seconds):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise too_large
                chunks.append(chunk)
    except ClientDisconnect:
        raise RequestProblem(400, "the client disconnected while sending the body") from None
    except TimeoutError:
        raise RequestProblem(408, f"the request body did not arrive within {seconds:g} s"
                             ) from None
    return b"".join(chunks)


