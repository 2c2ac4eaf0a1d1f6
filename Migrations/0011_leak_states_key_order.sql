-- Key states kept in key order (issue 15, SQLite only): the table's primary key becomes
-- (key_id, environment_id, commit_id), so that a key's history along a line — what a diff
-- judges intermittence by, and what a trend or a type page draws — is one contiguous range of
-- the table, not an index range with a seek into the table for every state (3.5 times the reads
-- at 10M checks). The index by key is replaced by one by commit, for the reads of one commit's
-- states (a commit page, a side of a diff that has a suspect run, the clean-up of a pending
-- upload); the telling states keep their partial index. The same bytes on disk: the table holds
-- the same rows, the by-commit index the same columns as the by-key one did. PostgreSQL keeps
-- its table as it is: a heap is in no key's order, and its index by key already serves ranges.
--
-- This migration runs in three steps, as migrations 6 and 8 do (`Migration.conversion`): the
-- part above the `@conversion` line creates the key-ordered table and a progress marker; the
-- store then copies the states over key by key in id order (`DataConversion.keyOrder`, appending
-- to the new table), a batch per transaction, each moving the marker with it, printing progress,
-- and resuming from the marker when it was stopped; the part below the line swaps the tables,
-- builds the two indexes by commit and drops the marker.

CREATE TABLE leak_states_key_order (
    commit_id           INTEGER NOT NULL REFERENCES commits(id),
    environment_id      INTEGER NOT NULL REFERENCES environments(id),
    key_id              INTEGER NOT NULL REFERENCES leak_keys(id),
    checked_count       INTEGER NOT NULL,
    leaked_count        INTEGER NOT NULL,
    late_release_count  INTEGER NOT NULL,
    error_count         INTEGER NOT NULL,
    passed_site_id      INTEGER REFERENCES check_sites(id),
    slowest_pass_us     INTEGER,
    PRIMARY KEY (key_id, environment_id, commit_id)
) WITHOUT ROWID;

-- The newest key whose states are copied, the conversion continuing after it.
CREATE TABLE key_order_progress (
    last_key_id  INTEGER NOT NULL,
    finished     INTEGER NOT NULL
);
INSERT INTO key_order_progress (last_key_id, finished) VALUES (0, 0);

-- @conversion

DROP TABLE leak_states;
ALTER TABLE leak_states_key_order RENAME TO leak_states;
-- With the primary key appended: (commit_id, environment_id, key_id).
CREATE INDEX leak_states_by_commit ON leak_states(commit_id, environment_id);
CREATE INDEX leak_states_telling ON leak_states(commit_id, environment_id)
    WHERE leaked_count > 0 OR late_release_count > 0;
DROP TABLE key_order_progress;
