"""The service settings, declared once as data.

:data:`SETTING_TABLE` is the single declaration: :func:`load_settings` reads and validates
every row from its ``WFR_*`` environment variable and from the optional JSON config file
named by ``WFR_CONFIG_FILE`` (an object of settings by name), and :func:`settings_reference`
prints the table for ``--help``. The environment wins over the file, the file over the
defaults; an empty variable counts as unset. A bad value is a :class:`SettingsError` that
names the variable (or the key and the file).

>>> settings = load_settings({"WFR_RETENTION_DAYS": "7", "WFR_METRICS_PUBLIC": "yes"})
>>> settings.retention_days, settings.metrics_public, settings.database
(7.0, True, './workflow.db')
>>> try:
...     load_settings({"WFR_RETENTION_DAYS": "a week"})
... except SettingsError as error:
...     print(error)
WFR_RETENTION_DAYS: 'a week' is not a number

Dev mode (:func:`dev_settings`) signs tokens with a random secret kept in ``.wfr/dev.json``;
without dev mode the service refuses to start until a key is configured (:func:`require_key`).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import secrets
import tempfile
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

MIN_SECRET_BYTES = 32
"""Shortest HS256 secret accepted: the size of the SHA-256 output (RFC 7518 section 3.2)."""

DEV_FOLDER = Path(".wfr")
DEV_FILE_NAME = "dev.json"
SECRET_VARIABLE = "WFR_JWT_SECRET"
NO_KEY_MESSAGE = ("no token key is configured: set WFR_JWT_SECRET, WFR_JWT_PUBLIC_KEY_FILE or "
                  "WFR_JWKS_FILE (or use --dev for a local development secret)")


class SettingsError(ValueError):
    """A setting with a bad value, or a service that cannot start with its settings."""


class Kind(StrEnum):
    """How a setting's text (or JSON value) is parsed."""

    TEXT = "string"
    SECRET = "secret"
    PATH = "path"
    FLAG = "boolean"
    DAYS = "number"
    COUNT = "integer"


@dataclass(frozen=True, slots=True)
class SettingSpec:
    """One declared setting: field name, environment variable, kind, default and meaning."""

    name: str
    variable: str
    kind: Kind
    default: object
    description: str


SETTING_TABLE: tuple[SettingSpec, ...] = (
    SettingSpec("jwt_secret", "WFR_JWT_SECRET", Kind.SECRET, None,
                "HS256 secret that bearer tokens are signed with (at least 32 bytes)."),
    SettingSpec("jwt_public_key_file", "WFR_JWT_PUBLIC_KEY_FILE", Kind.PATH, None,
                "PEM public key that verifies tokens: RSA for RS256, EC P-256 for ES256."),
    SettingSpec("jwks_file", "WFR_JWKS_FILE", Kind.PATH, None,
                "JWKS JSON file of RS256/ES256 public keys, chosen by the token's kid."),
    SettingSpec("jwt_issuer", "WFR_JWT_ISSUER", Kind.TEXT, None,
                "The iss claim every token must carry, when set."),
    SettingSpec("jwt_audience", "WFR_JWT_AUDIENCE", Kind.TEXT, None,
                "An aud value every token must carry, when set; unset, a token that has an "
                "aud claim is refused (RFC 7519 section 4.1.3)."),
    SettingSpec("dev", "WFR_DEV", Kind.FLAG, False,
                "Dev mode: tokens are signed with a local secret kept in .wfr/dev.json."),
    SettingSpec("database", "WFR_DATABASE", Kind.TEXT, "./workflow.db",
                "SQLite file of the workflow engine."),
    SettingSpec("database_url", "WFR_DATABASE_URL", Kind.TEXT, None,
                "Store URL, e.g. postgresql://USER@HOST/DB[?schema=NAME] to share one "
                "PostgreSQL with other service and worker processes; wins over WFR_DATABASE."),
    SettingSpec("retention_days", "WFR_RETENTION_DAYS", Kind.DAYS, 30.0,
                "Days a finished run is kept before it is purged."),
    SettingSpec("max_subworkflow_depth", "WFR_MAX_SUBWORKFLOW_DEPTH", Kind.COUNT, 10,
                "Most nested SubWorkflow runs; a step that would start a deeper one fails."),
    SettingSpec("metrics_public", "WFR_METRICS_PUBLIC", Kind.FLAG, False,
                "Serve /metrics without a token; otherwise it needs the workflow:view scope."),
    SettingSpec("render_requires_token", "WFR_RENDER_REQUIRES_TOKEN", Kind.FLAG, False,
                "The render endpoints need a valid bearer token; otherwise they stay open."),
    SettingSpec("config_file", "WFR_CONFIG_FILE", Kind.PATH, None,
                "JSON file of settings by name; the environment wins over it."),
)

SETTING_SPECS: Mapping[str, SettingSpec] = {spec.name: spec for spec in SETTING_TABLE}


@dataclass(frozen=True, slots=True)
class ServiceSettings:
    """Validated service settings; build them with :func:`load_settings`. The fields and
    defaults are those of :data:`SETTING_TABLE` (a test keeps the two in step).

    >>> ServiceSettings(jwt_secret="x" * 32)  # the secret stays out of the repr
    ServiceSettings(jwt_public_key_file=None, jwks_file=None, jwt_issuer=None, \
jwt_audience=None, dev=False, database='./workflow.db', retention_days=30.0, \
max_subworkflow_depth=10, metrics_public=False, render_requires_token=False, config_file=None)
    """

    jwt_secret: str | None = field(default=None, repr=False)
    jwt_public_key_file: Path | None = None
    jwks_file: Path | None = None
    jwt_issuer: str | None = None
    jwt_audience: str | None = None
    dev: bool = False
    database: str = "./workflow.db"
    database_url: str | None = field(default=None, repr=False)  # may hold a password
    retention_days: float = 30.0
    max_subworkflow_depth: int = 10
    metrics_public: bool = False
    render_requires_token: bool = False
    config_file: Path | None = None

    @property
    def has_key(self) -> bool:
        """Whether any token key (secret, public key file or JWKS file) is configured.

        >>> ServiceSettings().has_key, ServiceSettings(jwks_file=Path("keys.json")).has_key
        (False, True)
        """
        keys = (self.jwt_secret, self.jwt_public_key_file, self.jwks_file)
        return any(key is not None for key in keys)


def _parse_text(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not a string")
    return value.strip()


def _parse_secret(value: object) -> str:
    """The secret as given; the messages never show the value."""
    if not isinstance(value, str):
        raise ValueError("must be a string")
    if len(value.encode()) < MIN_SECRET_BYTES:
        raise ValueError(f"must be at least {MIN_SECRET_BYTES} bytes (RFC 7518 section 3.2); "
                         "make one with: python -c 'import secrets; "
                         "print(secrets.token_urlsafe(32))'")
    return value


def _parse_path(value: object) -> Path:
    return Path(_parse_text(value)).expanduser()


FLAG_WORDS: Mapping[str, bool] = {
    "1": True, "true": True, "yes": True, "on": True,
    "0": False, "false": False, "no": False, "off": False,
}


def _parse_flag(value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in FLAG_WORDS:
        return FLAG_WORDS[value.strip().lower()]
    raise ValueError(f"{value!r} is not a boolean; use true or false (or 1/0, yes/no, on/off)")


def _parse_days(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"{value!r} is not a number")
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a number") from None
    if not (math.isfinite(number) and number > 0):
        raise ValueError(f"{value!r} must be a positive number of days")
    return number


def _parse_count(value: object) -> int:
    """A whole number from 1 to 1,000.

    >>> _parse_count("12"), _parse_count(3)
    (12, 3)
    >>> _parse_count("0")
    Traceback (most recent call last):
    ...
    ValueError: '0' must be a whole number from 1 to 1000
    """
    text = str(value).strip() if isinstance(value, int | str) and not isinstance(value, bool) \
        else ""
    if not (text.isascii() and text.isdigit() and len(text) <= 4 and 1 <= int(text) <= 1000):
        raise ValueError(f"{value!r} must be a whole number from 1 to 1000")
    return int(text)


PARSERS: Mapping[Kind, Callable[[object], object]] = {
    Kind.TEXT: _parse_text, Kind.SECRET: _parse_secret, Kind.PATH: _parse_path,
    Kind.FLAG: _parse_flag, Kind.DAYS: _parse_days, Kind.COUNT: _parse_count,
}

RawValues = Mapping[str, tuple[str, object]]
"""Unparsed values by setting name, each with the place it came from (for messages)."""


def _parsed(raw: RawValues) -> dict[str, Any]:
    """Each raw value parsed by its row's kind; a :class:`SettingsError` names the source."""
    values: dict[str, Any] = {}
    for name, (source, value) in raw.items():
        try:
            values[name] = PARSERS[SETTING_SPECS[name].kind](value)
        except ValueError as error:
            raise SettingsError(f"{source}: {error}") from None
    return values


def _environment_values(environ: Mapping[str, str]) -> RawValues:
    return {spec.name: (spec.variable, environ[spec.variable]) for spec in SETTING_TABLE
            if environ.get(spec.variable, "").strip()}


def _file_values(path: Path) -> RawValues:
    """The settings in the JSON object of ``path``; ``null`` and ``""`` count as unset."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise SettingsError(f"WFR_CONFIG_FILE: cannot read {path}: "
                            f"{error.strerror or error}") from None
    except ValueError as error:  # not UTF-8, or not JSON
        raise SettingsError(f"WFR_CONFIG_FILE: {path} is not JSON: {error}") from None
    if not isinstance(data, dict):
        raise SettingsError(f"WFR_CONFIG_FILE: {path} must hold a JSON object of settings")
    known = [spec.name for spec in SETTING_TABLE if spec.name != "config_file"]
    for name in data:
        if name not in known:
            raise SettingsError(f"WFR_CONFIG_FILE: {path} has an unknown setting {name!r}; "
                                f"known: {', '.join(known)}")
    return {name: (f"{name} in {path}", value) for name, value in data.items()
            if value is not None and value != ""}


def load_settings(environ: Mapping[str, str], *, dev: bool = False) -> ServiceSettings:
    """The settings from ``environ`` (``WFR_*`` variables) and its ``WFR_CONFIG_FILE``;
    ``dev=True`` turns dev mode on whatever ``WFR_DEV`` says.

    >>> load_settings({"WFR_JWT_ISSUER": "https://id.example"}, dev=True).dev
    True
    >>> try:
    ...     load_settings({"WFR_RENDER_REQUIRES_TOKEN": "maybe"})
    ... except SettingsError as error:
    ...     print(error)
    WFR_RENDER_REQUIRES_TOKEN: 'maybe' is not a boolean; use true or false (or 1/0, yes/no, on/off)
    """
    values = _parsed(_environment_values(environ))
    config_file = values.get("config_file")
    if config_file is not None:
        values = {**_parsed(_file_values(config_file)), **values}
    settings = ServiceSettings(**values)
    return replace(settings, dev=True) if dev else settings


def require_key(settings: ServiceSettings) -> None:
    """Refuse to serve without a token key, unless in dev mode.

    >>> try:
    ...     require_key(ServiceSettings())
    ... except SettingsError as error:
    ...     print(error)
    no token key is configured: set WFR_JWT_SECRET, WFR_JWT_PUBLIC_KEY_FILE or WFR_JWKS_FILE \
(or use --dev for a local development secret)
    >>> require_key(ServiceSettings(dev=True))
    """
    if not (settings.dev or settings.has_key):
        raise SettingsError(NO_KEY_MESSAGE)


def read_dev_secret(folder: Path = DEV_FOLDER) -> str | None:
    """The dev secret kept in ``folder/dev.json``; ``None`` when that file does not exist.

    >>> read_dev_secret(Path("/nonexistent")) is None
    True
    """
    path = folder / DEV_FILE_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise SettingsError(f"cannot read the dev secret in {path}: {error}; "
                            "delete the file to make a new one") from None
    secret = data.get("jwt_secret") if isinstance(data, dict) else None
    if not isinstance(secret, str) or len(secret.encode()) < MIN_SECRET_BYTES:
        raise SettingsError(f"{path} holds no valid jwt_secret; delete it to make a new one")
    return secret


def _create_once(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, readable by its owner only (0600), unless it exists.

    The text goes to a private temporary file first (``mkstemp`` makes it 0600), which is
    then hard-linked into place: no reader sees a half-written file, and when two processes
    race, the first file stays and both read the same secret."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".dev-", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        os.unlink(temporary)


def dev_secret(folder: Path = DEV_FOLDER) -> str:
    """The dev secret in ``folder/dev.json``, made once (``secrets.token_urlsafe(32)``)."""
    secret = read_dev_secret(folder)
    if secret is None:
        _create_once(folder / DEV_FILE_NAME,
                     json.dumps({"jwt_secret": secrets.token_urlsafe(32)}) + "\n")
        secret = read_dev_secret(folder)
        assert secret is not None, "dev.json was just created"
    return secret


def dev_settings(folder: Path = DEV_FOLDER, *,
                 environ: Mapping[str, str] | None = None) -> ServiceSettings:
    """Dev-mode settings: those of ``environ`` (none by default) with ``dev=True`` and,
    unless ``WFR_JWT_SECRET`` is set, the dev secret of ``folder`` (made on first use).
    That is the same secret ``wfr token`` signs with (:func:`signing_secret`).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     first, again = dev_settings(Path(folder)), dev_settings(Path(folder))
    >>> first.dev, first.jwt_secret == again.jwt_secret
    (True, True)
    """
    settings = load_settings(environ or {}, dev=True)
    if settings.jwt_secret is not None:
        return settings
    return replace(settings, jwt_secret=dev_secret(folder))


def signing_secret(environ: Mapping[str, str], folder: Path = DEV_FOLDER) -> str | None:
    """The HS256 secret to sign tokens with: ``WFR_JWT_SECRET``, else the dev secret of
    ``folder`` if one was made; ``None`` without either (nothing is created).

    >>> signing_secret({"WFR_JWT_SECRET": "s" * 32}) == "s" * 32
    True
    >>> signing_secret({}, Path("/nonexistent")) is None
    True
    """
    if environ.get(SECRET_VARIABLE, "").strip():
        secret: str = _parsed({"jwt_secret": (SECRET_VARIABLE, environ[SECRET_VARIABLE])})[
            "jwt_secret"]
        return secret
    return read_dev_secret(folder)


def settings_reference(width: int = 88) -> str:
    """The settings for ``--help``: variable, meaning and default, wrapped to ``width``.

    >>> lines = settings_reference().splitlines()
    >>> print(next(line for line in lines if "WFR_DATABASE" in line))
      WFR_DATABASE               SQLite file of the workflow engine. Default: ./workflow.db.
    """
    column = 4 + max(len(spec.variable) for spec in SETTING_TABLE)
    return "\n".join(
        textwrap.fill(_reference_text(spec), width, subsequent_indent=" " * column,
                      initial_indent=f"  {spec.variable}".ljust(column))
        for spec in SETTING_TABLE)


def _reference_text(spec: SettingSpec) -> str:
    default = "" if spec.default is None else f" Default: {_shown(spec.default)}."
    return spec.description + default


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return f"{value:g}" if isinstance(value, float) else str(value)
