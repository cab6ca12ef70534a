"""The Studio's response headers, where a sign-in may send the browser next, and the
session cookie's flags.

Every Studio response carries :data:`SECURITY_HEADERS`: a Content-Security-Policy whose
``script-src 'self'`` runs only the Studio's own script files (data for them travels in
``<script type="application/json">`` blocks, which are never run), no framing, no
sniffing and no referrer (a sign-in URL may hold a token). Styles may be inline: each
drawing carries its own ``<style>`` (the SVG writer's, so a saved drawing stands alone)
and svg-pan-zoom sets a ``style`` attribute on the drawing; neither runs code.

>>> safe_next("/studio/runs/r1?x=1"), safe_next("//evil.example/studio"), safe_next(None)
('/studio/runs/r1?x=1', '/studio', '/studio')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response

from renderer.api.session import SESSION_COOKIE

STUDIO_ROOT = "/studio"
R = TypeVar("R", bound=Response)

CONTENT_SECURITY_POLICY = "; ".join((
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
))

SECURITY_HEADERS: Mapping[str, str] = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


def with_security_headers(response: R) -> R:
    """``response`` with :data:`SECURITY_HEADERS` set (replacing any it had)."""
    for name, value in SECURITY_HEADERS.items():
        response.headers[name] = value
    return response


def safe_next(value: str | None) -> str:
    """``value`` if it is a path of the Studio on this site, else the Studio's front page.

    Refused: anything with a scheme or a host (``https://x``, ``//x``), backslashes
    (browsers read ``/\\x`` as ``//x``), control characters, ``..`` segments and paths
    outside ``/studio``.

    >>> safe_next("/studio"), safe_next("/studio/../api"), safe_next("/studio\\\\x")
    ('/studio', '/studio', '/studio')
    >>> safe_next("https://evil.example/studio"), safe_next("/studiox")
    ('/studio', '/studio')
    """
    if not value or "\\" in value or any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in value):
        return STUDIO_ROOT
    parts = urlsplit(value)
    if parts.scheme or parts.netloc or value.startswith("//"):
        return STUDIO_ROOT
    path = parts.path
    if path != STUDIO_ROOT and not path.startswith(STUDIO_ROOT + "/"):
        return STUDIO_ROOT
    if ".." in path.split("/"):
        return STUDIO_ROOT
    return value


def set_session_cookie(response: Response, token: str, request: Request) -> None:
    """Keep ``token`` in the session cookie: HttpOnly (no script reads it), SameSite=Strict
    (no other site's request carries it), for the whole site (the API reads it too), and
    Secure when the page was served over HTTPS."""
    response.set_cookie(SESSION_COOKIE, token, path="/", httponly=True, samesite="strict",
                        secure=request.url.scheme == "https")


def clear_session_cookie(response: Response, request: Request) -> None:
    """Tell the browser to drop the session cookie."""
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict",
                           secure=request.url.scheme == "https")


def same_origin(request: Request) -> bool:
    """Whether a form post comes from this site: its ``Origin`` header (sent by browsers
    with every POST) names this host, or it has none (a client that is not a browser)."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    own = f"{request.url.scheme}://{request.url.netloc}"
    return origin == own
