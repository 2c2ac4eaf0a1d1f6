extension StoredStates {
    /// PostgreSQL's states as stored, the five arrays of a row as text (`PostgresArray.integers`):
    /// the ids in column `ids` (`key_ids` of a run's row of `state_arrays`, `commit_ids` of a
    /// key's slice of a block, `StateArrays.keySlices`), the counts in `checked`, `leaked`, `late`
    /// and `errors`.
    init(row: any SQLRow, ids: String) {
        self.init(ids: PostgresArray.integers(row.string(ids) ?? ""),
                  checked: PostgresArray.integers(row.string("checked") ?? ""),
                  leaked: PostgresArray.integers(row.string("leaked") ?? ""),
                  late: PostgresArray.integers(row.string("late") ?? ""),
                  errors: PostgresArray.integers(row.string("errors") ?? ""))
    }
}
