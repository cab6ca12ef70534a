"""``GET /api/workflow/events/stream``: the outbox of the caller's tenant as server-sent
events (https://html.spec.whatwg.org/multipage/server-sent-events.html).

Each event's ``id`` is its outbox sequence number, so a client that reconnects with
``Last-Event-ID`` (browsers' EventSource does it by itself) resumes after the last event it
saw; ``?after=SEQ`` starts after SEQ. The stream polls the store every
:data:`POLL_SECONDS` and sends a comment line every :data:`KEEP_ALIVE_SECONDS` so proxies
keep an idle stream open. It ends when the client goes away.

>>> from workflow.store import OutboxEntry
>>> message = sse_message(OutboxEntry(7, "r1", "run.started", None, None, 0.0))
>>> message.splitlines()[:2], message.endswith(2 * chr(10))
(['id: 7', 'event: run.started'], True)
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable

import anyio
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from renderer.api.auth import Scope
from renderer.api.gate import Gate
from renderer.api.http import QueryError, parse_sequence, problem_response
from renderer.api.views import event
from workflow.store import OutboxEntry
from workflow.stores import ServiceStore

POLL_SECONDS = 0.2
KEEP_ALIVE_SECONDS = 15.0
BATCH = 200
RECONNECT_MILLISECONDS = 1000


def sse_message(entry: OutboxEntry) -> str:
    """One outbox row as a server-sent event."""
    data = json.dumps(event(entry), separators=(",", ":"), ensure_ascii=False)
    return f"id: {entry.seq}\nevent: {entry.kind}\ndata: {data}\n\n"


def event_stream(store: ServiceStore, gate: Callable[[], Gate]
                 ) -> Callable[[Request], Awaitable[Response]]:
    """The streaming endpoint (view scope)."""

    async def stream(request: Request) -> Response:
        try:
            principal = gate().principal(request, Scope.VIEW)
            unknown = sorted(set(request.query_params) - {"after"})
            if unknown:
                raise QueryError(f"unknown query parameter {unknown[0]!r} (known: after)")
            resume = request.headers.get("last-event-id")
            after = (parse_sequence({"Last-Event-ID": resume}, "Last-Event-ID", "header")
                     if resume else parse_sequence(request.query_params))
        except Exception as error:
            problem = problem_response(error)
            if problem is None:
                raise
            return problem
        return StreamingResponse(
            _messages(store, principal.tenant, after), media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    return stream


async def _messages(store: ServiceStore, tenant: str, after: int) -> AsyncIterator[str]:
    yield f"retry: {RECONNECT_MILLISECONDS}\n\n"
    idle = 0.0
    while True:
        rows = await anyio.to_thread.run_sync(store.events_after, tenant, after, BATCH)
        for entry in rows:
            yield sse_message(entry)
            after = entry.seq
        if rows:
            idle = 0.0
            continue
        await anyio.sleep(POLL_SECONDS)
        idle += POLL_SECONDS
        if idle >= KEEP_ALIVE_SECONDS:
            idle = 0.0
            yield ": keep-alive\n\n"
