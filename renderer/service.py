"""The Starlette rendering service.

Routes: ``POST /api/render``, ``GET /api/engines``, ``GET /api/schemas/{name}``,
``GET /drawings/{name}.{svg|json|elk|dot}`` (fixtures by name), ``GET /healthz``,
``GET /readyz``, ``GET /openapi.json`` and ``GET /`` (an index of the drawings).

Every render runs whole in the worker pool (:mod:`renderer.isolation`): the input is parsed
(YAML, JSON, DOT), checked against the input limits, laid out and written in a worker process
under the request's time budget and the worker's memory limit, so no input can stall or
bloat the server; the event loop only reads the body and hands bytes over. Requests pass
admission first (:mod:`renderer.admission`: two lanes of bounded queues, 503 with
``Retry-After`` past them), a ``timeBudget`` over the server's maximum is refused with 400,
and a client that goes away cancels its render (its worker is replaced). Responses are
kept by input in a bounded cache with ETags (:mod:`renderer.response_cache`), and each
worker keeps its last layouts by graph hash, engine and options
(:class:`renderer.isolation_worker.LayoutMemo`); a request with ``Cache-Control:
no-cache`` is read, laid out and written anew. Every response carries the security
headers of :mod:`renderer.security_headers`.

Bad input is a 4xx with ``{"error": "<message>"}`` (statuses from
:data:`renderer.render.PROBLEM_TABLE`); only a true bug gives 500.

>>> app = create_app()  # the worker pool starts with the app's lifespan
>>> sorted(route.path for route in app.routes)[:3]
['/', '/api/engines', '/api/render']
"""

from __future__ import annotations

import functools
import html
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from threading import Event
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from layouts.api import engines
from layouts.options import given_names
from layouts.registry import DEFAULT_ENGINE, get_provider
from renderer.admission import Admission, RenderLimits
from renderer.api.auth import AuthError, Scope
from renderer.api.metrics import Metrics
from renderer.api.runtime import WorkflowRuntime
from renderer.api.settings import ServiceSettings
from renderer.isolation import WorkerPool
from renderer.isolation_worker import RenderJob, RenderOutput
from renderer.openapi import openapi_document
from renderer.query import drawing_query
from renderer.render import classify_error, one_line, warning_headers
from renderer.response_cache import (
    CachedRender,
    ResponseCache,
    etag_of,
    matches,
    response_key,
)
from renderer.security_headers import SecurityHeaders, headers_for
from renderer.studio import studio_routes
from renderer.web import RequestProblem, error_response, read_body
from renderer.writers import MEDIA_TYPES, OutputFormat

LOGGER = logging.getLogger(__name__)


FIXTURES_DIR = Path(__file__).resolve().parent.parent / "fixtures"
FIXTURE_SUFFIXES = (".yaml", ".yml", ".json", ".dot", ".gv")
ACCEPTED_MEDIA_TYPES = (
    "", "application/json", "application/yaml", "application/x-yaml", "text/yaml",
    "text/x-yaml", "text/plain", "text/vnd.graphviz", "application/octet-stream",
    "application/xml", "text/xml", "application/bpmn+xml", "application/gzip",
    "application/x-gzip",
    "application/xml", "text/xml", "application/bpmn+xml", "application/gzip",
    "application/x-gzip",
    # curl's default for --data-binary: the body is still read as raw text, never as a form
    "application/x-www-form-urlencoded",
)

Endpoint = Callable[[Request], Awaitable[Response]]
T = TypeVar("T")

HASH_IN_LOOP_BYTES = 64 * 1024
"""Bodies up to this size are hashed (for the response cache) on the event loop; larger
ones in a thread (SHA-256 of 2 MiB takes milliseconds)."""


def guarded(endpoint: Endpoint) -> Endpoint:
    """Turn expected errors into 4xx/5xx JSON bodies; log and 500 only for true bugs."""

    @functools.wraps(endpoint)
    async def wrapper(request: Request) -> Response:
        try:
            return await endpoint(request)
        except RequestProblem as problem:
            return error_response(problem.status, str(problem), problem.headers)
        except Exception as error:
            problem_kind = classify_error(error)
            if problem_kind is not None:
                return error_response(problem_kind.status, problem_kind.message)
            LOGGER.exception("internal error in %s %s", request.method, request.url.path)
            return error_response(500, one_line(f"internal error: {type(error).__name__}"))

    return wrapper


def check_media_type(request: Request) -> None:
    """415 unless the body is declared as text, JSON, YAML, DOT or left undeclared."""
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type not in ACCEPTED_MEDIA_TYPES and not media_type.endswith("+json"):
        raise RequestProblem(415, f"unsupported content type {media_type!r}; send the "
                                  "diagram as YAML, JSON or DOT text")


def fixture_paths(folder: Path) -> dict[str, Path]:
    """Fixture files by name (file name without its suffix), sorted by name.

    >>> "document-processing" in fixture_paths(FIXTURES_DIR)
    True
    """
    if not folder.is_dir():
        return {}
    found = (p for p in folder.iterdir() if p.is_file() and p.suffix in FIXTURE_SUFFIXES)
    return dict(sorted((p.stem, p) for p in found))


class Service:
    """The endpoints, bound to one worker pool, one fixtures folder and the settings
    (without settings: the defaults, which configure no token key, so no token verifies)."""

    def __init__(self, pool: WorkerPool, fixtures_dir: Path,
                 settings: ServiceSettings | None = None,
                 runtime: WorkflowRuntime | None = None,
                 limits: RenderLimits | None = None) -> None:
        self.pool = pool
        self.fixtures_dir = fixtures_dir
        self.limits = limits if limits is not None else RenderLimits()
        self.admission = Admission(pool_size=pool.size, limits=self.limits)
        self.responses = ResponseCache()
        self.settings = settings if settings is not None else ServiceSettings()
        self.runtime = runtime
        self.metrics = Metrics(runtime.store if runtime is not None else None)
        if runtime is not None:
            runtime.observe(self.metrics.observer(runtime.step_kind))
            runtime.api.metrics = self.metrics
            runtime.use_layout_runner(pool.run)

    def token_gate(self, endpoint: Endpoint) -> Endpoint:
        """``endpoint``, needing any valid bearer token when the settings say the render
        endpoints require one (they read and store nothing, so they are open by default)."""
        if not self.settings.render_requires_token or self.runtime is None:
            return endpoint
        gate = self.runtime.gate

        async def gated(request: Request) -> Response:
            try:
                gate.principal(request)
            except AuthError as error:
                return error_response(error.status, error.message, error.headers)
            return await endpoint(request)

        return gated

    async def metrics_page(self, request: Request) -> Response:
        """``GET /metrics``: Prometheus text; the view scope unless the settings open it."""
        if not self.settings.metrics_public and self.runtime is not None:
            try:
                self.runtime.gate.principal(request, Scope.VIEW)
            except AuthError as error:
                return error_response(error.status, error.message, error.headers)
        body, content_type = await anyio.to_thread.run_sync(self.metrics.exposition)
        return Response(body, headers={"content-type": content_type})

    async def render_bytes(
        self, request: Request, data: bytes, filename: str | None, query: Mapping[str, str]
    ) -> Response:
        fmt, engine, options = drawing_query(query)
        self.limits.check_budget(options.time_budget)
        given = given_names(query)
        key = await _off_the_loop(len(data) > HASH_IN_LOOP_BYTES, response_key, data,
                                  filename, fmt.value, engine, options, given)
        headers = {"ETag": etag_of(key)}
        if matches(request.headers.get("if-none-match"), headers["ETag"]):
            return Response(status_code=304, headers=headers)
        fresh = "no-cache" in request.headers.get("cache-control", "").lower()
        cached = None if fresh else self.responses.get(key)
        if cached is None:
            job = RenderJob(data, filename, fmt.value, engine, options, fresh=fresh,
                            given_options=given)
            started = time.perf_counter()
            rendered = await self.render_in_pool(request, job)
            pool_seconds = time.perf_counter() - started
            self.metrics.observe_render(engine, fmt.value, pool_seconds)
            cached = CachedRender(rendered.output, rendered.warnings)
            self.responses.put(key, cached)
            headers["Server-Timing"] = server_timing((*rendered.stages, ("pool", pool_seconds)))
        headers.update(warning_headers(cached.warnings))
        return Response(cached.output, media_type=MEDIA_TYPES[fmt], headers=headers)

    async def render_in_pool(self, request: Request, job: RenderJob) -> RenderOutput:
        """``job``'s bytes from the pool, after admission to its lane; a client that
        disconnects meanwhile cancels it."""
        if not self.pool.started:
            raise RequestProblem(503, "layout worker pool is not running")
        cancelled = Event()
        lane = self.admission.lane_for(len(job.data))
        failure: Exception | None = None
        output = RenderOutput(b"", ())
        async with lane.slot(), anyio.create_task_group() as group:
            group.start_soon(_cancel_on_disconnect, request, cancelled)
            try:  # raised outside the group, which would wrap it in an ExceptionGroup
                output = await self.pool.render_async(job, cancelled)
            except Exception as error:
                failure = error
            group.cancel_scope.cancel()
        if failure is not None:
            raise failure
        return output

    async def render(self, request: Request) -> Response:
        check_media_type(request)
        body = await read_body(request, seconds=self.limits.body_seconds)
        return await self.render_bytes(request, body, None, request.query_params)

    async def drawing(self, request: Request) -> Response:
        name, _, suffix = str(request.path_params["file"]).rpartition(".")
        path = fixture_paths(self.fixtures_dir).get(name)
        if path is None or suffix not in {f.value for f in OutputFormat}:
            raise RequestProblem(404, f"no drawing named {request.path_params['file']!r}; "
                                      "see / for the list")
        data = await anyio.to_thread.run_sync(path.read_bytes)
        query = {**request.query_params, "format": suffix}
        return await self.render_bytes(request, data, path.name, query)

    async def index(self, request: Request) -> Response:
        items = "".join(
            f'<li>{html.escape(name)}: <a href="/drawings/{html.escape(name)}.svg">svg</a> '
            f'<a href="/drawings/{html.escape(name)}.json">json</a></li>'
            for name in fixture_paths(self.fixtures_dir)
        )
        return HTMLResponse(f"<!doctype html><html><head><title>workflow-renderer</title>"
                            f"</head><body><h1>Drawings</h1><ul>{items}</ul>"
                            f'<p><a href="/openapi.json">OpenAPI</a></p></body></html>')

    async def engines(self, request: Request) -> Response:
        rows = await anyio.to_thread.run_sync(engines)
        return JSONResponse([{"name": r.name, "available": r.available, "reason": r.reason}
                             for r in rows])

    async def healthz(self, request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(self, request: Request) -> Response:
        if not self.pool.started:
            return error_response(503, "layout worker pool is not running")
        stuck = await anyio.to_thread.run_sync(self.pool.stuck)
        if stuck:
            return error_response(503, "; ".join(stuck))
        if self.runtime is not None:
            problem = await anyio.to_thread.run_sync(self.runtime.not_ready)
            if problem is not None:
                return error_response(503, problem)
        try:
            status = await anyio.to_thread.run_sync(
                lambda: get_provider(DEFAULT_ENGINE).availability())
        except Exception as error:
            return error_response(503, one_line(
                f"default engine '{DEFAULT_ENGINE}' cannot be loaded: {error}"))
        if not status.available:
            return error_response(503, f"default engine '{DEFAULT_ENGINE}' is unavailable: "
                                       f"{status.reason}")
        return JSONResponse({"status": "ready", "engine": DEFAULT_ENGINE})

    async def schema(self, request: Request) -> Response:
        from layouts.schemas import all_schemas

        name = request.path_params["name"]
        schemas = all_schemas()
        if name not in schemas:
            raise RequestProblem(404, f"no schema named {name!r}; known: {', '.join(schemas)}")
        return JSONResponse(schemas[name])

    async def openapi(self, request: Request) -> Response:
        # without the workflow API there are no tokens, so /metrics is open
        return JSONResponse(openapi_document(
            metrics_public=self.settings.metrics_public or self.runtime is None))


async def _off_the_loop(away: bool, call: Callable[..., T], *args: Any) -> T:
    """``call(*args)``, in a worker thread when ``away`` (so the event loop stays free)."""
    return await anyio.to_thread.run_sync(call, *args) if away else call(*args)


def server_timing(stages: Iterable[tuple[str, float]]) -> str:
    """A ``Server-Timing`` header of stages in seconds: the worker's read, layout and write,
    its CPU time for the three (``cpu``), and ``pool``, the whole wait for the worker
    (queue, hand-off and the stages).

    >>> server_timing((("read", 0.0042), ("pool", 0.0213)))
    'read;dur=4.2, pool;dur=21.3'
    """
    return ", ".join(f"{name};dur={seconds * 1000:.1f}" for name, seconds in stages)


async def _cancel_on_disconnect(request: Request, cancelled: Event) -> None:
    """Set ``cancelled`` when the client disconnects (the body has been read by now)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            cancelled.set()
            return


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    # keep Starlette's headers: a 405 must say which methods are allowed (RFC 9110)
    return error_response(error.status_code, str(error.detail), error.headers)


async def _unhandled_error(request: Request, error: Exception) -> Response:
    """The last resort for a bug no endpoint caught (the workflow API's routes, routing,
    middleware): a JSON 500 with the security headers, which this response would otherwise
    lack (Starlette builds it outside every middleware). Starlette raises the error again
    after this answer, so the server logs it with its traceback."""
    return error_response(500, one_line(f"internal error: {type(error).__name__}"),
                          dict(headers_for(request.url.path)))


def create_app(
    *, pool: WorkerPool | None = None, fixtures_dir: Path = FIXTURES_DIR,
    settings: ServiceSettings | None = None, runtime: WorkflowRuntime | None = None,
    limits: RenderLimits | None = None,
) -> Starlette:
    """The service. The lifespan starts ``pool`` (a new :class:`WorkerPool` by default)
    and closes it on shutdown. ``settings`` (:func:`renderer.api.settings.load_settings`)
    configure the workflow API's tokens, database and retention; with settings (or a
    ``runtime`` built from them) the app also serves ``/api/workflow`` and ``/metrics``,
    and runs the engine's pump in the background. ``limits`` are the render limits
    (:class:`renderer.admission.RenderLimits`; the default pool gets their memory limit)."""
    if runtime is None and settings is not None:
        runtime = WorkflowRuntime.create(settings)
    limits = limits if limits is not None else RenderLimits()
    service = Service(pool or WorkerPool(memory_limit_mb=limits.worker_memory_mb, warm=True),
                      fixtures_dir,
                      runtime.settings if runtime is not None else settings, runtime, limits)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await anyio.to_thread.run_sync(service.pool.start)
        if runtime is not None:
            await anyio.to_thread.run_sync(runtime.start)
        try:
            yield
        finally:
            if runtime is not None:
                await anyio.to_thread.run_sync(runtime.close)
            await anyio.to_thread.run_sync(service.pool.close)

    render = service.token_gate
    routes: list[BaseRoute] = [
        Route("/", guarded(service.index)),
        Route("/api/render", guarded(render(service.render)), methods=["POST"]),
        Route("/api/engines", guarded(service.engines)),
        Route("/api/schemas/{name}", guarded(service.schema)),
        Route("/drawings/{file}", guarded(render(service.drawing))),
        Route("/healthz", guarded(service.healthz)),
        Route("/readyz", guarded(service.readyz)),
        Route("/openapi.json", guarded(service.openapi)),
    ]
    if runtime is not None:
        routes += [*runtime.routes(), Route("/metrics", guarded(service.metrics_page)),
                   *studio_routes(runtime)]
    return Starlette(routes=routes, lifespan=lifespan,
                     exception_handlers={HTTPException: _http_error,
                                         Exception: _unhandled_error},
                     middleware=[Middleware(SecurityHeaders)])
