-- The key states that leaked or released late at a commit, as SQLite's 0010_leak_states_telling.sql
-- (see there): partial, so a diff next to a 100,000-check run reads its few telling states only.
CREATE INDEX leak_states_telling ON leak_states(commit_id, environment_id)
    WHERE leaked_count > 0 OR late_release_count > 0;
