extension StoredStates {
    /// PostgreSQL's states as stored, from a row's column `first` on: the five arrays as text
    /// (`PostgresArray.integers`) — a run's row of `state_arrays`, or a key's slice of a block
    /// (`StateArrays.keySlices`).
    init(row: any SQLRow, from first: Int32) {
        self.init(ids: PostgresArray.integers(row.string(at: first) ?? ""),
                  checked: PostgresArray.integers(row.string(at: first + 1) ?? ""),
                  leaked: PostgresArray.integers(row.string(at: first + 2) ?? ""),
                  late: PostgresArray.integers(row.string(at: first + 3) ?? ""),
                  errors: PostgresArray.integers(row.string(at: first + 4) ?? ""))
    }
}
