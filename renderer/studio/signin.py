"""Signing in to the Studio: a token checked once and kept in the session cookie.

``GET /studio/login`` shows the form; ``GET /studio/login?token=T&next=/studio/...`` (the
dev banner's link) and the form's ``POST`` check the token first: a good one is kept in the
HttpOnly, SameSite=Strict ``wfr_session`` cookie and answered with 303 to ``next`` (a
Studio path, :func:`~renderer.studio.security.safe_next`), so the token leaves the address
bar; a bad one gets the form again with the reason, as 401. ``POST /studio/logout``
(with the session's CSRF token in the ``csrf`` field) drops the cookie.

A page reads the cookie with :func:`session_of`: no cookie or a token that no longer
verifies sends the browser to the form (and back after it), a token without the view
scope is a 403 page.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from renderer.api.auth import AuthError, Principal, Scope, TokenVerifier
from renderer.api.session import CSRF_FIELD, SESSION_COOKIE, csrf_token
from renderer.studio.security import (
    STUDIO_ROOT,
    clear_session_cookie,
    safe_next,
    same_origin,
    set_session_cookie,
    with_security_headers,
)
from renderer.studio.templates import page

LOGIN_PATH = STUDIO_ROOT + "/login"
MAX_FORM_BYTES = 16 * 1024


@dataclass(frozen=True, slots=True)
class Session:
    """A signed-in browser: who it is, and the CSRF token its pages send back."""

    principal: Principal
    csrf: str

    @property
    def can_operate(self) -> bool:
        return self.principal.allows(Scope.OPERATE)


class SignInNeeded(Exception):
    """The request has no valid session; ``response`` is the redirect (or 403 page)."""

    def __init__(self, response: Response) -> None:
        super().__init__("sign-in needed")
        self.response = response


def session_of(request: Request, verifier: TokenVerifier, key: bytes) -> Session:
    """The session of a page request with the view scope; raises :class:`SignInNeeded`
    with the login redirect (no or expired session) or the 403 page (no view scope)."""
    token = request.cookies.get(SESSION_COOKIE)
    if not token:
        raise SignInNeeded(login_redirect(request))
    try:
        principal = verifier.verify(token)
    except AuthError:
        response = login_redirect(request)
        clear_session_cookie(response, request)
        raise SignInNeeded(response) from None
    if not principal.allows(Scope.VIEW):
        raise SignInNeeded(page("error.html", 403, title="Not allowed", session=None,
                                message=f"The token of {principal.subject} (tenant "
                                        f"{principal.tenant}) lacks the "
                                        f"{Scope.VIEW.claim} scope the Studio needs."))
    return Session(principal, csrf_token(token, key))


def login_redirect(request: Request) -> RedirectResponse:
    """303 to the sign-in form, which comes back to this page afterwards."""
    here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    response = RedirectResponse(f"{LOGIN_PATH}?{urlencode({'next': safe_next(here)})}", 303)
    return with_security_headers(response)


def login_form(next_path: str, *, error: str | None = None, status: int = 200) -> Response:
    """The sign-in form (with the reason a token was refused)."""
    return page("login.html", status, next_path=safe_next(next_path), error=error,
                session=None)


def sign_in(request: Request, token: str, next_path: str, verifier: TokenVerifier
            ) -> Response:
    """303 to ``next_path`` with the session cookie, or the form again (401)."""
    token = token.strip()
    try:
        principal = verifier.verify(token)
    except AuthError as error:
        return login_form(next_path, error=f"This token was refused: {error.message}.",
                          status=401)
    if not principal.allows(Scope.VIEW):
        return login_form(next_path, status=403, error=(
            f"This token is valid but lacks the {Scope.VIEW.claim} scope the Studio needs."))
    response = RedirectResponse(safe_next(next_path), 303)
    set_session_cookie(response, token, request)
    return with_security_headers(response)


async def read_form(request: Request) -> dict[str, str]:
    """An ``application/x-www-form-urlencoded`` body (the first value of each field)."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return {}
    fields = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
    return {name: values[0] for name, values in fields.items()}


def login_endpoint(verifier: Callable[[], TokenVerifier]
                   ) -> Callable[[Request], Awaitable[Response]]:
    """``GET`` and ``POST /studio/login``."""

    async def login(request: Request) -> Response:
        if request.method == "POST":
            if not same_origin(request):
                return page("error.html", 403, title="Not allowed", session=None,
                            message="A sign-in must come from the Studio's own form.")
            form = await read_form(request)
            return sign_in(request, form.get("token", ""), form.get("next", ""), verifier())
        next_path = request.query_params.get("next", STUDIO_ROOT)
        token = request.query_params.get("token")
        if token is not None:
            return sign_in(request, token, next_path, verifier())
        return login_form(next_path)

    return login


def logout_endpoint(key: Callable[[], bytes]) -> Callable[[Request], Awaitable[Response]]:
    """``POST /studio/logout``: the cookie dropped, then the sign-in form."""

    async def logout(request: Request) -> Response:
        form = await read_form(request)
        token = request.cookies.get(SESSION_COOKIE)
        if token and (not same_origin(request) or not hmac.compare_digest(
                form.get(CSRF_FIELD, ""), csrf_token(token, key()))):
            return page("error.html", 403, title="Not allowed", session=None,
                        message="Sign out from the Studio's own pages.")
        response = RedirectResponse(LOGIN_PATH, 303)
        clear_session_cookie(response, request)
        return with_security_headers(response)

    return logout
