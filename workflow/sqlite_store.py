"""The embedded default store: SQLite in WAL mode, migrations applied at start.

Every :class:`~workflow.store.Commit` is one ``BEGIN IMMEDIATE`` transaction holding the
run document, its changed step-run rows, its outbox rows and its new queue rows. Queue
rows are claimed with a single ``UPDATE ... RETURNING`` that takes a lease.

>>> store = SqliteStore(":memory:")
>>> store.pending(), store.dead_letters()
((), ())
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from workflow.definitions import RegisteredDefinition, canonical_json, definition_from_json
from workflow.model import Run, StepRun
from workflow.schema import apply_migrations
from workflow.serialize import run_from_json, run_to_json
from workflow.store import (
    Commit,
    ConcurrentTransitionError,
    DeadLetter,
    OutboxEntry,
    QueuedSignal,
    QueueRowKind,
    definition_conflict,
)

_CLAIM = """
UPDATE queue SET attempts = attempts + 1, lease_owner = ?, lease_until = ?
WHERE signal_id = (
    SELECT signal_id FROM queue
    WHERE due_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
    ORDER BY due_at, rowid LIMIT 1)
RETURNING signal_id, run_id, kind, payload, due_at, attempts, last_error
"""
_INSERT_RUN = """
INSERT INTO runs (run_id, workflow, version, definition_hash, state, parent_run_id,
                  created_at, updated_at, finished_at, document, revision)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
_UPDATE_RUN = """
UPDATE runs SET state = ?, updated_at = ?, finished_at = COALESCE(finished_at, ?),
    document = ?, revision = ?
WHERE run_id = ? AND revision = ?
"""
_UPSERT_STEP = """
INSERT OR REPLACE INTO step_runs (run_id, step_id, state, iteration, attempt, attempt_id,
                                  output, error, started_at, finished_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""


class SqliteStore:
    """A :class:`~workflow.store.Store` in one SQLite file (``:memory:`` for tests)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        try:
            self.connection = sqlite3.connect(self.path, isolation_level=None, timeout=10.0)
            self.connection.execute("PRAGMA journal_mode=WAL")
            self.connection.execute("PRAGMA synchronous=NORMAL")
            self.connection.execute("PRAGMA cache_size=-65536")
        except sqlite3.Error as exc:
            raise OSError(f"cannot open workflow store {self.path}: {exc}") from None
        apply_migrations(self.connection)

    def close(self) -> None:
        """Close the connection."""
        self.connection.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            yield self.connection
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise
        self.connection.execute("COMMIT")

    def save_definition(self, registered: RegisteredDefinition, *, at: float) -> None:
        d = registered.definition
        with self._transaction() as db:
            row = db.execute("SELECT hash FROM definitions WHERE workflow = ? AND version = ?",
                             (d.workflow, d.version)).fetchone()
            if row is not None and row[0] != registered.hash:
                raise definition_conflict(row[0], registered)
            db.execute("INSERT OR IGNORE INTO definitions VALUES (?, ?, ?, ?, ?)",
                       (d.workflow, d.version, registered.hash, canonical_json(d), at))

    def load_definitions(self) -> tuple[RegisteredDefinition, ...]:
        rows = self.connection.execute(
            "SELECT document, hash FROM definitions ORDER BY created_at, workflow, version")
        return tuple(RegisteredDefinition(definition_from_json(doc), digest)
                     for doc, digest in rows)

    def load_run(self, run_id: str) -> Run | None:
        row = self.connection.execute("SELECT document FROM runs WHERE run_id = ?",
                                      (run_id,)).fetchone()
        return None if row is None else run_from_json(row[0])

    def list_runs(self) -> tuple[Run, ...]:
        rows = self.connection.execute("SELECT document FROM runs ORDER BY created_at, run_id")
        return tuple(run_from_json(doc) for (doc,) in rows)

    def commit(self, commit: Commit, *, at: float) -> None:
        with self._transaction() as db:
            run = commit.run
            if run is not None:
                self._write_run(db, run, commit.previous, at)
                _many(db, "INSERT INTO outbox (run_id, kind, step_id, detail, created_at) "
                      "VALUES (?, ?, ?, ?, ?)",
                      [(run.run_id, e.kind, e.step_id, e.detail, at) for e in commit.events])
            _many(db, "INSERT OR IGNORE INTO queue (signal_id, run_id, kind, payload, due_at) "
                  "VALUES (?, ?, ?, ?, ?)",
                  [(s.signal_id, s.run_id, s.kind, json.dumps(s.payload), s.due_at)
                   for s in commit.enqueue])
            finished = (*commit.cancel, *(() if commit.acknowledge is None
                                          else (commit.acknowledge,)))
            _many(db, "DELETE FROM queue WHERE signal_id = ?", [(s,) for s in finished])

    @staticmethod
    @staticmethod
    def _write_run(db: sqlite3.Connection, run: Run, previous: Run | None, at: float) -> None:
        finished = at if run.state.is_finished else None
        document, revision = run_to_json(run), len(run.processed)
        if previous is None:
            try:
                db.execute(_INSERT_RUN, (run.run_id, run.workflow, run.version,
                                         run.definition_hash, run.state.value, run.parent_run_id,
                                         run.created_at, run.updated_at, finished, document,
                                         revision))
            except sqlite3.IntegrityError:
                raise ConcurrentTransitionError(f"run '{run.run_id}' already exists") from None
        else:
            expected = len(previous.processed)
            updated = db.execute(_UPDATE_RUN, (run.state.value, run.updated_at, finished,
                                               document, revision, run.run_id, expected))
            if updated.rowcount != 1:
                raise ConcurrentTransitionError(
                    f"run '{run.run_id}' changed concurrently (expected revision {expected})")
        old = previous.steps if previous is not None else {}
        _many(db, _UPSERT_STEP, [_step_row(run.run_id, s) for step_id, s in run.steps.items()
                                 if old.get(step_id) != s])

    def claim(self, owner: str, *, now: float, lease_seconds: float) -> QueuedSignal | None:
        row = self.connection.execute(_CLAIM, (owner, now + lease_seconds, now, now)).fetchone()
        if row is None:
            return None
        signal_id, run_id, kind, payload, due_at, attempts, last_error = row
        return QueuedSignal(signal_id, run_id, QueueRowKind(kind), json.loads(payload), due_at,
                            attempts, last_error)

    def acknowledge(self, signal_id: str) -> None:
        self.connection.execute("DELETE FROM queue WHERE signal_id = ?", (signal_id,))

    def release(self, signal_id: str, error: str, *, now: float) -> None:
        self.connection.execute("UPDATE queue SET lease_owner = NULL, lease_until = NULL, "
                                "last_error = ? WHERE signal_id = ?", (error, signal_id))

    def dead_letter(self, signal: QueuedSignal, error: str, *, now: float) -> None:
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO dead_letters VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (signal.signal_id, signal.run_id, signal.kind, json.dumps(signal.payload),
                        signal.attempts, error, now))
            db.execute("DELETE FROM queue WHERE signal_id = ?", (signal.signal_id,))

    def dead_letters(self) -> tuple[DeadLetter, ...]:
        rows = self.connection.execute(
            "SELECT signal_id, run_id, kind, payload, attempts, error, failed_at "
            "FROM dead_letters ORDER BY failed_at, signal_id")
        return tuple(DeadLetter(s, r, QueueRowKind(k), json.loads(p), a, e, f)
                     for s, r, k, p, a, e, f in rows)

    def replay(self, signal_id: str, *, now: float) -> None:
        with self._transaction() as db:
            row = db.execute("SELECT run_id, kind, payload FROM dead_letters "
                             "WHERE signal_id = ?", (signal_id,)).fetchone()
            if row is None:
                raise LookupError(f"no dead letter '{signal_id}'")
            db.execute("INSERT OR REPLACE INTO queue (signal_id, run_id, kind, payload, due_at) "
                       "VALUES (?, ?, ?, ?, ?)", (signal_id, *row, now))
            db.execute("DELETE FROM dead_letters WHERE signal_id = ?", (signal_id,))

    def next_due(self) -> float | None:
        value = self.connection.execute("SELECT MIN(due_at) FROM queue").fetchone()[0]
        return None if value is None else float(value)

    def pending(self) -> tuple[QueuedSignal, ...]:
        rows = self.connection.execute(
            "SELECT signal_id, run_id, kind, payload, due_at, attempts, last_error FROM queue "
            "ORDER BY due_at, rowid")
        return tuple(QueuedSignal(s, r, QueueRowKind(k), json.loads(p), d, a, e)
                     for s, r, k, p, d, a, e in rows)

    def outbox(self, run_id: str | None = None) -> tuple[OutboxEntry, ...]:
        query = "SELECT seq, run_id, kind, step_id, detail, created_at FROM outbox"
        rows = (self.connection.execute(query + " WHERE run_id = ? ORDER BY seq", (run_id,))
                if run_id is not None else self.connection.execute(query + " ORDER BY seq"))
        return tuple(OutboxEntry(*row) for row in rows)

    def purge(self, *, before: float) -> int:
        with self._transaction() as db:
            old = [r for (r,) in db.execute(
                "SELECT run_id FROM runs WHERE finished_at IS NOT NULL AND finished_at < ?",
                (before,))]
            for table in ("runs", "step_runs", "outbox", "queue", "dead_letters"):
                db.executemany(f"DELETE FROM {table} WHERE run_id = ?", [(r,) for r in old])
        return len(old)


def _many(db: sqlite3.Connection, sql: str, rows: list[tuple[object, ...]]) -> None:
    if len(rows) == 1:
        db.execute(sql, rows[0])
    elif rows:
        db.executemany(sql, rows)


def _step_row(run_id: str, s: StepRun) -> tuple[object, ...]:
    return (run_id, s.step_id, s.state.value, s.iteration, s.attempt, s.attempt_id,
            json.dumps(s.output), s.error, s.started_at, s.finished_at)
