"""``wfr token``: a token the verifier accepts, and one-line errors (exit 2) otherwise."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from typing import Any

import pytest

from renderer.api.auth import Principal, Scope, TokenVerifier
from renderer.api.settings import ServiceSettings, dev_settings
from renderer.cli import main

SECRET = "a-test-secret-that-is-at-least-32-bytes-long"


@pytest.fixture(autouse=True)
def no_secret_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WFR_JWT_SECRET", raising=False)


def token_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["token", *argv]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    return out.strip()


def payload(token: str) -> dict[str, Any]:
    body = token.split(".")[1]
    decoded: dict[str, Any] = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    return decoded


def test_a_token_signed_with_wfr_jwt_secret(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("WFR_JWT_SECRET", SECRET)
    token = token_of(capsys, "--scope", "workflow:operate", "--tenant", "acme",
                     "--config-dir", str(tmp_path))
    principal = TokenVerifier.from_settings(ServiceSettings(jwt_secret=SECRET)).verify(token)
    assert principal == Principal("dev", "acme", frozenset({Scope.OPERATE}))
    assert not (tmp_path / "dev.json").exists()


def test_a_token_signed_with_the_dev_secret(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    settings = dev_settings(tmp_path)  # what `make run` (serve --dev) makes
    token = token_of(capsys, "--scope", "view", "--scope", "ADMIN", "--tenant", "globex",
                     "--sub", "ada", "--config-dir", str(tmp_path))
    principal = TokenVerifier.from_settings(settings).verify(token)
    assert principal == Principal("ada", "globex", frozenset({Scope.VIEW, Scope.ADMIN}))
    assert payload(token)["scope"] == "workflow:view workflow:admin"


def test_ttl_sets_the_expiry(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("WFR_JWT_SECRET", SECRET)
    before = time.time()
    claims = payload(token_of(capsys, "--scope", "view", "--tenant", "t", "--ttl", "120"))
    after = time.time()
    assert isinstance(claims["exp"], int)
    assert int(before) + 120 <= claims["exp"] <= int(after) + 120


def test_the_default_lifetime_is_eight_hours(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("WFR_JWT_SECRET", SECRET)
    claims = payload(token_of(capsys, "--scope", "view", "--tenant", "t"))
    assert claims["exp"] == claims["iat"] + 8 * 3600


def test_an_unknown_scope_is_exit_2_naming_it(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("WFR_JWT_SECRET", SECRET)
    assert main(["token", "--scope", "view", "--scope", "workflow:root", "--tenant", "t"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("wfr token: unknown scope 'workflow:root'")


def test_without_a_secret_exit_2_says_what_to_do(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["token", "--scope", "view", "--tenant", "t", "--config-dir",
                 str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert "make run" in captured.err
    assert "WFR_JWT_SECRET" in captured.err
    assert not (tmp_path / "dev.json").exists()


def test_a_short_wfr_jwt_secret_is_exit_2(monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("WFR_JWT_SECRET", "short")
    assert main(["token", "--scope", "view", "--tenant", "t"]) == 2
    assert capsys.readouterr().err.startswith("wfr token: WFR_JWT_SECRET: must be at least")


@pytest.mark.parametrize(("extra", "message"), [
    (["--ttl", "0"], "--ttl 0 is not a positive number"),
    (["--ttl", "nan"], "--ttl nan is not a positive number"),
    (["--sub", " "], "--sub must not be empty"),
])
def test_bad_claims_are_exit_2(monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str], extra: list[str],
                               message: str) -> None:
    monkeypatch.setenv("WFR_JWT_SECRET", SECRET)
    assert main(["token", "--scope", "view", "--tenant", "t", *extra]) == 2
    assert message in capsys.readouterr().err


def test_scope_and_tenant_are_required(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["token", "--tenant", "t"]) == 2
    assert "--scope" in capsys.readouterr().err
