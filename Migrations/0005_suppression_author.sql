-- Who added a suppression: the git e-mail address or CI actor the client sent. Rules added
-- before this migration have none.
ALTER TABLE suppressions ADD COLUMN created_by TEXT;
