-- The tables of SQLite's 0014_leak_states_recent.sql (see there), so that the store's SQL is the
-- same on both engines. They stay empty on PostgreSQL (`SQLConnection.keepsRecentStates`): its
-- heap is in no key's order, so a new commit's states cost no more in `leak_states` than they
-- would here, and several servers writing at once would each have to lock a commit's states
-- against another one settling them.
CREATE TABLE leak_states_recent (
    commit_id           BIGINT NOT NULL REFERENCES commits(id),
    environment_id      BIGINT NOT NULL REFERENCES environments(id),
    key_id              BIGINT NOT NULL REFERENCES leak_keys(id),
    checked_count       INTEGER NOT NULL,
    leaked_count        INTEGER NOT NULL,
    late_release_count  INTEGER NOT NULL,
    error_count         INTEGER NOT NULL,
    passed_site_id      BIGINT REFERENCES check_sites(id),
    slowest_pass_us     BIGINT,
    PRIMARY KEY (commit_id, environment_id, key_id)
);
CREATE INDEX leak_states_recent_by_key ON leak_states_recent(key_id, environment_id, commit_id);
CREATE TABLE recent_state_commits (
    commit_id  BIGINT PRIMARY KEY REFERENCES commits(id)
);
