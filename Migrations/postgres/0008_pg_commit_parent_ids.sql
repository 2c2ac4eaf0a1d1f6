-- Each parent by id too, as SQLite's 0013_commit_parent_ids.sql (see there): a first-parent walk
-- steps by integer, not through a lookup of the parent's sha at every step.
ALTER TABLE commit_parents ADD COLUMN parent_id BIGINT;
UPDATE commit_parents p SET parent_id = pc.id
FROM commits c JOIN commits pc ON pc.project_id = c.project_id
WHERE c.id = p.commit_id AND pc.sha = p.parent_sha;
