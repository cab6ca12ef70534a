"""What every endpoint shares: the JSON error body, refusals with a status, bounded bodies.

>>> error_response(404, "no run r1").body
b'{"error":"no run r1"}'
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse

MAX_BODY_BYTES = 2 * 1024 * 1024
"""Largest accepted request body (2 MiB); larger bodies get 413 while being read."""


class RequestProblem(Exception):
    """A request the service refuses, with its HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def error_response(
    status: int, message: str, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The JSON body of every error: ``{"error": message}``."""
    return JSONResponse({"error": message}, status_code=status, headers=headers)


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The request body; :class:`RequestProblem` 413 as soon as it passes ``limit`` bytes."""
    declared = request.headers.get("content-length", "")
    too_large = RequestProblem(413, f"request body exceeds the limit of {limit} bytes")
    if declared.isdigit() and int(declared) > limit:
        raise too_large
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise too_large
            chunks.append(chunk)
    except ClientDisconnect:
        raise RequestProblem(400, "the client disconnected while sending the body") from None
    return b"".join(chunks)


