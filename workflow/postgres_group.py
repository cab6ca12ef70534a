"""The statements of one PostgreSQL transaction holding one or several commits.

Every statement is multi-row (the run heads sent as a binary array, so they need no
escaping; the other rows as one JSON array each, which the C JSON encoder writes faster than
psycopg dumps array elements): the run updates of a group are one ``UPDATE ... FROM
unnest(...)`` whose revision check is each row's ``WHERE revision = expected``, the
changed step runs one upsert, the other changed items (edge decisions, processed event
keys, completion order) one upsert, the new queue rows one insert, the finished queue rows
one delete and the outbox rows one insert. So a transaction costs the same dozen statements
whether it holds one transition or a worker's whole batch (psycopg's work and the round
trips are per statement, not per row).

A run is stored as its *head* (``runs.document``: every field but the four that grow with
the run) and one row per item of those four (migration ``0002_run_items``): a transition
writes the head and the items it changed, never the whole run, so its cost does not grow
with the run's size.

Several commits of one run in a group chain (each one's ``previous`` is the one before's
``run``): they are written as one update from the first one's expected revision to the
last one's run, with the union of their changed items, which inside one transaction is the
same as writing them in turn. New runs, tasks and idempotency keys (rare in a batch) are
written commit by commit.

A group is refused before anything is written (:class:`UnsafeGroupError`) when one of
its commits queues a row that an earlier commit (or an acknowledgement) deletes: written
as multi-row statements, the delete would come last and remove the new row.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import psycopg

from workflow.model import Run, StepRun
from workflow.run_cache import item_count
from workflow.serialize import changed_items, run_head_json, step_data
from workflow.store import Commit, ConcurrentTransitionError

Connection = psycopg.Connection[tuple[Any, ...]]
Check = tuple["psycopg.Cursor[tuple[Any, ...]]", int, Exception]
"""A statement, how many rows it must have changed, and the error if it did not."""

SET_TENANT = "SELECT set_config('workflow.tenant', %s, true)"
UPDATE_RUNS = """
UPDATE runs r SET state = v.state, updated_at = v.updated_at,
    finished_at = COALESCE(r.finished_at, v.finished_at), document = v.document,
    revision = v.revision, items = v.items
FROM unnest(%b::text[], %b::text[], %b::float8[], %b::float8[], %b::text[], %b::int[],
            %b::int[], %b::int[]) AS v(run_id, state, updated_at, finished_at, document,
                                       revision, expected, items)
WHERE r.run_id = v.run_id AND r.revision = v.expected
RETURNING r.run_id
"""
UPSERT_STEPS = """
INSERT INTO step_runs (run_id, step_id, state, iteration, attempt, attempt_id, output, error,
                       started_at, finished_at, tenant, seq, document)
SELECT r->>0, r->>1, r->>2, (r->>3)::int, (r->>4)::int, r->>5, (r->11->'output')::text, r->>6,
       (r->>7)::float8, (r->>8)::float8, r->>9, (r->>10)::int, (r->11)::text
FROM jsonb_array_elements(%s::jsonb) AS r
ON CONFLICT (run_id, step_id) DO UPDATE SET state = EXCLUDED.state,
    iteration = EXCLUDED.iteration, attempt = EXCLUDED.attempt,
    attempt_id = EXCLUDED.attempt_id, output = EXCLUDED.output, error = EXCLUDED.error,
    started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at,
    document = EXCLUDED.document
"""
UPSERT_PARTS = """
INSERT INTO run_parts (run_id, tenant, part, key, seq, value)
SELECT r->>0, r->>1, r->>2, r->>3, (r->>4)::int, r->>5
FROM jsonb_array_elements(%s::jsonb) AS r
ON CONFLICT (run_id, part, key) DO UPDATE SET value = EXCLUDED.value
"""
DELETE_PARTS = """
DELETE FROM run_parts p USING jsonb_array_elements(%s::jsonb) AS r
WHERE p.run_id = r->>0 AND p.part = r->>1 AND p.key = r->>2
"""
ENQUEUE = """
INSERT INTO queue (signal_id, run_id, kind, payload, due_at, tenant)
SELECT r->>0, r->>1, r->>2, r->3, (r->>4)::float8,
       COALESCE((SELECT tenant FROM runs WHERE run_id = r->>1), r->>5)
FROM jsonb_array_elements(%s::jsonb) WITH ORDINALITY AS v(r, n)
ORDER BY v.n
ON CONFLICT (signal_id) DO NOTHING
"""
INSERT_OUTBOX = """
INSERT INTO outbox (run_id, kind, step_id, detail, created_at, tenant)
SELECT r->>0, r->>1, r->>2, r->>3, (r->>4)::float8, r->>5
FROM jsonb_array_elements(%s::jsonb) WITH ORDINALITY AS v(r, n)
ORDER BY v.n
"""


class RunsChangedError(ConcurrentTransitionError):
    """Runs of a group changed since they were read: ``changed`` names them."""

    def __init__(self, message: str, expected: Sequence[str]) -> None:
        super().__init__(message)
        self.expected, self.changed = tuple(expected), tuple(expected)


class UnsafeGroupError(ConcurrentTransitionError):
    """The commits cannot share one transaction's multi-row statements (write them one
    by one)."""


Item = tuple[str, str]
"""An item row of a run: (part, key); a step run is ("step", step id)."""


Items = dict[Item, int | None]
"""Changed items of a run: each one's seq, or ``None`` when it is deleted."""


@dataclass(slots=True)
class RunWrite:
    """One run's update in a group: from ``expected`` to ``run``, these items changed
    (their values are written from ``run``; a row that exists keeps its seq, its place in
    the run)."""

    run: Run
    expected: int
    finished_at: float | None
    updated: float
    items: Items = field(default_factory=dict)

    def add(self, commit: Commit) -> None:
        """Merge in what ``commit`` changed: the first seq of an item stays."""
        assert commit.run is not None
        written, deleted = changed_items(commit.run, commit.previous, commit.delta)
        for item in deleted:
            self.items[item] = None
        for part, key, seq in written:
            earlier = self.items.get((part, key))
            self.items[(part, key)] = seq if earlier is None else earlier


def check_order(commits: Sequence[tuple[Commit, float]], acknowledge: Sequence[str]) -> None:
    """Raise :class:`UnsafeGroupError` if a commit queues a row deleted before it."""
    deleted = set(acknowledge)
    for commit, _ in commits:
        if any(signal.signal_id in deleted for signal in commit.enqueue):
            raise UnsafeGroupError("a commit queues a row an earlier one deletes")
        deleted.update(commit.cancel)
        if commit.acknowledge is not None:
            deleted.add(commit.acknowledge)


def collapse(commits: Sequence[tuple[Commit, float]]) -> dict[str, RunWrite]:
    """The run updates of a group, one per run (chained commits merged)."""
    writes: dict[str, RunWrite] = {}
    for commit, at in commits:
        run, previous = commit.run, commit.previous
        if run is None or previous is None:
            continue
        finished = at if run.state.is_finished else None
        write = writes.get(run.run_id)
        if write is None:
            writes[run.run_id] = write = RunWrite(run, previous.revision, finished, at)
        elif previous.revision != write.run.revision:
            raise UnsafeGroupError(f"run '{run.run_id}' does not chain in the group")
        else:
            write.run, write.updated = run, at
            write.finished_at = write.finished_at if write.finished_at is not None else finished
        write.add(commit)
    return writes


def columns(rows: Sequence[Sequence[object]], width: int) -> list[list[object]]:
    """Rows as column arrays (for ``unnest``).

    >>> columns([("a", 1), ("b", 2)], 2)
    [['a', 'b'], [1, 2]]
    """
    return [[row[i] for row in rows] for i in range(width)]


def write_runs(db: Connection, writes: Iterable[RunWrite]) -> list[Check]:
    """One update for every run's head of the group, one upsert for their changed step
    runs and one upsert (and a delete, if any) for their other changed items."""
    writes = list(writes)
    if not writes:
        return []
    rows = [(w.run.run_id, w.run.state.value, w.run.updated_at, w.finished_at,
             run_head_json(w.run), w.run.revision, w.expected, item_count(w.run))
            for w in writes]
    names = ", ".join(f"'{w.run.run_id}'" for w in writes)
    single = writes[0] if len(writes) == 1 else None
    error = RunsChangedError(
        f"run {names} changed concurrently (expected revision {single.expected})"
        if single is not None else f"one of the runs {names} changed concurrently",
        [w.run.run_id for w in writes])
    check = (db.execute(UPDATE_RUNS, columns(rows, 8)), len(rows), error)
    write_items(db, [(w.run, w.items) for w in writes])
    return [check]


def write_items(db: Connection, changes: Sequence[tuple[Run, Items]]) -> None:
    """The item rows of several runs: step runs, other parts, deleted parts."""
    steps, parts, deleted = [], [], []
    for run, items in changes:
        for (part, key), seq in sorted(items.items()):
            if seq is None:
                deleted.append((run.run_id, part, key))
            elif part == "step":
                steps.append(step_row(run, run.steps[key], seq))
            else:
                parts.append((run.run_id, run.tenant, part, key, seq,
                              _fragment(run, part, key, seq)))
    if steps:
        db.execute(UPSERT_STEPS, (json.dumps(steps),))
    if parts:
        db.execute(UPSERT_PARTS, (json.dumps(parts),))
    if deleted:
        db.execute(DELETE_PARTS, (json.dumps(deleted),))


def all_items(run: Run) -> Items:
    """Every item of a new run."""
    written, _ = changed_items(run, None)
    return {(part, key): seq for part, key, seq in written}


def _fragment(run: Run, part: str, key: str, seq: int) -> str:
    """An item's value as stored: its fragment of the run's JSON (see the migration).

    >>> import dataclasses
    >>> from workflow.model import new_run
    >>> run = dataclasses.replace(new_run("r", "w", "1", "h", {}, at=0.0),
    ...                           edges={"a->b": "dead"}, completion_order=("a",))
    >>> [_fragment(run, *item) for item in (("edge", "a->b", 0), ("done", "000000000", 0),
    ...                                     ("processed", "k", 0))]
    ['"a->b":"dead"', '"a"', '"k"']
    """
    if part == "edge":
        return f"{json.dumps(key)}:{json.dumps(run.edges[key])}"
    if part == "done":
        return json.dumps(run.completion_order[seq])
    return json.dumps(key)


def step_row(run: Run, s: StepRun, seq: int) -> tuple[object, ...]:
    """A step_runs row: the step run's columns, its place and the step run itself (as
    JSON in the statement's one array: its ``output`` and ``document`` columns are cut
    from it by the server, so the worker encodes each step run once)."""
    return (run.run_id, s.step_id, s.state.value, s.iteration, s.attempt, s.attempt_id,
            s.error, s.started_at, s.finished_at, run.tenant, seq, step_data(s))


def enqueue(db: Connection, commits: Sequence[tuple[Commit, float]]) -> bool:
    """Insert every queued row of the group; whether one is due by its commit's time."""
    rows = [(s.signal_id, s.run_id, str(s.kind), s.payload, s.due_at,
             "default" if commit.run is None else commit.run.tenant)
            for commit, _ in commits for s in commit.enqueue]
    if rows:
        db.execute(ENQUEUE, (json.dumps(rows),))
    return any(s.due_at <= at for commit, at in commits for s in commit.enqueue)


def delete_finished(db: Connection, commits: Sequence[tuple[Commit, float]],
                    acknowledge: Sequence[str]) -> None:
    """Delete the queue rows the group finished: cancelled, acknowledged."""
    finished = [*acknowledge]
    for commit, _ in commits:
        finished += commit.cancel
        if commit.acknowledge is not None:
            finished.append(commit.acknowledge)
    if finished:
        db.execute("DELETE FROM queue WHERE signal_id = ANY(%s)", (finished,))


def outbox_rows(commits: Sequence[tuple[Commit, float]]) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    for commit, at in commits:
        run = commit.run
        if run is not None:
            rows += [(run.run_id, e.kind, e.step_id, e.detail, at, run.tenant)
                     for e in commit.events]
    return rows


def insert_outbox(db: Connection, rows: Sequence[tuple[object, ...]]) -> None:
    if rows:
        db.execute(INSERT_OUTBOX, (json.dumps(rows),))


def verify(db: Connection, checks: list[Check]) -> None:
    """Wait for the batch's results; raise the first check's error that failed."""
    if not checks:
        return
    db.execute("SELECT 1").fetchall()  # a sync: every earlier statement's result is in
    for cursor, expected, error in checks:
        if cursor.rowcount != expected:
            if isinstance(error, RunsChangedError):
                updated = {row[0] for row in cursor.fetchall()}
                error.changed = tuple(r for r in error.expected if r not in updated)
            raise error
