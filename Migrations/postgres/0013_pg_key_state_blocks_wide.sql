-- The blocks of key states that span many commits (issue 15, the diff's key reads at 10M
-- checks). A read of keys' histories over commits `low` through `high` wants the blocks that
-- reach that range: `last_commit_id >= low` on the primary key (key group, environment, last
-- commit), then `first_commit_id <= high` a block at a time — every block of the group from
-- `low` to the newest, whose rows are fetched before the filter passes over them: a diff at a
-- commit 1,500 uploads back read 361 blocks of each key's group to keep 15 (5.8 ms). A block
-- holds one settling batch's states (a few dozen uploads: at most 114 commits' span in a
-- history of 10M checks), so a block no wider than `StateArrays.narrowSpan` that reaches the
-- range ends by `high + narrowSpan`; the read looks for the few wider ones (a batch that also
-- settled a re-run of an old commit) here. The span is in commit ids: 256 uploads, 1,024 ids
-- an upload (`CommitOrder.spacing`).
CREATE INDEX key_state_blocks_wide ON key_state_blocks (key_group, environment_id, last_commit_id)
    WHERE last_commit_id - first_commit_id > 262144;
