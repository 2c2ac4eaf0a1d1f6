-- New commits take their ids from the table's identity sequence, counting in steps of 1,024
-- (`CommitOrder.spacing`): the room after each new commit's id stays, and ids stay in upload
-- order. Until now a new commit's id was the next multiple of 1,024 after the table's largest,
-- which two servers' overlapping transactions read alike: one of them failed on the primary
-- key, and under eight writers some uploads failed after every retry. A sequence hands each
-- caller its own value, outside any transaction.
ALTER TABLE commits ALTER COLUMN id SET INCREMENT BY 1024;
SELECT setval(pg_get_serial_sequence('commits', 'id'), (SELECT (coalesce(max(id), 0) / 1024 + 1) * 1024 FROM commits), false);
