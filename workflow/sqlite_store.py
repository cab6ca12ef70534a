"""The embedded default store: SQLite in WAL mode, migrations applied at start.

Every :class:`~workflow.store.Commit` is one ``BEGIN IMMEDIATE`` transaction holding the
run document, its changed step-run rows, its outbox rows, its new queue rows, its task
changes and its audit row. Queue rows are claimed with a single ``UPDATE ... RETURNING``
that takes a lease. Each thread has its own connection (WAL lets readers run beside the
one writer); an in-memory database has one connection behind a lock.

>>> store = SqliteStore(":memory:")
>>> store.pending(), store.dead_letters()
((), ())
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from workflow.definitions import RegisteredDefinition, canonical_json, definition_from_json
from workflow.model import Run, RunDelta, StepRun
from workflow.schema import apply_migrations
from workflow.serialize import run_from_parts, run_head_json, run_parts
from workflow.sqlite_queries import (
    AUDIT_COLUMNS,
    TASK_COLUMNS,
    audit_from_row,
    cursor_after,
    decode_cursor,
    encode_cursor,
    run_filter_sql,
    task_filter_sql,
    task_from_row,
)
from workflow.store import (
    AuditEntry,
    Commit,
    ConcurrentTransitionError,
    DeadLetter,
    DefinitionRow,
    HumanTask,
    IdempotencyKeyUsedError,
    OutboxEntry,
    Page,
    QueuedSignal,
    QueueRowKind,
    RunFilter,
    TaskConflictError,
    TaskStatus,
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
                  created_at, updated_at, finished_at, document, revision, tenant,
                  business_reference)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
_UPDATE_RUN = """
UPDATE runs SET state = ?, updated_at = ?, finished_at = COALESCE(finished_at, ?),
    document = ?, revision = ?
WHERE run_id = ? AND revision = ?
"""
_UPSERT_STEP = """
INSERT OR REPLACE INTO step_runs (run_id, step_id, state, iteration, attempt, attempt_id,
                                  output, error, started_at, finished_at, tenant)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
_ENQUEUE = """
INSERT OR IGNORE INTO queue (signal_id, run_id, kind, payload, due_at, tenant)
VALUES (?, ?, ?, ?, ?, COALESCE((SELECT tenant FROM runs WHERE run_id = ?), 'default'))
"""
_INSERT_TASK = f"INSERT OR IGNORE INTO tasks ({TASK_COLUMNS}) VALUES ({', '.join('?' * 12)})"
_CLOSE_TASK = """
UPDATE tasks SET status = ?, closed_at = ?, decision = ?, closed_by = ?
WHERE task_id = ? AND status = 'open'
"""
_INSERT_AUDIT = """
INSERT INTO audit (tenant, actor, action, target, revision_before, revision_after, at, detail)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
"""
_QUEUE_COLUMNS = "signal_id, run_id, kind, payload, due_at, attempts, last_error"
_OUTBOX_COLUMNS = "seq, run_id, kind, step_id, detail, created_at, tenant"
_TENANT_TABLES = ("runs", "step_runs", "run_parts", "outbox", "queue", "dead_letters", "tasks")
_UPSERT_PART = """
INSERT INTO run_parts (run_id, part, key, seq, value) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (run_id, part, key) DO UPDATE SET value = excluded.value
"""
_PARTS = "SELECT part, key, value FROM run_parts WHERE run_id = ? ORDER BY part, seq, key"
CACHED_RUNS = 512
"""Runs a store keeps parsed in memory (the ones used last), each checked against the
stored revision before it is used, so a run another process changed is read again."""
STORED_LAYOUTS = 1000
"""Layouts the store keeps per tenant (the ones used last); a row of a large graph is a
few hundred kilobytes."""


class SqliteStore:
    """A :class:`~workflow.store.QueryStore` in one SQLite file (``:memory:`` for tests)."""

    def __init__(self, path: str | Path, *, busy_timeout: float = 30.0) -> None:
        self.path = str(path)
        self.busy_timeout = busy_timeout
        self._local = threading.local()
        self._shared_lock: threading.RLock | None = None
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._cache: OrderedDict[str, Run] = OrderedDict()
        self._cache_lock = threading.Lock()
        if self.path == ":memory:":  # one database only lives as long as its one connection
            self._shared_lock = threading.RLock()
            self._shared = self._open()
        apply_migrations(self.connection)

    def _open(self) -> sqlite3.Connection:
        try:
            connection = sqlite3.connect(self.path, isolation_level=None,
                                         timeout=self.busy_timeout,
                                         check_same_thread=False)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute("PRAGMA cache_size=-65536")
        except sqlite3.Error as exc:
            raise OSError(f"cannot open workflow store {self.path}: {exc}") from None
        with self._connections_lock:
            self._connections.append(connection)
        return connection

    @property
    def connection(self) -> sqlite3.Connection:
        """This thread's connection (opened on first use)."""
        if self._shared_lock is not None:
            return self._shared
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._local.connection = self._open()
        return connection

    def close(self) -> None:
        """Close every connection."""
        with self._connections_lock:
            for connection in self._connections:
                connection.close()
            self._connections.clear()
        self._local = threading.local()

    @contextmanager
    def _locked(self) -> Iterator[sqlite3.Connection]:
        if self._shared_lock is None:
            yield self.connection
            return
        with self._shared_lock:
            yield self._shared

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._locked() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def _rows(self, sql: str, parameters: Iterable[object] = ()) -> list[tuple[object, ...]]:
        with self._locked() as db:
            return list(db.execute(sql, tuple(parameters)).fetchall())

    # --- definitions --------------------------------------------------------------------

    def save_definition(self, registered: RegisteredDefinition, *, at: float,
                        audit: AuditEntry | None = None) -> None:
        d, tenant = registered.definition, registered.tenant
        with self._transaction() as db:
            row = db.execute("SELECT hash FROM definitions WHERE tenant = ? AND workflow = ? "
                             "AND version = ?", (tenant, d.workflow, d.version)).fetchone()
            if row is not None and row[0] != registered.hash:
                raise definition_conflict(row[0], registered)
            db.execute("INSERT OR IGNORE INTO definitions (tenant, workflow, version, hash, "
                       "document, created_at, steps) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (tenant, d.workflow, d.version, registered.hash, canonical_json(d), at,
                        len(d.steps)))
            if audit is not None and row is None:
                _audit(db, audit)

    def load_definitions(self) -> tuple[RegisteredDefinition, ...]:
        rows = self._rows("SELECT document, hash, tenant FROM definitions "
                          "ORDER BY created_at, tenant, workflow, version")
        return tuple(RegisteredDefinition(definition_from_json(str(doc)), str(digest),
                                          str(tenant)) for doc, digest, tenant in rows)

    def definition_rows(self, tenant: str, workflow: str | None = None
                        ) -> tuple[DefinitionRow, ...]:
        sql = ("SELECT tenant, workflow, version, hash, steps, created_at FROM definitions "
               "WHERE tenant = ?" + (" AND workflow = ?" if workflow is not None else "")
               + " ORDER BY workflow, created_at, version")
        parameters = (tenant,) if workflow is None else (tenant, workflow)
        return tuple(DefinitionRow(*row) for row in self._rows(sql, parameters))  # type: ignore[arg-type]

    # --- runs -----------------------------------------------------------------------------

    def load_run(self, run_id: str) -> Run | None:
        """The stored run: the cached one if the stored revision is still its revision,
        else its head and its part rows read again (a cost that grows with the run, paid
        once per change by another process, not once per event)."""
        rows = self._rows("SELECT revision, updated_at FROM runs WHERE run_id = ?", (run_id,))
        if not rows:
            return None
        cached = self._cached(run_id, rows[0][0], rows[0][1])
        if cached is not None:
            return cached
        head = self._rows("SELECT document FROM runs WHERE run_id = ?", (run_id,))
        return self._read_run(run_id, str(head[0][0])) if head else None

    def list_runs(self) -> tuple[Run, ...]:
        rows = self._rows("SELECT run_id, revision, updated_at, document FROM runs "
                          "ORDER BY created_at, run_id")
        return tuple(self._run_of_row(*row) for row in rows)

    def _run_of_row(self, run_id: object, revision: object, updated_at: object,
                    head: object) -> Run:
        cached = self._cached(str(run_id), revision, updated_at)
        return cached if cached is not None else self._read_run(str(run_id), str(head))

    def _read_run(self, run_id: str, head: str) -> Run:
        parts = [(str(p), str(k), str(v)) for p, k, v in self._rows(_PARTS, (run_id,))]
        run = run_from_parts(head, parts)
        self._remember(run)
        return run

    def _cached(self, run_id: str, revision: object, updated_at: object) -> Run | None:
        with self._cache_lock:
            run = self._cache.get(run_id)
            if run is None or run.revision != revision or run.updated_at != updated_at:
                return None
            self._cache.move_to_end(run_id)
            return run

    def _remember(self, run: Run) -> None:
        with self._cache_lock:
            self._cache[run.run_id] = run
            self._cache.move_to_end(run.run_id)
            while len(self._cache) > CACHED_RUNS:
                self._cache.popitem(last=False)

    def _forget(self, run_ids: Iterable[str]) -> None:
        with self._cache_lock:
            for run_id in run_ids:
                self._cache.pop(run_id, None)

    def find_runs(self, tenant: str, where: RunFilter, *, limit: int,
                  after: str | None = None) -> Page[Run]:
        """Runs of ``tenant`` matching ``where``, newest first, ``limit`` a page."""
        conditions, parameters = run_filter_sql(tenant, where)
        if after is not None:
            created_at, run_id = decode_cursor(after)
            conditions.append("(created_at < ? OR (created_at = ? AND run_id < ?))")
            parameters += [created_at, created_at, run_id]
        rows = self._rows(f"SELECT run_id, revision, updated_at, document, created_at FROM runs "
                          f"WHERE {' AND '.join(conditions)} ORDER BY created_at DESC, "
                          f"run_id DESC LIMIT ?", (*parameters, limit + 1))
        runs = tuple(self._run_of_row(*row[:4]) for row in rows[:limit])
        return Page(runs, cursor_after(rows, limit, lambda row: (row[4], row[0])))

    def commit(self, commit: Commit, *, at: float) -> None:
        with self._transaction() as db:
            run = commit.run
            if run is not None:
                self._write_run(db, run, commit.previous, at, commit.delta)
                _many(db, "INSERT INTO outbox (run_id, kind, step_id, detail, created_at, "
                      "tenant) VALUES (?, ?, ?, ?, ?, ?)",
                      [(run.run_id, e.kind, e.step_id, e.detail, at, run.tenant)
                       for e in commit.events])
                self._write_tasks(db, commit, at)
                if commit.idempotency is not None:
                    _claim_key(db, run, commit, at)
            _many(db, _ENQUEUE, [(s.signal_id, s.run_id, s.kind, json.dumps(s.payload),
                                  s.due_at, s.run_id) for s in commit.enqueue])
            finished = (*commit.cancel, *(() if commit.acknowledge is None
                                          else (commit.acknowledge,)))
            _many(db, "DELETE FROM queue WHERE signal_id = ?", [(s,) for s in finished])
            if commit.audit is not None:
                _audit(db, commit.audit)
        if commit.run is not None:
            self._remember(commit.run)

    @staticmethod
    def _write_run(db: sqlite3.Connection, run: Run, previous: Run | None, at: float,
                   delta: RunDelta | None = None) -> None:
        """The run's head row and the part rows and step-run rows its transition changed."""
        finished = at if run.state.is_finished else None
        document, revision = run_head_json(run), run.revision
        if previous is None:
            try:
                db.execute(_INSERT_RUN, (run.run_id, run.workflow, run.version,
                                         run.definition_hash, run.state.value, run.parent_run_id,
                                         run.created_at, run.updated_at, finished, document,
                                         revision, run.tenant, run.business_reference))
            except sqlite3.IntegrityError:
                raise ConcurrentTransitionError(f"run '{run.run_id}' already exists") from None
        else:
            expected = previous.revision
            updated = db.execute(_UPDATE_RUN, (run.state.value, run.updated_at, finished,
                                               document, revision, run.run_id, expected))
            if updated.rowcount != 1:
                raise ConcurrentTransitionError(
                    f"run '{run.run_id}' changed concurrently (expected revision {expected})")
        written, deleted = run_parts(run, previous, delta)
        _many(db, _UPSERT_PART, [(run.run_id, *row) for row in written])
        _many(db, "DELETE FROM run_parts WHERE run_id = ? AND part = ? AND key = ?",
              [(run.run_id, *row) for row in deleted])
        steps = run.steps
        _many(db, _UPSERT_STEP, [_step_row(run, steps[key]) for part, key, _, _ in written
                                 if part == "step"])

    @staticmethod
    def _write_tasks(db: sqlite3.Connection, commit: Commit, at: float) -> None:
        _many(db, _INSERT_TASK, [(t.task_id, t.tenant, t.run_id, t.step_id, t.attempt_id,
                                  t.reason, t.assignee, t.status.value, t.created_at,
                                  t.closed_at, t.decision, t.closed_by)
                                 for t in commit.open_tasks])
        for closure in commit.close_tasks:
            closed = db.execute(_CLOSE_TASK, (closure.status.value, at, closure.decision,
                                              closure.closed_by, closure.task_id))
            if closure.required and closed.rowcount != 1:
                raise TaskConflictError(f"task '{closure.task_id}' is no longer open")

    def idempotent_run(self, tenant: str, key: str) -> tuple[str, str] | None:
        """(run id, request digest) of the start that used ``key``, if any."""
        rows = self._rows("SELECT run_id, request_hash FROM idempotency_keys "
                          "WHERE tenant = ? AND key = ?", (tenant, key))
        return (str(rows[0][0]), str(rows[0][1])) if rows else None

    # --- tasks, events, audit ------------------------------------------------------------

    def tasks(self, tenant: str, *, status: TaskStatus | None = None,
              assignee: str | None = None, run_id: str | None = None, limit: int = 100,
              after: str | None = None) -> Page[HumanTask]:
        """Human tasks of ``tenant``, oldest first."""
        conditions, values = task_filter_sql(tenant, status=status, assignee=assignee,
                                             run_id=run_id)
        if after is not None:
            created_at, task_id = decode_cursor(after)
            conditions.append("(created_at > ? OR (created_at = ? AND task_id > ?))")
            values += [created_at, created_at, task_id]
        rows = self._rows(f"SELECT {TASK_COLUMNS} FROM tasks WHERE {' AND '.join(conditions)} "
                          "ORDER BY created_at, task_id LIMIT ?", (*values, limit + 1))
        return Page(tuple(task_from_row(row) for row in rows[:limit]),
                    cursor_after(rows, limit, lambda row: (row[8], row[0])))

    def task(self, task_id: str) -> HumanTask | None:
        rows = self._rows(f"SELECT {TASK_COLUMNS} FROM tasks WHERE task_id = ?", (task_id,))
        return task_from_row(rows[0]) if rows else None

    def outbox(self, run_id: str | None = None) -> tuple[OutboxEntry, ...]:
        query = f"SELECT {_OUTBOX_COLUMNS} FROM outbox"
        rows = (self._rows(query + " WHERE run_id = ? ORDER BY seq", (run_id,))
                if run_id is not None else self._rows(query + " ORDER BY seq"))
        return tuple(OutboxEntry(*row) for row in rows)  # type: ignore[arg-type]

    def events_after(self, tenant: str, after: int, limit: int) -> tuple[OutboxEntry, ...]:
        """The outbox of ``tenant`` after sequence number ``after``, in order."""
        return self._outbox_page(tenant, None, after, limit)

    def run_events(self, tenant: str, run_id: str, after: int, limit: int
                   ) -> tuple[OutboxEntry, ...]:
        """The outbox rows of one run of ``tenant`` after sequence number ``after``, in
        order: the run's history, a page at a time."""
        return self._outbox_page(tenant, run_id, after, limit)

    def _outbox_page(self, tenant: str, run_id: str | None, after: int, limit: int
                     ) -> tuple[OutboxEntry, ...]:
        """Up to ``limit`` outbox rows of ``tenant`` (of one run, unless ``run_id`` is
        ``None``) after sequence number ``after``, in order."""
        of_run, params = (("", (tenant, after, limit)) if run_id is None else
                          ("run_id = ? AND ", (tenant, run_id, after, limit)))
        rows = self._rows(f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE tenant = ? AND "
                          f"{of_run}seq > ? ORDER BY seq LIMIT ?",
                          params)
        return tuple(OutboxEntry(*row) for row in rows)  # type: ignore[arg-type]

    def save_audit(self, entry: AuditEntry) -> None:
        with self._transaction() as db:
            _audit(db, entry)

    def audit_entries(self, tenant: str, after: int, limit: int) -> tuple[AuditEntry, ...]:
        rows = self._rows(f"SELECT {AUDIT_COLUMNS} FROM audit WHERE tenant = ? AND seq > ? "
                          "ORDER BY seq LIMIT ?", (tenant, after, limit))
        return tuple(audit_from_row(row) for row in rows)

    # --- the queue ----------------------------------------------------------------------

    def claim(self, owner: str, *, now: float, lease_seconds: float,
              wall: float | None = None) -> QueuedSignal | None:
        """Lease the next row due by ``now`` for ``lease_seconds`` of ``wall`` time (default
        ``now``). A row no engine can read (an unknown kind, a payload that is not JSON)
        goes straight to the dead letters, so it cannot block the rows behind it."""
        lease_now = now if wall is None else wall
        while True:
            with self._locked() as db:
                row = db.execute(_CLAIM, (owner, lease_now + lease_seconds, now,
                                          lease_now)).fetchone()
            if row is None:
                return None
            signal_id, run_id, kind, payload, due_at, attempts, last_error = row
            try:
                return QueuedSignal(signal_id, run_id, QueueRowKind(kind), json.loads(payload),
                                    due_at, attempts, last_error)
            except ValueError as error:
                self._bury(signal_id, run_id, kind, payload, attempts,
                           f"unreadable queue row: {error}", now)

    def _bury(self, signal_id: str, run_id: str, kind: str, payload: str, attempts: int,
              error: str, now: float) -> None:
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO dead_letters (signal_id, run_id, kind, payload, "
                       "attempts, error, failed_at, tenant) VALUES (?, ?, ?, ?, ?, ?, ?, "
                       "COALESCE((SELECT tenant FROM runs WHERE run_id = ?), 'default'))",
                       (signal_id, run_id, kind, payload if _is_json(payload) else
                        json.dumps(payload), attempts, error, now, run_id))
            db.execute("DELETE FROM queue WHERE signal_id = ?", (signal_id,))

    def acknowledge(self, signal_id: str) -> None:
        with self._locked() as db:
            db.execute("DELETE FROM queue WHERE signal_id = ?", (signal_id,))

    def release(self, signal_id: str, error: str, *, now: float, retry_at: float | None = None,
                count_attempt: bool = True) -> None:
        with self._locked() as db:
            db.execute("UPDATE queue SET lease_owner = NULL, lease_until = NULL, "
                       "last_error = ?, due_at = COALESCE(?, due_at), attempts = attempts - ? "
                       "WHERE signal_id = ?", (error, retry_at, 0 if count_attempt else 1,
                                               signal_id))

    def dead_letter(self, signal: QueuedSignal, error: str, *, now: float) -> None:
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO dead_letters (signal_id, run_id, kind, payload, "
                       "attempts, error, failed_at, tenant) VALUES (?, ?, ?, ?, ?, ?, ?, "
                       "COALESCE((SELECT tenant FROM runs WHERE run_id = ?), 'default'))",
                       (signal.signal_id, signal.run_id, signal.kind, json.dumps(signal.payload),
                        signal.attempts, error, now, signal.run_id))
            db.execute("DELETE FROM queue WHERE signal_id = ?", (signal.signal_id,))

    def dead_letters(self, tenant: str | None = None) -> tuple[DeadLetter, ...]:
        where = "" if tenant is None else " WHERE tenant = ?"
        rows = self._rows("SELECT signal_id, run_id, kind, payload, attempts, error, failed_at, "
                          f"tenant FROM dead_letters{where} ORDER BY failed_at, signal_id",
                          () if tenant is None else (tenant,))
        return tuple(DeadLetter(str(s), str(r), _kind(str(k)), json.loads(str(p)), int(str(a)),
                                str(e), float(str(f)), str(t))
                     for s, r, k, p, a, e, f, t in rows)

    def replay(self, signal_id: str, *, now: float, audit: AuditEntry | None = None) -> None:
        with self._transaction() as db:
            row = db.execute("SELECT run_id, kind, payload, tenant FROM dead_letters "
                             "WHERE signal_id = ?", (signal_id,)).fetchone()
            if row is None:
                raise LookupError(f"no dead letter '{signal_id}'")
            db.execute("INSERT OR REPLACE INTO queue (signal_id, run_id, kind, payload, due_at, "
                       "tenant) VALUES (?, ?, ?, ?, ?, ?)", (signal_id, *row[:3], now, row[3]))
            db.execute("DELETE FROM dead_letters WHERE signal_id = ?", (signal_id,))
            if audit is not None:
                _audit(db, audit)

    def next_due(self) -> float | None:
        value = self._rows("SELECT MIN(due_at) FROM queue")[0][0]
        return None if value is None else float(str(value))

    def pending(self) -> tuple[QueuedSignal, ...]:
        return _signals(self._rows(f"SELECT {_QUEUE_COLUMNS} FROM queue ORDER BY due_at, rowid"))

    def queued_for(self, run_id: str) -> tuple[QueuedSignal, ...]:
        """The queue rows of one run, in due order."""
        return _signals(self._rows(f"SELECT {_QUEUE_COLUMNS} FROM queue WHERE run_id = ? "
                                   "ORDER BY due_at, rowid", (run_id,)))

    def purge(self, *, before: float, tenant: str | None = None,
              audit: AuditEntry | None = None) -> int:
        with self._transaction() as db:
            sql = "SELECT run_id FROM runs WHERE finished_at IS NOT NULL AND finished_at < ?"
            parameters: tuple[object, ...] = (before,)
            if tenant is not None:
                sql, parameters = sql + " AND tenant = ?", (before, tenant)
            old = [r for (r,) in db.execute(sql, parameters)]
            for table in _TENANT_TABLES:
                db.executemany(f"DELETE FROM {table} WHERE run_id = ?", [(r,) for r in old])
            if audit is not None:
                _audit(db, audit)
        self._forget(old)
        return len(old)

    # --- the layout cache -----------------------------------------------------------------

    def cached_layout(self, tenant: str, key: str, *, at: float) -> str | None:
        """The layout document stored under ``key`` for ``tenant`` (marked used ``at``)."""
        with self._locked() as db:
            rows = db.execute("UPDATE layout_cache SET used_at = ? WHERE tenant = ? AND key = ? "
                              "RETURNING document", (at, tenant, key)).fetchall()
        return str(rows[0][0]) if rows else None

    def save_layout(self, tenant: str, key: str, document: str, *, at: float,
                    keep: int = STORED_LAYOUTS) -> None:
        """Store a layout document; only the ``keep`` layouts of ``tenant`` used last stay."""
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO layout_cache (tenant, key, document, created_at, "
                       "used_at) VALUES (?, ?, ?, ?, ?)", (tenant, key, document, at, at))
            db.execute("DELETE FROM layout_cache WHERE tenant = ? AND key NOT IN (SELECT key "
                       "FROM layout_cache WHERE tenant = ? ORDER BY used_at DESC, key LIMIT ?)",
                       (tenant, tenant, keep))

    # --- gauges and health ----------------------------------------------------------------

    def run_counts(self) -> Iterable[tuple[str, str, str, int]]:
        """(tenant, workflow, state, count) over every stored run."""
        rows = self._rows("SELECT tenant, workflow, state, COUNT(*) FROM runs "
                          "GROUP BY tenant, workflow, state ORDER BY tenant, workflow, state")
        return [(str(t), str(w), str(s), int(str(n))) for t, w, s, n in rows]

    def pending_timers(self) -> Iterable[tuple[str, int]]:
        """(tenant, count) of queued timer firings."""
        rows = self._rows("SELECT tenant, COUNT(*) FROM queue WHERE kind = 'event' AND "
                          "json_extract(payload, '$.type') = 'TimerFired' GROUP BY tenant "
                          "ORDER BY tenant")
        return [(str(t), int(str(n))) for t, n in rows]

    def dead_letter_counts(self) -> Iterable[tuple[str, int]]:
        rows = self._rows("SELECT tenant, COUNT(*) FROM dead_letters GROUP BY tenant "
                          "ORDER BY tenant")
        return [(str(t), int(str(n))) for t, n in rows]

    def check(self) -> None:
        """Raise :class:`sqlite3.Error` unless the store answers a query."""
        self._rows("SELECT 1 FROM schema_migrations LIMIT 1")

    def local_read_size(self, run_id: str) -> int | None:
        """Bytes of the run's stored head and parts (``None``: no such run). Readers of a
        file in WAL mode never wait for the writer; the shared connection of ``:memory:``
        does (it is locked during a commit), so it answers ``None``."""
        if self._shared_lock is not None:
            return None
        rows = self._rows("SELECT length(document) + (SELECT COALESCE(SUM(length(value)), 0) "
                          "FROM run_parts WHERE run_id = ?1) FROM runs WHERE run_id = ?1",
                          (run_id,))
        return int(str(rows[0][0])) if rows else None


def _signals(rows: list[tuple[object, ...]]) -> tuple[QueuedSignal, ...]:
    """Queue rows (rows no engine can read are left out: the next claim buries them)."""
    signals = []
    for s, r, k, p, d, a, e in rows:
        try:
            signals.append(QueuedSignal(str(s), str(r), QueueRowKind(str(k)), json.loads(str(p)),
                                        float(str(d)), int(str(a)), None if e is None else str(e)))
        except ValueError:
            continue
    return tuple(signals)


_ROW_KINDS = frozenset(kind.value for kind in QueueRowKind)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _kind(text: str) -> str:
    """A dead letter's kind: a :class:`QueueRowKind`, or the unreadable text it had."""
    return QueueRowKind(text) if text in _ROW_KINDS else text


def _many(db: sqlite3.Connection, sql: str, rows: list[tuple[object, ...]]) -> None:
    if len(rows) == 1:
        db.execute(sql, rows[0])
    elif rows:
        db.executemany(sql, rows)


def _audit(db: sqlite3.Connection, e: AuditEntry) -> None:
    db.execute(_INSERT_AUDIT, (e.tenant, e.actor, e.action, e.target, e.revision_before,
                               e.revision_after, e.at, e.detail))


def _claim_key(db: sqlite3.Connection, run: Run, commit: Commit, at: float) -> None:
    claim = commit.idempotency
    assert claim is not None
    try:
        db.execute("INSERT INTO idempotency_keys VALUES (?, ?, ?, ?, ?)",
                   (run.tenant, claim.key, run.run_id, claim.request_hash, at))
    except sqlite3.IntegrityError:
        raise IdempotencyKeyUsedError(run.tenant, claim.key) from None


def _step_row(run: Run, s: StepRun) -> tuple[object, ...]:
    return (run.run_id, s.step_id, s.state.value, s.iteration, s.attempt, s.attempt_id,
            json.dumps(s.output), s.error, s.started_at, s.finished_at, run.tenant)


__all__ = ["SqliteStore", "encode_cursor"]
