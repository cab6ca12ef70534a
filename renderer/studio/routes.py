"""The Studio's routes, added by ``create_app`` when the service has a workflow runtime.

- ``/studio``: definitions and their versions, the newest runs, filtered by state.
- ``/studio/runs/{id}`` (ids may hold ``/``): a run's drawing with live states.
- ``/studio/definitions/{name}/{version}``: a version's drawing.
- ``/studio/definitions/{name}/diff?from=A&to=B``: version B with what changed since A.
- ``/studio/login``, ``/studio/logout``: the session (:mod:`renderer.studio.signin`).
- ``/studio/static/{file}``: the Studio's script and style sheet (package data).
- ``/studio/assets/svg-pan-zoom.min.js``: from the npm install in ``tools/studio-assets``.

Every response has the security headers (:mod:`renderer.studio.security`); a page of an
unknown run, definition or path is a 404 page, an expected error a page with its status,
and only a bug a 500 page (logged, with no details in the page).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from renderer.api.runtime import WorkflowRuntime
from renderer.studio.pages import Pages
from renderer.studio.security import STUDIO_ROOT, with_security_headers
from renderer.studio.signin import (
    Session,
    SignInNeeded,
    login_endpoint,
    logout_endpoint,
    session_of,
)
from renderer.studio.templates import page
from renderer.studio_assets import ASSETS, StudioAssetsError, asset_path
from renderer.web import RequestProblem
from workflow.definitions import UnknownWorkflowError
from workflow.engine import NotFoundError

LOGGER = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).resolve().parent / "static"
STATIC_FILES = {"studio.js": "text/javascript", "studio.css": "text/css"}
STATIC_CACHE = "public, max-age=300"

Endpoint = Callable[[Request], Awaitable[Response]]
Builder = Callable[[Session, Request], dict[str, Any]]


def studio_routes(runtime: WorkflowRuntime) -> list[BaseRoute]:
    """The Studio's routes over ``runtime`` (most specific first: the first match wins)."""
    pages = Pages(runtime)

    def view(template: str, build: Builder) -> Endpoint:
        return _page_endpoint(runtime, template, build)

    return [
        Route(STUDIO_ROOT, view("home.html", lambda s, r: pages.home(s, r.query_params))),
        Route(STUDIO_ROOT + "/login", _secured(login_endpoint(lambda: runtime.verifier)),
              methods=["GET", "POST"]),
        Route(STUDIO_ROOT + "/logout", _secured(logout_endpoint(lambda: runtime.csrf_key)),
              methods=["POST"]),
        Route(STUDIO_ROOT + "/static/{file}", _secured(_static)),
        Route(STUDIO_ROOT + "/assets/{file}", _secured(_asset)),
        Route(STUDIO_ROOT + "/definitions/{name}/diff", view(
            "diff.html", lambda s, r: pages.diff(s, r.path_params["name"], r.query_params))),
        Route(STUDIO_ROOT + "/definitions/{name}/{version}", view(
            "definition.html", lambda s, r: pages.definition(
                s, r.path_params["name"], r.path_params["version"], r.query_params))),
        Route(STUDIO_ROOT + "/runs/{id:path}", view(
            "run.html", lambda s, r: pages.run(s, r.path_params["id"], r.query_params))),
        Route(STUDIO_ROOT + "/{rest:path}", _secured(_unknown_path)),
    ]


def _page_endpoint(runtime: WorkflowRuntime, template: str, build: Builder) -> Endpoint:
    """A page: the session checked, the context built in a thread, the template rendered;
    expected errors become pages with their status."""

    async def endpoint(request: Request) -> Response:
        try:
            session = session_of(request, runtime.verifier, runtime.csrf_key)
        except SignInNeeded as needed:
            return needed.response
        try:
            context = await anyio.to_thread.run_sync(build, session, request)
        except (NotFoundError, UnknownWorkflowError) as error:
            return page("error.html", 404, title="Not found", message=str(error),
                        session=session)
        except RequestProblem as problem:
            return page("error.html", problem.status, title="Cannot show this page",
                        message=str(problem), session=session)
        except Exception:
            LOGGER.exception("Studio page %s failed", request.url.path)
            return page("error.html", 500, title="Something went wrong", session=session,
                        message="This page could not be built; the server's log says why.")
        return page(template, **context)

    return endpoint


def _secured(endpoint: Endpoint) -> Endpoint:
    async def secured(request: Request) -> Response:
        return with_security_headers(await endpoint(request))

    return secured


async def _static(request: Request) -> Response:
    name = request.path_params["file"]
    if name not in STATIC_FILES:
        return _not_found(f"no Studio file {name!r}")
    return FileResponse(STATIC_DIR / name, media_type=STATIC_FILES[name],
                        headers={"Cache-Control": STATIC_CACHE})


async def _asset(request: Request) -> Response:
    name = request.path_params["file"]
    if name not in ASSETS:
        return _not_found(f"no Studio asset {name!r}")
    try:
        path = asset_path(name)
    except StudioAssetsError as error:
        LOGGER.error("%s", error)
        return Response(f"// {error}\n", status_code=503, media_type="text/javascript")
    return FileResponse(path, media_type="text/javascript",
                        headers={"Cache-Control": STATIC_CACHE})


async def _unknown_path(request: Request) -> Response:
    """404, except that a path with a trailing slash (``/studio/``, ``/studio/runs/ID/``)
    is redirected to the same path without it, where the Studio's pages are."""
    path = request.url.path
    if path.endswith("/") and path.rstrip("/").startswith(STUDIO_ROOT):
        query = request.url.query
        return RedirectResponse(path.rstrip("/") + (f"?{query}" if query else ""),
                                status_code=307)
    return _not_found(f"the Studio has no page at {path}")


def _not_found(message: str) -> Response:
    return page("error.html", 404, title="Not found", message=message, session=None)
