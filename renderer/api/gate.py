"""Who is calling: the bearer token of a request (its header, else the Studio's session
cookie), checked for the scope a route needs and, for a cookie, for the CSRF token.

>>> from renderer.api.settings import ServiceSettings
>>> key = csrf_key(ServiceSettings(jwt_secret="s" * 32))
>>> key == csrf_key(ServiceSettings(jwt_secret="s" * 32)), len(key)
(True, 32)
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from starlette.requests import Request

from renderer.api.auth import AuthError, Principal, Scope, TokenVerifier, authenticate, require
from renderer.api.session import CSRF_HEADER, credentials, csrf_ok
from renderer.api.settings import ServiceSettings

CSRF_REFUSED = ("a request signed in with the Studio's session cookie must send its page's "
                "CSRF token in the X-CSRF-Token header")


def csrf_key(settings: ServiceSettings) -> bytes:
    """The key of the sessions' CSRF tokens: derived from the HS256 secret, so every
    service process sharing the secret accepts the same tokens; random per process when
    tokens are verified with public keys only."""
    if settings.jwt_secret:
        return hashlib.sha256(b"wfr-csrf\0" + settings.jwt_secret.encode("utf-8")).digest()
    return secrets.token_bytes(32)


@dataclass(frozen=True, slots=True)
class Gate:
    """Authenticates requests for one service."""

    verifier: TokenVerifier
    csrf_key: bytes

    def principal(self, request: Request, needed: Scope | None = None) -> Principal:
        """The caller; :class:`AuthError` 401 without a valid token, 403 without the scope
        ``needed`` or (for a cookie-signed state change) without the CSRF token."""
        found = credentials(request.headers, request.cookies)
        principal = authenticate(found.header, self.verifier)
        if not csrf_ok(request.method, found, request.headers.get(CSRF_HEADER), self.csrf_key):
            raise AuthError(403, CSRF_REFUSED, {})
        if needed is not None:
            require(principal, needed)
        return principal
