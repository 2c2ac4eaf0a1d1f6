import LeakReport

/// Keys' states at a set of commits, as `ProjectHistory.keyStates` reads them: a row per key,
/// a column per commit, each cell the key's state there and the runs it rests on. A diff reads a
/// hundred keys along the same lines of several hundred commits: each line's columns are found
/// once (`columns(of:)`), then every key's states along it are array reads, not a dictionary of
/// dictionaries probed per key and commit.
struct KeyStateGrid {
    /// The columns: the commits asked about, ascending.
    let commits: [Int64]
    /// Each key's cell in every column (nil: not checked there); a key checked at none of the
    /// commits has no row.
    var rows: [KeyIDs: [Cell?]] = [:]

    /// A key at one commit: its state (`KeyCounts.state`), and the runs that checked it with an
    /// answer (not an error) and those that leaked it, as `KeyEvidence.RunTally` counts them.
    struct Cell {
        var runs: Int32
        var leakedRuns: Int32
        var state: KeyState

        init(checked: Int64, leaked: Int64, late: Int64, errors: Int64) {
            runs = Int32(clamping: checked - errors)
            leakedRuns = Int32(clamping: leaked)
            state = KeyCounts.state(checked: Int(checked), leaked: Int(leaked), lateRelease: Int(late), errors: Int(errors))
        }

        init(_ counts: KeyCounts) {
            self.init(checked: Int64(counts.checked), leaked: Int64(counts.leaked), late: Int64(counts.lateRelease),
                      errors: Int64(counts.errors))
        }
    }

    init(commits: Set<Int64>) {
        self.commits = commits.sorted()
    }

    /// The column of `commitID`, nil when it was not asked about.
    func column(of commitID: Int64) -> Int? {
        var low = 0, high = commits.count
        while low < high {
            let middle = (low + high) / 2
            if commits[middle] < commitID { low = middle + 1 } else { high = middle }
        }
        return low < commits.count && commits[low] == commitID ? low : nil
    }

    /// The column of `commitID`, looked for from `hint` on (the column of the commit before it, when
    /// commits come in ascending order), else from the start.
    func column(of commitID: Int64, from hint: Int) -> Int? {
        var index = hint
        guard index < commits.count, commits[index] <= commitID else { return column(of: commitID) }
        while index < commits.count, commits[index] < commitID { index += 1 }
        return index < commits.count && commits[index] == commitID ? index : nil
    }

    /// The columns of a line's commits, in the line's order.
    func columns<S: Sequence>(of line: S) -> [Int?] where S.Element == Int64 {
        line.map(column(of:))
    }

    /// One key's row, to read along several lines.
    func row(_ ids: KeyIDs) -> Row {
        Row(states: rows[ids])
    }

    struct Row {
        fileprivate let states: [Cell?]?

        /// The state in `column` (nil: not checked there, or a commit not asked about).
        subscript(column: Int?) -> KeyState? {
            guard let column, let states else { return nil }
            return states[column]?.state
        }

        /// The cells along a line's columns (`KeyStateGrid.columns(of:)`), nil where the key was
        /// not checked.
        func cells(along columns: [Int?]) -> [Cell?] {
            guard let states else { return Array(repeating: nil, count: columns.count) }
            return columns.map { $0.flatMap { states[$0] } }
        }
    }
}

/// A key's counts at one column of a `KeyStateGrid`, as one stored row (a run's, or a block's
/// for several) holds them: PostgreSQL's key reads add them up per column
/// (`ProjectHistory.keyStates`).
struct ColumnCounts {
    var column: Int
    var checked: Int64
    var leaked: Int64
    var late: Int64
    var errors: Int64

    /// Adds the counts of another row at the same column (as `KeyCounts.add`).
    mutating func add(_ other: ColumnCounts) {
        checked += other.checked
        leaked += other.leaked
        late += other.late
        errors += other.errors
    }

    /// `counts` in column order, those of one column added up.
    static func added(_ counts: [ColumnCounts]) -> [ColumnCounts] {
        var sorted = counts
        if !zip(counts, counts.dropFirst()).allSatisfy({ $0.column < $1.column }) {
            sorted.sort { $0.column < $1.column }
        }
        var result: [ColumnCounts] = []
        result.reserveCapacity(sorted.count)
        for counts in sorted {
            if let last = result.last, last.column == counts.column {
                result[result.count - 1].add(counts)
            } else {
                result.append(counts)
            }
        }
        return result
    }
}
