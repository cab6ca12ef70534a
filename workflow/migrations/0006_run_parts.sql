-- The growing parts of a run live in rows, one per item, so a transition writes only the
-- items it changed instead of the whole run document (issue 15: the cost of an event grew
-- with the run). runs.document keeps the run's head (every other field); its steps, edges,
-- processed and completion_order are empty and come from here. part is 'step' (key: step
-- id, value: the step run as JSON), 'edge' (key: edge id, value: "taken"/"dead"),
-- 'processed' (key: an applied event's key, value: 1) or 'done' (key: the position in
-- completion_order, zero-padded; value: the step id). seq orders the items of a part.
CREATE TABLE run_parts (
    run_id TEXT NOT NULL,
    part TEXT NOT NULL,
    key TEXT NOT NULL,
    seq INTEGER NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (run_id, part, key)
) WITHOUT ROWID;

INSERT INTO run_parts (run_id, part, key, seq, value)
SELECT r.run_id, 'step', json_extract(j.value, '$.step_id'), j.key, j.value
FROM runs r, json_each(r.document, '$.steps') j;

INSERT INTO run_parts (run_id, part, key, seq, value)
SELECT r.run_id, 'edge', j.key, 0, json_quote(j.value)
FROM runs r, json_each(r.document, '$.edges') j;

INSERT INTO run_parts (run_id, part, key, seq, value)
SELECT r.run_id, 'processed', j.value, 0, '1'
FROM runs r, json_each(r.document, '$.processed') j;

INSERT INTO run_parts (run_id, part, key, seq, value)
SELECT r.run_id, 'done', printf('%09d', j.key), j.key, json_quote(j.value)
FROM runs r, json_each(r.document, '$.completion_order') j;

UPDATE runs SET document = json_set(document, '$.steps', json('[]'), '$.edges', json('{}'),
                                    '$.processed', json('[]'), '$.completion_order', json('[]'));
