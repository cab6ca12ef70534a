-- The PostgreSQL store's schema (the same tables as SQLite's migrations 0001-0005 end with).
-- Forward-only: never edit an applied migration; add a new numbered file instead. It runs
-- with search_path set to the store's schema (``workflow`` by default), so names here are
-- unqualified. Times are seconds since the epoch, as on SQLite.

CREATE TABLE definitions (
    tenant      text NOT NULL,
    workflow    text NOT NULL,
    version     text NOT NULL,
    hash        text NOT NULL,
    document    text NOT NULL,
    created_at  double precision NOT NULL,
    steps       integer NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, workflow, version)
);

CREATE TABLE runs (
    run_id             text PRIMARY KEY,
    tenant             text NOT NULL,
    workflow           text NOT NULL,
    version            text NOT NULL,
    definition_hash    text NOT NULL,
    state              text NOT NULL,
    parent_run_id      text,
    business_reference text,
    created_at         double precision NOT NULL,
    updated_at         double precision NOT NULL,
    finished_at        double precision,
    revision           integer NOT NULL DEFAULT 0,
    document           text NOT NULL
);
CREATE INDEX runs_finished_at ON runs (finished_at);
CREATE INDEX runs_listing ON runs (tenant, created_at, run_id);
CREATE INDEX runs_children ON runs (tenant, parent_run_id, created_at, run_id);
-- the reconciler looks only at unfinished runs
CREATE INDEX runs_unfinished ON runs (updated_at) WHERE finished_at IS NULL;

CREATE TABLE step_runs (
    run_id      text NOT NULL,
    step_id     text NOT NULL,
    tenant      text NOT NULL,
    state       text NOT NULL,
    iteration   integer NOT NULL,
    attempt     integer NOT NULL,
    attempt_id  text,
    output      text,
    error       text,
    started_at  double precision,
    finished_at double precision,
    PRIMARY KEY (run_id, step_id)
);

CREATE TABLE outbox (
    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id      text NOT NULL,
    tenant      text NOT NULL,
    kind        text NOT NULL,
    step_id     text,
    detail      text,
    created_at  double precision NOT NULL
);
CREATE INDEX outbox_run ON outbox (run_id, seq);
CREATE INDEX outbox_tenant ON outbox (tenant, seq);

CREATE TABLE queue (
    signal_id   text PRIMARY KEY,
    seq         bigint GENERATED ALWAYS AS IDENTITY,
    run_id      text NOT NULL,
    tenant      text NOT NULL,
    kind        text NOT NULL,
    payload     jsonb NOT NULL,
    due_at      double precision NOT NULL,
    attempts    integer NOT NULL DEFAULT 0,
    last_error  text,
    lease_owner text,
    lease_until double precision
);
CREATE INDEX queue_due ON queue (due_at, seq);
CREATE INDEX queue_run ON queue (run_id);

CREATE TABLE dead_letters (
    signal_id   text PRIMARY KEY,
    run_id      text NOT NULL,
    tenant      text NOT NULL,
    kind        text NOT NULL,
    payload     jsonb NOT NULL,
    attempts    integer NOT NULL,
    error       text NOT NULL,
    failed_at   double precision NOT NULL
);
CREATE INDEX dead_letters_run ON dead_letters (run_id);

CREATE TABLE tasks (
    task_id     text PRIMARY KEY,
    tenant      text NOT NULL,
    run_id      text NOT NULL,
    step_id     text NOT NULL,
    attempt_id  text NOT NULL,
    reason      text NOT NULL,
    assignee    text,
    status      text NOT NULL,
    created_at  double precision NOT NULL,
    closed_at   double precision,
    decision    text,
    closed_by   text
);
CREATE INDEX tasks_listing ON tasks (tenant, status, created_at);
CREATE INDEX tasks_run ON tasks (run_id);

CREATE TABLE audit (
    seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant          text NOT NULL,
    actor           text NOT NULL,
    action          text NOT NULL,
    target          text NOT NULL,
    revision_before integer,
    revision_after  integer,
    at              double precision NOT NULL,
    detail          text
);
CREATE INDEX audit_tenant ON audit (tenant, seq);

CREATE TABLE idempotency_keys (
    tenant       text NOT NULL,
    key          text NOT NULL,
    run_id       text NOT NULL,
    request_hash text NOT NULL,
    created_at   double precision NOT NULL,
    PRIMARY KEY (tenant, key)
);

CREATE TABLE layout_cache (
    tenant      text NOT NULL,
    key         text NOT NULL,
    document    text NOT NULL,
    created_at  double precision NOT NULL,
    used_at     double precision NOT NULL,
    PRIMARY KEY (tenant, key)
);
CREATE INDEX layout_cache_used ON layout_cache (tenant, used_at);

-- Tenant isolation in the database: every tenant table shows and accepts only the rows of
-- the tenant the transaction set with set_config('workflow.tenant', ..., true) (SET LOCAL),
-- or every row when the engine itself (a worker claiming any tenant's queue rows) set '*'.
-- Unset, a query sees nothing. FORCE makes the policy bind the tables' owner too.
DO $$
DECLARE
    name text;
BEGIN
    FOREACH name IN ARRAY ARRAY['definitions', 'runs', 'step_runs', 'outbox', 'queue',
                                'dead_letters', 'tasks', 'audit', 'idempotency_keys',
                                'layout_cache'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', name);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', name);
        EXECUTE format('CREATE POLICY tenant_rows ON %I '
                       'USING (tenant = current_setting(''workflow.tenant'', true) '
                       '       OR current_setting(''workflow.tenant'', true) = ''*'') '
                       'WITH CHECK (tenant = current_setting(''workflow.tenant'', true) '
                       '            OR current_setting(''workflow.tenant'', true) = ''*'')',
                       name);
    END LOOP;
END
$$;
