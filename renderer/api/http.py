"""Request plumbing of the workflow API: authorization per route, bodies, queries, and
one table that turns the engine's errors into HTTP statuses.

A handler is a plain function ``(Call) -> Response`` run in a worker thread (the store is
synchronous); :func:`endpoint` reads the body, checks the bearer token and the scope,
runs the handler and maps what it raises through :data:`ERROR_STATUSES`.

>>> parse_limit({"limit": "20"}), parse_limit({})
(20, 50)
>>> parse_limit({"limit": "0"})
Traceback (most recent call last):
...
renderer.api.http.QueryError: query parameter 'limit' must be a whole number from 1 to 500, not '0'
>>> parse_sequence({"after": "²"})
Traceback (most recent call last):
...
renderer.api.http.QueryError: query parameter 'after' must be a sequence number, not '²'
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread
from anyio.lowlevel import RunVar
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from renderer.api.auth import AuthError, Principal, Scope
from renderer.api.gate import Gate
from renderer.api.schemas import BodyError, validate_body
from renderer.readers import ReaderError
from renderer.web import RequestProblem, error_response, read_body
from workflow.definitions import UnknownWorkflowError, VersionConflictError
from workflow.dsl import DslError
from workflow.engine import EngineError, IdempotencyMismatchError, NotFoundError, RunConflictError
from workflow.store import ConcurrentTransitionError
from workflow.validation import InvalidDefinitionError

MAX_LIMIT = 500
DEFAULT_LIMIT = 50
JSON_TYPES = ("", "application/json")
DOCUMENT_TYPES = (*JSON_TYPES, "application/yaml", "application/x-yaml", "text/yaml",
                  "text/x-yaml", "text/plain", "application/octet-stream",
                  # curl's default for --data-binary: the body is still read as text
                  "application/x-www-form-urlencoded")
"""What a definition document may be sent as (the render endpoint takes the same)."""
API_THREADS = 4
"""Handlers of the workflow API running at once (the rest wait their turn). The store has
one writer at a time and the handlers share one GIL: 40 threads (anyio's default) only
queue on SQLite's lock and trade the GIL, which on the load bench multiplied the tail
latency (``bench/workflow_load.py``)."""
_LIMITER: RunVar[anyio.CapacityLimiter] = RunVar("workflow_api_limiter")


class QueryError(ValueError):
    """A query parameter that is unknown or has a bad value."""


@dataclass(frozen=True, slots=True)
class Call:
    """One request as a handler sees it: who asks, path and query values and the body."""

    principal: Principal
    path: Mapping[str, str]
    query: Mapping[str, str]
    headers: Mapping[str, str]
    body: bytes
    content_type: str

    @property
    def tenant(self) -> str:
        return str(self.principal.tenant)

    def document_body(self) -> bytes:
        """The body as a definition document's text: 415 for a type that is no text."""
        if self.content_type not in DOCUMENT_TYPES and not self.content_type.endswith("+json"):
            raise RequestProblem(415, f"unsupported content type {self.content_type!r}; "
                                      "send the definition as YAML or JSON text")
        return self.body

    def json_body(self, schema: str) -> dict[str, Any]:
        """The body as a JSON object checked against ``schema`` (an empty body is ``{}``)."""
        if self.content_type not in JSON_TYPES and not self.content_type.endswith("+json"):
            raise RequestProblem(415, f"unsupported content type {self.content_type!r}; "
                                      "send JSON (application/json)")
        if not self.body.strip():
            data: object = {}
        else:
            try:
                data = json.loads(self.body, parse_constant=_no_constant, parse_float=_finite)
            except (ValueError, RecursionError) as exc:
                raise BodyError(f"body is not valid JSON: {exc}") from None
            _check_unicode(data)
        validate_body(schema, data)
        assert isinstance(data, dict)
        return data

    def allow_query(self, *names: str) -> None:
        """400 for a query parameter the route does not know."""
        unknown = sorted(set(self.query) - set(names))
        if unknown:
            known = ", ".join(names) or "none"
            raise QueryError(f"unknown query parameter {unknown[0]!r} (known: {known})")


def _no_constant(name: str) -> float:
    """``NaN``, ``Infinity`` and ``-Infinity``, which Python's JSON reads but JSON has not:
    stored, they would make every later read of the record fail to write JSON."""
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    """A JSON number as a float, unless it only fits as infinity (``1e400``)."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is too large")
    return value


def _check_unicode(data: object) -> None:
    """:class:`BodyError` for a string with a lone surrogate (JSON's ``"\\ud800"``): it is
    no Unicode text, so neither the store nor a JSON response could encode it as UTF-8."""
    stack: list[tuple[object, str]] = [(data, "body")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                stack += [(key, f"{where} (a key)"), (value, f"{where}{_step(key)}")]
        elif isinstance(item, list):
            stack += [(value, f"{where}[{index}]") for index, value in enumerate(item)]
        elif isinstance(item, str) and not item.isascii():
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise BodyError(f"{where}: \\u{ord(item[exc.start]):04x} is a lone surrogate, "
                                "not Unicode text") from None


def _step(key: str) -> str:
    return f".{key}" if key.isascii() and key.isidentifier() else f"[{key!r}]"


Handler = Callable[[Call], Response]


def endpoint(handler: Handler, scope: Scope, gate: Callable[[], Gate],
             inline: Callable[[Call], bool] | None = None
             ) -> Callable[[Request], Awaitable[Response]]:
    """A Starlette endpoint: token and scope checked, body read, handler run in a thread,
    or on the event loop itself when ``inline`` says the call is a short read.

    A read that never waits (a run's record from SQLite in WAL mode) costs less than the
    hand-off to a thread and back: on the load bench the hop and the threads' contention
    for the GIL were half of a ``GET /instances/{id}``'s CPU. Writes stay in threads: they
    wait for the store's one writer."""

    async def run(request: Request) -> Response:
        try:
            principal = gate().principal(request, scope)
            body = await read_body(request) if request.method in ("POST", "PUT") else b""
            call = Call(principal, dict(request.path_params), dict(request.query_params),
                        request.headers, body, _media_type(request))
            if inline is not None and inline(call):
                return handler(call)
            response: Response = await anyio.to_thread.run_sync(handler, call,
                                                                limiter=_api_limiter())
            return response
        except Exception as error:
            problem = problem_response(error)
            if problem is None:
                raise
            return problem

    return run


Endpoint = Callable[[Request], Awaitable[Response]]


def by_method(endpoints: Mapping[str, Endpoint]) -> Endpoint:
    """One endpoint for a path that several methods serve, so that one route has them all
    (Starlette's 405 names in ``Allow`` only the methods of the first route of the path)."""

    async def dispatch(request: Request) -> Response:
        return await endpoints["GET" if request.method == "HEAD" else request.method](request)

    return dispatch


def _api_limiter() -> anyio.CapacityLimiter:
    """The event loop's limiter of :data:`API_THREADS` (one per loop, like anyio's own)."""
    try:
        return _LIMITER.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(API_THREADS)
        _LIMITER.set(limiter)
        return limiter


def _media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


ERROR_STATUSES: tuple[tuple[type[Exception], int], ...] = (
    # first matching row wins
    (NotFoundError, 404),
    (UnknownWorkflowError, 404),
    (VersionConflictError, 409),
    (InvalidDefinitionError, 422),
    (IdempotencyMismatchError, 422),
    (BodyError, 400),
    (QueryError, 400),
    (ReaderError, 400),
    (DslError, 400),
    (EngineError, 400),
)
"""Expected errors and their statuses; conflicts with a run's state are built apart
(:func:`conflict`) because their body carries the run's state and revision."""


def problem_response(error: Exception) -> Response | None:
    """The response for an expected error; ``None`` for a bug (the caller's 500)."""
    if isinstance(error, AuthError):
        return error_response(error.status, error.message, error.headers)
    if isinstance(error, RequestProblem):
        return error_response(error.status, str(error))
    if isinstance(error, RunConflictError):
        return conflict(str(error), error.run.state.value, error.run.revision)
    if isinstance(error, InvalidDefinitionError):
        return JSONResponse({"error": str(error), "problems": [
            {"severity": p.severity, "subject": p.subject, "message": p.message}
            for p in error.problems]}, status_code=422)
    for kind, status in ERROR_STATUSES:
        if isinstance(error, kind):
            return error_response(status, _first_line(error))
    return None


def conflict(message: str, state: str, revision: int) -> JSONResponse:
    """409 naming the run's current state and revision."""
    return JSONResponse({"error": message, "state": state, "revision": revision},
                        status_code=409)


def raced(error: ConcurrentTransitionError, current: Callable[[], tuple[str, int]]
          ) -> JSONResponse:
    """409 for a transition another writer beat; ``current`` reads the run as it is now."""
    state, revision = current()
    return conflict(f"the run changed while this request was applied ({error}); "
                    f"it is now {state} at revision {revision}", state, revision)


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def parse_limit(query: Mapping[str, str], default: int = DEFAULT_LIMIT) -> int:
    """The page size of a listing."""
    text = query.get("limit")
    if text is None:
        return default
    if not _is_number(text, 18) or not 1 <= int(text) <= MAX_LIMIT:
        raise QueryError(f"query parameter 'limit' must be a whole number from 1 to "
                         f"{MAX_LIMIT}, not {text!r}")
    return int(text)


def parse_sequence(query: Mapping[str, str], name: str = "after",
                   where: str = "query parameter") -> int:
    """A non-negative sequence number (0 when absent); ``where`` says what ``query`` is in
    the message."""
    text = query.get(name, "0")
    if not _is_number(text, 18):
        raise QueryError(f"{where} {name!r} must be a sequence number, not {text!r}")
    return int(text)


def _is_number(text: str, digits: int) -> bool:
    """Whether ``text`` is 1 to ``digits`` ASCII digits (``str.isdigit`` also takes '²',
    which ``int`` refuses, and ``int`` refuses more than 4300 digits)."""
    return 1 <= len(text) <= digits and text.isascii() and text.isdigit()


def parse_choice(query: Mapping[str, str], name: str, choices: tuple[str, ...]) -> str | None:
    """A value from ``choices`` (compared case-insensitively), or None when absent."""
    text = query.get(name)
    if text is None:
        return None
    for choice in choices:
        if choice.lower() == text.lower():
            return choice
    raise QueryError(f"query parameter {name!r} must be one of {', '.join(choices)}, "
                     f"not {text!r}")


def json_response(data: object, status: int = 200, headers: Mapping[str, str] | None = None
                  ) -> JSONResponse:
    """A JSON response."""
    return JSONResponse(data, status_code=status, headers=headers)
