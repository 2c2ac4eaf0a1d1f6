-- Key states of recent commits, kept apart until they settle (issue 15, ingest). `leak_states` is
-- in key order (migration 11): a new commit's states go one to each key's range, so a 1,000-key
-- upload rewrote about 1,000 pages of 4 KiB — 40 times the bytes of its rows — and ingest ran at a
-- third of raw SQLite inserts. A new commit's states go to `leak_states_recent` instead, in commit
-- order: a 1,000-key upload appends a few pages there and touches the small index by key. Once more
-- than a few dozen commits are recent, the oldest of them move to `leak_states` in one transaction
-- (`LeakStore.settleRecentStates`), each key's states for all of them at once into its range: a
-- page a key for the batch, not a page a key for every commit.
--
-- A commit's states are all in one table: in `leak_states_recent` when it is listed in
-- `recent_state_commits`, in `leak_states` otherwise (`StateTables`). Readers of a commit's states
-- read its table; readers of key ranges read both. The same columns and the same meaning; an
-- existing database starts with no recent commits, so nothing is copied.

CREATE TABLE leak_states_recent (
    commit_id           INTEGER NOT NULL REFERENCES commits(id),
    environment_id      INTEGER NOT NULL REFERENCES environments(id),
    key_id              INTEGER NOT NULL REFERENCES leak_keys(id),
    checked_count       INTEGER NOT NULL,
    leaked_count        INTEGER NOT NULL,
    late_release_count  INTEGER NOT NULL,
    error_count         INTEGER NOT NULL,
    passed_site_id      INTEGER REFERENCES check_sites(id),
    slowest_pass_us     INTEGER,
    PRIMARY KEY (commit_id, environment_id, key_id)
) WITHOUT ROWID;

-- A key's recent states, for the key ranges that diffs, trends and type pages read.
CREATE INDEX leak_states_recent_by_key ON leak_states_recent(key_id, environment_id, commit_id);

-- The commits whose states are in `leak_states_recent`.
CREATE TABLE recent_state_commits (
    commit_id  INTEGER PRIMARY KEY REFERENCES commits(id)
);
