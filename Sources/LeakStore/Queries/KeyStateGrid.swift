import LeakReport

/// Keys' states at a set of commits, as `ProjectHistory.keyStates` reads them: a row per key,
/// a column per commit. A diff reads a hundred keys along the same lines of several hundred
/// commits: each line's columns are found once (`columns(of:)`), then every key's states along
/// it are array reads, not a dictionary of dictionaries probed per key and commit.
struct KeyStateGrid {
    /// The columns: the commits asked about, ascending.
    let commits: [Int64]
    /// Each key's state in every column (nil: not checked there); a key checked at none of the
    /// commits has no row.
    var rows: [KeyIDs: [KeyState?]] = [:]

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
        fileprivate let states: [KeyState?]?

        /// The state in `column` (nil: not checked there, or a commit not asked about).
        subscript(column: Int?) -> KeyState? {
            guard let column, let states else { return nil }
            return states[column]
        }

        /// The states along a line's columns (`KeyStateGrid.columns(of:)`).
        func along(_ columns: [Int?]) -> [KeyState?] {
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
        var sorted = tallies
        if !zip(tallies, tallies.dropFirst()).allSatisfy({ $0.column < $1.column }) {
            sorted.sort { $0.column < $1.column }
        }
        var result: [ColumnTally] = []
        result.reserveCapacity(sorted.count)
        for next in sorted {
            if let last = result.last, last.column == next.column {
                result[result.count - 1].tally.merge(next.tally)
            } else {
                result.append(next)
            }
        }
        return result
    }
}
