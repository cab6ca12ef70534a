"""``python -m renderer.serve``: dev mode, and no start without a token key."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from renderer import service
from renderer.api.settings import ServiceSettings
from renderer.serve import main

SECRET = "a-test-secret-that-is-at-least-32-bytes-long"


class Started(Exception):
    """Raised instead of running uvicorn."""


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Any]:
    """The settings ``main`` passes to ``create_app``; uvicorn never runs. The working
    folder is ``tmp_path`` and no WFR_ variable is set."""
    seen: dict[str, Any] = {}
    create_app = service.create_app

    def recording_create_app(**kwargs: Any) -> Any:
        seen.update(kwargs)
        return create_app(**kwargs)

    def no_server(*args: object, **kwargs: object) -> None:
        raise Started

    for name in ("WFR_JWT_SECRET", "WFR_JWT_PUBLIC_KEY_FILE", "WFR_JWKS_FILE", "WFR_DEV",
                 "WFR_CONFIG_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(service, "create_app", recording_create_app)
    monkeypatch.setattr(uvicorn, "run", no_server)
    return seen


def test_without_a_key_the_server_does_not_start(started: dict[str, Any],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main([])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    for way in ("WFR_JWT_SECRET", "WFR_JWT_PUBLIC_KEY_FILE", "WFR_JWKS_FILE", "--dev"):
        assert way in err
    assert started == {}


def test_a_bad_key_file_stops_the_start(started: dict[str, Any], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "key.pem").write_text("not a key")
    monkeypatch.setenv("WFR_JWT_PUBLIC_KEY_FILE", str(tmp_path / "key.pem"))
    with pytest.raises(SystemExit) as stop:
        main([])
    assert stop.value.code == 2
    assert "WFR_JWT_PUBLIC_KEY_FILE" in capsys.readouterr().err


def test_with_a_secret_the_server_starts_with_it(started: dict[str, Any],
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("WFR_JWT_SECRET", SECRET)
    with pytest.raises(Started):
        main(["--port", "9001"])
    assert started["settings"] == ServiceSettings(jwt_secret=SECRET)
    assert "DEV MODE" not in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "variables"), [(["--dev"], {}), ([], {"WFR_DEV": "1"})])
def test_dev_mode_makes_a_secret_and_says_so(started: dict[str, Any], tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str],
                                             argv: list[str], variables: dict[str, str]) -> None:
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(Started):
        main(argv)
    settings = started["settings"]
    secret_file = tmp_path / ".wfr" / "dev.json"
    assert settings.dev and settings.jwt_secret in secret_file.read_text()
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    out = capsys.readouterr().out
    assert "DEV MODE" in out
    assert ".wfr/dev.json" in out
    assert "wfr token --scope workflow:operate --tenant dev" in out
    assert ('curl -H "Authorization: Bearer $(wfr token --scope workflow:admin --tenant dev)" '
            "http://127.0.0.1:8000/api/workflow/definitions") in out


def test_dev_mode_keeps_its_secret_across_starts(started: dict[str, Any]) -> None:
    secrets = []
    for _ in range(2):
        with pytest.raises(Started):
            main(["--dev"])
        secrets.append(started["settings"].jwt_secret)
    assert secrets[0] == secrets[1]


def test_the_help_lists_the_settings(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "--dev" in out
    assert "WFR_RETENTION_DAYS" in out
