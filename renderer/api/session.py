"""Studio sessions: the bearer token kept in a cookie, and the CSRF token of a session.

The Studio takes a token once (``/studio/login``) and keeps it in an HttpOnly,
SameSite=Strict cookie, so the pages' scripts never see it. A request authenticated by
that cookie may change state only with the session's CSRF token in the ``X-CSRF-Token``
header (or the ``csrf`` form field): a value derived from the token with a keyed hash, so
the server keeps no session table and another site cannot forge it (it can neither read
the cookie nor the page that carries the CSRF token). A request with an ``Authorization``
header needs no CSRF token: a browser never adds that header by itself.

>>> first = csrf_token("token-a", b"k" * 32)
>>> first == csrf_token("token-a", b"k" * 32), first == csrf_token("token-b", b"k" * 32)
(True, False)
>>> credentials({"authorization": "Bearer abc"}, {}).from_cookie
False
>>> credentials({}, {SESSION_COOKIE: "abc"}).header
'Bearer abc'
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass

SESSION_COOKIE = "wfr_session"
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True, slots=True)
class Credentials:
    """Where a request's token came from: the ``Authorization`` header, or the cookie."""

    header: str | None
    from_cookie: bool
    token: str | None


def credentials(headers: Mapping[str, str], cookies: Mapping[str, str]) -> Credentials:
    """The request's bearer credentials: its ``Authorization`` header, else its session
    cookie (as the equivalent header)."""
    header = headers.get("authorization")
    if header is not None:
        scheme, _, token = header.partition(" ")
        return Credentials(header, False, token.strip() if scheme.lower() == "bearer" else None)
    kept = cookies.get(SESSION_COOKIE)
    if kept:
        return Credentials(f"Bearer {kept}", True, kept)
    return Credentials(None, False, None)


def csrf_token(token: str, key: bytes) -> str:
    """The CSRF token of the session holding ``token`` (hex HMAC-SHA256, 32 characters)."""
    return hmac.new(key, b"csrf\0" + token.encode("utf-8"), hashlib.sha256).hexdigest()[:32]


def csrf_ok(method: str, found: Credentials, presented: str | None, key: bytes) -> bool:
    """Whether a request may go on: a safe method, a header token, or the right CSRF token."""
    if method.upper() in SAFE_METHODS or not found.from_cookie or found.token is None:
        return True
    return presented is not None and hmac.compare_digest(presented,
                                                         csrf_token(found.token, key))
