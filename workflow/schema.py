"""Forward-only SQL migrations (``workflow/migrations/NNNN_name.sql``), applied at start.

Each file runs once, in number order, inside one transaction together with its row in
``schema_migrations``; applied files are never re-run or edited.

>>> import sqlite3
>>> connection = sqlite3.connect(":memory:", isolation_level=None)
>>> applied = apply_migrations(connection)
>>> applied[0], applied[-1], len(applied)
('0001_initial', '0006_run_parts', 6)
>>> apply_migrations(connection)
[]
"""

from __future__ import annotations

import sqlite3
import time
from importlib import resources


class MigrationError(RuntimeError):
    """A migration could not be applied; nothing of it was kept."""


def migration_files() -> list[tuple[str, str]]:
    """(name, SQL) of every migration, in order."""
    folder = resources.files("workflow") / "migrations"
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".sql")), key=lambda f: f.name)
    return [(f.name.removesuffix(".sql"), f.read_text(encoding="utf-8")) for f in files]


def apply_migrations(connection: sqlite3.Connection) -> list[str]:
    """Apply the migrations not yet applied; return their names."""
    connection.execute("CREATE TABLE IF NOT EXISTS schema_migrations "
                       "(name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    done = {row[0] for row in connection.execute("SELECT name FROM schema_migrations")}
    applied = []
    for name, sql in migration_files():
        if name in done:
            continue
        try:
            connection.executescript(
                f"BEGIN IMMEDIATE;\n{sql}\n"
                f"INSERT INTO schema_migrations VALUES ('{name}', {time.time()});\nCOMMIT;")
        except sqlite3.Error as exc:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise MigrationError(f"migration {name} failed: {exc}") from None
        applied.append(name)
    return applied
