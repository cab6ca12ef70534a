"""Which store a ``--db`` value or ``WFR_DATABASE_URL`` names, and opening it.

A ``postgresql://`` (or ``postgres://``) URL is the shared PostgreSQL store (its optional
``?schema=NAME`` picks the schema, default ``workflow``); ``sqlite:///FILE`` or a plain
path is an SQLite file. psycopg is imported only when a PostgreSQL URL is opened.

>>> store_target(None, {})
'./workflow.db'
>>> store_target(None, {"WFR_DATABASE_URL": "postgresql://db/wfr"})
'postgresql://db/wfr'
>>> store_target("w.db", {"WFR_DATABASE_URL": "postgresql://db/wfr"})  # --db wins
'w.db'
>>> sqlite_path("sqlite:///runs/w.db"), sqlite_path("sqlite:////var/w.db"), sqlite_path("w.db")
('runs/w.db', '/var/w.db', 'w.db')
>>> sqlite_path("mysql://db/wfr")
Traceback (most recent call last):
...
ValueError: unsupported database URL 'mysql://db/wfr': use a SQLite file path, \
sqlite:///FILE or postgresql://...
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, TypeAlias

from workflow.sqlite_store import SqliteStore

if TYPE_CHECKING:
    from workflow.postgres_store import PostgresStore

DATABASE_URL_VARIABLE = "WFR_DATABASE_URL"
DEFAULT_DATABASE = "./workflow.db"
ServiceStore: TypeAlias = "SqliteStore | PostgresStore"


def store_target(db: str | None, environ: Mapping[str, str] | None = None) -> str:
    """``db`` if given, else ``WFR_DATABASE_URL``, else ``./workflow.db``."""
    environment = os.environ if environ is None else environ
    return db or environment.get(DATABASE_URL_VARIABLE) or DEFAULT_DATABASE


def is_postgres(target: str) -> bool:
    """Whether ``target`` is a PostgreSQL URL."""
    return target.startswith(("postgresql://", "postgres://"))


def sqlite_path(target: str) -> str:
    """The file of a SQLite target (``sqlite:///FILE`` or a path)."""
    if target.startswith("sqlite:///"):
        return target.removeprefix("sqlite:///")
    if "://" in target:
        raise ValueError(f"unsupported database URL {target!r}: use a SQLite file path, "
                         "sqlite:///FILE or postgresql://...")
    return target


def open_store(target: str, *, migrate: bool = True, max_connections: int = 10,
               busy_timeout: float = 30.0) -> ServiceStore:
    """The store ``target`` names, migrated (``OSError`` when it cannot be opened);
    ``busy_timeout``: seconds SQLite waits for another process's write lock."""
    if is_postgres(target):
        from workflow.postgres_store import PostgresStore

        return PostgresStore(target, migrate=migrate, max_connections=max_connections)
    return SqliteStore(sqlite_path(target), busy_timeout=busy_timeout)


def listen_for_signals(store: ServiceStore, wake: Callable[[], None],
                       stop: threading.Event) -> bool:
    """Call ``wake`` whenever another process queues a due row (PostgreSQL's ``LISTEN``);
    False for SQLite, where pumps poll (within their bounded idle interval)."""
    if isinstance(store, SqliteStore):
        return False
    store.listen(wake, stop)
    return True


@contextmanager
def singleton(store: object, job: str) -> Iterator[bool]:
    """Whether this process may run the singleton ``job`` now: PostgreSQL's advisory lock
    (one holder among every worker of the database); other stores always (SQLite is one
    machine, and the jobs only queue signals under the engine's own ids, so two at once
    double nothing)."""
    hold: Callable[[str], AbstractContextManager[bool]] | None = getattr(store, "singleton",
                                                                        None)
    if hold is None:
        yield True
        return
    with hold(job) as held:
        yield held
