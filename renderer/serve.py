"""Run the rendering service: ``python -m renderer.serve --host 127.0.0.1 --port 8000``.

Prints the address and the URL of the reference drawing, then runs uvicorn until stopped.
The settings come from the ``WFR_*`` environment variables (:mod:`renderer.api.settings`);
without a token key the server refuses to start, unless ``--dev`` (what ``make run`` uses)
signs tokens with a local secret kept in ``.wfr/dev.json``.

>>> build_parser().parse_args(["--port", "9000"]).port
9000
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from renderer.admission import RenderLimits
from renderer.api.settings import (
    DEV_FILE_NAME,
    DEV_FOLDER,
    SECRET_VARIABLE,
    ServiceSettings,
    SettingsError,
    dev_settings,
    load_settings,
    require_key,
    settings_reference,
)

PROG = "python -m renderer.serve"
REFERENCE_DRAWING = "drawings/document-processing.svg"
WORKFLOW_API_EXAMPLE = "api/workflow/definitions"
MAX_CONNECTIONS = 1024
"""Open connections (and tasks) past which uvicorn answers 503."""


def build_parser() -> argparse.ArgumentParser:
    """The command-line options of the server; ``--help`` also lists the settings."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="Serve the workflow renderer over HTTP.",
        epilog=f"settings (environment variables):\n{settings_reference()}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on")
    parser.add_argument("--port", type=int, default=8000, help="TCP port to listen on")
    parser.add_argument("--pool-size", type=int, default=None,
                        help="layout worker processes (default: renderer.isolation's)")
    defaults = RenderLimits()
    parser.add_argument("--max-budget", type=float, default=defaults.max_budget,
                        help="largest timeBudget (s) a render may ask; more is refused with "
                             "400 (default %(default)g)")
    parser.add_argument("--worker-memory-mb", type=int, default=defaults.worker_memory_mb,
                        help="address-space limit of each layout worker in MiB (default "
                             "%(default)d)")
    parser.add_argument("--queue-per-lane", type=int, default=defaults.queue_per_lane,
                        help="renders that may wait in each lane (small and big inputs) "
                             "before more get 503 (default %(default)d)")
    parser.add_argument("--dev", action="store_true",
                        help="dev mode: sign tokens with a local secret in .wfr/dev.json, made "
                             "on first use (never in production)")
    return parser


def banner(host: str, port: int, *, dev_secret_source: str | None = None,
           studio_token: str | None = None) -> str:
    """The lines printed before the server starts; in dev mode (``dev_secret_source``
    says where the token secret lives) also how to get a token and call the API, and with
    ``studio_token`` a Studio link that signs in with it (the sign-in drops it from the
    address bar).

    >>> banner("127.0.0.1", 8000)
    'Serving on http://127.0.0.1:8000/ ; reference drawing: http://127.0.0.1:8000/drawings/document-processing.svg'
    >>> print(banner("127.0.0.1", 8000, dev_secret_source=".wfr/dev.json"))
    ... # doctest: +NORMALIZE_WHITESPACE
    Serving on http://127.0.0.1:8000/ ; reference drawing: http://127.0.0.1:8000/drawings/document-processing.svg
    DEV MODE (not for production): bearer tokens are signed with the secret in .wfr/dev.json
      get a token:  wfr token --scope workflow:operate --tenant dev
      try the API:  curl -H "Authorization: Bearer $(wfr token --scope workflow:admin
                    --tenant dev)" http://127.0.0.1:8000/api/workflow/definitions
    """
    base = f"http://{host}:{port}/"
    first = f"Serving on {base} ; reference drawing: {base}{REFERENCE_DRAWING}"
    if dev_secret_source is None:
        return first
    admin_token = "$(wfr token --scope workflow:admin --tenant dev)"
    return "\n".join((
        first,
        "DEV MODE (not for production): bearer tokens are signed with the secret in "
        f"{dev_secret_source}",
        "  get a token:  wfr token --scope workflow:operate --tenant dev",
        f'  try the API:  curl -H "Authorization: Bearer {admin_token}" '
        f"{base}{WORKFLOW_API_EXAMPLE}",
        *([f"  the Studio:   {studio_link(base, studio_token)}"] if studio_token else []),
    ))


def studio_link(base: str, token: str) -> str:
    """The Studio's sign-in URL for ``token``, going on to the front page.

    >>> studio_link("http://127.0.0.1:8000/", "abc")
    'http://127.0.0.1:8000/studio/login?token=abc&next=%2Fstudio'
    """
    return f"{base}studio/login?{urlencode({'token': token, 'next': '/studio'})}"


def dev_studio_token(settings: ServiceSettings) -> str | None:
    """An operate-scope token of the dev tenant for the banner's Studio link (dev mode with
    an HS256 secret only), valid as long as ``wfr token``'s.

    >>> dev_studio_token(ServiceSettings()) is None
    True
    """
    if not settings.dev or not settings.jwt_secret:
        return None
    from renderer.api.auth import issue_token
    from renderer.api.runtime import DEV_TENANT

    return issue_token(settings.jwt_secret, subject="dev", tenant=DEV_TENANT,
                       scopes=["workflow:operate"])


def service_settings(environ: Mapping[str, str], *, dev: bool = False,
                     dev_folder: Path = DEV_FOLDER) -> ServiceSettings:
    """The settings to serve with: dev mode (``--dev`` or ``WFR_DEV``) adds the dev
    secret of ``dev_folder``; otherwise a token key is required (:class:`SettingsError`).
    The keys are loaded once here, so a bad key file stops the start, not a request."""
    from renderer.api.auth import TokenVerifier  # lazily: PyJWT and cryptography

    settings = load_settings(environ, dev=dev)
    if settings.dev:
        settings = dev_settings(dev_folder, environ=environ)
    require_key(settings)
    TokenVerifier.from_settings(settings)
    return settings


def dev_secret_source(environ: Mapping[str, str], dev_folder: Path = DEV_FOLDER) -> str:
    """Where dev mode's token secret lives: ``WFR_JWT_SECRET`` if set, else ``dev.json``.

    >>> dev_secret_source({})
    '.wfr/dev.json'
    """
    if environ.get(SECRET_VARIABLE, "").strip():
        return SECRET_VARIABLE
    return str(dev_folder / DEV_FILE_NAME)


def main(argv: list[str] | None = None) -> None:
    """Parse ``argv``, load the settings, print :func:`banner` and run uvicorn; a bad
    setting or a missing key is one line on stderr and exit code 2.

    uvicorn runs with uvloop (``loop="auto"``) and httptools with a deadline for request
    headers, closes idle connections and answers 503 past :data:`MAX_CONNECTIONS` open
    connections, all with the security headers (:func:`server_options`)."""
    import uvicorn

    from renderer.api.runtime import WorkflowRuntime
    from renderer.isolation import DEFAULT_POOL_SIZE, WorkerPool
    from renderer.service import create_app

    args = build_parser().parse_args(argv)
    try:
        settings = service_settings(os.environ, dev=args.dev)
    except SettingsError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    source = dev_secret_source(os.environ) if settings.dev else None
    limits = RenderLimits(max_budget=args.max_budget, worker_memory_mb=args.worker_memory_mb,
                          queue_per_lane=args.queue_per_lane)
    pool = WorkerPool(args.pool_size or DEFAULT_POOL_SIZE,
                      memory_limit_mb=limits.worker_memory_mb, warm=True)
    try:
        runtime = WorkflowRuntime.create(settings)
    except (OSError, ValueError) as error:  # an unusable database or executors file
        print(f"{PROG}: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    print(banner(args.host, args.port, dev_secret_source=source,
                 studio_token=dev_studio_token(settings)), flush=True)
    print(f"Workflow engine: store {runtime.store.path}; {runtime.executors_note}", flush=True)
    app = create_app(pool=pool, settings=settings, runtime=runtime, limits=limits)
    gc.collect()
    gc.freeze()  # modules and the app live as long as the server: full collections skip them
    uvicorn.run(app, host=args.host, port=args.port, **server_options())


def server_options(*, limit_concurrency: int = MAX_CONNECTIONS) -> dict[str, Any]:
    """uvicorn's settings for the service (keywords of ``uvicorn.run`` and ``Config``):
    httptools with a deadline for request headers and the security headers on uvicorn's
    own 503 and 400 (:class:`renderer.http_protocol.ServiceProtocol`), keep-alive
    connections closed after :data:`~renderer.http_protocol.KEEP_ALIVE_SECONDS` idle, and
    503 past ``limit_concurrency`` open connections.

    >>> server_options()["limit_concurrency"], server_options()["http"].__name__
    (1024, 'ServiceProtocol')
    """
    from renderer.http_protocol import KEEP_ALIVE_SECONDS, ServiceProtocol

    return {"http": ServiceProtocol, "timeout_keep_alive": KEEP_ALIVE_SECONDS,
            "limit_concurrency": limit_concurrency}


if __name__ == "__main__":
    main()
