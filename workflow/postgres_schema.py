"""Forward-only SQL migrations of the PostgreSQL store
(``workflow/migrations/postgres/NNNN_name.sql``), applied at start into one schema.

Each file runs once, in number order, in one transaction with its row in the schema's
``schema_migrations``. The transaction holds an advisory lock on the schema, so several
workers starting at once apply each file exactly once.

>>> [name for name, _ in postgres_migration_files()][:1]
['0001_initial']
>>> checked_schema("workflow"), checked_schema("tenant_a1")
('workflow', 'tenant_a1')
>>> checked_schema("x; DROP TABLE runs")
Traceback (most recent call last):
...
ValueError: schema name 'x; DROP TABLE runs' must be lower-case letters, digits and _ \
(at most 63, not starting with a digit)
"""

from __future__ import annotations

import hashlib
import re
import time
from importlib import resources
from typing import TYPE_CHECKING

from workflow.schema import MigrationError

if TYPE_CHECKING:
    import psycopg

SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")


class PostgresMigrationError(MigrationError):
    """A migration could not be applied; nothing of it was kept."""


def checked_schema(name: str) -> str:
    """``name`` if it is a plain lower-case identifier (it is spliced into SQL)."""
    if SCHEMA_NAME.fullmatch(name) is None:
        raise ValueError(f"schema name {name!r} must be lower-case letters, digits and _ "
                         "(at most 63, not starting with a digit)")
    return name


def lock_key(schema: str, job: str) -> int:
    """The advisory lock number of ``job`` in ``schema`` (a signed 64-bit integer).

    >>> lock_key("workflow", "migrate") == lock_key("workflow", "migrate")
    True
    >>> lock_key("workflow", "migrate") != lock_key("other", "migrate")
    True
    """
    digest = hashlib.blake2b(f"{schema}:{job}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def postgres_migration_files() -> list[tuple[str, str]]:
    """(name, SQL) of every PostgreSQL migration, in order."""
    folder = resources.files("workflow") / "migrations" / "postgres"
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".sql")), key=lambda f: f.name)
    return [(f.name.removesuffix(".sql"), f.read_text(encoding="utf-8")) for f in files]


def apply_postgres_migrations(connection: psycopg.Connection[tuple[object, ...]],
                              schema: str) -> list[str]:
    """Apply the migrations ``schema`` lacks (creating it); return their names."""
    import psycopg

    schema = checked_schema(schema)
    applied: list[str] = []
    for name, sql in postgres_migration_files():
        try:
            with connection.transaction():
                connection.execute("SELECT pg_advisory_xact_lock(%s)",
                                   (lock_key(schema, "migrate"),))
                connection.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
                connection.execute(f"SET LOCAL search_path TO {schema}")
                connection.execute("CREATE TABLE IF NOT EXISTS schema_migrations "
                                   "(name text PRIMARY KEY, applied_at double precision "
                                   "NOT NULL)")
                done = connection.execute("SELECT 1 FROM schema_migrations WHERE name = %s",
                                          (name,)).fetchone()
                if done is not None:
                    continue
                connection.execute(sql.encode())
                connection.execute("INSERT INTO schema_migrations VALUES (%s, %s)",
                                   (name, time.time()))
        except psycopg.Error as exc:
            raise PostgresMigrationError(f"migration {name} failed: {exc}") from None
        applied.append(name)
    return applied
