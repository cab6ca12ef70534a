"""Security headers on every response of the service: an ASGI middleware.

Every response gets a Content-Security-Policy, ``X-Content-Type-Options: nosniff``, a
``Referrer-Policy`` and ``X-Frame-Options`` (and ``frame-ancestors``) unless the endpoint
set its own (the Studio sets a policy that runs its own scripts,
:mod:`renderer.studio.security`; Studio paths also default to it). The service's own policy
runs nothing: its pages are drawings (an SVG carries its own ``<style>``), JSON and a list
of links.

>>> dict(headers_for("/api/render"))["Content-Security-Policy"].split("; ")[0]
"default-src 'none'"
>>> "script-src 'self'" in dict(headers_for("/studio/runs"))["Content-Security-Policy"]
True
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from renderer.studio.security import SECURITY_HEADERS as STUDIO_HEADERS
from renderer.studio.security import STUDIO_ROOT

SERVICE_POLICY = "; ".join((
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
))

SERVICE_HEADERS: Mapping[str, str] = {
    "Content-Security-Policy": SERVICE_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


def headers_for(path: str) -> Mapping[str, str]:
    """The default security headers of a response to ``path``."""
    if path == STUDIO_ROOT or path.startswith(STUDIO_ROOT + "/"):
        return STUDIO_HEADERS
    return SERVICE_HEADERS


class SecurityHeaders:
    """Add :func:`headers_for` the request's path to every HTTP response that lacks them."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        defaults = headers_for(str(scope.get("path", "")))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in defaults.items():
                    if name not in headers:
                        headers.append(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)
