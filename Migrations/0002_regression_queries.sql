-- Regression queries: suppressions, and the indexes that let diff, trend, types and history
-- read index ranges instead of scanning.

-- Rules that move matching leaks out of "new". At least one pattern; `*` matches any run of
-- characters. `expires_at` is ISO 8601 UTC text, like every time in the schema.
CREATE TABLE suppressions (
    id                   INTEGER PRIMARY KEY,
    project_id           INTEGER NOT NULL REFERENCES projects(id),
    type_pattern         TEXT,
    scenario_pattern     TEXT,
    fingerprint_pattern  TEXT,
    reason               TEXT NOT NULL,
    expires_at           TEXT,
    created_at           TEXT NOT NULL,
    CHECK (type_pattern IS NOT NULL OR scenario_pattern IS NOT NULL OR fingerprint_pattern IS NOT NULL)
);
CREATE INDEX suppressions_by_project ON suppressions(project_id);

-- The newest commits of a branch, and a branch's commits in upload order.
CREATE INDEX commits_by_branch ON commits(project_id, branch, id);

-- The recent runs of a branch in an environment (flaky history).
CREATE INDEX runs_by_branch ON runs(project_id, environment, branch, id);

-- One scenario's states over time (scenario history); with the primary key appended this is
-- (scenario_id, environment, commit_id, type_id).
CREATE INDEX leak_states_by_scenario ON leak_states(scenario_id, environment);
