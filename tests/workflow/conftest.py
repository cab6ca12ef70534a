import itertools
from collections.abc import Callable
from pathlib import Path

import pytest

from workflow.demo import demo_definitions, demo_executors
from workflow.dsl import load_definition_text
from workflow.engine import Engine
from workflow.executors import ExecutorRegistry
from workflow.store import MemoryStore

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


class Clock:
    """A hand-driven clock."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _make_engine(*texts: str, executors: ExecutorRegistry | None = None, store=None,
                clock: Callable[[], float] | None = None) -> Engine:
    counter = itertools.count(1)
    engine = Engine(store if store is not None else MemoryStore(),
                    executors if executors is not None else demo_executors(),
                    clock=clock or Clock(), new_id=lambda: f"run{next(counter)}")
    for definition in demo_definitions():
        engine.register(definition)
    for text in texts:
        engine.register(load_definition_text(text))
    return engine


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture
def make_engine():
    """Factory: make_engine(*definition_texts, executors=None, store=None, clock=None)."""
    return _make_engine


@pytest.fixture
def clock() -> Clock:
    return Clock(1000.0)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def store(request, tmp_path):
    """Each store implementation in turn (PostgreSQL: a fresh schema of the session's
    throwaway server, dropped afterwards)."""
    if request.param == "memory":
        yield MemoryStore()
        return
    if request.param == "postgres":
        yield from postgres_store(request.getfixturevalue("pg_server"))
        return
    from workflow.sqlite_store import SqliteStore

    sqlite = SqliteStore(tmp_path / "workflow.db")
    yield sqlite
    sqlite.close()


def postgres_store(server):
    """A PostgresStore in a new schema of ``server`` (dropped when the generator ends)."""
    import uuid

    import psycopg

    from workflow.postgres_store import PostgresStore

    schema = f"test_{uuid.uuid4().hex[:12]}"
    store = PostgresStore(server.url, schema=schema, max_connections=4)
    try:
        yield store
    finally:
        store.close()
        with psycopg.connect(server.url, autocommit=True) as db:
            db.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture(params=["sqlite", "postgres"])
def query_store(request, tmp_path):
    """Each SQL store in turn (what the HTTP API reads: tenants, tasks, pages, audit)."""
    if request.param == "postgres":
        yield from postgres_store(request.getfixturevalue("pg_server"))
        return
    from workflow.sqlite_store import SqliteStore

    sqlite = SqliteStore(tmp_path / "workflow.db")
    yield sqlite
    sqlite.close()
