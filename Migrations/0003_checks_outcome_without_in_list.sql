-- `checks.outcome` checked by equalities instead of an IN list. SQLite evaluates a CHECK with an
-- IN list of more than two constants by building a temporary b-tree of the list, once per
-- statement run — that is, once per inserted check: it was the largest single cost of ingest
-- (callgrind: ~30,000 instructions a check, most of them zeroing the temporary table's pages).
-- Same allowed values; a CHECK cannot be altered, so the table is rebuilt (nothing references
-- `checks`, so neither the copy nor the drop touches another table).
-- `checks_by_type` is not rebuilt: no query reads it (each reaches checks through `checks_by_run`;
-- the trend query even steers clear of it), types are never deleted, and keeping it cost a
-- random-position index insert for every stored check.

CREATE TABLE checks_rebuilt (
    id           INTEGER PRIMARY KEY,
    run_id       INTEGER NOT NULL REFERENCES runs(id),
    scenario_id  INTEGER NOT NULL REFERENCES scenarios(id),
    type_id      INTEGER NOT NULL REFERENCES types(id),
    outcome      TEXT NOT NULL CHECK (outcome = 'deallocated' OR outcome = 'leaked'
                                      OR outcome = 'lateRelease' OR outcome = 'error'),
    waited_ms    REAL NOT NULL,
    timeout_ms   INTEGER NOT NULL,
    file         TEXT NOT NULL,
    line         INTEGER NOT NULL,
    lifecycle    TEXT NOT NULL,
    fingerprint  TEXT,
    retain_path  TEXT,          -- JSON array of {holder, property, kind}, as uploaded
    message      TEXT,
    source       TEXT CHECK (source IN ('test', 'watcher')),
    checked_at   TEXT NOT NULL
);
INSERT INTO checks_rebuilt SELECT id, run_id, scenario_id, type_id, outcome, waited_ms, timeout_ms, file, line,
    lifecycle, fingerprint, retain_path, message, source, checked_at FROM checks;
DROP TABLE checks;
ALTER TABLE checks_rebuilt RENAME TO checks;
CREATE INDEX checks_by_run ON checks(run_id);
CREATE INDEX checks_by_fingerprint ON checks(fingerprint) WHERE fingerprint IS NOT NULL;
