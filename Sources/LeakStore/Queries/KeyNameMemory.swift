/// The names of the leak keys one PostgreSQL connection or SQLite reader has read, kept from one
/// read to the next (`ConnectionMemory.keyNames(of:load:)`), so that a diff or a trend does not
/// join a few hundred keys to their scenario and type names again at every request (twice a diff,
/// and their names decoded each time).
///
/// Kept as learned: a row of `leak_keys` is inserted once and never changed or deleted, nor are
/// the `scenarios` and `types` rows it names, so what a snapshot read of a key stays true in
/// every later one. (A connection reset forgets them: its database may not be the same one.)
struct KeyNameMemory {
    /// Each key's ids and names by its id in `leak_keys`, counts zero (`KeyCounts.named(_:)`).
    private(set) var names: [Int64: KeyCounts] = [:]

    mutating func learn(_ read: [Int64: KeyCounts]) {
        names.merge(read) { known, _ in known }
    }

    mutating func forget() {
        names = [:]
    }
}
