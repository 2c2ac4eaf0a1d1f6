-- The CI gate (issue 11).
-- A leak recorded inside `withKnownIssue` is a known leak: 1 on its check, NULL otherwise.
ALTER TABLE checks ADD COLUMN known_issue INTEGER CHECK (known_issue = 1);

-- Runs of fewer than 20 checks are never suspect: two checks that both leak are two leaks, not
-- a broken harness. Runs stored under the old rule are re-marked.
UPDATE runs SET suspect = 0 WHERE check_count < 20 AND suspect = 1;

