-- LeakHistory schema, version 1. Never edit once shipped: add 0002_… instead.
-- Times are ISO 8601 UTC text (`2026-11-30T02:10:57.123Z`), so they sort and read as they are.

-- A project owns its tokens, commits and runs.
CREATE TABLE projects (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    created_at  TEXT NOT NULL
);

-- API tokens, stored only as the SHA-256 (hex) of the token text.
CREATE TABLE tokens (
    id          INTEGER PRIMARY KEY,
    project_id  INTEGER NOT NULL REFERENCES projects(id),
    scope       TEXT NOT NULL CHECK (scope IN ('read', 'write')),
    secret_hash TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    revoked_at  TEXT
);
CREATE INDEX tokens_by_project ON tokens(project_id);

-- Commits seen in uploads, with the branch and parents the uploader reported.
CREATE TABLE commits (
    id          INTEGER PRIMARY KEY,
    project_id  INTEGER NOT NULL REFERENCES projects(id),
    sha         TEXT NOT NULL CHECK (length(sha) = 40),
    branch      TEXT,
    first_seen  TEXT NOT NULL,
    UNIQUE (project_id, sha)
);

-- First parent first (position 0), as `git rev-list --parents` lists them.
CREATE TABLE commit_parents (
    commit_id   INTEGER NOT NULL REFERENCES commits(id),
    position    INTEGER NOT NULL,
    parent_sha  TEXT NOT NULL,
    PRIMARY KEY (commit_id, position)
) WITHOUT ROWID;
CREATE INDEX commit_parents_by_parent ON commit_parents(parent_sha);

-- Interned names: a type or scenario string is stored once and referred to by id.
CREATE TABLE types (
    id    INTEGER PRIMARY KEY,
    name  TEXT NOT NULL UNIQUE
);
CREATE TABLE scenarios (
    id    INTEGER PRIMARY KEY,
    name  TEXT NOT NULL UNIQUE
);

-- One upload. `run_key` is the uploader's idempotency key; `content_hash` (SHA-256 of the
-- canonical run) tells a harmless retry from a different run that reuses the key.
-- `suspect` marks runs where more than 80% of the checks leaked or failed: likely a broken
-- harness rather than real leaks, so regression queries can discount them.
CREATE TABLE runs (
    id                  INTEGER PRIMARY KEY,
    project_id          INTEGER NOT NULL REFERENCES projects(id),
    run_key             TEXT NOT NULL,
    content_hash        TEXT NOT NULL,
    commit_id           INTEGER NOT NULL REFERENCES commits(id),
    branch              TEXT,
    environment         TEXT NOT NULL,
    started_at          TEXT NOT NULL,
    received_at         TEXT NOT NULL,
    tool_name           TEXT,
    tool_version        TEXT,
    check_count         INTEGER NOT NULL,
    leaked_count        INTEGER NOT NULL,
    late_release_count  INTEGER NOT NULL,
    error_count         INTEGER NOT NULL,
    suspect             INTEGER NOT NULL CHECK (suspect IN (0, 1)),
    UNIQUE (project_id, run_key)
);
CREATE INDEX runs_by_commit_environment ON runs(commit_id, environment);

-- One deallocation check of a run.
CREATE TABLE checks (
    id           INTEGER PRIMARY KEY,
    run_id       INTEGER NOT NULL REFERENCES runs(id),
    scenario_id  INTEGER NOT NULL REFERENCES scenarios(id),
    type_id      INTEGER NOT NULL REFERENCES types(id),
    outcome      TEXT NOT NULL CHECK (outcome IN ('deallocated', 'leaked', 'lateRelease', 'error')),
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
CREATE INDEX checks_by_run ON checks(run_id);
CREATE INDEX checks_by_type ON checks(type_id);
CREATE INDEX checks_by_fingerprint ON checks(fingerprint) WHERE fingerprint IS NOT NULL;

-- The state of each leak key at a commit, kept up to date at ingest so that a diff of two
-- commits reads two index ranges instead of scanning checks.
CREATE TABLE leak_states (
    commit_id           INTEGER NOT NULL REFERENCES commits(id),
    environment         TEXT NOT NULL,
    scenario_id         INTEGER NOT NULL REFERENCES scenarios(id),
    type_id             INTEGER NOT NULL REFERENCES types(id),
    checked_count       INTEGER NOT NULL,
    leaked_count        INTEGER NOT NULL,
    late_release_count  INTEGER NOT NULL,
    error_count         INTEGER NOT NULL,
    PRIMARY KEY (commit_id, environment, scenario_id, type_id)
) WITHOUT ROWID;
CREATE INDEX leak_states_by_type ON leak_states(type_id, environment);
