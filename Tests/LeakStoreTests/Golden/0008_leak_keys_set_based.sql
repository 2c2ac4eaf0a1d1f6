-- Leak keys interned (issue 15): a key's state names it by one `key_id` instead of its scenario
-- and type, and one secondary index by key replaces the two by scenario and by type. A type's or
-- a scenario's states are read as the few keys of that type or scenario in `leak_keys`, then one
-- range of `leak_states_by_key` per key. A key keeps its usual site (`site_id`, the site of the
-- first row-less passing check it had); a state whose first such check was there leaves
-- `passed_site_id` NULL (a row-less pass is told by `slowest_pass_us`, set with it). A key state,
-- a passing check's share of the disk, takes about 36 bytes instead of 58.
--
-- Set-based, in the one transaction of the migration: the keys first (in scenario and type
-- order, so that the old primary key order is the new one), then every state copied in the
-- order it is stored (the copy appends to the new table), then the swap. Killed part way, it
-- is rolled back and runs again from the start on the next open.

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

-- CROSS JOIN keeps `leak_states` the outer loop: its primary key order, with key ids in
-- scenario and type order, is the new table's.
INSERT INTO leak_states_keyed (commit_id, environment_id, key_id, checked_count, leaked_count, late_release_count,
                               error_count, passed_site_id, slowest_pass_us)
SELECT ls.commit_id, ls.environment_id, k.id, ls.checked_count, ls.leaked_count, ls.late_release_count,
       ls.error_count, CASE WHEN ls.passed_site_id = k.site_id THEN NULL ELSE ls.passed_site_id END, ls.slowest_pass_us
FROM leak_states ls CROSS JOIN leak_keys k ON k.scenario_id = ls.scenario_id AND k.type_id = ls.type_id;

DROP TABLE leak_states;
ALTER TABLE leak_states_keyed RENAME TO leak_states;
-- With the primary key appended: (key_id, environment_id, commit_id).
CREATE INDEX leak_states_by_key ON leak_states(key_id, environment_id);
