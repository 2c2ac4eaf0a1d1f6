-- Compact storage (issue 15). A passing check gets no row of its own: `leak_states` keeps, per
-- commit, environment and key, the counts of the usable runs and what a passing check tells (the
-- site of the first one, the slowest wait); `checks` keeps the full record of every leaked, late
-- and errored check, of a passing check that carries a message or path, and of every check of a
-- suspect run. Files, lines and lifecycles are interned as sites, environments as ids.
--
-- This migration runs in three steps (`Migration.conversion`): the part above the
-- `@conversion` line creates the new tables and a progress marker; the store then copies the old
-- rows over run by run, a batch per transaction, each batch moving the marker with it, printing
-- progress, and resuming from the marker when it was stopped; the part below the line swaps the
-- tables and drops the marker. A new database goes through the same steps with no runs to copy.

CREATE TABLE environments (
    id    INTEGER PRIMARY KEY,
    name  TEXT NOT NULL UNIQUE
);

-- Where a check was written and what it did to the object: one row per distinct triple.
CREATE TABLE check_sites (
    id         INTEGER PRIMARY KEY,
    file       TEXT NOT NULL,
    line       INTEGER NOT NULL,
    lifecycle  TEXT NOT NULL,
    UNIQUE (file, line, lifecycle)
);

-- The state of each key at a commit, from its usable (non-suspect) runs. `passed_site_id` is
-- the site of the first passing check stored without a row, `slowest_pass_us` the longest of
-- their waits in whole microseconds (rounded up).
CREATE TABLE leak_states_compact (
    commit_id           INTEGER NOT NULL REFERENCES commits(id),
    environment_id      INTEGER NOT NULL REFERENCES environments(id),
    scenario_id         INTEGER NOT NULL REFERENCES scenarios(id),
    type_id             INTEGER NOT NULL REFERENCES types(id),
    checked_count       INTEGER NOT NULL,
    leaked_count        INTEGER NOT NULL,
    late_release_count  INTEGER NOT NULL,
    error_count         INTEGER NOT NULL,
    passed_site_id      INTEGER REFERENCES check_sites(id),
    slowest_pass_us     INTEGER,
    PRIMARY KEY (commit_id, environment_id, scenario_id, type_id)
) WITHOUT ROWID;

-- The full records. `before_pass` is 1 when the check came before the first passing check of
-- its key at its commit that has no row (so the first check of a key is known exactly).
CREATE TABLE checks_compact (
    id           INTEGER PRIMARY KEY,
    run_id       INTEGER NOT NULL REFERENCES runs(id),
    scenario_id  INTEGER NOT NULL REFERENCES scenarios(id),
    type_id      INTEGER NOT NULL REFERENCES types(id),
    outcome      TEXT NOT NULL CHECK (outcome = 'deallocated' OR outcome = 'leaked'
                                      OR outcome = 'lateRelease' OR outcome = 'error'),
    waited_ms    REAL NOT NULL,
    timeout_ms   INTEGER NOT NULL,
    site_id      INTEGER NOT NULL REFERENCES check_sites(id),
    fingerprint  TEXT,
    retain_path  TEXT,
    message      TEXT,
    source       TEXT CHECK (source = 'test' OR source = 'watcher'),
    checked_at   TEXT NOT NULL,
    known_issue  INTEGER CHECK (known_issue = 1),
    before_pass  INTEGER CHECK (before_pass = 1)
);

-- The newest run copied so far, the conversion continuing after it; `finished` once the tables
-- are swapped (the row stays, so that every later start sees the conversion done).
CREATE TABLE compaction_progress (
    last_run_id  INTEGER NOT NULL,
    finished     INTEGER NOT NULL
);
INSERT INTO compaction_progress (last_run_id, finished) VALUES (0, 0);

INSERT INTO environments (name) SELECT DISTINCT environment FROM runs ORDER BY environment;

-- @conversion

DROP TABLE checks;
DROP TABLE leak_states;
ALTER TABLE checks_compact RENAME TO checks;
ALTER TABLE leak_states_compact RENAME TO leak_states;
CREATE INDEX checks_by_run ON checks(run_id);
-- With the primary key appended: (scenario_id, environment_id, commit_id, type_id).
CREATE INDEX leak_states_by_scenario ON leak_states(scenario_id, environment_id);
UPDATE compaction_progress SET finished = 1;
