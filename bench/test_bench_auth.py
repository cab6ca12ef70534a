"""Cost of one bearer-token verification, as the workflow API pays it on every request.

HS256, RS256 (2048-bit) and ES256 (P-256), each without the cache (``cache_size=0``: PyJWT
decodes and checks the signature every time) and with it (a repeated token is a dict hit).

    .venv/bin/pytest bench/test_bench_auth.py --benchmark-only -q
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from renderer.api.auth import TokenVerifier
from renderer.api.settings import ServiceSettings

SECRET = "a-bench-secret-that-is-at-least-32-bytes-long"


def _claims() -> dict[str, Any]:
    now = int(time.time())
    return {"sub": "ada", "tenant": "acme", "scope": "workflow:operate", "iat": now,
            "exp": now + 3600}


def _hs256(tmp_path: Path) -> tuple[ServiceSettings, str]:
    return ServiceSettings(jwt_secret=SECRET), jwt.encode(_claims(), SECRET, algorithm="HS256")


def _asymmetric(tmp_path: Path, key: Any, algorithm: str) -> tuple[ServiceSettings, str]:
    path = tmp_path / "public.pem"
    path.write_bytes(key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return (ServiceSettings(jwt_public_key_file=path),
            jwt.encode(_claims(), key, algorithm=algorithm))


SETUPS: dict[str, Callable[[Path], tuple[ServiceSettings, str]]] = {
    "HS256": _hs256,
    "RS256": lambda tmp_path: _asymmetric(
        tmp_path, rsa.generate_private_key(public_exponent=65537, key_size=2048), "RS256"),
    "ES256": lambda tmp_path: _asymmetric(
        tmp_path, ec.generate_private_key(ec.SECP256R1()), "ES256"),
}


@pytest.mark.parametrize("cached", [False, True], ids=["uncached", "cached"])
@pytest.mark.parametrize("algorithm", list(SETUPS))
def test_verify(benchmark: Any, tmp_path: Path, algorithm: str, cached: bool) -> None:
    settings, token = SETUPS[algorithm](tmp_path)
    verifier = TokenVerifier.from_settings(settings, cache_size=1024 if cached else 0)
    principal = benchmark(verifier.verify, token)
    assert principal.tenant == "acme"
