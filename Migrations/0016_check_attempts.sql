-- Confirmation attempts (issue 45): how many times a check ran and how many of those runs
-- leaked, as the report says (`attempts`, `leakedAttempts`). NULL is the report's default: one
-- attempt, every attempt of a leaked check leaked. Kept on full records, which every leak is
-- (a passing check without a row counts one attempt); the diff reads them for the leaks at a
-- head (`ProjectHistory.keyEvidence`). A check that leaked in some attempt is stored leaked.
ALTER TABLE checks ADD COLUMN attempts INTEGER;
ALTER TABLE checks ADD COLUMN leaked_attempts INTEGER;
