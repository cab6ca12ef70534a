-- The parts of a run that grow with it live in rows, one per item, so a transition writes
-- only the items it changed instead of the whole run document (issue 15: the cost of an
-- event grew with the run). runs.document keeps the run's head (every other field) with
-- empty steps, edges, processed and completion_order; runs.items counts the rows below.
-- A step run is its step_runs row: document is the step run as JSON, seq its place in the
-- run's steps. run_parts holds the rest: part 'edge' (key: edge id), 'processed' (key: an
-- applied event's key) or 'done' (key: the position in completion_order, zero-padded), seq
-- ordering the items of a part. A value is the item as a fragment of the JSON the store
-- reads (an edge's "id":"taken", a processed key's "key", a completion's "step id"), so a
-- read only joins them (postgres_store._ITEMS).

-- Row-level security binds the tables' owner too: this transaction sees every tenant.
SELECT set_config('workflow.tenant', '*', true);

ALTER TABLE runs ADD COLUMN items integer NOT NULL DEFAULT 0;
ALTER TABLE step_runs ADD COLUMN seq integer NOT NULL DEFAULT 0;
ALTER TABLE step_runs ADD COLUMN document text;

CREATE TABLE run_parts (
    run_id  text NOT NULL,
    tenant  text NOT NULL,
    part    text NOT NULL,
    key     text NOT NULL,
    seq     integer NOT NULL,
    value   text NOT NULL,
    PRIMARY KEY (run_id, part, key)
);
ALTER TABLE run_parts ENABLE ROW LEVEL SECURITY;
ALTER TABLE run_parts FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON run_parts
    USING (tenant = current_setting('workflow.tenant', true)
           OR current_setting('workflow.tenant', true) = '*')
    WITH CHECK (tenant = current_setting('workflow.tenant', true)
                OR current_setting('workflow.tenant', true) = '*');

-- Existing runs: the document is the truth; its items move to rows, its head stays.
INSERT INTO step_runs (run_id, step_id, tenant, state, iteration, attempt, attempt_id, output,
                       error, started_at, finished_at, seq, document)
SELECT r.run_id, s.value->>'step_id', r.tenant, s.value->>'state',
       (s.value->>'iteration')::int, (s.value->>'attempt')::int, s.value->>'attempt_id',
       (s.value->'output')::text, s.value->>'error', (s.value->>'started_at')::float8,
       (s.value->>'finished_at')::float8, (s.n - 1)::int, s.value::text
FROM runs r, jsonb_array_elements(r.document::jsonb -> 'steps') WITH ORDINALITY AS s(value, n)
ON CONFLICT (run_id, step_id) DO UPDATE SET seq = EXCLUDED.seq, document = EXCLUDED.document;

INSERT INTO run_parts (run_id, tenant, part, key, seq, value)
SELECT r.run_id, r.tenant, 'edge', e.key, 0, to_json(e.key)::text || ':' || e.value::text
FROM runs r, jsonb_each(r.document::jsonb -> 'edges') AS e;

INSERT INTO run_parts (run_id, tenant, part, key, seq, value)
SELECT r.run_id, r.tenant, 'processed', p.key, 0, to_json(p.key)::text
FROM runs r, jsonb_array_elements_text(r.document::jsonb -> 'processed') AS p(key);

INSERT INTO run_parts (run_id, tenant, part, key, seq, value)
SELECT r.run_id, r.tenant, 'done', lpad((d.n - 1)::text, 9, '0'), (d.n - 1)::int, d.value::text
FROM runs r, jsonb_array_elements(r.document::jsonb -> 'completion_order')
     WITH ORDINALITY AS d(value, n);

UPDATE runs SET
    items = jsonb_array_length(document::jsonb -> 'steps')
            + (SELECT count(*) FROM jsonb_object_keys(document::jsonb -> 'edges'))::int
            + jsonb_array_length(document::jsonb -> 'processed')
            + jsonb_array_length(document::jsonb -> 'completion_order'),
    document = (document::jsonb || '{"steps": [], "edges": {}, "processed": [],
                                     "completion_order": []}'::jsonb)::text;
