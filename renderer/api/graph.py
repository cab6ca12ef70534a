"""The graph endpoints of the workflow API: a run's drawing with every step's and edge's
state, and a definition version's drawing.

``GET /instances/{id}/graph`` and ``GET /definitions/{name}/versions/{version}/graph`` take
the query of ``POST /api/render`` (``format`` ``svg`` (default), ``json`` or ``elk``,
``engine`` and the layout options, read by :func:`renderer.query.drawing_query`), plus the
view's ``expandSubworkflows`` and ``groupFanouts`` (:mod:`renderer.run_views`). The
layout comes from the :class:`~renderer.drawings.GraphDrawer`'s cache, computed in the
service's worker pool on a miss. Every drawing has a strong ``ETag`` (the SHA-256 of its
bytes); a request whose ``If-None-Match`` names it gets 304 with no body.

>>> etag_matches('W/"abc", "def"', '"abc"'), etag_matches(None, '"abc"')
(True, False)
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import TypeVar

from starlette.responses import Response

from layouts.options import LayoutOptions
from renderer.api.http import Call
from renderer.drawings import GraphDrawer, ViewSource
from renderer.query import drawing_query
from renderer.render import classify_error
from renderer.run_graph import GRAPH_FORMATS
from renderer.run_views import drawing_view, layout_query
from renderer.web import RequestProblem
from renderer.writers import MEDIA_TYPES, OutputFormat
from workflow.engine import Engine
from workflow.stores import ServiceStore

T = TypeVar("T")

CACHE_CONTROL = "private, no-cache"
"""Drawings depend on the caller's tenant (no shared cache may keep them) and change with
the run (clients revalidate with the ETag)."""


def run_graph(engine: Engine, store: ServiceStore, drawer: GraphDrawer | None,
              call: Call) -> Response:
    """``GET /instances/{id}/graph``: another tenant's run is a 404 like a missing one.
    With ``expandSubworkflows`` the child runs drawn inside are the run's own children
    (the caller's tenant's, since they are the run's)."""
    fmt, layout_engine, options = _drawing_query(call)
    source = ViewSource(drawing_view(call.query), engine, store)
    run = engine.run(call.path["id"], tenant=call.tenant)
    definition = engine.definition(run.workflow, run.version, tenant=run.tenant).definition
    queued = store.queued_for(run.run_id)
    body = _drawn(lambda: _require(drawer).run(definition, run, queued, fmt, layout_engine,
                                               options, view=source))
    return drawing_response(body, fmt, call.headers)


def definition_graph(engine: Engine, store: ServiceStore, drawer: GraphDrawer | None,
                     call: Call) -> Response:
    """``GET /definitions/{name}/versions/{version}/graph``: the drawing with no states;
    ``expandSubworkflows`` opens each SubWorkflow step with the child version a start
    would use now."""
    fmt, layout_engine, options = _drawing_query(call)
    source = ViewSource(drawing_view(call.query), engine, store)
    registered = engine.definition(call.path["name"], call.path["version"],
                                   tenant=call.tenant)
    body = _drawn(lambda: _require(drawer).definition(
        registered.definition, fmt, layout_engine, options, tenant=call.tenant, view=source))
    return drawing_response(body, fmt, call.headers)


def drawing_response(body: bytes, fmt: OutputFormat, request_headers: Mapping[str, str]
                     ) -> Response:
    """200 with ``body`` and its ETag, or 304 when ``If-None-Match`` names that ETag."""
    etag = strong_etag(body)
    headers = {"ETag": etag, "Cache-Control": CACHE_CONTROL}
    if etag_matches(request_headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=MEDIA_TYPES[fmt], headers=headers)


def strong_etag(body: bytes) -> str:
    """A strong entity tag: the quoted SHA-256 (hex) of the bytes.

    >>> strong_etag(b"")
    '"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"'
    """
    return f'"{hashlib.sha256(body).hexdigest()}"'


def etag_matches(header: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` value names ``etag``: ``*``, or one of its comma-separated
    tags by the weak comparison RFC 9110 (13.1.2) prescribes for it (``W/`` ignored)."""
    if header is None:
        return False
    tags = [tag.strip() for tag in header.split(",")]
    return "*" in tags or etag in (tag.removeprefix("W/") for tag in tags)


def _drawing_query(call: Call) -> tuple[OutputFormat, str, LayoutOptions]:
    """Format, engine and options (every query name but the view's)."""
    return _drawn(lambda: drawing_query(layout_query(call.query), GRAPH_FORMATS))


def _require(drawer: GraphDrawer | None) -> GraphDrawer:
    if drawer is None:
        raise RequestProblem(503, "graph drawings need the service's layout workers, and this "
                                  "workflow API has none")
    return drawer


def _drawn(draw: Callable[[], T]) -> T:
    """``draw()``, with the render pipeline's expected errors (bad option, unknown engine,
    layout timeout, crashed provider) as the statuses ``POST /api/render`` gives them."""
    try:
        return draw()
    except RequestProblem:
        raise
    except Exception as error:
        problem = classify_error(error)
        if problem is None:
            raise
        raise RequestProblem(problem.status, problem.message) from None
