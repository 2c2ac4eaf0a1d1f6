-- Key states packed (issue 15, ingest; SQLite only). A row a key state in key order cost every
-- upload a b-tree descent and a page of its own for each key, written to the log and
-- checkpointed again: three quarters of a 1,000-check upload's server time, and ingest ran at a
-- third of raw SQLite inserts. Now a run's states at its commit are one blob of `state_blobs` (in
-- key order, ~6 bytes a state), the truth a read of one commit decodes; every few dozen runs'
-- worth, the blobs not settled yet become one row of `key_state_blocks` a key and environment
-- (`StateBlobs.settle`), which a read of a key's history decodes. `leak_states` becomes the
-- eponymous virtual table `LeakStatesTable` registers on every connection: the same columns and
-- rows, so the queries read it as they did.
--
-- This migration runs in three steps, as migrations 6, 8 and 11 do (`Migration.conversion`):
-- the part above the `@conversion` line creates the tables and a progress marker; the store
-- then packs the old rows commit by commit in id order (`DataConversion.packedKeyStates`: a blob
-- a commit and environment, and the batch's blocks), a batch per transaction, each moving the
-- marker with it, printing progress and resuming from the marker when it was stopped; the part
-- below the line drops the old table, its indexes and the marker.

CREATE TABLE state_blobs (
    id              INTEGER PRIMARY KEY,
    commit_id       INTEGER NOT NULL REFERENCES commits(id),
    environment_id  INTEGER NOT NULL REFERENCES environments(id),
    -- 1 once its states are in `key_state_blocks`.
    settled         INTEGER NOT NULL DEFAULT 0 CHECK (settled IN (0, 1)),
    states          BLOB NOT NULL
);
CREATE INDEX state_blobs_by_commit ON state_blobs(commit_id, environment_id);
CREATE INDEX state_blobs_unsettled ON state_blobs(id) WHERE settled = 0;

-- A key's states in one environment at the commits of one settling (`batch`: the last blob id
-- it settled), in commit order; the first and last commit, so that a read of a range of commits
-- skips the blocks outside it.
CREATE TABLE key_state_blocks (
    key_id           INTEGER NOT NULL REFERENCES leak_keys(id),
    environment_id   INTEGER NOT NULL REFERENCES environments(id),
    batch            INTEGER NOT NULL,
    first_commit_id  INTEGER NOT NULL,
    last_commit_id   INTEGER NOT NULL,
    states           BLOB NOT NULL,
    PRIMARY KEY (key_id, environment_id, batch)
) WITHOUT ROWID;

CREATE TABLE packing_progress (
    last_commit_id  INTEGER NOT NULL,
    finished        INTEGER NOT NULL
);
INSERT INTO packing_progress (last_commit_id, finished) VALUES (0, 0);
-- @conversion
DROP TABLE leak_states;
DROP TABLE packing_progress;
