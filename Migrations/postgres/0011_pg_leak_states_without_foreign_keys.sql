-- Key states without foreign keys (issue 15, ingest on PostgreSQL). PostgreSQL checks a foreign
-- key with a trigger a row: each key state an upload wrote looked up and locked its commit, its
-- environment, its key and its site, four index probes a key — 20 of the 25 ms that 1,000 key
-- states took to insert, three quarters of a 1,000-check upload's time in the database. The
-- store alone writes these rows, from ids it read or wrote in the same transaction, and reads
-- them through their commit and key; SQLite, whose key states are packed, never checked a key
-- state against its key either. The other tables keep theirs (a row an upload, or a full record
-- a failing check).
DO $$
DECLARE
    constraint_name name;
BEGIN
    FOR constraint_name IN
        SELECT conname FROM pg_constraint WHERE conrelid = 'leak_states'::regclass AND contype = 'f'
    LOOP
        EXECUTE format('ALTER TABLE leak_states DROP CONSTRAINT %I', constraint_name);
    END LOOP;
END
$$;
