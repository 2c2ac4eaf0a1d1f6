-- Every first-parent walk (a diff's lines, a trend's 1,000 commits, the branch pages) asks of each
-- commit it steps on when its first usable run in the environment started; with `suspect` and
-- `started_at` in the index that is read from the index alone, not from each run's row. Runs are
-- one row an upload, so the index stays small.
DROP INDEX runs_by_commit_environment;
CREATE INDEX runs_by_commit_environment ON runs(commit_id, environment, suspect, started_at);
