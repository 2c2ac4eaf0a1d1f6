/// Commit ids are upload order: branch tips, a branch's commits, the walk's fallback and the
/// scenario history's pages read them so, and a key's states are kept in that order (the table's
/// key order on SQLite, `leak_states_by_key` on PostgreSQL). A new commit's id is the next
/// multiple of `spacing`, which leaves free the ids right after it: a big run onto a commit that
/// already has runs rebuilds the commit under the next one (`LeakStore.ingest`), which then takes
/// the old row's place in one short transaction.
enum CommitOrder {
    /// Room after each new commit's id.
    static let spacing = 1_024

    /// SQL: the id of a new commit.
    static let newID = "(SELECT (coalesce(max(id), 0) / \(spacing) + 1) * \(spacing) FROM commits)"
}
