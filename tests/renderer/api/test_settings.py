"""Service settings: the table, the environment and the config file, dev mode, require_key."""

from __future__ import annotations

import json
import stat
from dataclasses import fields
from pathlib import Path

import pytest

from renderer.api.settings import (
    SETTING_TABLE,
    ServiceSettings,
    SettingsError,
    dev_settings,
    load_settings,
    read_dev_secret,
    require_key,
    signing_secret,
)

SECRET = "0123456789abcdef0123456789abcdef"  # 32 bytes: the shortest accepted HS256 secret


def test_the_table_declares_every_field_with_its_default() -> None:
    declared = {spec.name: spec.default for spec in SETTING_TABLE}
    assert declared == {f.name: f.default for f in fields(ServiceSettings)}
    assert all(spec.variable == f"WFR_{spec.name.upper()}" for spec in SETTING_TABLE)


def test_defaults_without_any_variable() -> None:
    settings = load_settings({})
    assert settings == ServiceSettings()
    assert (settings.database, settings.retention_days) == ("./workflow.db", 30.0)
    assert not (settings.dev or settings.metrics_public or settings.render_requires_token)


def test_every_kind_is_read_from_the_environment(tmp_path: Path) -> None:
    settings = load_settings({
        "WFR_JWT_SECRET": SECRET, "WFR_JWT_PUBLIC_KEY_FILE": str(tmp_path / "key.pem"),
        "WFR_JWKS_FILE": str(tmp_path / "jwks.json"), "WFR_JWT_ISSUER": "https://id.example",
        "WFR_JWT_AUDIENCE": "workflow-api", "WFR_DEV": "on", "WFR_DATABASE": "/var/wf.db",
        "WFR_RETENTION_DAYS": "0.5", "WFR_METRICS_PUBLIC": "TRUE",
        "WFR_RENDER_REQUIRES_TOKEN": "1", "WFR_MAX_SUBWORKFLOW_DEPTH": "3",
    })
    assert settings.jwt_secret == SECRET
    assert settings.jwt_public_key_file == tmp_path / "key.pem"
    assert settings.jwks_file == tmp_path / "jwks.json"
    assert (settings.jwt_issuer, settings.jwt_audience) == ("https://id.example", "workflow-api")
    assert (settings.dev, settings.metrics_public, settings.render_requires_token) == (
        True, True, True)
    assert (settings.database, settings.retention_days) == ("/var/wf.db", 0.5)
    assert settings.max_subworkflow_depth == 3


def test_an_empty_variable_counts_as_unset() -> None:
    assert load_settings({"WFR_RETENTION_DAYS": "", "WFR_JWT_SECRET": "  "}) == ServiceSettings()


@pytest.mark.parametrize(("variable", "value", "expected"), [
    ("WFR_RETENTION_DAYS", "a week", "WFR_RETENTION_DAYS: 'a week' is not a number"),
    ("WFR_RETENTION_DAYS", "-1", "WFR_RETENTION_DAYS: '-1' must be a positive number of days"),
    ("WFR_RETENTION_DAYS", "nan", "WFR_RETENTION_DAYS: 'nan' must be a positive number of days"),
    ("WFR_METRICS_PUBLIC", "maybe", "WFR_METRICS_PUBLIC: 'maybe' is not a boolean"),
    ("WFR_DEV", "2", "WFR_DEV: '2' is not a boolean"),
    ("WFR_MAX_SUBWORKFLOW_DEPTH", "0",
     "WFR_MAX_SUBWORKFLOW_DEPTH: '0' must be a whole number from 1 to 1000"),
    ("WFR_MAX_SUBWORKFLOW_DEPTH", "ten",
     "WFR_MAX_SUBWORKFLOW_DEPTH: 'ten' must be a whole number from 1 to 1000"),
    ("WFR_JWT_SECRET", "short", "WFR_JWT_SECRET: must be at least 32 bytes"),
])
def test_a_bad_value_names_its_variable(variable: str, value: str, expected: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings({variable: value})
    assert str(caught.value).startswith(expected)


def test_a_short_secret_is_not_echoed() -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings({"WFR_JWT_SECRET": "hunter2-secret"})
    assert "hunter2" not in str(caught.value)


def test_a_31_byte_secret_is_refused_and_32_accepted() -> None:
    with pytest.raises(SettingsError, match="WFR_JWT_SECRET"):
        load_settings({"WFR_JWT_SECRET": SECRET[:31]})
    assert load_settings({"WFR_JWT_SECRET": SECRET}).jwt_secret == SECRET


def test_the_config_file_fills_in_and_the_environment_wins(tmp_path: Path) -> None:
    config = tmp_path / "wfr.json"
    config.write_text(json.dumps({"retention_days": 7, "metrics_public": True,
                                  "database": "from-file.db", "jwt_issuer": None}))
    settings = load_settings({"WFR_CONFIG_FILE": str(config), "WFR_DATABASE": "from-env.db"})
    assert (settings.retention_days, settings.metrics_public) == (7.0, True)
    assert settings.database == "from-env.db"
    assert (settings.jwt_issuer, settings.config_file) == (None, config)


def test_a_bad_value_in_the_config_file_names_the_key_and_the_file(tmp_path: Path) -> None:
    config = tmp_path / "wfr.json"
    config.write_text('{"retention_days": "soon"}')
    with pytest.raises(SettingsError) as caught:
        load_settings({"WFR_CONFIG_FILE": str(config)})
    assert str(caught.value) == f"retention_days in {config}: 'soon' is not a number"


@pytest.mark.parametrize(("content", "expected"), [
    ('{"retention": 7}', "unknown setting 'retention'"),
    ('{"config_file": "other.json"}', "unknown setting 'config_file'"),
    ("[1, 2]", "must hold a JSON object"),
    ("{not json", "is not JSON"),
])
def test_a_bad_config_file_is_refused(tmp_path: Path, content: str, expected: str) -> None:
    config = tmp_path / "wfr.json"
    config.write_text(content)
    with pytest.raises(SettingsError, match=r"^WFR_CONFIG_FILE: ") as caught:
        load_settings({"WFR_CONFIG_FILE": str(config)})
    assert expected in str(caught.value)


def test_a_missing_config_file_names_the_variable(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=r"^WFR_CONFIG_FILE: cannot read"):
        load_settings({"WFR_CONFIG_FILE": str(tmp_path / "absent.json")})


def test_dev_flag_of_load_settings() -> None:
    assert load_settings({}, dev=True).dev
    assert load_settings({"WFR_DEV": "yes"}).dev


def test_dev_settings_make_one_secret_in_a_private_file(tmp_path: Path) -> None:
    folder = tmp_path / ".wfr"
    first = dev_settings(folder)
    again = dev_settings(folder)
    path = folder / "dev.json"
    assert first.dev and again.dev
    assert first.jwt_secret is not None
    assert again.jwt_secret == first.jwt_secret
    assert json.loads(path.read_text()) == {"jwt_secret": first.jwt_secret}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    # secrets.token_urlsafe(32): 32 random bytes in unpadded base64url, ceil(32 * 4 / 3) chars
    assert len(first.jwt_secret) == 43
    assert [p.name for p in folder.iterdir()] == ["dev.json"]  # no temporary file left


def test_dev_settings_keep_the_other_settings_of_the_environment(tmp_path: Path) -> None:
    settings = dev_settings(tmp_path, environ={"WFR_DATABASE": "dev.db"})
    assert (settings.dev, settings.database) == (True, "dev.db")
    assert settings.jwt_secret == read_dev_secret(tmp_path)


def test_wfr_jwt_secret_wins_over_the_dev_secret(tmp_path: Path) -> None:
    settings = dev_settings(tmp_path, environ={"WFR_JWT_SECRET": SECRET})
    assert settings.jwt_secret == SECRET
    assert not (tmp_path / "dev.json").exists()
    assert signing_secret({"WFR_JWT_SECRET": SECRET}, tmp_path) == SECRET


def test_signing_secret_never_creates_the_dev_secret(tmp_path: Path) -> None:
    assert signing_secret({}, tmp_path) is None
    assert not (tmp_path / "dev.json").exists()
    secret = dev_settings(tmp_path).jwt_secret
    assert signing_secret({}, tmp_path) == secret


def test_a_damaged_dev_file_says_to_delete_it(tmp_path: Path) -> None:
    (tmp_path / "dev.json").write_text('{"jwt_secret": 1}')
    with pytest.raises(SettingsError, match="delete it"):
        dev_settings(tmp_path)


def test_require_key_names_every_way_to_configure_one() -> None:
    with pytest.raises(SettingsError) as caught:
        require_key(ServiceSettings())
    message = str(caught.value)
    for way in ("WFR_JWT_SECRET", "WFR_JWT_PUBLIC_KEY_FILE", "WFR_JWKS_FILE", "--dev"):
        assert way in message


@pytest.mark.parametrize("settings", [
    ServiceSettings(jwt_secret=SECRET), ServiceSettings(jwt_public_key_file=Path("k.pem")),
    ServiceSettings(jwks_file=Path("jwks.json")), ServiceSettings(dev=True),
])
def test_require_key_accepts_any_key_or_dev_mode(settings: ServiceSettings) -> None:
    require_key(settings)


def test_the_secret_stays_out_of_the_repr() -> None:
    assert SECRET not in repr(ServiceSettings(jwt_secret=SECRET))
