-- The key states that leaked, by key, as SQLite's 0012_leak_states_leaking.sql (see there): a key
-- that never leaked along a diff's lines is found so with a seek, and its history is not read.
CREATE INDEX leak_states_leaking ON leak_states(key_id, environment_id, commit_id)
    WHERE leaked_count > 0;
