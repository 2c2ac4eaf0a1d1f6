-- The key states that leaked or released late at a commit — the few a diff starts from at each
-- side, and the leaks a project or type page shows at a branch's head — read without scanning the
-- commit's every state: a commit with a 100,000-check run has 100,000 of them and a few hundred
-- telling ones. Partial, so it costs nothing for the passing states that are nearly all of them.
CREATE INDEX leak_states_telling ON leak_states(commit_id, environment_id)
    WHERE leaked_count > 0 OR late_release_count > 0;
