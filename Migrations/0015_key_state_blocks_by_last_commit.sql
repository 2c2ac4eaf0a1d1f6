-- A key's blocks of states by their last commit (issue 15, SQLite's counterpart of PostgreSQL's
-- 0013_pg_key_state_blocks_wide.sql). A read of a key's history over commits `low` through
-- `high` (a diff's judged keys, a trend, a type page) wants the blocks that reach that range; on
-- the primary key (key, environment, batch) it read every block of the key in the environment
-- and kept those with `last_commit_id >= low AND first_commit_id <= high`: ~300 blocks a key at
-- 10M checks to keep a dozen, and a suspect head's 100 judged keys took 20 ms. A block holds one
-- settling batch's states (a few dozen uploads), so a block no wider than
-- `StateBlobs.narrowSpan` that reaches the range ends by `high + narrowSpan`: a range of the
-- first index. The few wider ones (a batch that also settled a re-run of an old commit) are
-- looked for on the second. The span is in commit ids: 256 uploads, 1,024 ids an upload
-- (`CommitOrder.spacing`). About a megabyte per million checks.
CREATE INDEX key_state_blocks_by_last_commit ON key_state_blocks(key_id, environment_id, last_commit_id);
CREATE INDEX key_state_blocks_wide ON key_state_blocks(key_id, environment_id, last_commit_id)
    WHERE last_commit_id - first_commit_id > 262144;
