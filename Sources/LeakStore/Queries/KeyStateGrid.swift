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

    /// A key at one commit: its state (`KeyTally.state`), and the runs that checked it with an
    /// answer (not an error) and those that leaked it, as `KeyEvidence.RunTally` counts them.
    struct Cell {
        var runs: Int32
        var leakedRuns: Int32
        var state: KeyState

        init(_ tally: KeyTally) {
            runs = Int32(clamping: tally.checked - tally.errors)
            leakedRuns = Int32(clamping: tally.leaked)
            state = tally.state
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

/// A key's state at one column of a `KeyStateGrid`, as one stored row (a run's, or a block's
/// for several) holds it: PostgreSQL's key reads merge them per column (`ProjectHistory.keyStates`).
struct ColumnTally {
    var column: Int
    var tally: KeyTally

    /// `tallies` in column order, those of one column merged.
    static func merged(_ tallies: [ColumnTally]) -> [ColumnTally] {
        KeyTally.mergedInOrder(tallies, by: \.column) { $0.tally.merge($1.tally) }
    }
}
