/// A commit as the writers store it, written once for every engine; an engine may do it in fewer
/// statements (`PostgresConnection.upsertCommit`).
extension SQLConnection {
    /// The commit upserted (its branch kept where it had one), then its parents' rows and their
    /// links. RETURNING on an upsert gives the id whether the row is new or was already there.
    package func upsertCommit(projectID: Int64, sha: String, branch: String?, receivedAt: String, parents: [String]) throws -> Int64 {
        guard let commitID = try scalarInt(sql: """
            INSERT INTO commits (id, project_id, sha, branch, first_seen)
            VALUES (\(raw: CommitOrder.newID(on: self)), \(projectID), \(sha), \(branch), \(receivedAt))
            ON CONFLICT (project_id, sha) DO UPDATE SET branch = coalesce(commits.branch, excluded.branch)
            RETURNING id
            """)
        else {
            throw LeakStoreError.unavailable("the commit upsert returned no id")
        }
        try insertParents(commitID: commitID, parents)
        try linkParents(projectID: projectID, commitID: commitID, sha: sha)
        return commitID
    }

    func insertParents(commitID: Int64, _ parents: [String]) throws {
        try insert(CommitLinks.parentInsert, rows: parents.enumerated().map { position, parent in
            [.integer(commitID), .integer(Int64(position)), .text(parent.lowercased())]
        })
    }

    /// Keeps `commit_parents.parent_id` what a lookup of `parent_sha` in the project would give,
    /// now that `commitID` holds `sha`: its own parents' ids (a parent uploaded before it), and
    /// the rows of commits that named it as a parent (uploaded before it, or pointing at the id a
    /// rebuilt commit had). The one place parent ids are written after the migration filled them.
    /// Readers check an id against the sha (`ProjectHistory.parentJoins`): where two servers store a
    /// commit and its parent at once, a link missed or left behind costs a lookup, not an answer.
    func linkParents(projectID: Int64, commitID: Int64, sha: String) throws {
        try run(sql: CommitLinks.ownParentsLink(projectID: projectID, commitID: commitID))
        try run(sql: CommitLinks.childrenLink(projectID: projectID, commitID: commitID, sha: sha))
    }
}

/// The statements of `SQLConnection.insertParents` and `linkParents`.
enum CommitLinks {
    static func ownParentsLink(projectID: Int64, commitID: Int64) -> SQL {
        """
        UPDATE commit_parents
        SET parent_id = (SELECT pc.id FROM commits pc WHERE pc.project_id = \(projectID) AND pc.sha = commit_parents.parent_sha)
        WHERE commit_id = \(commitID) AND parent_id IS NULL
          AND EXISTS (SELECT 1 FROM commits pc WHERE pc.project_id = \(projectID) AND pc.sha = commit_parents.parent_sha)
        """
    }

    /// The project's commits are checked per child row found by the sha: `commit_id IN (SELECT … WHERE
    /// project_id = ?)` built the list of every commit of the project for each upload.
    static func childrenLink(projectID: Int64, commitID: Int64, sha: String) -> SQL {
        """
        UPDATE commit_parents SET parent_id = \(commitID)
        WHERE parent_sha = \(sha) AND (parent_id IS NULL OR parent_id <> \(commitID))
          AND EXISTS (SELECT 1 FROM commits c WHERE c.id = commit_parents.commit_id AND c.project_id = \(projectID))
        """
    }

    static let parentInsert = RowInsert(
        into: "commit_parents (commit_id, position, parent_sha)", columnCount: 3, suffix: "ON CONFLICT DO NOTHING")
}
