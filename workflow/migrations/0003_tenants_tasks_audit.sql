-- Tenants, human tasks, the audit trail and start idempotency keys (the workflow HTTP API).
-- Every row carries the tenant of the run (or definition) it belongs to; rows written before
-- this migration belong to the tenant 'default'.

-- A definition's name and version are per tenant: rebuild the table with the tenant in its key.
CREATE TABLE definitions_by_tenant (
    tenant      TEXT NOT NULL,
    workflow    TEXT NOT NULL,
    version     TEXT NOT NULL,
    hash        TEXT NOT NULL,
    document    TEXT NOT NULL,
    created_at  REAL NOT NULL,
    steps       INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, workflow, version)
);
INSERT INTO definitions_by_tenant (tenant, workflow, version, hash, document, created_at, steps)
    SELECT 'default', workflow, version, hash, document, created_at,
           json_array_length(document, '$.steps') FROM definitions;
DROP TABLE definitions;
ALTER TABLE definitions_by_tenant RENAME TO definitions;

ALTER TABLE runs ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';
ALTER TABLE runs ADD COLUMN business_reference TEXT;
CREATE INDEX runs_listing ON runs (tenant, created_at, run_id);
CREATE INDEX runs_parent ON runs (parent_run_id);
ALTER TABLE step_runs ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';
ALTER TABLE outbox ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';
CREATE INDEX outbox_tenant ON outbox (tenant, seq);
ALTER TABLE queue ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';
ALTER TABLE dead_letters ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';

CREATE TABLE tasks (
    task_id     TEXT PRIMARY KEY,
    tenant      TEXT NOT NULL,
    run_id      TEXT NOT NULL,
    step_id     TEXT NOT NULL,
    attempt_id  TEXT NOT NULL,
    reason      TEXT NOT NULL,
    assignee    TEXT,
    status      TEXT NOT NULL,
    created_at  REAL NOT NULL,
    closed_at   REAL,
    decision    TEXT,
    closed_by   TEXT
);
CREATE INDEX tasks_listing ON tasks (tenant, status, created_at);
CREATE INDEX tasks_run ON tasks (run_id);

CREATE TABLE audit (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant          TEXT NOT NULL,
    actor           TEXT NOT NULL,
    action          TEXT NOT NULL,
    target          TEXT NOT NULL,
    revision_before INTEGER,
    revision_after  INTEGER,
    at              REAL NOT NULL,
    detail          TEXT
);
CREATE INDEX audit_tenant ON audit (tenant, seq);

CREATE TABLE idempotency_keys (
    tenant       TEXT NOT NULL,
    key          TEXT NOT NULL,
    run_id       TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    created_at   REAL NOT NULL,
    PRIMARY KEY (tenant, key)
);
CREATE INDEX queue_run ON queue (run_id);
