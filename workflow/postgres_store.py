"""The shared store: PostgreSQL through psycopg 3 and a psycopg_pool connection pool.

Several worker processes on several machines (and several service processes) use one
database. Every :class:`~workflow.store.Commit` is one transaction holding the run's
revision-checked update, its changed step-run rows, its new queue rows, its task changes,
its outbox rows and its audit row, as on SQLite. Workers claim queue rows with
``FOR UPDATE SKIP LOCKED`` and a lease, so any number share one queue; a commit that queues
a due row sends ``NOTIFY workflow_signal`` so idle workers wake at once (:meth:`listen`).
Singleton jobs take an advisory lock (:meth:`singleton`). A pump can claim several rows at
once (:meth:`claim_batch`) and commit their transitions in one transaction
(:meth:`commit_group`, :mod:`workflow.batch`); every commit is written with the same
multi-row statements (:mod:`workflow.postgres_group`).

Tenant isolation is also the database's: every tenant table has row-level security
(``FORCE``d, so it binds the owner), and each transaction first sets its tenant with
``set_config('workflow.tenant', tenant, true)``, i.e. ``SET LOCAL`` on the same
connection. Reads by tenant set that tenant; a commit of a run sets the run's tenant; the
engine's cross-tenant work (claiming any tenant's queue rows, loading the run a row names)
sets :data:`ENGINE_SCOPE`. A connection that sets nothing sees no rows.

A run is stored as its head and one row per step run, edge decision, processed event key
and completion (:mod:`workflow.postgres_group`): a commit writes only what it changed.
A store keeps the runs it read or wrote (:class:`~workflow.run_cache.RunCache`) and uses
one again while the stored revision is still its revision, so a worker applying events to
a run reads it once, not once per event: a claim reads only the revisions of its rows'
runs, then the runs the store lacks in one statement (:data:`_ITEMS`, one text to parse
per run). Other reads rebuild the run in their own statement unless it has more than
:data:`INLINE_ITEMS` items.

The outbox and audit rows of a transaction are its last writes, under a transaction-level
advisory lock, so their sequence numbers follow commit order: a reader that has seen
``seq`` N never later finds a newly committed row below N.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import psycopg
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from workflow import postgres_group as group
from workflow.definitions import RegisteredDefinition, canonical_json, definition_from_json
from workflow.model import Run
from workflow.postgres_schema import apply_postgres_migrations, checked_schema, lock_key
from workflow.run_cache import RunCache, item_count
from workflow.serialize import run_from_head, run_head_json
from workflow.sqlite_queries import (
    AUDIT_COLUMNS,
    TASK_COLUMNS,
    audit_from_row,
    cursor_after,
    decode_cursor,
    run_filter_sql,
    task_filter_sql,
)
from workflow.sqlite_queries import task_from_row as _task_from_row
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

ENGINE_SCOPE = "*"
"""The tenant setting of the engine's own cross-tenant work (it sees every tenant's rows)."""
CHANNEL = "workflow_signal"
"""The NOTIFY channel of new due queue rows; the payload is the store's schema."""
DEFAULT_SCHEMA = "workflow"
LAZY = "SET LOCAL synchronous_commit TO off"
"""Claims, releases and acknowledgements commit without waiting for the WAL flush: losing
one in a server crash only makes a row claimable (or applied) again, which the lease and
idempotent transitions already allow, and the next transition's flush writes it anyway.
Transitions themselves wait for the flush (``synchronous_commit`` as configured)."""
FLUSH_BARRIER = "SELECT pg_current_xact_id()"
"""A transaction with an id of its own: its commit waits (``synchronous_commit``) until the
WAL is flushed past it, so past every commit before it on the connection."""
STORED_LAYOUTS = 1000
NO_JIT = "SET jit TO off"
"""Every statement here is a short transaction's: compiling one with the JIT (which the
planner starts on a high cost estimate, e.g. row-level security's unknown selectivity)
takes 100 ms and more, far longer than running it."""

INLINE_ITEMS = 1000
"""Runs with at most this many item rows are read whole in the statement that names them;
larger ones only by their head there, and read whole (in one more statement) only when the
store does not hold them at their stored revision already."""
_ITEMS = """'{"steps":[' || COALESCE((SELECT string_agg(s.document, ',' ORDER BY s.seq)
                                  FROM step_runs s WHERE s.run_id = r.run_id), '')
    || '],' || (SELECT '"edges":{'
        || COALESCE(string_agg(p.value, ',' ORDER BY p.key COLLATE "C")
                    FILTER (WHERE p.part = 'edge'), '')
        || '},"processed":[' || COALESCE(string_agg(p.value, ',')
                                         FILTER (WHERE p.part = 'processed'), '')
        || '],"completion_order":[' || COALESCE(string_agg(p.value, ',' ORDER BY p.seq)
                                                FILTER (WHERE p.part = 'done'), '')
        || ']}' FROM run_parts p WHERE p.run_id = r.run_id)"""
"""The items of the run ``r`` as the JSON object its head lacks (steps in their order, edges
by id, completion order in order): the stored fragments joined, one scan of each table."""
_RUN_COLUMNS = (f"r.run_id, r.revision, r.updated_at, r.document, "
                f"CASE WHEN r.items <= {INLINE_ITEMS} THEN {_ITEMS} END")
"""A run as :meth:`PostgresStore._runs_of` reads it (``runs r``)."""
_FREE = """(lease_until IS NULL OR lease_until <= %(lease_now)s)
    AND (kind NOT IN ('event', 'start-child') OR run_id NOT IN (SELECT run_id FROM held))"""
"""A due row no lease holds, unless it is an event (or start-child) row of a run whose
event row another worker holds leased (``held``)."""
_CLAIM = f"""
WITH held AS (SELECT run_id FROM queue WHERE kind IN ('event', 'start-child')
              AND lease_until > %(lease_now)s AND lease_owner <> %(owner)s),
late AS (SELECT signal_id FROM queue WHERE due_at <= %(late)s AND {_FREE}
         ORDER BY due_at, seq LIMIT %(limit)s FOR UPDATE SKIP LOCKED),
own AS (SELECT signal_id FROM queue WHERE run_id = ANY(%(own)s) AND due_at <= %(now)s
        AND due_at > %(late)s AND {_FREE}
        ORDER BY due_at, seq LIMIT (SELECT %(limit)s - count(*) FROM late)
        FOR UPDATE SKIP LOCKED),
rest AS (SELECT signal_id FROM queue WHERE due_at <= %(now)s AND due_at > %(late)s AND {_FREE}
         AND signal_id NOT IN (SELECT signal_id FROM own)
         ORDER BY due_at, seq
         LIMIT (SELECT %(limit)s - count(*) FROM late) - (SELECT count(*) FROM own)
         FOR UPDATE SKIP LOCKED),
free AS (SELECT signal_id FROM late UNION ALL SELECT signal_id FROM own
         UNION ALL SELECT signal_id FROM rest)
UPDATE queue q SET attempts = q.attempts + 1, lease_owner = %(owner)s,
    lease_until = %(lease_until)s
FROM free LEFT JOIN queue k ON k.signal_id = free.signal_id
    AND k.kind IN ('event', 'start-child')
LEFT JOIN runs r ON r.run_id = k.run_id
WHERE q.signal_id = free.signal_id
RETURNING q.signal_id, q.run_id, q.kind, q.payload, q.due_at, q.attempts, q.last_error,
    q.seq, r.run_id, r.revision, r.updated_at, NULL, NULL
"""
"""A claim names the revision of each event or start-child row's run: the store reads the
runs it does not hold at that revision in one more statement (:meth:`_runs_of`), so a
worker that applies the next event of a run it just committed reads nothing more.

Which rows, up to ``limit``: first those due for longer than :data:`AFFINITY_SECONDS`
(``late``, oldest first), then the rows of runs this store used last (``own``: run
affinity, so a worker goes on with the runs it holds and need not read them again), then
the others in due order (``rest``). So a row waits for affinity at most
:data:`AFFINITY_SECONDS` more; under a backlog the claim is plain due order.

The runs whose event rows another worker holds leased are read once into a hash (``NOT
IN`` an uncorrelated subquery: a hashed subplan) whatever the planner estimates: as a
correlated ``NOT EXISTS`` a stale estimate made it a nested loop over every leased row for
each due row (with 4 workers 20-150 ms per claim).
"""
AFFINITY_SECONDS = 1.0
"""How long a due row may wait while workers take the rows of the runs they hold first."""
_INSERT_RUN = """
INSERT INTO runs (run_id, workflow, version, definition_hash, state, parent_run_id,
                  created_at, updated_at, finished_at, document, revision, tenant,
                  business_reference, items)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING
"""
_INSERT_TASK = (f"INSERT INTO tasks ({TASK_COLUMNS}) VALUES ({', '.join(['%s'] * 12)}) "
                "ON CONFLICT DO NOTHING")
_CLOSE_TASK = """
UPDATE tasks SET status = %s, closed_at = %s, decision = %s, closed_by = %s
WHERE task_id = %s AND status = 'open'
"""
_INSERT_AUDIT = """
INSERT INTO audit (tenant, actor, action, target, revision_before, revision_after, at, detail)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s)
"""
_DEAD_LETTER = """
INSERT INTO dead_letters (signal_id, run_id, kind, payload, attempts, error, failed_at, tenant)
VALUES (%s, %s, %s, %s, %s, %s, %s, COALESCE((SELECT tenant FROM runs WHERE run_id = %s),
                                          'default'))
ON CONFLICT (signal_id) DO UPDATE SET kind = EXCLUDED.kind, payload = EXCLUDED.payload,
    attempts = EXCLUDED.attempts, error = EXCLUDED.error, failed_at = EXCLUDED.failed_at
"""
_QUEUE_COLUMNS = "signal_id, run_id, kind, payload, due_at, attempts, last_error"
_OUTBOX_COLUMNS = "seq, run_id, kind, step_id, detail, created_at, tenant"
_RUN_TABLES = ("runs", "step_runs", "run_parts", "outbox", "queue", "dead_letters", "tasks")
RunRow = tuple[str, int, float, str, str | None]
"""(run id, revision, updated_at, head, items or None) as :data:`_RUN_COLUMNS` reads them."""

Connection = psycopg.Connection[tuple[Any, ...]]


def split_schema(url: str) -> tuple[str, str]:
    """A ``postgresql://`` URL without its ``schema`` query parameter, and that schema.

    >>> split_schema("postgresql://u@h:5432/db?schema=acme&sslmode=require")
    ('postgresql://u@h:5432/db?sslmode=require', 'acme')
    >>> split_schema("postgres://h/db")
    ('postgres://h/db', 'workflow')
    >>> split_schema("postgresql://h/db?options=-c%20synchronous_commit%3Doff&schema=s")[0]
    'postgresql://h/db?options=-c%20synchronous_commit%3Doff'
    """
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = next((value for key, value in query if key == "schema"), DEFAULT_SCHEMA)
    rest = urlencode([(key, value) for key, value in query if key != "schema"], quote_via=quote)
    return urlunsplit(parts._replace(query=rest)), checked_schema(schema)


class PostgresStore:
    """A :class:`~workflow.store.QueryStore` in one PostgreSQL schema."""

    def __init__(self, url: str, *, schema: str | None = None, max_connections: int = 10,
                 migrate: bool = True) -> None:
        self.url, url_schema = split_schema(url)
        self.schema = checked_schema(schema or url_schema)
        self.path = f"{_redacted(self.url)} (schema {self.schema})"
        self._claimed = threading.local()  # the run read with this thread's claim
        self._cache = RunCache()
        self._flush = threading.local()  # the connection whose transaction needs a barrier
        try:  # one direct connection first: a wrong URL fails at once with the server's word
            with psycopg.connect(self.url, autocommit=True, connect_timeout=10) as first:
                if migrate:
                    apply_postgres_migrations(first, self.schema)
        except psycopg.OperationalError as exc:
            message = str(exc).strip().splitlines()[-1] if str(exc).strip() else repr(exc)
            raise OSError(f"cannot open workflow store {self.path}: {message}") from None
        self._pool = ConnectionPool(self.url, min_size=1, max_size=max_connections,
                                    kwargs={"autocommit": True}, configure=self._configure,
                                    open=True, name=f"wfr-{self.schema}")

    def _configure(self, connection: Connection) -> None:
        connection.execute(f"SET search_path TO {self.schema}")
        connection.execute(NO_JIT)

    def migrate(self) -> list[str]:
        """Apply the migrations this schema lacks; return their names."""
        with self._pool.connection() as connection:
            return apply_postgres_migrations(connection, self.schema)

    def close(self) -> None:
        """Close every connection of the pool."""
        self._pool.close()

    @contextmanager
    def _transaction(self, tenant: str) -> Iterator[Connection]:
        """One transaction that sees only ``tenant``'s rows (or all: :data:`ENGINE_SCOPE`),
        in pipeline mode: statements go out without waiting for each other's results."""
        self._flush.connection = None
        with self._pool.connection() as connection, connection.pipeline():
            with connection.transaction():
                connection.execute("SELECT set_config('workflow.tenant', %s, true)", (tenant,))
                yield connection
            if self._flush.connection is connection:  # see _sequenced
                self._flush.connection = None
                with connection.transaction():
                    connection.execute(FLUSH_BARRIER)

    def _rows(self, sql: str, parameters: Iterable[object] | Mapping[str, object] = (), *,
              tenant: str = ENGINE_SCOPE, flush: bool = True) -> list[tuple[Any, ...]]:
        """One statement's rows: BEGIN, the tenant, the statement and COMMIT in one batch.
        ``flush=False`` commits without waiting for the WAL flush (see :data:`LAZY`)."""
        with self._pool.connection() as connection, connection.pipeline():
            with connection.transaction():
                connection.execute("SELECT set_config('workflow.tenant', %s, true)", (tenant,))
                if not flush:
                    connection.execute(LAZY)
                cursor = connection.execute(sql.encode(), parameters
                                            if isinstance(parameters, Mapping)
                                            else tuple(parameters))
            return cursor.fetchall()

    # --- definitions ----------------------------------------------------------------------

    def save_definition(self, registered: RegisteredDefinition, *, at: float,
                        audit: AuditEntry | None = None) -> None:
        d, tenant = registered.definition, registered.tenant
        with self._transaction(tenant) as db:
            db.execute("SELECT pg_advisory_xact_lock(%s)",
                       (lock_key(self.schema, f"definition:{tenant}:{d.workflow}"),))
            row = db.execute("SELECT hash FROM definitions WHERE tenant = %s AND workflow = %s "
                             "AND version = %s", (tenant, d.workflow, d.version)).fetchone()
            if row is not None and row[0] != registered.hash:
                raise definition_conflict(row[0], registered)
            db.execute("INSERT INTO definitions (tenant, workflow, version, hash, document, "
                       "created_at, steps) VALUES (%s, %s, %s, %s, %s, %s, %s) "
                       "ON CONFLICT DO NOTHING",
                       (tenant, d.workflow, d.version, registered.hash, canonical_json(d), at,
                        len(d.steps)))
            if audit is not None and row is None:
                self._sequenced(db, (), audit)

    def load_definitions(self) -> tuple[RegisteredDefinition, ...]:
        rows = self._rows("SELECT document, hash, tenant FROM definitions "
                          "ORDER BY created_at, tenant, workflow, version")
        return tuple(RegisteredDefinition(definition_from_json(doc), digest, tenant)
                     for doc, digest, tenant in rows)

    def definition_rows(self, tenant: str, workflow: str | None = None
                        ) -> tuple[DefinitionRow, ...]:
        sql = ("SELECT tenant, workflow, version, hash, steps, created_at FROM definitions "
               "WHERE tenant = %s" + (" AND workflow = %s" if workflow is not None else "")
               + " ORDER BY workflow, created_at, version")
        parameters = (tenant,) if workflow is None else (tenant, workflow)
        return tuple(DefinitionRow(*row) for row in self._rows(sql, parameters, tenant=tenant))

    # --- runs -----------------------------------------------------------------------------

    def load_run(self, run_id: str) -> Run | None:
        """The stored run. Right after this thread claimed an event or start-child row of
        the run, the run read in the claim's own statement serves once (saving a
        transaction per event); a commit from it that another writer raced fails the
        revision check, and the engine's retry reads the run afresh."""
        claimed: tuple[str, Run] | None = getattr(self._claimed, "run", None)
        self._claimed.run = None
        if claimed is not None and claimed[0] == run_id:
            return claimed[1]
        runs = self._runs_of(self._rows(f"SELECT {_RUN_COLUMNS} FROM runs r "
                                        "WHERE r.run_id = %s", (run_id,)))
        return runs[0] if runs else None

    def list_runs(self) -> tuple[Run, ...]:
        rows = self._rows(f"SELECT {_RUN_COLUMNS} FROM runs r ORDER BY r.created_at, r.run_id")
        return tuple(self._runs_of(rows))

    def find_runs(self, tenant: str, where: RunFilter, *, limit: int,
                  after: str | None = None) -> Page[Run]:
        """Runs of ``tenant`` matching ``where``, newest first, ``limit`` a page."""
        conditions, parameters = run_filter_sql(tenant, where, "%s")
        if after is not None:
            created_at, run_id = decode_cursor(after)
            conditions.append("(created_at < %s OR (created_at = %s AND run_id < %s))")
            parameters += [created_at, created_at, run_id]
        rows = self._rows(f"SELECT {_RUN_COLUMNS}, r.created_at FROM runs r WHERE "
                          f"{' AND '.join(conditions)} ORDER BY created_at DESC, "
                          f"run_id DESC LIMIT %s", (*parameters, limit + 1), tenant=tenant)
        runs = tuple(self._runs_of([row[:5] for row in rows[:limit]], tenant=tenant))
        return Page(runs, cursor_after(rows, limit, lambda row: (row[5], row[0])))

    def _runs_of(self, rows: Sequence[RunRow | tuple[Any, ...]], *,
                 tenant: str = ENGINE_SCOPE) -> list[Run]:
        """The runs of :data:`_RUN_COLUMNS` rows, in order: a remembered run while its
        stored revision is unchanged, else rebuilt from its head and items; the items of
        large runs (not read inline) come in one more statement for all of them."""
        runs: list[Run | None] = []
        missing: dict[str, int] = {}
        for run_id, revision, updated_at, head, items in rows:
            run = self._cache.get(run_id, revision, updated_at)
            if run is None and items is not None:
                run = run_from_head(head, items)
                self._cache.remember(run)
            if run is None:
                missing[run_id] = len(runs)
            runs.append(run)
        if missing:  # the head again with the items: one statement, so one snapshot
            for run_id, _, _, head, items in self._rows(
                    f"SELECT r.run_id, r.revision, r.updated_at, r.document, {_ITEMS} "
                    "FROM runs r WHERE r.run_id = ANY(%s)", (list(missing),), tenant=tenant):
                run = runs[missing[run_id]] = run_from_head(head, items)
                self._cache.remember(run)
        return [run for run in runs if run is not None]  # None: purged meanwhile

    def commit(self, commit: Commit, *, at: float) -> None:
        self.commit_group([(commit, at)])

    def commit_group(self, commits: Sequence[tuple[Commit, float]],
                     acknowledge: Sequence[str] = (), *, flushed: bool = True) -> None:
        """Several transitions (a worker's claimed batch) in one transaction, in order, with
        the queue rows ``acknowledge`` names deleted: one round trip and one WAL flush for
        all, the same dozen multi-row statements for one commit or many
        (:mod:`workflow.postgres_group`). Each commit keeps its own checks (the revision
        check of its run, its task closures, its idempotency key) and its own time, and is
        written under its run's tenant (``SET LOCAL`` before its statements); any refusal
        rolls the whole group back and raises, and the caller commits them one by one.

        ``flushed=False`` returns without waiting for the WAL flush: for a pump whose next
        claim waits for it (:meth:`claim_batch` with ``flush``), so its transitions are
        durable before it carries out anything that follows from them, and the flush is
        one per batch, not two."""
        group.check_order(commits, acknowledge)
        writes = group.collapse(commits)
        tenants = {_tenant_of(commit) for commit, _ in commits}
        scope = next(iter(tenants)) if len(tenants) == 1 else ENGINE_SCOPE
        with self._transaction(scope) as db:
            if len(writes) > 1:  # one lock order for every worker: no deadlock between groups
                db.execute("SELECT 1 FROM runs WHERE run_id = ANY(%s) ORDER BY run_id "
                           "FOR UPDATE", (sorted(writes),))
            checks: list[group.Check] = []
            notify = False
            for tenant in sorted(tenants):
                part = [(c, at) for c, at in commits if _tenant_of(c) == tenant]
                if len(tenants) > 1:
                    db.execute(group.SET_TENANT, (tenant,))
                for commit, at in part:  # new runs, tasks and keys: rare, one by one
                    checks += _write_new(db, commit, at)
                checks += group.write_runs(db, [w for w in writes.values()
                                                if w.run.tenant == tenant])
                notify = group.enqueue(db, part) or notify
            if len(tenants) > 1:
                db.execute(group.SET_TENANT, (ENGINE_SCOPE,))
            group.delete_finished(db, commits, acknowledge)
            if notify:
                db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, self.schema))
            group.verify(db, checks)  # one round trip; a refusal rolls it all back
            audits = tuple(commit.audit for commit, _ in commits)
            self._sequenced(db, group.outbox_rows(commits), *audits)  # goes with COMMIT
            if not flushed:
                db.execute(LAZY)
                self._flush.connection = None  # no barrier either
        for write in writes.values():  # committed: what the next event of each run reads
            self._cache.remember(write.run)
        for commit, _ in commits:
            if commit.run is not None and commit.previous is None:
                self._cache.remember(commit.run)

    def _sequenced(self, db: Connection, events: Sequence[tuple[object, ...]],
                   *audits: AuditEntry | None) -> None:
        """The transaction's last writes: outbox and audit rows, numbered in commit order
        under a transaction lock. So that the lock is not held through the WAL flush (which
        would serialize every commit's fsync), the transaction commits without waiting for
        it and :data:`FLUSH_BARRIER` follows in the same batch: the caller returns only once
        the commit is durable, while other writers' flushes group with it."""
        entries = [audit for audit in audits if audit is not None]
        if not events and not entries:
            return
        db.execute(LAZY)
        self._flush.connection = db
        db.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key(self.schema, "sequence"),))
        group.insert_outbox(db, events)
        for entry in entries:
            _audit(db, entry)

    def idempotent_run(self, tenant: str, key: str) -> tuple[str, str] | None:
        """(run id, request digest) of the start that used ``key``, if any."""
        rows = self._rows("SELECT run_id, request_hash FROM idempotency_keys "
                          "WHERE tenant = %s AND key = %s", (tenant, key), tenant=tenant)
        return (rows[0][0], rows[0][1]) if rows else None

    # --- tasks, events, audit -------------------------------------------------------------

    def tasks(self, tenant: str, *, status: TaskStatus | None = None,
              assignee: str | None = None, run_id: str | None = None, limit: int = 100,
              after: str | None = None) -> Page[HumanTask]:
        """Human tasks of ``tenant``, oldest first."""
        conditions, parameters = task_filter_sql(tenant, status=status, assignee=assignee,
                                                 run_id=run_id, mark="%s")
        if after is not None:
            created_at, task_id = decode_cursor(after)
            conditions.append("(created_at > %s OR (created_at = %s AND task_id > %s))")
            parameters += [created_at, created_at, task_id]
        rows = self._rows(f"SELECT {TASK_COLUMNS} FROM tasks WHERE {' AND '.join(conditions)} "
                          "ORDER BY created_at, task_id LIMIT %s", (*parameters, limit + 1),
                          tenant=tenant)
        return Page(tuple(_task_from_row(row) for row in rows[:limit]),
                    cursor_after(rows, limit, lambda row: (row[8], row[0])))

    def task(self, task_id: str) -> HumanTask | None:
        rows = self._rows(f"SELECT {TASK_COLUMNS} FROM tasks WHERE task_id = %s", (task_id,))
        return _task_from_row(rows[0]) if rows else None

    def outbox(self, run_id: str | None = None) -> tuple[OutboxEntry, ...]:
        query = f"SELECT {_OUTBOX_COLUMNS} FROM outbox"
        rows = (self._rows(query + " WHERE run_id = %s ORDER BY seq", (run_id,))
                if run_id is not None else self._rows(query + " ORDER BY seq"))
        return tuple(OutboxEntry(*row) for row in rows)

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
                          ("run_id = %s AND ", (tenant, run_id, after, limit)))
        rows = self._rows(f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE tenant = %s AND "
                          f"{of_run}seq > %s ORDER BY seq LIMIT %s",
                          params, tenant=tenant)
        return tuple(OutboxEntry(*row) for row in rows)

    def save_audit(self, entry: AuditEntry) -> None:
        with self._transaction(entry.tenant) as db:
            self._sequenced(db, (), entry)

    def audit_entries(self, tenant: str, after: int, limit: int) -> tuple[AuditEntry, ...]:
        rows = self._rows(f"SELECT {AUDIT_COLUMNS} FROM audit WHERE tenant = %s AND seq > %s "
                          "ORDER BY seq LIMIT %s", (tenant, after, limit), tenant=tenant)
        return tuple(audit_from_row(row) for row in rows)

    # --- the queue ------------------------------------------------------------------------

    def claim(self, owner: str, *, now: float, lease_seconds: float,
              wall: float | None = None) -> QueuedSignal | None:
        """Lease the next due row that no other worker holds (``SKIP LOCKED``): due by
        ``now``, the lease on ``wall`` time (see :class:`~workflow.store.Store`). A row no
        engine can read (an unknown kind) goes straight to the dead letters."""
        claimed = self.claim_batch(owner, now=now, lease_seconds=lease_seconds, wall=wall,
                                   limit=1)
        self._claimed.run = None
        if not claimed:
            return None
        signal, run = claimed[0]
        if run is not None:
            self._claimed.run = (signal.run_id, run)
        return signal

    def claim_batch(self, owner: str, *, now: float, lease_seconds: float,
                    wall: float | None = None, limit: int, flush: bool = False
                    ) -> list[tuple[QueuedSignal, Run | None]]:
        """Lease up to ``limit`` due rows at once (one ``SKIP LOCKED`` statement, one lease
        for all), in due order, each with its run for an ``event`` or ``start-child`` row
        (read in the same statement, so the transition needs no second query, except for
        a large run this store does not hold at its stored revision). Unreadable rows go
        to the dead letters; ``[]`` when nothing is due. With ``flush`` a claim that took
        rows returns once the WAL is flushed past it, so past every earlier commit of
        this worker (see :meth:`commit_group`)."""
        lease_now = now if wall is None else wall
        while True:
            rows = self._rows(_CLAIM, {
                "owner": owner, "lease_until": lease_now + lease_seconds, "now": now,
                "late": now - AFFINITY_SECONDS, "lease_now": lease_now, "limit": limit,
                "own": self._cache.recent(limit)}, flush=flush)
            rows.sort(key=lambda row: (row[4], row[7]))
            signals: list[QueuedSignal] = []
            buried = False
            for signal_id, run_id, kind, payload, due_at, attempts, last_error, *_ in rows:
                try:
                    signals.append(QueuedSignal(signal_id, run_id, QueueRowKind(kind),
                                                payload, due_at, attempts, last_error))
                except ValueError as error:
                    buried = True
                    self._bury(signal_id, run_id, kind, payload, attempts,
                               f"unreadable queue row: {error}", now)
            if signals or not buried:
                runs = {run.run_id: run for run in self._runs_of(
                    [row[8:] for row in rows if row[8] is not None])}
                return [(signal, runs.get(signal.run_id)
                         if signal.kind in (QueueRowKind.EVENT, QueueRowKind.START_CHILD)
                         else None) for signal in signals]

    def _bury(self, signal_id: str, run_id: str, kind: str, payload: object, attempts: int,
              error: str, now: float) -> None:
        with self._transaction(ENGINE_SCOPE) as db:
            db.execute(_DEAD_LETTER, (signal_id, run_id, kind, Jsonb(payload), attempts, error,
                                      now, run_id))
            db.execute("DELETE FROM queue WHERE signal_id = %s", (signal_id,))

    def acknowledge(self, signal_id: str) -> None:
        self._rows("DELETE FROM queue WHERE signal_id = %s RETURNING 1", (signal_id,),
                   flush=False)

    def release(self, signal_id: str, error: str, *, now: float, retry_at: float | None = None,
                count_attempt: bool = True) -> None:
        """Give the row back: due again at ``retry_at`` (the pump's backoff), with the
        claim's attempt given back when ``count_attempt`` is false (a revision conflict)."""
        self._rows("UPDATE queue SET lease_owner = NULL, lease_until = NULL, last_error = %s, "
                   "due_at = COALESCE(%s, due_at), attempts = attempts - %s "
                   "WHERE signal_id = %s RETURNING 1",
                   (error, retry_at, 0 if count_attempt else 1, signal_id), flush=False)

    def dead_letter(self, signal: QueuedSignal, error: str, *, now: float) -> None:
        self._bury(signal.signal_id, signal.run_id, str(signal.kind), signal.payload,
                   signal.attempts, error, now)

    def dead_letters(self, tenant: str | None = None) -> tuple[DeadLetter, ...]:
        where = "" if tenant is None else " WHERE tenant = %s"
        rows = self._rows("SELECT signal_id, run_id, kind, payload, attempts, error, failed_at, "
                          f"tenant FROM dead_letters{where} ORDER BY failed_at, signal_id",
                          () if tenant is None else (tenant,),
                          tenant=ENGINE_SCOPE if tenant is None else tenant)
        return tuple(DeadLetter(s, r, _kind(k), p, a, e, f, t) for s, r, k, p, a, e, f, t in rows)

    def replay(self, signal_id: str, *, now: float, audit: AuditEntry | None = None) -> None:
        with self._transaction(ENGINE_SCOPE) as db:
            row = db.execute("DELETE FROM dead_letters WHERE signal_id = %s "
                             "RETURNING run_id, kind, payload, tenant", (signal_id,)).fetchone()
            if row is None:
                raise LookupError(f"no dead letter '{signal_id}'")
            db.execute("INSERT INTO queue (signal_id, run_id, kind, payload, due_at, tenant) "
                       "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (signal_id) DO UPDATE SET "
                       "kind = EXCLUDED.kind, payload = EXCLUDED.payload, due_at = "
                       "EXCLUDED.due_at, attempts = 0, last_error = NULL, lease_owner = NULL, "
                       "lease_until = NULL",
                       (signal_id, row[0], row[1], Jsonb(row[2]), now, row[3]))
            db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, self.schema))
            self._sequenced(db, (), audit)

    def next_due(self) -> float | None:
        value = self._rows("SELECT MIN(due_at) FROM queue")[0][0]
        return None if value is None else float(value)

    def pending(self) -> tuple[QueuedSignal, ...]:
        return _signals(self._rows(f"SELECT {_QUEUE_COLUMNS} FROM queue ORDER BY due_at, seq"))

    def queued_for(self, run_id: str) -> tuple[QueuedSignal, ...]:
        """The queue rows of one run, in due order."""
        return _signals(self._rows(f"SELECT {_QUEUE_COLUMNS} FROM queue WHERE run_id = %s "
                                   "ORDER BY due_at, seq", (run_id,)))

    def purge(self, *, before: float, tenant: str | None = None,
              audit: AuditEntry | None = None) -> int:
        with self._transaction(ENGINE_SCOPE if tenant is None else tenant) as db:
            old = [r for (r,) in db.execute(
                "SELECT run_id FROM runs WHERE finished_at IS NOT NULL AND finished_at < %s"
                + ("" if tenant is None else " AND tenant = %s"),
                (before,) if tenant is None else (before, tenant)).fetchall()]
            if old:
                for table in _RUN_TABLES:
                    db.execute(f"DELETE FROM {table} WHERE run_id = ANY(%s)".encode(), (old,))
            self._sequenced(db, (), audit)
        self._cache.forget(old)
        return len(old)

    # --- several workers ------------------------------------------------------------------

    @contextmanager
    def singleton(self, job: str) -> Iterator[bool]:
        """Hold ``job``'s advisory lock for the block if no other process does (yields
        whether it got it). The lock is the connection's: a worker that dies drops it."""
        with self._pool.connection() as db:
            key = lock_key(self.schema, f"job:{job}")
            row = db.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
            held = bool(row and row[0])
            try:
                yield held
            finally:
                if held:
                    db.execute("SELECT pg_advisory_unlock(%s)", (key,))

    def listen(self, wake: Callable[[], None], stop: threading.Event, *,
               timeout: float = 1.0) -> threading.Thread:
        """Start a daemon thread that calls ``wake`` on each ``NOTIFY workflow_signal`` for
        this schema until ``stop`` is set; it reconnects after a lost connection."""

        def loop() -> None:
            while not stop.is_set():
                try:
                    with psycopg.connect(self.url, autocommit=True) as connection:
                        connection.execute(f"LISTEN {CHANNEL}")
                        wake()  # rows may have come while not listening
                        while not stop.is_set():
                            for note in connection.notifies(timeout=timeout):
                                if note.payload == self.schema:
                                    wake()
                except psycopg.Error:
                    stop.wait(timeout)

        thread = threading.Thread(target=loop, name=f"listen-{self.schema}", daemon=True)
        thread.start()
        return thread

    def stranded_runs(self, *, idle_before: float, limit: int = 100
                      ) -> tuple[tuple[str, float], ...]:
        """(run id, updated_at) of unfinished runs not changed since ``idle_before`` that
        have an active step run but no queue row (due or leased), no open task and no
        unfinished child run (whose end queues the parent's next signal)."""
        rows = self._rows("""
            SELECT r.run_id, r.updated_at FROM runs r
            WHERE r.finished_at IS NULL AND r.updated_at < %s
              AND EXISTS (SELECT 1 FROM step_runs s WHERE s.run_id = r.run_id
                          AND s.state IN ('Ready', 'Running', 'Waiting'))
              AND NOT EXISTS (SELECT 1 FROM queue q WHERE q.run_id = r.run_id)
              AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.run_id = r.run_id
                              AND t.status = 'open')
              AND NOT EXISTS (SELECT 1 FROM runs c WHERE c.parent_run_id = r.run_id
                              AND c.finished_at IS NULL)
            ORDER BY r.updated_at LIMIT %s""", (idle_before, limit))
        return tuple((run_id, updated) for run_id, updated in rows)

    # --- the layout cache -----------------------------------------------------------------

    def cached_layout(self, tenant: str, key: str, *, at: float) -> str | None:
        """The layout document stored under ``key`` for ``tenant`` (marked used ``at``)."""
        rows = self._rows("UPDATE layout_cache SET used_at = %s WHERE tenant = %s AND key = %s "
                          "RETURNING document", (at, tenant, key), tenant=tenant)
        return rows[0][0] if rows else None

    def save_layout(self, tenant: str, key: str, document: str, *, at: float,
                    keep: int = STORED_LAYOUTS) -> None:
        """Store a layout document; only the ``keep`` layouts of ``tenant`` used last stay."""
        with self._transaction(tenant) as db:
            db.execute("INSERT INTO layout_cache (tenant, key, document, created_at, used_at) "
                       "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (tenant, key) DO UPDATE SET "
                       "document = EXCLUDED.document, used_at = EXCLUDED.used_at",
                       (tenant, key, document, at, at))
            db.execute("DELETE FROM layout_cache WHERE tenant = %s AND key NOT IN (SELECT key "
                       "FROM layout_cache WHERE tenant = %s ORDER BY used_at DESC, key "
                       "LIMIT %s)", (tenant, tenant, keep))

    # --- gauges and health ----------------------------------------------------------------

    def run_counts(self) -> Iterable[tuple[str, str, str, int]]:
        """(tenant, workflow, state, count) over every stored run."""
        rows = self._rows("SELECT tenant, workflow, state, COUNT(*) FROM runs "
                          "GROUP BY tenant, workflow, state ORDER BY tenant, workflow, state")
        return [(t, w, s, int(n)) for t, w, s, n in rows]

    def pending_timers(self) -> Iterable[tuple[str, int]]:
        """(tenant, count) of queued timer firings."""
        rows = self._rows("SELECT tenant, COUNT(*) FROM queue WHERE kind = 'event' AND "
                          "payload->>'type' = 'TimerFired' GROUP BY tenant ORDER BY tenant")
        return [(t, int(n)) for t, n in rows]

    def dead_letter_counts(self) -> Iterable[tuple[str, int]]:
        rows = self._rows("SELECT tenant, COUNT(*) FROM dead_letters GROUP BY tenant "
                          "ORDER BY tenant")
        return [(t, int(n)) for t, n in rows]

    def check(self) -> None:
        """Raise :class:`psycopg.Error` unless the store answers a query."""
        self._rows("SELECT 1 FROM schema_migrations LIMIT 1")

    def local_read_size(self, run_id: str) -> int | None:
        """Always ``None``: a read waits for the server over the network, so the API never
        makes it on its event loop."""
        return None


Check = group.Check


def _tenant_of(commit: Commit) -> str:
    return ENGINE_SCOPE if commit.run is None else commit.run.tenant


def _write_new(db: Connection, commit: Commit, at: float) -> list[Check]:
    """A commit's statements that are not multi-row: a new run with its steps, task
    changes and the idempotency key."""
    run, checks = commit.run, list[Check]()
    if run is None:
        return checks
    if commit.previous is None:
        finished = at if run.state.is_finished else None
        checks.append((db.execute(_INSERT_RUN, (
            run.run_id, run.workflow, run.version, run.definition_hash, run.state.value,
            run.parent_run_id, run.created_at, run.updated_at, finished, run_head_json(run),
            run.revision, run.tenant, run.business_reference, item_count(run))), 1,
            ConcurrentTransitionError(f"run '{run.run_id}' already exists")))
        group.write_items(db, [(run, group.all_items(run))])
    checks += _write_tasks(db, commit, at)
    if commit.idempotency is not None:
        checks.append(_claim_key(db, run, commit, at))
    return checks


def _write_tasks(db: Connection, commit: Commit, at: float) -> list[Check]:
    _many(db, _INSERT_TASK, [(t.task_id, t.tenant, t.run_id, t.step_id, t.attempt_id, t.reason,
                              t.assignee, t.status.value, t.created_at, t.closed_at, t.decision,
                              t.closed_by) for t in commit.open_tasks])
    checks: list[Check] = []
    for closure in commit.close_tasks:
        closed = db.execute(_CLOSE_TASK, (closure.status.value, at, closure.decision,
                                          closure.closed_by, closure.task_id))
        if closure.required:
            checks.append((closed, 1, TaskConflictError(
                f"task '{closure.task_id}' is no longer open")))
    return checks


def _claim_key(db: Connection, run: Run, commit: Commit, at: float) -> Check:
    claim = commit.idempotency
    assert claim is not None
    return (db.execute("INSERT INTO idempotency_keys VALUES (%s, %s, %s, %s, %s) "
                       "ON CONFLICT DO NOTHING",
                       (run.tenant, claim.key, run.run_id, claim.request_hash, at)), 1,
            IdempotencyKeyUsedError(run.tenant, claim.key))


def _signals(rows: list[tuple[Any, ...]]) -> tuple[QueuedSignal, ...]:
    """Queue rows (rows no engine can read are left out: the next claim buries them)."""
    signals = []
    for s, r, k, p, d, a, e in rows:
        try:
            signals.append(QueuedSignal(s, r, QueueRowKind(k), p, d, a, e))
        except ValueError:
            continue
    return tuple(signals)


_ROW_KINDS = frozenset(kind.value for kind in QueueRowKind)


def _kind(text: str) -> str:
    return QueueRowKind(text) if text in _ROW_KINDS else text


def _many(db: Connection, sql: str, rows: list[tuple[object, ...]]) -> None:
    if len(rows) == 1:
        db.execute(sql.encode(), rows[0])
    elif rows:
        with db.cursor() as cursor:
            cursor.executemany(sql.encode(), rows)


def _audit(db: Connection, e: AuditEntry) -> None:
    db.execute(_INSERT_AUDIT, (e.tenant, e.actor, e.action, e.target, e.revision_before,
                               e.revision_after, e.at, e.detail))


def _redacted(url: str) -> str:
    """``url`` without its password (for messages)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


__all__ = ["CHANNEL", "ENGINE_SCOPE", "PostgresStore", "split_schema"]
