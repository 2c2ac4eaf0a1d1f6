-- Leak keys interned (issue 15): a key's state names it by one `key_id` instead of its scenario
-- and type, and one secondary index by key replaces the two by scenario and by type. A type's or
-- a scenario's states are read as the few keys of that type or scenario in `leak_keys`, then one
-- range of `leak_states_by_key` per key. A key keeps its usual site (`site_id`, the site of the
-- first row-less passing check it had); a state whose first such check was there leaves
-- `passed_site_id` NULL (a row-less pass is told by `slowest_pass_us`, set with it). A key state,
-- a passing check's share of the disk, takes about 36 bytes instead of 58.
--
-- This migration runs in three steps, as migration 6 does (`Migration.conversion`): the part
-- above the `@conversion` line interns the keys (in scenario and type order, so that the old
-- primary key order is the new one) and creates the keyed table and a progress marker; the store
-- then copies the states over commit by commit in id order (`DataConversion.leakKeys`, appending
-- to the new table), a batch per transaction, each moving the marker with it, printing progress,
-- and resuming from the marker when it was stopped; the part below the line swaps the tables and
-- drops the marker. The result is what the earlier, set-based text of this migration left.

CREATE TABLE leak_keys (
    id           INTEGER PRIMARY KEY,
    scenario_id  INTEGER NOT NULL REFERENCES scenarios(id),
    type_id      INTEGER NOT NULL REFERENCES types(id),
    site_id      INTEGER REFERENCES check_sites(id),
    UNIQUE (scenario_id, type_id)
);
CREATE INDEX leak_keys_by_type ON leak_keys(type_id);

INSERT INTO leak_keys (scenario_id, type_id, site_id)
SELECT scenario_id, type_id, min(passed_site_id) FROM leak_states GROUP BY scenario_id, type_id ORDER BY scenario_id, type_id;

CREATE TABLE leak_states_keyed (
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

-- The newest commit whose states are copied, the conversion continuing after it.
CREATE TABLE leak_keys_progress (
    last_commit_id  INTEGER NOT NULL,
    finished        INTEGER NOT NULL
);
INSERT INTO leak_keys_progress (last_commit_id, finished) VALUES (0, 0);

-- @conversion

DROP TABLE leak_states;
ALTER TABLE leak_states_keyed RENAME TO leak_states;
-- With the primary key appended: (key_id, environment_id, commit_id).
CREATE INDEX leak_states_by_key ON leak_states(key_id, environment_id);
DROP TABLE leak_keys_progress;
