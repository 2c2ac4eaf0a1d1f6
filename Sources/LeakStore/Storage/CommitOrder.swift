/// Commit ids are upload order: branch tips, a branch's commits, the walk's fallback and the
/// scenario history's pages read them so, and a key's states are kept in that order (its
/// blocks). A new commit's id is the next multiple of `spacing`, which leaves free the ids right
/// after it: while PostgreSQL kept a row a key state, a big run onto a commit with runs rebuilt
/// the commit under the next one. Nothing does now (both engines pack their states); the spacing
/// stays, as the ids given so far have it.
enum CommitOrder {
    /// Room after each new commit's id.
    static let spacing = 1_024

    /// SQL: the id of a new commit. Where one writes at a time (SQLite), the next multiple of
    /// `spacing` after the largest id. Where several do (PostgreSQL's servers), the largest id is
    /// what two overlapping transactions read alike, so the id is the next value of the table's
    /// identity sequence, which counts in steps of `spacing` (`0009_pg_commit_order.sql`).
    static func newID(on db: any SQLConnection) -> String {
        db.writesAlone ? nextMultiple : nextInSequence
    }

    private static let nextMultiple = "(SELECT (coalesce(max(id), 0) / \(spacing) + 1) * \(spacing) FROM commits)"
    static let nextInSequence = "nextval(pg_get_serial_sequence('commits', 'id'))"
}
