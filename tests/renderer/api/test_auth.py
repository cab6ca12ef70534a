"""Bearer tokens: signatures and algorithms (RFC 7515/7518), time and audience claims
(RFC 7519), the scope tiers, the 401/403 challenges (RFC 6750) and the verification cache.

Tokens are built here with PyJWT's encoder or, for the forged ones, by hand; the expected
outcomes follow from the specs, not from runs of the verifier."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from renderer.api.auth import (
    AuthError,
    Principal,
    Scope,
    TokenVerifier,
    authenticate,
    issue_token,
    require,
)
from renderer.api.settings import ServiceSettings, SettingsError

SECRET = "a-test-secret-that-is-at-least-32-bytes-long"
OTHER_SECRET = "another-secret-that-is-at-least-32-bytes-long"
LEEWAY = 30  # seconds, as the verifier allows


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def segment(document: Mapping[str, Any]) -> str:
    return b64url(json.dumps(document, separators=(",", ":")).encode())


def claims(**changes: Any) -> dict[str, Any]:
    now = int(time.time())
    base: dict[str, Any] = {"sub": "ada", "tenant": "acme", "scope": "workflow:operate",
                            "iat": now, "exp": now + 600}
    base.update(changes)
    return {name: value for name, value in base.items() if value is not None}


def hs256(payload: Mapping[str, Any], secret: str = SECRET) -> str:
    return jwt.encode(dict(payload), secret, algorithm="HS256")


def pem(private_key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey
        | ed25519.Ed25519PrivateKey) -> bytes:
    return private_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


@pytest.fixture(scope="module")
def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="module")
def ec_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


@pytest.fixture
def verifier() -> TokenVerifier:
    return TokenVerifier.from_settings(ServiceSettings(jwt_secret=SECRET))


def pem_verifier(tmp_path: Path, public_pem: bytes, **settings: Any) -> TokenVerifier:
    path = tmp_path / "public.pem"
    path.write_bytes(public_pem)
    return TokenVerifier.from_settings(ServiceSettings(jwt_public_key_file=path, **settings))


def refused(verifier: TokenVerifier, token: str) -> AuthError:
    with pytest.raises(AuthError) as caught:
        verifier.verify(token)
    assert caught.value.status == 401
    assert 'error="invalid_token"' in caught.value.headers["WWW-Authenticate"]
    return caught.value


# -- HS256, time claims, tampering ---------------------------------------------------------

def test_a_good_hs256_token_gives_its_principal(verifier: TokenVerifier) -> None:
    principal = verifier.verify(hs256(claims()))
    assert principal == Principal("ada", "acme", frozenset({Scope.OPERATE}))


def test_an_expired_token_is_refused(verifier: TokenVerifier) -> None:
    now = int(time.time())
    error = refused(verifier, hs256(claims(iat=now - 3600, exp=now - LEEWAY - 30)))
    assert error.message == "the token has expired"
    assert error.headers["WWW-Authenticate"] == (
        'Bearer realm="workflow", error="invalid_token", '
        'error_description="the token has expired"')


def test_a_token_expired_within_the_leeway_still_passes(verifier: TokenVerifier) -> None:
    now = int(time.time())
    assert verifier.verify(hs256(claims(iat=now - 600, exp=now - 5))).subject == "ada"


def test_a_token_without_exp_is_refused(verifier: TokenVerifier) -> None:
    assert "exp" in refused(verifier, hs256(claims(exp=None))).message


@pytest.mark.parametrize("claim", ["nbf", "iat"])
def test_a_token_not_yet_valid_is_refused(verifier: TokenVerifier, claim: str) -> None:
    future = int(time.time()) + LEEWAY + 120
    token = hs256(claims(**{claim: future, "exp": future + 600}))
    assert refused(verifier, token).message == "the token is not valid yet"


def test_a_token_signed_with_another_secret_is_refused(verifier: TokenVerifier) -> None:
    error = refused(verifier, hs256(claims(), OTHER_SECRET))
    assert error.message == "the token's signature does not verify"


def test_a_tampered_payload_is_refused(verifier: TokenVerifier) -> None:
    header, _, signature = hs256(claims()).split(".")
    forged = ".".join((header, segment(claims(tenant="globex", scope="workflow:admin")),
                       signature))
    assert refused(verifier, forged).message == "the token's signature does not verify"


@pytest.mark.parametrize("garbage", ["", "not-a-jwt", "a.b.c", "...."])
def test_garbage_is_refused(verifier: TokenVerifier, garbage: str) -> None:
    assert refused(verifier, garbage).message == "the token is not a well-formed JWT"


# -- algorithm confusion (RFC 8725 sections 2.1 and 3.1) -----------------------------------

@pytest.mark.parametrize("alg", ["none", "None", "NONE"])
def test_an_unsigned_alg_none_token_is_refused(verifier: TokenVerifier, alg: str) -> None:
    forged = f"{segment({'alg': alg, 'typ': 'JWT'})}.{segment(claims(scope='workflow:admin'))}."
    assert "algorithm is not accepted" in refused(verifier, forged).message


def test_alg_none_is_refused_by_an_asymmetric_verifier_too(
        tmp_path: Path, rsa_key: rsa.RSAPrivateKey) -> None:
    forged = f"{segment({'alg': 'none'})}.{segment(claims())}."
    refused(pem_verifier(tmp_path, pem(rsa_key)), forged)


def hs256_signed_with_bytes(payload: Mapping[str, Any], key: bytes) -> str:
    """HS256 by hand: PyJWT refuses to use a PEM public key as an HMAC secret."""
    signing_input = f"{segment({'alg': 'HS256', 'typ': 'JWT'})}.{segment(payload)}"
    mac = hmac.new(key, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{b64url(mac)}"


def test_hs256_signed_with_the_rsa_public_key_is_refused(
        tmp_path: Path, rsa_key: rsa.RSAPrivateKey) -> None:
    public_pem = pem(rsa_key)
    forged = hs256_signed_with_bytes(claims(scope="workflow:admin"), public_pem)
    error = refused(pem_verifier(tmp_path, public_pem), forged)
    assert error.message == "the token's algorithm is not accepted; accepted: RS256"


def test_hs256_signed_with_the_public_key_fails_against_the_secret_too(
        tmp_path: Path, rsa_key: rsa.RSAPrivateKey) -> None:
    """With a secret and an RSA key configured, HS256 is checked with the secret only."""
    public_pem = pem(rsa_key)
    verifier = pem_verifier(tmp_path, public_pem, jwt_secret=SECRET)
    forged = hs256_signed_with_bytes(claims(), public_pem)
    assert refused(verifier, forged).message == "the token's signature does not verify"


def test_a_secret_only_verifier_refuses_rs256(verifier: TokenVerifier,
                                              rsa_key: rsa.RSAPrivateKey) -> None:
    token = jwt.encode(claims(), rsa_key, algorithm="RS256")
    assert refused(verifier, token).message == (
        "the token's algorithm is not accepted; accepted: HS256")


def test_an_algorithm_not_configured_is_refused(verifier: TokenVerifier) -> None:
    token = jwt.encode(claims(), SECRET + "-made-longer-for-sha512", algorithm="HS512")
    assert "algorithm is not accepted" in refused(verifier, token).message


def test_a_verifier_without_keys_refuses_everything() -> None:
    error = refused(TokenVerifier.from_settings(ServiceSettings()), hs256(claims()))
    assert error.message == "the token's algorithm is not accepted; accepted: none configured"


# -- RS256, ES256 and JWKS ------------------------------------------------------------------

def test_rs256_with_the_public_key_file(tmp_path: Path, rsa_key: rsa.RSAPrivateKey) -> None:
    verifier = pem_verifier(tmp_path, pem(rsa_key))
    assert verifier.verify(jwt.encode(claims(), rsa_key, algorithm="RS256")).tenant == "acme"


def test_es256_with_the_public_key_file(tmp_path: Path,
                                        ec_key: ec.EllipticCurvePrivateKey) -> None:
    verifier = pem_verifier(tmp_path, pem(ec_key))
    assert verifier.verify(jwt.encode(claims(), ec_key, algorithm="ES256")).subject == "ada"


def test_rs256_signed_by_another_key_is_refused(tmp_path: Path,
                                               rsa_key: rsa.RSAPrivateKey) -> None:
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    refused(pem_verifier(tmp_path, pem(rsa_key)), jwt.encode(claims(), other, algorithm="RS256"))


def write_jwks(tmp_path: Path, *keys: tuple[str, Any]) -> Path:
    """A JWKS file of the public halves of ``keys`` (kid, private key), as RFC 7517 4.5."""
    documents = [{**json.loads(public_jwk(private_key)), "kid": kid, "use": "sig"}
                 for kid, private_key in keys]
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": documents}))
    return path


def public_jwk(private_key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey) -> str:
    if isinstance(private_key, rsa.RSAPrivateKey):
        return str(RSAAlgorithm.to_jwk(private_key.public_key()))
    return str(ECAlgorithm.to_jwk(private_key.public_key()))


def test_a_missing_jwks_file_names_its_variable(tmp_path: Path) -> None:
    settings = ServiceSettings(jwks_file=tmp_path / "absent.json")
    with pytest.raises(SettingsError, match=r"^WFR_JWKS_FILE: cannot read"):
        TokenVerifier.from_settings(settings)


def test_a_jwks_with_a_private_key_is_refused(tmp_path: Path,
                                              rsa_key: rsa.RSAPrivateKey) -> None:
    document = {**json.loads(str(RSAAlgorithm.to_jwk(rsa_key))), "kid": "leaked"}
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": [document]}))
    with pytest.raises(SettingsError, match="kid leaked: use an RSA public key"):
        TokenVerifier.from_settings(ServiceSettings(jwks_file=path))


@pytest.fixture
def jwks_verifier(tmp_path: Path, rsa_key: rsa.RSAPrivateKey,
                  ec_key: ec.EllipticCurvePrivateKey) -> TokenVerifier:
    path = write_jwks(tmp_path, ("rsa-2024", rsa_key), ("ec-2025", ec_key))
    return TokenVerifier.from_settings(ServiceSettings(jwks_file=path))


def test_jwks_keys_are_chosen_by_kid(jwks_verifier: TokenVerifier, rsa_key: rsa.RSAPrivateKey,
                                     ec_key: ec.EllipticCurvePrivateKey) -> None:
    rs = jwt.encode(claims(sub="r"), rsa_key, algorithm="RS256", headers={"kid": "rsa-2024"})
    es = jwt.encode(claims(sub="e"), ec_key, algorithm="ES256", headers={"kid": "ec-2025"})
    assert (jwks_verifier.verify(rs).subject, jwks_verifier.verify(es).subject) == ("r", "e")


def test_an_unknown_kid_is_refused(jwks_verifier: TokenVerifier,
                                   rsa_key: rsa.RSAPrivateKey) -> None:
    token = jwt.encode(claims(), rsa_key, algorithm="RS256", headers={"kid": "rsa-1999"})
    assert refused(jwks_verifier, token).message == "the token's kid names no known key"


def test_a_token_without_kid_is_refused_by_a_jwks(jwks_verifier: TokenVerifier,
                                                  rsa_key: rsa.RSAPrivateKey) -> None:
    token = jwt.encode(claims(), rsa_key, algorithm="RS256")
    assert refused(jwks_verifier, token).message == "the token has no kid"


def test_a_kid_of_another_algorithm_is_refused(jwks_verifier: TokenVerifier,
                                               rsa_key: rsa.RSAPrivateKey) -> None:
    """An RS256 token naming the EC key's kid: no RS256 key has that kid."""
    token = jwt.encode(claims(), rsa_key, algorithm="RS256", headers={"kid": "ec-2025"})
    refused(jwks_verifier, token)


def test_a_kid_pointing_at_the_wrong_key_fails_the_signature(
        tmp_path: Path, rsa_key: rsa.RSAPrivateKey) -> None:
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path = write_jwks(tmp_path, ("a", rsa_key), ("b", other))
    verifier = TokenVerifier.from_settings(ServiceSettings(jwks_file=path))
    token = jwt.encode(claims(), rsa_key, algorithm="RS256", headers={"kid": "b"})
    assert refused(verifier, token).message == "the token's signature does not verify"


def test_hs256_is_refused_by_a_jwks_verifier(jwks_verifier: TokenVerifier,
                                             rsa_key: rsa.RSAPrivateKey) -> None:
    forged = hs256_signed_with_bytes(claims(), pem(rsa_key))
    assert "algorithm is not accepted" in refused(jwks_verifier, forged).message


# -- key files that cannot be used ----------------------------------------------------------

def test_a_missing_key_file_names_its_variable(tmp_path: Path) -> None:
    settings = ServiceSettings(jwt_public_key_file=tmp_path / "absent.pem")
    with pytest.raises(SettingsError, match=r"^WFR_JWT_PUBLIC_KEY_FILE: cannot read"):
        TokenVerifier.from_settings(settings)


@pytest.mark.parametrize("content", [b"not a key", b"-----BEGIN PUBLIC KEY-----\nAA==\n"])
def test_a_file_that_is_no_pem_key_is_refused(tmp_path: Path, content: bytes) -> None:
    with pytest.raises(SettingsError, match="not a PEM public key"):
        pem_verifier(tmp_path, content)


def test_a_short_rsa_key_is_refused(tmp_path: Path) -> None:
    weak = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    with pytest.raises(SettingsError, match="1024 bits; at least 2048"):
        pem_verifier(tmp_path, pem(weak))


def test_an_ed25519_key_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=r"RSA public key \(RS256\) or an EC P-256"):
        pem_verifier(tmp_path, pem(ed25519.Ed25519PrivateKey.generate()))


@pytest.mark.parametrize("document", [
    {"keys": []}, {"keys": [{"kty": "oct", "k": "c2VjcmV0", "kid": "h"}]}, [], {"nokeys": 1},
])
def test_a_jwks_without_signing_keys_is_refused(tmp_path: Path, document: Any) -> None:
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps(document))
    with pytest.raises(SettingsError, match=r"^WFR_JWKS_FILE "):
        TokenVerifier.from_settings(ServiceSettings(jwks_file=path))


# -- scopes ---------------------------------------------------------------------------------

def test_scope_names_are_case_insensitive_and_unknown_ones_ignored(
        verifier: TokenVerifier) -> None:
    principal = verifier.verify(hs256(claims(scope="WORKFLOW:Operate other")))
    assert principal.scopes == frozenset({Scope.OPERATE})
    assert (principal.allows(Scope.VIEW), principal.allows(Scope.OPERATE),
            principal.allows(Scope.ADMIN)) == (True, True, False)


@pytest.mark.parametrize("scp", [["workflow:admin", "openid"], "openid workflow:admin"])
def test_scp_as_a_list_or_a_string(verifier: TokenVerifier, scp: Any) -> None:
    principal = verifier.verify(hs256(claims(scope=None, scp=scp)))
    assert principal.scopes == frozenset({Scope.ADMIN})
    assert all(principal.allows(scope) for scope in Scope)


def test_scope_and_scp_are_merged(verifier: TokenVerifier) -> None:
    principal = verifier.verify(hs256(claims(scope="workflow:view", scp=["workflow:admin"])))
    assert principal.scopes == frozenset({Scope.VIEW, Scope.ADMIN})


def test_a_token_without_workflow_scopes_allows_nothing(verifier: TokenVerifier) -> None:
    principal = verifier.verify(hs256(claims(scope="openid profile view")))
    assert principal.scopes == frozenset()
    assert not principal.allows(Scope.VIEW)


def test_a_scope_claim_of_another_type_is_refused(verifier: TokenVerifier) -> None:
    assert "scope claim" in refused(verifier, hs256(claims(scope=7))).message


@pytest.mark.parametrize("claim", ["sub", "tenant"])
def test_a_missing_identity_claim_is_refused_by_name(verifier: TokenVerifier,
                                                     claim: str) -> None:
    assert refused(verifier, hs256(claims(**{claim: None}))).message == (
        f"the token has no {claim} claim")


def test_an_empty_tenant_is_refused(verifier: TokenVerifier) -> None:
    assert "tenant" in refused(verifier, hs256(claims(tenant=""))).message


def test_require_names_the_scope_needed() -> None:
    viewer = Principal("ada", "acme", frozenset({Scope.VIEW}))
    require(viewer, Scope.VIEW)
    with pytest.raises(AuthError) as caught:
        require(viewer, Scope.OPERATE)
    assert caught.value.status == 403
    assert caught.value.message == "this needs the workflow:operate scope"
    assert caught.value.headers == {
        "WWW-Authenticate": 'Bearer error="insufficient_scope", scope="workflow:operate"'}


@pytest.mark.parametrize(("name", "scope"), [
    ("workflow:view", Scope.VIEW), ("OPERATE", Scope.OPERATE), ("Workflow:Admin", Scope.ADMIN)])
def test_scope_parse(name: str, scope: Scope) -> None:
    assert Scope.parse(name) is scope


def test_scope_parse_names_an_unknown_scope() -> None:
    with pytest.raises(ValueError, match="unknown scope 'workflow:root'"):
        Scope.parse("workflow:root")


# -- issuer and audience --------------------------------------------------------------------

@pytest.fixture
def strict_verifier() -> TokenVerifier:
    return TokenVerifier.from_settings(ServiceSettings(
        jwt_secret=SECRET, jwt_issuer="https://id.example", jwt_audience="workflow-api"))


def test_issuer_and_audience_match(strict_verifier: TokenVerifier) -> None:
    token = hs256(claims(iss="https://id.example", aud=["billing", "workflow-api"]))
    assert strict_verifier.verify(token).subject == "ada"


@pytest.mark.parametrize(("changes", "message"), [
    ({"iss": "https://evil.example", "aud": "workflow-api"}, "another issuer"),
    ({"iss": None, "aud": "workflow-api"}, "no iss claim"),
    ({"iss": "https://id.example", "aud": "billing"}, "another audience"),
    ({"iss": "https://id.example", "aud": None}, "no aud claim"),
])
def test_issuer_or_audience_mismatch_is_refused(strict_verifier: TokenVerifier,
                                                changes: dict[str, Any], message: str) -> None:
    assert message in refused(strict_verifier, hs256(claims(**changes))).message


def test_a_token_with_an_audience_is_refused_when_none_is_configured(
        verifier: TokenVerifier) -> None:
    """RFC 7519 4.1.3: a recipient that does not identify itself with aud must reject."""
    assert "audience" in refused(verifier, hs256(claims(aud="billing"))).message


# -- authenticate: the Authorization header -------------------------------------------------

@pytest.mark.parametrize("header", [None, "", "   "])
def test_no_token_is_a_401_without_an_error_code(verifier: TokenVerifier,
                                                 header: str | None) -> None:
    with pytest.raises(AuthError) as caught:
        authenticate(header, verifier)
    assert caught.value.status == 401
    assert caught.value.headers == {"WWW-Authenticate": 'Bearer realm="workflow"'}


def test_another_scheme_is_a_401(verifier: TokenVerifier) -> None:
    with pytest.raises(AuthError) as caught:
        authenticate("Basic YWRhOnB3", verifier)
    assert (caught.value.status, caught.value.headers["WWW-Authenticate"]) == (
        401, 'Bearer realm="workflow"')


def test_the_scheme_is_case_insensitive(verifier: TokenVerifier) -> None:
    """RFC 7235 section 2.1: auth-scheme is case-insensitive."""
    assert authenticate(f"bearer {hs256(claims())}", verifier).tenant == "acme"


def test_an_empty_bearer_token_is_invalid(verifier: TokenVerifier) -> None:
    with pytest.raises(AuthError) as caught:
        authenticate("Bearer ", verifier)
    assert 'error="invalid_token"' in caught.value.headers["WWW-Authenticate"]


def test_a_bad_bearer_token_is_a_401_with_invalid_token(verifier: TokenVerifier) -> None:
    with pytest.raises(AuthError) as caught:
        authenticate(f"Bearer {hs256(claims(), OTHER_SECRET)}", verifier)
    assert caught.value.status == 401
    assert caught.value.headers["WWW-Authenticate"] == (
        'Bearer realm="workflow", error="invalid_token", '
        'error_description="the token\'s signature does not verify"')


# -- issue_token ----------------------------------------------------------------------------

def test_issue_token_round_trips(verifier: TokenVerifier) -> None:
    token = issue_token(SECRET, subject="dev", tenant="t1", scopes=["workflow:view"])
    assert verifier.verify(token) == Principal("dev", "t1", frozenset({Scope.VIEW}))


def test_issue_token_sets_iat_and_exp_from_now() -> None:
    token = issue_token(SECRET, subject="dev", tenant="t1", scopes=[], ttl_seconds=90,
                        now=1_000_000)
    payload = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    assert (payload["iat"], payload["exp"]) == (1_000_000, 1_000_000 + 90)


def test_an_issued_token_past_its_ttl_is_refused(verifier: TokenVerifier) -> None:
    token = issue_token(SECRET, subject="dev", tenant="t1", scopes=[], ttl_seconds=60,
                        now=time.time() - 60 - LEEWAY - 5)
    assert refused(verifier, token).message == "the token has expired"


# -- the cache ------------------------------------------------------------------------------

class FakeClock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_the_cache_answers_a_repeated_token() -> None:
    verifier = TokenVerifier.from_settings(ServiceSettings(jwt_secret=SECRET))
    token = hs256(claims())
    assert verifier.verify(token) == verifier.verify(token)
    assert verifier.cache.info()[:3] == (1, 1, 1)  # hits, misses, size


def test_the_cache_never_returns_a_principal_at_or_past_exp() -> None:
    now = int(time.time())
    clock = FakeClock(now)
    verifier = TokenVerifier.from_settings(ServiceSettings(jwt_secret=SECRET), clock=clock)
    token = hs256(claims(iat=now, exp=now + 600))
    verifier.verify(token)
    clock.now = now + 599
    verifier.verify(token)
    assert verifier.cache.info()[:3] == (1, 1, 1)
    clock.now = now + 600  # the cache's clock reaches exp: the entry is dropped, not used
    verifier.verify(token)  # verified again by PyJWT (on the system clock, still valid)
    assert verifier.cache.info()[:3] == (1, 2, 0)  # a miss, and not cached again


def test_a_token_refused_once_is_refused_again(verifier: TokenVerifier) -> None:
    token = hs256(claims(), OTHER_SECRET)
    refused(verifier, token)
    refused(verifier, token)
    assert verifier.cache.info().size == 0


def test_the_cache_is_bounded() -> None:
    verifier = TokenVerifier.from_settings(ServiceSettings(jwt_secret=SECRET), cache_size=2)
    first, second, third = (hs256(claims(sub=name)) for name in ("a", "b", "c"))
    for token in (first, second, first, third):  # third evicts second, the least recent
        verifier.verify(token)
    assert verifier.cache.info().size == 2
    hits = verifier.cache.info().hits
    verifier.verify(first)
    assert verifier.cache.info().hits == hits + 1
    verifier.verify(second)
    assert verifier.cache.info().hits == hits + 1


def test_cache_size_zero_turns_it_off() -> None:
    verifier = TokenVerifier.from_settings(ServiceSettings(jwt_secret=SECRET), cache_size=0)
    token = hs256(claims())
    verifier.verify(token)
    verifier.verify(token)
    assert verifier.cache.info()[:3] == (0, 2, 0)
