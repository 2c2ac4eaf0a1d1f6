-- Confirmation attempts (issue 45; SQLite's 0016_check_attempts.sql): how many times a check ran
-- and how many of those runs leaked, as the report says (`attempts`, `leakedAttempts`). NULL is
-- the report's default: one attempt, every attempt of a leaked check leaked. Kept on full
-- records, which every leak is; the diff reads them for the leaks at a head
-- (`ProjectHistory.keyEvidence`). Columns without a default: adding them rewrites nothing.
ALTER TABLE checks ADD COLUMN attempts integer;
ALTER TABLE checks ADD COLUMN leaked_attempts integer;
