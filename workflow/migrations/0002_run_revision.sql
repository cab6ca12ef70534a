-- Optimistic concurrency: each stored change of a run bumps its revision (the number of
-- events it has processed); a transition computed from an older revision is refused.
ALTER TABLE runs ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
