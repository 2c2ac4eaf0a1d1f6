/// PostgreSQL's commit upsert: one statement, a round trip, where the writers' text
/// (`SQLConnection.upsertCommit`) takes four.
extension PostgresConnection {
    package func upsertCommit(projectID: Int64, sha: String, branch: String?, receivedAt: String, parents: [String]) throws -> Int64 {
        let arguments = CommitArguments(projectID: projectID, sha: sha, branch: branch, receivedAt: receivedAt,
                                        parents: PostgresArray.literal(parents.map { $0.lowercased() }))
        guard let commitID = try scalarInt(sql: Self.commitWithParents(arguments))
        else { throw LeakStoreError.unavailable("the commit upsert returned no id") }
        return commitID
    }

    /// What `commitWithParents` binds: the parents as one `text[]` literal.
    struct CommitArguments {
        var projectID: Int64
        var sha: String
        var branch: String?
        var receivedAt: String
        var parents: String
    }

    /// On PostgreSQL, where a statement is a round trip, what `SQLConnection.upsertCommit`, `insertParents` and
    /// `linkParents` do in four statements, in one (they were four of a 10-check upload's
    /// fourteen round trips): the commit upserted, its parents inserted with the ids of those
    /// already stored (a parent row already there gets its id where it had none, from its own
    /// sha, as `ownParentsLink` gives it), and the rows that named it as a parent pointed at it.
    /// The parts see the database as it was when the statement began: the commit's own new row
    /// is none of its parents', and the rows it inserts are none of its children's.
    ///
    /// A commit stored already with a branch and as many parents (most uploads: a suite's shards,
    /// its other environments) is only read (`found`), as `upsertCommit` does where one writer
    /// writes: the upsert's update locked the commit's row until the upload's transaction ended,
    /// so the shards of one commit uploaded at once waited for each other, one at a time. Nothing
    /// changes such a row after (a real sha is never taken back; only placeholders are deleted).
    /// Every upload writes it, so its text is made once (`SQLShape`).
    static let commitWithParents: SQLShape<CommitArguments> = """
    WITH found AS (
        SELECT c.id FROM commits c
        WHERE c.project_id = \(\.projectID) AND c.sha = CAST(\(\.sha) AS TEXT) AND (c.branch IS NOT NULL OR CAST(\(\.branch) AS TEXT) IS NULL)
          AND (SELECT count(*) FROM commit_parents p WHERE p.commit_id = c.id) >= cardinality(CAST(\(\.parents) AS text[]))),
    stored AS (
        INSERT INTO commits (id, project_id, sha, branch, first_seen)
        SELECT \(raw: CommitOrder.nextInSequence), CAST(\(\.projectID) AS BIGINT), CAST(\(\.sha) AS TEXT), CAST(\(\.branch) AS TEXT), CAST(\(\.receivedAt) AS TEXT)
        WHERE NOT EXISTS (SELECT 1 FROM found)
        ON CONFLICT (project_id, sha) DO UPDATE SET branch = coalesce(commits.branch, excluded.branch)
        RETURNING id),
    parents AS (
        INSERT INTO commit_parents (commit_id, position, parent_sha, parent_id)
        SELECT stored.id, p.position - 1, p.sha, (SELECT pc.id FROM commits pc WHERE pc.project_id = \(\.projectID) AND pc.sha = p.sha)
        FROM stored, unnest(CAST(\(\.parents) AS text[])) WITH ORDINALITY AS p(sha, position)
        ON CONFLICT (commit_id, position) DO UPDATE
            SET parent_id = (SELECT pc.id FROM commits pc WHERE pc.project_id = \(\.projectID) AND pc.sha = commit_parents.parent_sha)
            WHERE commit_parents.parent_id IS NULL),
    children AS (
        UPDATE commit_parents SET parent_id = stored.id FROM stored
        WHERE commit_parents.parent_sha = \(\.sha) AND (commit_parents.parent_id IS NULL OR commit_parents.parent_id <> stored.id)
          AND EXISTS (SELECT 1 FROM commits c WHERE c.id = commit_parents.commit_id AND c.project_id = \(\.projectID)))
    SELECT id FROM found UNION ALL SELECT id FROM stored
    """
}
