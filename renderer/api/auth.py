"""Bearer tokens for the workflow API: who calls, for which tenant, with which scopes.

A token is a JWT (RFC 7519) sent as ``Authorization: Bearer <token>`` (RFC 6750) and
verified by PyJWT against the keys of :class:`ServiceSettings`: HS256 with ``jwt_secret``,
RS256 or ES256 with the PEM public key file, RS256 or ES256 with the JWKS key whose ``kid``
the token names. Each key is bound to its one algorithm when it is loaded, so the token's
``alg`` header only chooses among the keys, never how a key is used (RFC 8725 sections 2.1
and 3.1): an HS256 token is never checked against an RSA public key, and ``alg: none``
matches no key at all. ``exp`` is required; ``nbf``, ``iat``, ``iss`` and ``aud`` are checked
with :data:`LEEWAY_SECONDS` of clock skew.

Scopes are tiers: ``workflow:admin`` implies ``workflow:operate``, which implies
``workflow:view`` (:meth:`Principal.allows`).

>>> secret = "a development secret of at least 32 bytes"
>>> verifier = TokenVerifier.from_settings(ServiceSettings(jwt_secret=secret))
>>> token = issue_token(secret, subject="ada", tenant="acme", scopes=["workflow:operate"])
>>> principal = authenticate(f"Bearer {token}", verifier)
>>> principal.subject, principal.tenant, principal.allows(Scope.VIEW)
('ada', 'acme', True)
>>> try:
...     require(principal, Scope.ADMIN)
... except AuthError as error:
...     print(error.status, error.message)
403 this needs the workflow:admin scope

Cost of :meth:`TokenVerifier.verify` (median, ``bench/test_bench_auth.py``, PyJWT 2.15,
cryptography 50, Python 3.11 on a shared 2-core machine): without the cache HS256 68 µs,
RS256 (2048-bit) 106 µs, ES256 143 µs, of which about 17 µs is PyJWT reading the token once
more to choose the key by ``alg`` and ``kid``; a cache hit 0.65 µs.
"""

from __future__ import annotations

import enum
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt import exceptions as jwt_exceptions
from jwt.algorithms import AllowedPublicKeys

from renderer.api.settings import ServiceSettings, SettingsError

LEEWAY_SECONDS = 30.0
"""Clock skew allowed between the token's issuer and this server for exp, nbf and iat."""

DEFAULT_TOKEN_TTL = 8 * 3600.0
CACHE_SIZE = 1024
MIN_RSA_BITS = 2048
REALM = "workflow"
ASYMMETRIC_ALGORITHMS = ("RS256", "ES256")


class Scope(enum.IntEnum):
    """A tier of access to the workflow API; a higher tier implies the lower ones."""

    VIEW = 1
    OPERATE = 2
    ADMIN = 3

    @property
    def claim(self) -> str:
        """The scope's name in a token's ``scope`` or ``scp`` claim.

        >>> Scope.OPERATE.claim
        'workflow:operate'
        """
        return f"workflow:{self.name.lower()}"

    @classmethod
    def parse(cls, name: str) -> Scope:
        """The scope named by its claim name or its short form, case-insensitively.

        >>> Scope.parse("Workflow:Admin"), Scope.parse("view")
        (<Scope.ADMIN: 3>, <Scope.VIEW: 1>)
        """
        key = name.strip().lower()
        for scope in cls:
            if key in (scope.claim, scope.name.lower()):
                return scope
        known = ", ".join(scope.claim for scope in cls)
        short = ", ".join(scope.name.lower() for scope in cls)
        raise ValueError(f"unknown scope {name!r}; known: {known} (or {short})")


SCOPES_BY_CLAIM: Mapping[str, Scope] = {scope.claim: scope for scope in Scope}


@dataclass(frozen=True, slots=True)
class Principal:
    """The verified caller: the token's ``sub``, its ``tenant`` and its granted scopes."""

    subject: str
    tenant: str
    scopes: frozenset[Scope] = frozenset()

    def allows(self, needed: Scope) -> bool:
        """Whether the highest granted tier reaches ``needed``.

        >>> Principal("ada", "acme", frozenset({Scope.OPERATE})).allows(Scope.VIEW)
        True
        >>> Principal("ada", "acme").allows(Scope.VIEW)
        False
        """
        return max(self.scopes, default=0) >= needed


def _quotable(text: str) -> str:
    """``text`` fit for ``error_description``: RFC 6750 section 3 allows printable ASCII
    but ``"`` and ``\\``; those become ``'``, other characters ``?``.

    >>> _quotable('bad "kid" \\\\ é')
    "bad 'kid' ' ?"
    """
    return "".join(_quotable_character(ch) for ch in text)


def _quotable_character(ch: str) -> str:
    if ch in '"\\':
        return "'"
    return ch if " " <= ch <= "~" else "?"


class AuthError(Exception):
    """A refused request: ``status`` 401 (no valid token) or 403 (too few scopes), a
    ``message`` for the body and the ``WWW-Authenticate`` header of RFC 6750 section 3."""

    def __init__(self, status: int, message: str, headers: Mapping[str, str]) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = dict(headers)

    @classmethod
    def missing_token(cls, message: str) -> AuthError:
        """401 for a request without a bearer token: no error code (RFC 6750 section 3.1).

        >>> AuthError.missing_token("no token").headers
        {'WWW-Authenticate': 'Bearer realm="workflow"'}
        """
        return cls(401, message, {"WWW-Authenticate": f'Bearer realm="{REALM}"'})

    @classmethod
    def invalid_token(cls, message: str) -> AuthError:
        """401 for a token that is malformed, expired, badly signed or lacks a claim.

        >>> AuthError.invalid_token("the token has expired").headers["WWW-Authenticate"]
        'Bearer realm="workflow", error="invalid_token", error_description="the token has expired"'
        """
        challenge = (f'Bearer realm="{REALM}", error="invalid_token", '
                     f'error_description="{_quotable(message)}"')
        return cls(401, message, {"WWW-Authenticate": challenge})

    @classmethod
    def insufficient_scope(cls, needed: Scope) -> AuthError:
        """403 for a valid token without the ``needed`` tier.

        >>> AuthError.insufficient_scope(Scope.OPERATE).headers["WWW-Authenticate"]
        'Bearer error="insufficient_scope", scope="workflow:operate"'
        """
        challenge = f'Bearer error="insufficient_scope", scope="{needed.claim}"'
        return cls(403, f"this needs the {needed.claim} scope", {"WWW-Authenticate": challenge})


def _scope_words(claims: Mapping[str, Any], claim: str) -> list[str]:
    value = claims.get(claim)
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list) and all(isinstance(word, str) for word in value):
        return [part for word in value for part in word.split()]
    raise AuthError.invalid_token(f"the token's {claim} claim must be a string or a list "
                                  "of strings")


def scopes_from_claims(claims: Mapping[str, Any]) -> frozenset[Scope]:
    """The scopes in the space-delimited ``scope`` claim and the ``scp`` claim (a list or a
    space-delimited string), case-insensitively; names of other scopes are ignored.

    >>> sorted(scopes_from_claims({"scope": "WORKFLOW:Operate openid", "scp": ["x"]}))
    [<Scope.OPERATE: 2>]
    """
    words = [*_scope_words(claims, "scope"), *_scope_words(claims, "scp")]
    return frozenset(SCOPES_BY_CLAIM[word.lower()] for word in words
                     if word.lower() in SCOPES_BY_CLAIM)


def _required_text(claims: Mapping[str, Any], claim: str) -> str:
    value = claims.get(claim)
    if value is None:
        raise AuthError.invalid_token(f"the token has no {claim} claim")
    if not isinstance(value, str) or not value.strip():
        raise AuthError.invalid_token(f"the token's {claim} claim must be a non-empty string")
    return value


def principal_from_claims(claims: Mapping[str, Any]) -> Principal:
    """The principal of verified claims; ``sub`` and ``tenant`` are required.

    >>> principal_from_claims({"sub": "ada", "tenant": "acme", "scp": "workflow:view"})
    Principal(subject='ada', tenant='acme', scopes=frozenset({<Scope.VIEW: 1>}))
    """
    return Principal(_required_text(claims, "sub"), _required_text(claims, "tenant"),
                     scopes_from_claims(claims))


VerifyingKey = AllowedPublicKeys | str


@dataclass(frozen=True, slots=True)
class BoundKey:
    """A verifying key with the one algorithm it may verify and, from a JWKS, its kid."""

    algorithm: str
    key: VerifyingKey
    kid: str | None = None


def _read(path: Path, variable: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise SettingsError(f"{variable}: cannot read {path}: {error.strerror or error}") from None


def _bound_public_key(key: object, where: str, kid: str | None = None) -> BoundKey:
    """``key`` bound to RS256 if it is an RSA public key of at least 2048 bits, to ES256 if
    it is an EC P-256 public key; any other key is a :class:`SettingsError`."""
    if isinstance(key, rsa.RSAPublicKey):
        if key.key_size < MIN_RSA_BITS:
            raise SettingsError(f"{where}: the RSA key has {key.key_size} bits; at least "
                                f"{MIN_RSA_BITS} are needed (NIST SP 800-131A)")
        return BoundKey("RS256", key, kid)
    if isinstance(key, ec.EllipticCurvePublicKey) and isinstance(key.curve, ec.SECP256R1):
        return BoundKey("ES256", key, kid)
    raise SettingsError(f"{where}: use an RSA public key (RS256) or an EC P-256 public key "
                        "(ES256)")


def secret_keys(settings: ServiceSettings) -> list[BoundKey]:
    """The HS256 key of ``jwt_secret``, if set."""
    secret = settings.jwt_secret
    return [] if secret is None else [BoundKey("HS256", secret)]


def public_key_file_keys(settings: ServiceSettings) -> list[BoundKey]:
    """The key of the PEM ``jwt_public_key_file``, if set, bound to RS256 or ES256."""
    path = settings.jwt_public_key_file
    if path is None:
        return []
    where = f"WFR_JWT_PUBLIC_KEY_FILE {path}"
    data = _read(path, "WFR_JWT_PUBLIC_KEY_FILE")
    try:
        key = serialization.load_pem_public_key(data)
    except ValueError:
        raise SettingsError(f"{where}: not a PEM public key") from None
    return [_bound_public_key(key, where)]


def jwks_file_keys(settings: ServiceSettings) -> list[BoundKey]:
    """The signing keys of the JWKS ``jwks_file``, if set: the RS256 and ES256 keys with a
    ``kid`` (``alg`` given or implied by ``kty`` and ``crv``); encryption keys and keys of
    other algorithms are left out."""
    path = settings.jwks_file
    if path is None:
        return []
    where = f"WFR_JWKS_FILE {path}"
    data = _read(path, "WFR_JWKS_FILE")
    try:
        document = json.loads(data)
        key_set = jwt.PyJWKSet.from_dict(document if isinstance(document, dict) else {})
    except (ValueError, jwt.PyJWTError) as error:
        raise SettingsError(f"{where}: not a usable JWKS: {error}") from None
    keys = [_bound_public_key(key.key, f"{where} kid {key.key_id}", key.key_id)
            for key in key_set if key.algorithm_name in ASYMMETRIC_ALGORITHMS
            and key.key_id and key.public_key_use in (None, "sig")]
    if not keys:
        raise SettingsError(f"{where}: no RS256 or ES256 signing key with a kid")
    return keys


class CacheInfo(NamedTuple):
    """Hits, misses and size of a :class:`PrincipalCache`, as ``functools.lru_cache``."""

    hits: int
    misses: int
    size: int
    max_size: int


class PrincipalCache:
    """A bounded LRU of verified tokens: token -> (principal, exp). An entry is returned
    only while ``clock() < exp`` (no leeway), so the cache never extends a token's life.

    >>> now = [100.0]
    >>> cache = PrincipalCache(2, clock=lambda: now[0])
    >>> cache.put("t", Principal("ada", "acme"), expires=160.0)
    >>> cache.get("t") is not None
    True
    >>> now[0] = 160.0
    >>> cache.get("t") is None
    True
    """

    def __init__(self, max_size: int = CACHE_SIZE, *,
                 clock: Callable[[], float] = time.time) -> None:
        self.max_size = max_size
        self._clock = clock
        self._entries: OrderedDict[str, tuple[Principal, float]] = OrderedDict()
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0

    def get(self, token: str) -> Principal | None:
        """The principal of ``token`` if cached and not expired; drops an expired entry."""
        with self._lock:
            entry = self._entries.get(token)
            if entry is not None and self._clock() < entry[1]:
                self._entries.move_to_end(token)
                self._hits += 1
                return entry[0]
            self._entries.pop(token, None)
            self._misses += 1
            return None

    def put(self, token: str, principal: Principal, *, expires: float) -> None:
        """Remember ``principal`` until ``expires``; the least recently used entry goes
        when the cache is full."""
        with self._lock:
            if self.max_size <= 0 or self._clock() >= expires:
                return
            self._entries[token] = (principal, expires)
            self._entries.move_to_end(token)
            while len(self._entries) > self.max_size:
                self._entries.popitem(last=False)

    def info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(self._hits, self._misses, len(self._entries), self.max_size)


ERROR_MESSAGES: tuple[tuple[type[jwt.PyJWTError], str], ...] = (
    (jwt.ExpiredSignatureError, "the token has expired"),
    (jwt.ImmatureSignatureError, "the token is not valid yet"),
    (jwt.InvalidSignatureError, "the token's signature does not verify"),
    (jwt.InvalidAudienceError, "the token is meant for another audience"),
    (jwt.InvalidIssuerError, "the token comes from another issuer"),
    (jwt_exceptions.InvalidSubjectError, "the token's sub claim must be a non-empty string"),
    (jwt.InvalidAlgorithmError, "the token's algorithm is not accepted"),
    (jwt.DecodeError, "the token is not a well-formed JWT"),
)
"""Our message for each PyJWT error, most specific first (a signature error is a
DecodeError too)."""


def _describe(error: jwt.PyJWTError) -> str:
    if isinstance(error, jwt.MissingRequiredClaimError):
        return f"the token has no {error.claim} claim"
    for kind, message in ERROR_MESSAGES:
        if isinstance(error, kind):
            return message
    return f"the token is not valid: {error}"


class TokenVerifier:
    """Verifies bearer tokens against bound keys (see the module docstring) and caches the
    principals of good tokens in a :class:`PrincipalCache` (``cache_size=0`` turns it off).

    ``clock`` is the cache's clock; PyJWT checks exp, nbf and iat against the system clock.
    """

    def __init__(self, keys: Sequence[BoundKey], *, issuer: str | None = None,
                 audience: str | None = None, leeway: float = LEEWAY_SECONDS,
                 cache_size: int = CACHE_SIZE,
                 clock: Callable[[], float] = time.time) -> None:
        self.keys = tuple(keys)
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
        self.cache = PrincipalCache(cache_size, clock=clock)

    @classmethod
    def from_settings(cls, settings: ServiceSettings, *, cache_size: int = CACHE_SIZE,
                      clock: Callable[[], float] = time.time) -> TokenVerifier:
        """A verifier with every key the settings configure; a :class:`SettingsError`
        names the variable of a key file that cannot be used."""
        keys = [*secret_keys(settings), *public_key_file_keys(settings),
                *jwks_file_keys(settings)]
        return cls(keys, issuer=settings.jwt_issuer, audience=settings.jwt_audience,
                   cache_size=cache_size, clock=clock)

    @property
    def algorithms(self) -> tuple[str, ...]:
        """The algorithms some key verifies, in key order, each once."""
        return tuple(dict.fromkeys(key.algorithm for key in self.keys))

    def verify(self, token: str) -> Principal:
        """The principal of ``token``; :class:`AuthError` 401 when it is not valid."""
        cached = self.cache.get(token)
        if cached is not None:
            return cached
        claims = self._decode(token)
        principal = principal_from_claims(claims)
        self.cache.put(token, principal, expires=float(claims["exp"]))
        return principal

    def _key_for(self, token: str) -> BoundKey:
        """The key to verify ``token`` with: one bound to its ``alg``, the one with its
        ``kid`` if it names one, else the key without a kid (secret or PEM file)."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise AuthError.invalid_token("the token is not a well-formed JWT") from None
        algorithm, kid = header.get("alg"), header.get("kid")
        candidates = [key for key in self.keys if key.algorithm == algorithm]
        if not candidates:
            accepted = ", ".join(self.algorithms) or "none configured"
            raise AuthError.invalid_token(
                f"the token's algorithm is not accepted; accepted: {accepted}")
        chosen = ([key for key in candidates if kid is not None and key.kid == kid]
                  or [key for key in candidates if key.kid is None])
        if not chosen:
            raise AuthError.invalid_token("the token's kid names no known key"
                                          if kid is not None else "the token has no kid")
        return chosen[0]

    def _decode(self, token: str) -> dict[str, Any]:
        key = self._key_for(token)
        try:
            claims: dict[str, Any] = jwt.decode(
                token, key.key, algorithms=[key.algorithm], issuer=self.issuer,
                audience=self.audience, leeway=self.leeway,
                options={"require": ["exp"], "enforce_minimum_key_length": True})
        except jwt.PyJWTError as error:
            raise AuthError.invalid_token(_describe(error)) from None
        return claims


def authenticate(authorization_header: str | None, verifier: TokenVerifier) -> Principal:
    """The principal of an ``Authorization: Bearer <token>`` header value; 401 otherwise.

    >>> try:
    ...     authenticate("Basic YWRhOnNlY3JldA==", TokenVerifier([]))
    ... except AuthError as error:
    ...     print(error.status, error.headers["WWW-Authenticate"])
    401 Bearer realm="workflow"
    """
    if not authorization_header or not authorization_header.strip():
        raise AuthError.missing_token("this needs a bearer token: send the header "
                                      "Authorization: Bearer <token>")
    scheme, _, token = authorization_header.strip().partition(" ")
    if scheme.lower() != "bearer":
        raise AuthError.missing_token("the Authorization header must use the Bearer scheme")
    if not token.strip():
        raise AuthError.invalid_token("the bearer token is empty")
    return verifier.verify(token.strip())


def require(principal: Principal, needed: Scope) -> None:
    """Nothing if ``principal`` has the ``needed`` tier; :class:`AuthError` 403 otherwise.

    >>> require(Principal("ada", "acme", frozenset({Scope.ADMIN})), Scope.OPERATE)
    """
    if not principal.allows(needed):
        raise AuthError.insufficient_scope(needed)


def issue_token(secret: str, *, subject: str, tenant: str, scopes: Sequence[str],
                ttl_seconds: float = DEFAULT_TOKEN_TTL, now: float | None = None) -> str:
    """An HS256 token for dev mode and tests: ``sub``, ``tenant``, the space-delimited
    ``scope``, ``iat`` now and ``exp`` after ``ttl_seconds``.

    >>> token = issue_token("s" * 32, subject="ada", tenant="acme", scopes=["workflow:view"],
    ...                     ttl_seconds=60, now=1000)
    >>> claims = jwt.decode(token, "s" * 32, algorithms=["HS256"],
    ...                     options={"verify_exp": False, "verify_iat": False})
    >>> claims["exp"] - claims["iat"], claims["scope"]
    (60, 'workflow:view')
    """
    issued = time.time() if now is None else now
    claims = {"sub": subject, "tenant": tenant, "scope": " ".join(scopes),
              "iat": int(issued), "exp": int(issued + ttl_seconds)}
    return jwt.encode(claims, secret, algorithm="HS256")
