-- The key states that leaked (leaked or flaky), by key: whether a key leaked anywhere along a
-- diff's lines, asked for every key that leaks at the head (`ProjectHistory.keysThatLeaked`),
-- is a seek here instead of a read of the key's several hundred passing states. A key that never
-- leaked there cannot show intermittence, and its history is not read at all. Partial: about one
-- key state in a hundred leaked, so it adds about 0.15 bytes a check.
CREATE INDEX leak_states_leaking ON leak_states(key_id, environment_id, commit_id)
    WHERE leaked_count > 0;
