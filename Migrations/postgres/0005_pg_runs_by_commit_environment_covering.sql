-- Every first-parent walk asks of each commit it steps on when its first usable run in the
-- environment started: with `suspect` and `started_at` in the index, an index-only read.
DROP INDEX runs_by_commit_environment;
CREATE INDEX runs_by_commit_environment ON runs(commit_id, environment, suspect, started_at);
