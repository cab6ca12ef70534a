-- Layouts of drawn workflow graphs (the graph endpoints and `wfr render --run`), so that a
-- restart keeps them and a drawing never moves. A row is keyed by the tenant and the hash of
-- everything a layout depends on (the layout graph: node and label sizes, shapes and edges;
-- the engine; every option); it holds the LayoutResult JSON. Like every other table it has
-- the tenant: one tenant's cached layouts never answer (or time) another tenant's request,
-- and a tenant's rows go with the tenant. Rows are only a cache: losing any costs a layout.
CREATE TABLE layout_cache (
    tenant      TEXT NOT NULL,
    key         TEXT NOT NULL,
    document    TEXT NOT NULL,
    created_at  REAL NOT NULL,
    used_at     REAL NOT NULL,
    PRIMARY KEY (tenant, key)
);
CREATE INDEX layout_cache_used ON layout_cache (tenant, used_at);
