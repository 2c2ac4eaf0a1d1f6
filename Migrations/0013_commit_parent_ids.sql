-- Each parent by id too (NULL while the server has no upload of it), so that a first-parent walk
-- — the diff's base line, its flaky window, the head's own line, a branch's trend — steps from a
-- commit to its parent by integer, not through a lookup of the parent's sha in `commits` at every
-- step. The sha stays what the uploader reported; `LeakStore.linkParents` keeps the id in step
-- when a commit is stored, whichever of a commit and its parent arrived first, and when a rebuilt
-- commit takes its old id's place (`CommitOrder`). No foreign key: a rebuilt commit's old row is
-- removed after its children point at the new one.
ALTER TABLE commit_parents ADD COLUMN parent_id INTEGER;
UPDATE commit_parents SET parent_id = (
    SELECT pc.id FROM commits c JOIN commits pc ON pc.project_id = c.project_id AND pc.sha = commit_parents.parent_sha
    WHERE c.id = commit_parents.commit_id);
