-- A run's child runs, newest first (the instance record lists them): without this index the
-- planner walked runs_listing over every run of the tenant to find the few whose parent
-- matches, so GET /instances/{id} grew slower with every stored run.
CREATE INDEX runs_children ON runs (tenant, parent_run_id, created_at, run_id);
