import CSQLite
import Synchronization

/// `leak_states` read from packed key states (`PackedKeyStates`): an eponymous, read-only
/// SQLite virtual table with the columns and meaning of the table it stands for, so that the
/// queries read it unchanged.
///
/// `state_blobs` holds each run's states at its commit, one blob a run, and is the truth;
/// `key_state_blocks` holds the same states again by key, settled from those blobs in batches
/// (`StateBlobs.settle`). The plans `xBestIndex` offers are those of the indexes the table had:
/// - a commit (`commit_id = ?`, with its environment and key when given): the commit's blobs,
///   merged, in (environment, key) order;
/// - a key (`key_id = ?`, with its environment and a range of commits when given): the key's
///   blocks that reach the range, and its states in the blobs not settled yet, merged, in
///   (environment, commit) order;
/// - anything else: every blob, commit by commit (the copy tool, the benchmarks' counts).
///
/// A state of one key at one commit stored by several runs is merged in upload order, as the
/// upsert of `CompactCheckWriter` merges them into a row (`KeyTally.merge`). Each connection
/// keeps the commits it read last and the blobs not settled yet (while they are few), decoded,
/// until the database changes (`SQLITE_FCNTL_DATA_VERSION`, and the connection's own changes; a writer inside a
/// transaction keeps them for one statement).
///
/// A pending upload's states (`PendingUpload`: blobs of its placeholder commit, on no line, until
/// one transaction publishes them) are not rows of the table: the writers handle them as blobs.
///
/// A real table of the same name takes precedence (SQLite looks for one first): registered on
/// every connection, it answers only once the real one is gone.
final class LeakStatesTable {
    /// One row: a key's state at a commit in an environment.
    struct Row {
        var commitID: Int64
        var environmentID: Int64
        var keyID: Int64
        var state: KeyTally
    }

    /// Registers the module on `db` under the table's name.
    static func register(on db: OpaquePointer) {
        sqlite3_create_module_v2(db, name, module, nil, nil)
    }

    static let name = "leak_states"

    private let db: OpaquePointer
    fileprivate var version: (data: Int32, changes: Int64) = (-1, -1)
    /// The commits read last, each in (environment, key) order: whole, or one environment's part.
    private var commits: [CommitPart: [Row]] = [:]
    /// The states in blobs not settled yet, in key order and within a key in upload order: one
    /// array, searched (an array a key would hold an array's overhead for every key).
    private var unsettled: [Row]?

    /// The statements `query` ran, by their text: prepared once a connection (a page's trends
    /// read hundreds of keys, each a few statements), finalized with the table.
    private var statements: [String: OpaquePointer] = [:]

    private init(db: OpaquePointer) { self.db = db }

    deinit {
        statements.values.forEach { sqlite3_finalize($0) }
        dropBigCommit()
    }

    private var commitRowsHeld = 0
    /// The telling states of commits too big to keep whole (`commitRows`), a few of them.
    private var tellingCommits: [TellingAt: [Row]] = [:]
    /// The last part of a commit too big for `commits` that the connection read whole (a
    /// 100,000-check run's states in its environment), for its next statements: a diff reads it
    /// in several (each batch of keys of `ProjectHistory.keyCounts(commitID:environment:keys:)`),
    /// and each decoded it again. At most `StoreTuning.bigCommitHolders` connections of the
    /// process hold one at a time; the others decode it a statement.
    private var bigCommit: (part: CommitPart, rows: [Row])?
    private static let bigCommitsHeld = Atomic<Int>(0)

    // MARK: Plans

    /// Which constraints a plan uses, in `idxNum`; their values come in this order in `xFilter`.
    private struct Plan: OptionSet {
        let rawValue: Int32
        static let commit = Plan(rawValue: 1)
        static let environment = Plan(rawValue: 2)
        static let key = Plan(rawValue: 4)
        static let after = Plan(rawValue: 8)
        static let from = Plan(rawValue: 16)
        static let before = Plan(rawValue: 32)
        static let through = Plan(rawValue: 64)
        /// The rows newest commit first (an `ORDER BY commit_id DESC` the plan answers itself).
        static let descending = Plan(rawValue: 128)
        /// `leaking = ?` and `telling = ?`: of the rows the plan reads, those that leaked, or
        /// leaked or released late (`KeyTally.Filter`).
        static let leaking = Plan(rawValue: 256)
        static let telling = Plan(rawValue: 512)
    }

    private static let columns = ["commit_id", "environment_id", "key_id", "checked_count", "leaked_count",
                                  "late_release_count", "error_count", "passed_site_id", "slowest_pass_us"]
    /// Hidden columns (not in `SELECT *`): 1 where the state leaked, 1 where it leaked or
    /// released late — what the partial indexes `leak_states_leaking` and `leak_states_telling`
    /// held before migration 14. A constraint `= 1` on one is applied while the rows are read,
    /// so that a commit of a 100,000-check run hands SQLite its few telling states, not 100,000.
    private static let hiddenColumns = ["leaking", "telling"]

    private static func bestIndex(_ info: UnsafeMutablePointer<sqlite3_index_info>) -> Int32 {
        let count = Int(info.pointee.nConstraint)
        // The first usable constraint of each kind, by its index in `aConstraint`.
        var chosen: [Int32: Int] = [:]
        for index in 0..<count {
            let constraint = info.pointee.aConstraint[index]
            guard constraint.usable != 0 else { continue }
            let op = Int32(constraint.op)
            let plan: Plan? = switch (constraint.iColumn, op) {
            case (0, SQLITE_INDEX_CONSTRAINT_EQ): .commit
            case (1, SQLITE_INDEX_CONSTRAINT_EQ): .environment
            case (2, SQLITE_INDEX_CONSTRAINT_EQ): .key
            case (0, SQLITE_INDEX_CONSTRAINT_GT): .after
            case (0, SQLITE_INDEX_CONSTRAINT_GE): .from
            case (0, SQLITE_INDEX_CONSTRAINT_LT): .before
            case (0, SQLITE_INDEX_CONSTRAINT_LE): .through
            case (9, SQLITE_INDEX_CONSTRAINT_EQ): .leaking
            case (10, SQLITE_INDEX_CONSTRAINT_EQ): .telling
            default: nil
            }
            if let plan, chosen[plan.rawValue] == nil { chosen[plan.rawValue] = index }
        }
        var plan: Plan = []
        var cost = 1e10, rows: Int64 = 100_000_000
        if chosen[Plan.commit.rawValue] != nil {
            plan = [.commit]
            if chosen[Plan.environment.rawValue] != nil { plan.insert(.environment) }
            if chosen[Plan.key.rawValue] != nil { plan.insert(.key) }
            let filtered = chosen[Plan.leaking.rawValue] != nil || chosen[Plan.telling.rawValue] != nil
            (cost, rows) = plan.contains(.key) ? (12, 1) : filtered ? (500, 20) : (1_000, 1_000)
        } else if chosen[Plan.key.rawValue] != nil {
            plan = [.key]
            for bound in [Plan.environment, .after, .from, .before, .through] where chosen[bound.rawValue] != nil {
                plan.insert(bound)
            }
            let bounded = !plan.isDisjoint(with: [.after, .from]) && !plan.isDisjoint(with: [.before, .through])
            (cost, rows) = bounded ? (60, 20) : (400, 400)
            // One key in one environment comes in commit order, either way round: a query for its
            // newest states stops after the few it wants (`ORDER BY commit_id DESC LIMIT n`).
            let orderBy = (0..<Int(info.pointee.nOrderBy)).map { info.pointee.aOrderBy[$0] }.filter { $0.iColumn == 0 }
            if plan.contains(.environment), orderBy.count == 1,
               (0..<Int(info.pointee.nOrderBy)).allSatisfy({ [0, 1, 2].contains(info.pointee.aOrderBy[$0].iColumn) }) {
                info.pointee.orderByConsumed = 1
                if orderBy[0].desc != 0 { plan.insert(.descending) }
            }
        }
        if !plan.isEmpty {
            for filter in [Plan.leaking, .telling] where chosen[filter.rawValue] != nil { plan.insert(filter) }
        } else {
            // A full scan reads commit by commit in (environment, key) order: the copy's order.
            let orderBy = (0..<Int(info.pointee.nOrderBy)).map { info.pointee.aOrderBy[$0] }
            if orderBy.count <= 3, orderBy.enumerated().allSatisfy({ $0.element.iColumn == Int32($0.offset) && $0.element.desc == 0 }) {
                info.pointee.orderByConsumed = 1
            }
        }
        var argument: Int32 = 0
        for part in argumentOrder where plan.contains(part) {
            argument += 1
            // SQLite checks each constraint again (`omit` stays 0): the plan narrows, never decides.
            info.pointee.aConstraintUsage[chosen[part.rawValue]!].argvIndex = argument
        }
        info.pointee.idxNum = plan.rawValue
        info.pointee.estimatedCost = cost
        info.pointee.estimatedRows = rows
        return SQLITE_OK
    }

    /// The parts of a plan in the order their values come to `xFilter`.
    private static let argumentOrder: [Plan] = [.commit, .environment, .key, .after, .from, .before, .through, .leaking, .telling]

    /// The rows of `plan` with its values, in the order of its plan: the rows themselves; for a
    /// full scan the commits whose rows come one commit at a time; for a key, its states read a
    /// block at a time, so that a query for its newest few stops after the blocks that hold them.
    fileprivate enum Found {
        case rows([Row])
        case commits([Int64])
        case key(KeyStates)
    }

    private func found(_ plan: Plan, _ values: [OpaquePointer?], for cursor: Cursor) throws -> Found {
        guard plan.isEmpty else { return try rows(plan, values, for: cursor) }
        refreshIfChanged()
        var commitIDs: [Int64] = []
        try query("""
            SELECT DISTINCT b.commit_id FROM state_blobs b JOIN commits c ON c.id = b.commit_id
            WHERE NOT \(PendingUpload.isPlaceholder("c")) ORDER BY b.commit_id
            """, []) { commitIDs.append(sqlite3_column_int64($0, 0)) }
        return .commits(commitIDs)
    }

    private func rows(_ plan: Plan, _ values: [OpaquePointer?], for cursor: Cursor) throws -> Found {
        refreshIfChanged()
        var given: [Int32: OpaquePointer?] = [:]
        for (part, value) in zip(Self.argumentOrder.filter(plan.contains), values) { given[part.rawValue] = value }
        // A value no integer column equals (NULL, text, a fraction) matches no row.
        func equal(_ part: Plan) -> Int64?? { plan.contains(part) ? .some(given[part.rawValue].flatMap(Self.integer)) : .none }
        // `leaking = 1` or `telling = 1` (a value other than 1 is left to SQLite: nothing asks it).
        let telling: KeyTally.Filter? = equal(.leaking) == .some(1) ? .leaking : equal(.telling) == .some(1) ? .telling : nil
        if let commitValue = equal(.commit) {
            guard let commit = commitValue else { return .rows([]) }
            let givenEnvironment = equal(.environment), givenKey = equal(.key)
            if givenEnvironment == .some(nil) || givenKey == .some(nil) { return .rows([]) }
            let key = givenKey ?? nil
            // Only the environment's blobs where it is given: a diff in one environment at a commit
            // whose run in another had 100,000 checks decoded them all, three times a diff.
            let rows = try commitRows(CommitPart(commitID: commit, environmentID: givenEnvironment ?? nil), for: cursor,
                                      telling: telling)
            guard let environment = givenEnvironment ?? nil else {
                return .rows(key.map { key in rows.filter { $0.keyID == key } } ?? rows)
            }
            // In (environment, key) order: the environment's rows, or the key's row, by bisection.
            let low = Self.firstIndex(in: rows) { ($0.environmentID, $0.keyID) >= (environment, key ?? .min) }
            let high = Self.firstIndex(in: rows) { ($0.environmentID, $0.keyID) > (environment, key ?? .max) }
            return .rows(Array(rows[low..<high]))
        }
        if let keyValue = equal(.key) {
            guard let key = keyValue else { return .rows([]) }
            let environment = equal(.environment)
            if environment == .some(nil) { return .rows([]) }
            // Bounds that are not whole numbers are left to SQLite, which checks every constraint again.
            func bound(_ part: Plan) -> Int64? { given[part.rawValue].flatMap(Self.integer) }
            var low = Int64.min, high = Int64.max
            if let after = bound(.after) { low = after == .max ? .max : after + 1 }
            if let from = bound(.from) { low = max(low, from) }
            if let before = bound(.before) { high = before == .min ? .min : before - 1 }
            if let through = bound(.through) { high = min(high, through) }
            if bound(.after) == .max || bound(.before) == .min { return .rows([]) }
            guard low <= high else { return .rows([]) }
            return .key(try KeyStates(table: self, key: key, environment: environment ?? nil, commits: low...high,
                                      descending: plan.contains(.descending), telling: telling))
        }
        return .rows([])
    }

    /// An integer constraint value; nil for NULL or a value no integer column equals.
    private static func integer(_ value: OpaquePointer?) -> Int64? {
        switch sqlite3_value_numeric_type(value) {
        case SQLITE_INTEGER: return sqlite3_value_int64(value)
        case SQLITE_FLOAT:
            let real = sqlite3_value_double(value)
            return real.rounded() == real && abs(real) < 9.2e18 ? Int64(real) : nil
        default: return nil
        }
    }

    // MARK: Reading the packed states

    private func refreshIfChanged() {
        var data: Int32 = 0
        sqlite3_file_control(db, "main", SQLITE_FCNTL_DATA_VERSION, &data)
        let changes = sqlite3_total_changes64(db)
        // A connection that writes keeps nothing across statements inside a transaction: a write
        // rolled back to its savepoint leaves the change count where it was.
        keepsAcrossStatements = sqlite3_get_autocommit(db) != 0 || sqlite3_db_readonly(db, "main") != 0
        guard !keepsAcrossStatements || data != version.data || changes != version.changes else { return }
        version = (data, changes)
        commits.removeAll()
        commitRowsHeld = 0
        tellingCommits.removeAll()
        dropBigCommit()
        unsettled = nil
    }

    /// False while a connection that writes is inside a transaction (`refreshIfChanged`).
    private var keepsAcrossStatements = true

    /// The commit's states in `part`'s environment, or in every one, merged, in (environment,
    /// key) order (those `telling` holds for, when given): kept by the connection while the
    /// commits it keeps are small, and by `cursor` for the statement reading it (a 100,000-check
    /// run's commit is past what a connection keeps, and is read for the telling states alone
    /// when those are wanted).
    fileprivate func commitRows(_ part: CommitPart, for cursor: Cursor, telling: KeyTally.Filter? = nil) throws -> [Row] {
        func wanted(_ rows: [Row]) -> [Row] { telling.map { telling in rows.filter { telling.holds($0.state) } } ?? rows }
        let commitID = part.commitID
        // The whole commit read already holds the part (the caller takes its environment's rows).
        if let known = commits[part] ?? commits[CommitPart(commitID: commitID, environmentID: nil)] { return wanted(known) }
        if let telling, let known = tellingCommits[TellingAt(part: part, telling: telling)] { return known }
        if let big = bigCommit, big.part == part, keepsAcrossStatements { return wanted(big.rows) }
        if let last = cursor.lastCommit, last.part == part, last.version == version { return wanted(last.rows) }
        var blobs: [(environmentID: Int64, bytes: [UInt8])] = []
        try query("""
            SELECT environment_id, states FROM state_blobs
            WHERE commit_id = ?1 AND environment_id BETWEEN ?2 AND ?3
              AND NOT EXISTS (SELECT 1 FROM commits c WHERE c.id = ?1 AND \(PendingUpload.isPlaceholder("c")))
            ORDER BY environment_id, id
            """, [commitID, part.environmentID ?? .min, part.environmentID ?? .max]) {
            blobs.append((sqlite3_column_int64($0, 0), Self.bytes($0, column: 1)))
        }
        // A state takes 7 bytes at least: past what a connection keeps, only the telling states are
        // made rows (kept by the connection, a few hundred at most), and where re-runs' blobs
        // overlap, every state of their keys, which merge into theirs.
        if let telling, blobs.reduce(0, { $0 + $1.bytes.count }) / 7 > StoreTuning.commitRowsKept {
            let rows = try Self.tellingRows(of: blobs, commitID: commitID, telling: telling)
            if keepsAcrossStatements {
                if tellingCommits.count >= StoreTuning.tellingCommitsKept { tellingCommits.removeAll() }
                tellingCommits[TellingAt(part: part, telling: telling)] = rows
            }
            return rows
        }
        let merged = Self.merged(try Self.rows(of: blobs, commitID: commitID))
        cursor.lastCommit = (part, version, merged)
        guard keepsAcrossStatements else { return wanted(merged) }
        guard merged.count <= StoreTuning.commitRowsKept else {
            holdBigCommit(part, merged)
            return wanted(merged)
        }
        if commitRowsHeld + merged.count > StoreTuning.commitRowsKept {
            commits.removeAll()
            commitRowsHeld = 0
        }
        commits[part] = merged
        commitRowsHeld += merged.count
        return wanted(merged)
    }

    /// A commit's rows, in the order read (its blobs in environment and upload order), put in
    /// (environment, key) order and merged: one run's blobs follow each other in key order,
    /// re-runs' overlap, and are put in order keeping upload order among a key's states.
    private static func merged(_ rows: [Row]) -> [Row] {
        var rows = rows
        if !zip(rows, rows.dropFirst()).allSatisfy({ ($0.environmentID, $0.keyID) < ($1.environmentID, $1.keyID) }) {
            rows = rows.enumerated().sorted {
                ($0.element.environmentID, $0.element.keyID, $0.offset) < ($1.element.environmentID, $1.element.keyID, $1.offset)
            }.map(\.element)
        }
        return mergeAdjacent(rows) { $0.environmentID == $1.environmentID && $0.keyID == $1.keyID }
    }

    /// The commit's states `telling` holds for, merged, from its blobs: the telling states as they
    /// are read; where a key comes twice (re-runs), every state of the telling keys, merged.
    private static func tellingRows(of blobs: [(environmentID: Int64, bytes: [UInt8])], commitID: Int64,
                                    telling: KeyTally.Filter) throws -> [Row] {
        var rows: [Row] = []
        var last: (environmentID: Int64, keyID: Int64)?, overlap = false
        for blob in blobs {
            try PackedKeyStates.decode(blob.bytes) { key, state in
                if let last, (blob.environmentID, key) <= last { overlap = true }
                last = (blob.environmentID, key)
                if telling.holds(state) { rows.append(Row(commitID: commitID, environmentID: blob.environmentID, keyID: key, state: state)) }
            }
        }
        guard overlap else { return rows }
        let keys = Set(rows.map { EnvironmentKey(environmentID: $0.environmentID, keyID: $0.keyID) })
        return try merged(Self.rows(of: blobs, commitID: commitID) { keys.contains(EnvironmentKey(environmentID: $0, keyID: $1)) })
            .filter { telling.holds($0.state) }
    }

    /// The blobs' states as rows of the commit, in the order read; those of the (environment,
    /// key) pairs `including` takes, when given.
    private static func rows(of blobs: [(environmentID: Int64, bytes: [UInt8])], commitID: Int64,
                             including: ((Int64, Int64) -> Bool)? = nil) throws -> [Row] {
        var rows: [Row] = []
        for blob in blobs {
            try PackedKeyStates.decode(blob.bytes) { key, state in
                if let including, !including(blob.environmentID, key) { return }
                rows.append(Row(commitID: commitID, environmentID: blob.environmentID, keyID: key, state: state))
            }
        }
        return rows
    }

    /// Keeps `rows` as the connection's `bigCommit` where it holds one already, or a place is free.
    private func holdBigCommit(_ part: CommitPart, _ rows: [Row]) {
        if bigCommit == nil {
            var held = Self.bigCommitsHeld.load(ordering: .relaxed)
            while held < StoreTuning.bigCommitHolders {
                let (taken, now) = Self.bigCommitsHeld.compareExchange(expected: held, desired: held + 1, ordering: .relaxed)
                if taken { break }
                held = now
            }
            guard held < StoreTuning.bigCommitHolders else { return }
        }
        bigCommit = (part, rows)
    }

    private func dropBigCommit() {
        guard bigCommit != nil else { return }
        bigCommit = nil
        Self.bigCommitsHeld.subtract(1, ordering: .relaxed)
    }

    /// The widest range of commit ids whose blocks a key's read finds by their last commit
    /// (`KeyStates`): 1,024 uploads (a diff's lines). A wider one wants most of the key's blocks,
    /// which the primary key gives in one pass (a trend of 1,000 commits, a key's newest states
    /// from the start).
    static let widestByLastCommit = Int64(1_024 * CommitOrder.spacing)

    /// A commit's states in one environment, or in all of them (`environmentID` nil).
    fileprivate struct CommitPart: Hashable {
        var commitID: Int64
        var environmentID: Int64?
    }

    /// A big commit's telling rows, as a connection keeps them (`tellingCommits`).
    private struct TellingAt: Hashable {
        var part: CommitPart
        var telling: KeyTally.Filter
    }

    private struct EnvironmentKey: Hashable {
        var environmentID: Int64
        var keyID: Int64
    }

    /// A key's states at a range of commits, from its blocks and the blobs not settled yet,
    /// merged, in (environment, commit) order or the reverse, decoded a block at a time.
    ///
    /// The blocks that reach the range are read at once (one range of the table), and decoded in
    /// the order of the first commit each can hold (its first commit, or its last when newest
    /// first): every state before the next block's first one is then known, merged and handed on.
    /// Blocks mostly follow each other (batches settle in upload order), so a query for the
    /// newest few states decodes the one or two newest blocks, not the key's history.
    fileprivate final class KeyStates {
        private struct Block {
            var environmentID: Int64
            var batch: Int64
            /// Where the block's states start in the order read: its first commit, or its last.
            var start: (Int64, Int64)
            /// Its states, packed: copied with the row (a few dozen bytes a commit), decoded when read.
            var states: [UInt8]
        }

        private let table: LeakStatesTable
        private let keyID: Int64
        private let range: ClosedRange<Int64>
        private let descending: Bool
        private let telling: KeyTally.Filter?
        private var blocks: ArraySlice<Block>
        /// States read and not handed on yet, each with its place in upload order (the block's
        /// batch, `Int64.max` for the blobs not settled yet, then its place there).
        private var read: [(row: Row, order: (Int64, Int))] = []

        /// The statements of `init`, built once: their text is what the connection's prepared
        /// statements are found by (a trend reads hundreds of keys: built for each, the text would
        /// be made and hashed for each).
        /// Values: key, environment (or its bounds), low, high, `high + narrowSpan` (those a text
        /// does not name are bound to nothing: `query` binds every value, and SQLite refuses those).
        private static let blocksByLastCommit = """
            SELECT environment_id, batch, first_commit_id, last_commit_id, states FROM key_state_blocks
            WHERE key_id = ?1 AND environment_id = ?2 AND last_commit_id BETWEEN ?4 AND ?6 AND first_commit_id <= ?5
            UNION ALL
            SELECT environment_id, batch, first_commit_id, last_commit_id, states FROM key_state_blocks
            WHERE key_id = ?1 AND environment_id = ?2 AND last_commit_id > ?6
              AND last_commit_id - first_commit_id > \(StateBlobs.narrowSpan) AND first_commit_id <= ?5
            """
        private static let blocks = """
            SELECT environment_id, batch, first_commit_id, last_commit_id, states FROM key_state_blocks
            WHERE key_id = ?1 AND environment_id = ?2 AND +last_commit_id >= ?4 AND first_commit_id <= ?5
            """
        private static let blocksInEveryEnvironment = """
            SELECT environment_id, batch, first_commit_id, last_commit_id, states FROM key_state_blocks
            WHERE key_id = ?1 AND environment_id BETWEEN ?2 AND ?3 AND +last_commit_id >= ?4 AND first_commit_id <= ?5
            """

        init(table: LeakStatesTable, key: Int64, environment: Int64?, commits range: ClosedRange<Int64>, descending: Bool,
             telling: KeyTally.Filter?) throws {
            self.table = table
            self.telling = telling
            keyID = key
            self.range = range
            self.descending = descending
            var found: [Block] = []
            // Where the range is narrower than `widestByLastCommit`, the blocks that reach it: no
            // wider than `StateBlobs.narrowSpan`, they end by `high + narrowSpan` (a range of
            // `key_state_blocks_by_last_commit`), the wider ones on their own index. On the primary
            // key, in batch order, every block of the key in the environment is read: what a wider
            // range wants anyway.
            let span = Int64(StateBlobs.narrowSpan)
            let narrowEnd = range.upperBound > .max - span ? .max : range.upperBound + span
            let width = range.upperBound.subtractingReportingOverflow(range.lowerBound)
            let byLastCommit = environment != nil && !width.overflow && width.partialValue <= LeakStatesTable.widestByLastCommit
            try table.query(byLastCommit ? Self.blocksByLastCommit : environment == nil ? Self.blocksInEveryEnvironment : Self.blocks,
                            [key, environment ?? .min, environment ?? .max, range.lowerBound, range.upperBound, narrowEnd]) { statement in
                let environmentID = sqlite3_column_int64(statement, 0)
                let first = sqlite3_column_int64(statement, 2), last = sqlite3_column_int64(statement, 3)
                found.append(Block(environmentID: environmentID, batch: sqlite3_column_int64(statement, 1),
                                   start: descending ? (-environmentID, -last) : (environmentID, first),
                                   states: LeakStatesTable.bytes(statement, column: 4)))
            }
            blocks = found.sorted { ($0.start.0, $0.start.1, $0.batch) < ($1.start.0, $1.start.1, $1.batch) }[...]
            for (offset, row) in try table.unsettledRows(of: key).enumerated()
            where range.contains(row.commitID) && (environment == nil || row.environmentID == environment) {
                read.append((row, (.max, offset)))
            }
        }

        /// Where `row` is in the order read (ids are positive: negated, they count down).
        private func place(_ row: Row) -> (Int64, Int64) {
            descending ? (-row.environmentID, -row.commitID) : (row.environmentID, row.commitID)
        }

        /// The next states in order, merged; nil once there are none left.
        func next() throws -> [Row]? {
            guard !read.isEmpty || !blocks.isEmpty else { return nil }
            if let block = blocks.popFirst() {
                var offset = 0
                try PackedKeyStates.decode(block.states) { commit, state in
                    if range.contains(commit) {
                        read.append((Row(commitID: commit, environmentID: block.environmentID, keyID: keyID, state: state),
                                     (block.batch, offset)))
                    }
                    offset += 1
                }
            }
            // Every state before where the next block starts is read: those are handed on.
            var ready = read
            if let upcoming = blocks.first?.start {
                ready = read.filter { place($0.row) < upcoming }
                read.removeAll { place($0.row) < upcoming }
            } else {
                read = []
            }
            ready.sort {
                let (left, right) = (place($0.row), place($1.row))
                return (left.0, left.1, $0.order.0, $0.order.1) < (right.0, right.1, $1.order.0, $1.order.1)
            }
            let merged = LeakStatesTable.mergeAdjacent(ready.map(\.row)) { $0.environmentID == $1.environmentID && $0.commitID == $1.commitID }
            return telling.map { telling in merged.filter { telling.holds($0.state) } } ?? merged
        }
    }

    /// The key's states in the blobs not settled yet, in upload order: from the states the
    /// connection keeps, decoded, while they are few (about a settling's worth, as uploads leave
    /// them); while more wait (a big run just published, settling in writes of its own), read for
    /// the key alone, so that each connection does not keep a copy of the backlog.
    fileprivate func unsettledRows(of keyID: Int64) throws -> [Row] {
        if let unsettled {
            return Array(unsettled[Self.firstIndex(in: unsettled) { $0.keyID >= keyID }..<Self.firstIndex(in: unsettled) { $0.keyID > keyID }])
        }
        var kept: [Row]? = []
        var rows: [Row] = [], count = 0
        try query("""
            SELECT b.commit_id, b.environment_id, b.states
            FROM state_blobs b INDEXED BY state_blobs_unsettled JOIN commits c ON c.id = b.commit_id
            WHERE b.settled = 0 AND NOT \(PendingUpload.isPlaceholder("c"))
            ORDER BY b.id
            """, []) { statement in
            let commit = sqlite3_column_int64(statement, 0), environment = sqlite3_column_int64(statement, 1)
            try Self.decode(statement, column: 2) { key, state in
                let row = Row(commitID: commit, environmentID: environment, keyID: key, state: state)
                if key == keyID { rows.append(row) }
                guard kept != nil else { return }
                count += 1
                if count > StoreTuning.unsettledRowsKept { kept = nil } else { kept!.append(row) }
            }
        }
        unsettled = kept.map { rows in
            rows.indices.sorted { (rows[$0].keyID, $0) < (rows[$1].keyID, $1) }.map { rows[$0] }
        }
        return rows
    }

    /// The first index of `rows` (sorted so that `isAtOrPast` is false and then true) where it is true.
    private static func firstIndex(in rows: [Row], where isAtOrPast: (Row) -> Bool) -> Int {
        var low = 0, high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if isAtOrPast(rows[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Rows with each run of `same` neighbours merged into one, the earlier first.
    fileprivate static func mergeAdjacent(_ rows: [Row], same: (Row, Row) -> Bool) -> [Row] {
        var merged: [Row] = []
        merged.reserveCapacity(rows.count)
        for row in rows {
            if let last = merged.last, same(last, row) {
                merged[merged.count - 1].state.merge(row.state)
            } else {
                merged.append(row)
            }
        }
        return merged
    }

    private static func decode(_ statement: OpaquePointer, column: Int32, _ body: (Int64, KeyTally) throws -> Void) throws {
        try PackedKeyStates.decode(blob(statement, column: column), body)
    }

    /// The blob in `column` of the statement's row, valid until the statement moves on.
    private static func blob(_ statement: OpaquePointer, column: Int32) -> UnsafeRawBufferPointer {
        let count = Int(sqlite3_column_bytes(statement, column))
        return UnsafeRawBufferPointer(start: count > 0 ? sqlite3_column_blob(statement, column) : nil, count: count)
    }

    /// A copy of the blob in `column`, for reading after the statement has moved on.
    fileprivate static func bytes(_ statement: OpaquePointer, column: Int32) -> [UInt8] {
        Array(blob(statement, column: column))
    }

    /// Runs `sql` on the table's own connection (a virtual table may, while a statement reads it).
    /// Each statement runs to its end (or its error) before `query` returns, so one prepared
    /// statement a text serves every cursor of the connection, however they nest.
    fileprivate func query(_ sql: String, _ values: [Int64], row: (OpaquePointer) throws -> Void) throws {
        let statement: OpaquePointer
        if let prepared = statements[sql] {
            statement = prepared
        } else {
            var prepared: OpaquePointer?
            guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil) == SQLITE_OK, let prepared else {
                sqlite3_finalize(prepared)
                throw LeakStoreError.unavailable("reading packed key states: \(String(cString: sqlite3_errmsg(db)))")
            }
            statements[sql] = prepared
            statement = prepared
        }
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (index, value) in values.enumerated() { sqlite3_bind_int64(statement, Int32(index + 1), value) }
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else {
                throw LeakStoreError.unavailable("reading packed key states: \(String(cString: sqlite3_errmsg(db)))")
            }
            try row(statement)
        }
    }

    // MARK: The module

    /// A cursor: the rows of one `xFilter`, read one by one; a full scan's, a commit at a time.
    fileprivate final class Cursor {
        let table: LeakStatesTable
        var rows: [Row] = []
        var position = 0
        /// The commits a full scan has still to read.
        var commitsLeft: ArraySlice<Int64> = []
        /// A key's states still to read.
        var keyStates: KeyStates?
        /// The rows of the commits a full scan read before `rows`.
        var rowsBefore = 0
        /// The last commit read, for the statement's next lookups in it: a commit too big for the
        /// connection to keep, or any while the connection keeps none (`keepsAcrossStatements`).
        var lastCommit: (part: CommitPart, version: (data: Int32, changes: Int64), rows: [Row])?

        init(table: LeakStatesTable) { self.table = table }

        func start(_ found: Found) throws {
            position = 0
            rowsBefore = 0
            switch found {
            case let .rows(rows): self.rows = rows; commitsLeft = []; keyStates = nil
            case let .commits(commits): rows = []; commitsLeft = commits[...]; keyStates = nil
            case let .key(states): rows = []; commitsLeft = []; keyStates = states
            }
            try fill()
        }

        func next() throws {
            position += 1
            try fill()
        }

        /// Reads the next commits of a full scan, or the next states of a key, once the rows read
        /// are used up.
        private func fill() throws {
            while position >= rows.count {
                let more: [Row]
                if let commit = commitsLeft.popFirst() {
                    more = try table.commitRows(CommitPart(commitID: commit, environmentID: nil), for: self)
                } else if let states = try keyStates?.next() {
                    more = states
                } else {
                    return
                }
                rowsBefore += rows.count
                rows = more
                position = 0
            }
        }
    }

    private static func table(_ vtab: UnsafeMutablePointer<sqlite3_vtab>?) -> LeakStatesTable {
        let box = UnsafeMutableRawPointer(vtab!).assumingMemoryBound(to: lh_vtab.self)
        return Unmanaged<LeakStatesTable>.fromOpaque(box.pointee.owner).takeUnretainedValue()
    }

    private static func cursor(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?) -> Cursor {
        let box = UnsafeMutableRawPointer(cursor!).assumingMemoryBound(to: lh_vtab_cursor.self)
        return Unmanaged<Cursor>.fromOpaque(box.pointee.owner).takeUnretainedValue()
    }

    /// Sets the table's error message (SQLite frees it) and returns `SQLITE_ERROR`.
    private static func fail(_ vtab: UnsafeMutablePointer<sqlite3_vtab>?, _ error: any Error) -> Int32 {
        let message = Array("\(error)".utf8CString)
        sqlite3_free(vtab?.pointee.zErrMsg)
        let copy = sqlite3_malloc64(sqlite3_uint64(message.count))?.assumingMemoryBound(to: CChar.self)
        copy?.initialize(from: message, count: message.count)
        vtab?.pointee.zErrMsg = copy
        return SQLITE_ERROR
    }

    /// Made once, never freed: SQLite keeps a pointer to it for as long as any connection lives.
    nonisolated(unsafe) private static let module: UnsafeMutablePointer<sqlite3_module> = {
        var module = sqlite3_module()
        module.iVersion = 1
        // No xCreate: eponymous only, there whenever the module is registered.
        module.xConnect = { db, _, _, _, table, _ in
            let declared = "CREATE TABLE x(" + (LeakStatesTable.columns.map { "\($0) INTEGER" }
                + LeakStatesTable.hiddenColumns.map { "\($0) INTEGER HIDDEN" }).joined(separator: ", ") + ")"
            let rc = sqlite3_declare_vtab(db, declared)
            guard rc == SQLITE_OK, let db else { return rc }
            let box = UnsafeMutablePointer<lh_vtab>.allocate(capacity: 1)
            box.initialize(to: lh_vtab(base: sqlite3_vtab(), owner: Unmanaged.passRetained(LeakStatesTable(db: db)).toOpaque()))
            table?.pointee = UnsafeMutableRawPointer(box).assumingMemoryBound(to: sqlite3_vtab.self)
            return SQLITE_OK
        }
        let disconnect: @convention(c) (UnsafeMutablePointer<sqlite3_vtab>?) -> Int32 = { vtab in
            let box = UnsafeMutableRawPointer(vtab!).assumingMemoryBound(to: lh_vtab.self)
            Unmanaged<LeakStatesTable>.fromOpaque(box.pointee.owner).release()
            sqlite3_free(box.pointee.base.zErrMsg)
            box.deinitialize(count: 1)
            box.deallocate()
            return SQLITE_OK
        }
        module.xDisconnect = disconnect
        module.xDestroy = disconnect
        module.xBestIndex = { _, info in LeakStatesTable.bestIndex(info!) }
        module.xOpen = { vtab, cursor in
            let box = UnsafeMutablePointer<lh_vtab_cursor>.allocate(capacity: 1)
            let owner = Cursor(table: LeakStatesTable.table(vtab))
            box.initialize(to: lh_vtab_cursor(base: sqlite3_vtab_cursor(), owner: Unmanaged.passRetained(owner).toOpaque()))
            cursor?.pointee = UnsafeMutableRawPointer(box).assumingMemoryBound(to: sqlite3_vtab_cursor.self)
            return SQLITE_OK
        }
        module.xClose = { cursor in
            let box = UnsafeMutableRawPointer(cursor!).assumingMemoryBound(to: lh_vtab_cursor.self)
            Unmanaged<Cursor>.fromOpaque(box.pointee.owner).release()
            box.deinitialize(count: 1)
            box.deallocate()
            return SQLITE_OK
        }
        module.xFilter = { cursor, plan, _, count, values in
            let state = LeakStatesTable.cursor(cursor)
            let arguments = (0..<Int(count)).map { values![$0] }
            do {
                try state.start(state.table.found(Plan(rawValue: plan), arguments, for: state))
                return SQLITE_OK
            } catch {
                return LeakStatesTable.fail(cursor?.pointee.pVtab, error)
            }
        }
        module.xNext = { cursor in
            do {
                try LeakStatesTable.cursor(cursor).next()
                return SQLITE_OK
            } catch {
                return LeakStatesTable.fail(cursor?.pointee.pVtab, error)
            }
        }
        module.xEof = { cursor in
            let state = LeakStatesTable.cursor(cursor)
            return state.position >= state.rows.count ? 1 : 0
        }
        module.xColumn = { cursor, context, column in
            let state = LeakStatesTable.cursor(cursor)
            let row = state.rows[state.position]
            let value: Int64? = switch column {
            case 0: row.commitID
            case 1: row.environmentID
            case 2: row.keyID
            case 3: .some(row.state.checked)
            case 4: row.state.leaked
            case 5: row.state.lateRelease
            case 6: row.state.errors
            case 7: row.state.passedSiteID
            case 8: row.state.slowestPassUs
            case 9: row.state.isLeaking ? 1 : 0
            default: row.state.isTelling ? 1 : 0
            }
            if let value { sqlite3_result_int64(context, value) } else { sqlite3_result_null(context) }
            return SQLITE_OK
        }
        module.xRowid = { cursor, rowid in
            // The row's place in the scan: unique in it, which is all SQLite asks of a rowid here.
            let state = LeakStatesTable.cursor(cursor)
            rowid?.pointee = Int64(state.rowsBefore + state.position)
            return SQLITE_OK
        }
        let pointer = UnsafeMutablePointer<sqlite3_module>.allocate(capacity: 1)
        pointer.initialize(to: module)
        return pointer
    }()
}
