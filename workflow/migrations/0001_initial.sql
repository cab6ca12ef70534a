-- Initial schema of the workflow engine's SQLite store. Forward-only: never edit an applied
-- migration; add a new numbered file instead.
CREATE TABLE definitions (
    workflow    TEXT NOT NULL,
    version     TEXT NOT NULL,
    hash        TEXT NOT NULL,
    document    TEXT NOT NULL,
    created_at  REAL NOT NULL,
    PRIMARY KEY (workflow, version)
);

CREATE TABLE runs (
    run_id          TEXT PRIMARY KEY,
    workflow        TEXT NOT NULL,
    version         TEXT NOT NULL,
    definition_hash TEXT NOT NULL,
    state           TEXT NOT NULL,
    parent_run_id   TEXT,
    created_at      REAL NOT NULL,
    updated_at      REAL NOT NULL,
    finished_at     REAL,
    document        TEXT NOT NULL
);
CREATE INDEX runs_finished_at ON runs (finished_at);

CREATE TABLE step_runs (
    run_id      TEXT NOT NULL,
    step_id     TEXT NOT NULL,
    state       TEXT NOT NULL,
    iteration   INTEGER NOT NULL,
    attempt     INTEGER NOT NULL,
    attempt_id  TEXT,
    output      TEXT,
    error       TEXT,
    started_at  REAL,
    finished_at REAL,
    PRIMARY KEY (run_id, step_id)
);

CREATE TABLE outbox (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    step_id     TEXT,
    detail      TEXT,
    created_at  REAL NOT NULL
);
CREATE INDEX outbox_run ON outbox (run_id);

CREATE TABLE queue (
    signal_id   TEXT PRIMARY KEY,
    run_id      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    payload     TEXT NOT NULL,
    due_at      REAL NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    last_error  TEXT,
    lease_owner TEXT,
    lease_until REAL
);
CREATE INDEX queue_due ON queue (due_at);

CREATE TABLE dead_letters (
    signal_id   TEXT PRIMARY KEY,
    run_id      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    payload     TEXT NOT NULL,
    attempts    INTEGER NOT NULL,
    error       TEXT NOT NULL,
    failed_at   REAL NOT NULL
);
