import Foundation
import LeakReport

/// The read-side queries of one project on one reader connection. Every query filters by the
/// project id, so one project's data never answers for another.
struct ProjectHistory {
    let db: any SQLConnection
    let projectID: Int64
    /// What this snapshot already read, for the many ranges that ask the same (`suspectCommits`).
    let memo = Memo()

    /// - Throws: `LeakStoreError.projectNotFound`.
    init(_ db: any SQLConnection, project: String) throws {
        guard let id = try db.scalarInt(sql: "SELECT id FROM projects WHERE name = \(project)") else {
            throw LeakStoreError.projectNotFound(project)
        }
        self.db = db
        projectID = id
    }

    func commitID(_ sha: String) throws -> Int64? {
        try db.scalarInt(sql: "SELECT id FROM commits WHERE project_id = \(projectID) AND sha = \(sha.lowercased())")
    }

    /// The commit's id, and in the same statement what a diff asks of a commit next, kept in the
    /// memo: its branch (`branch(ofCommit:)`), its first two parents (`parent(of:position:)`)
    /// and its runs in `environment` (`runCounts`) — one round trip for up to five (a diff
    /// asks a few dozen such questions). A commit `readCommits` read is not
    /// asked again.
    func commitID(_ sha: String, environment: String) throws -> Int64? {
        let sha = sha.lowercased()
        if let known = memo.commitIDs[environment]?[sha] { return known }
        try readCommits([sha], environment: environment)
        return memo.commitIDs[environment]?[sha] ?? nil
    }

    /// `commitID(_:environment:)` of several commits (a diff's head, base, tip and the base
    /// branch's upload after the merge-base) in one statement, `StoreTuning.commitsPerStatement` at a time.
    func readCommits(_ shas: [String], environment: String) throws {
        let shas = Array(Set(shas.map { $0.lowercased() })).sorted()
        for batch in shas.batches(of: StoreTuning.commitsPerStatement) {
            var found: [String: Int64?] = Dictionary(uniqueKeysWithValues: batch.map { ($0, nil) })
            // The same text for every batch (padded to `StoreTuning.commitsPerStatement` shas).
            try db.query(sql: """
                SELECT c.id, c.branch, \(Self.parentOf("c.id", position: 0), walk()) AS first_parent,
                       \(Self.parentOf("c.id", position: 1), walk()) AS second_parent,
                       \(Self.runCounts(of: "c.id"), walk(environment: environment)), c.sha
                FROM commits c
                WHERE c.project_id = \(projectID) AND c.sha IN (\(list: batch.padded(to: StoreTuning.commitsPerStatement).map(SQLValue.text)))
                """) { row in
                let id = row.int64("id")
                found[row.string("sha") ?? ""] = .some(id)
                memo.branches[id] = .some(row.string("branch"))
                memo.parents[id] = [row.isNull("first_parent") ? nil : row.int64("first_parent"),
                                    row.isNull("second_parent") ? nil : row.int64("second_parent")]
                memo.runCounts[environment, default: [:]][id] = (row.int("usable_runs"), row.int("suspect_runs"))
            }
            memo.commitIDs[environment, default: [:]].merge(found) { _, read in read }
        }
    }

    func branch(ofCommit commitID: Int64) throws -> String? {
        if let known = memo.branches[commitID] { return known }
        return try db.scalarText(sql: "SELECT branch FROM commits WHERE id = \(commitID)")
    }

    /// Runs at the commit in the environment: the usable (non-suspect) ones and the suspect ones.
    func runCounts(commitID: Int64, environment: String) throws -> (usable: Int, suspect: Int) {
        if let known = memo.runCounts[environment]?[commitID] { return known }
        var counts = (usable: 0, suspect: 0)
        try db.query(sql: Self.runCountsStatement(walk(environment: environment, commitID: commitID))) { row in
            counts = (row.int("usable_runs"), row.int("suspect_runs"))
        }
        memo.runCounts[environment, default: [:]][commitID] = counts
        return counts
    }

    /// SQL: two columns, `usable_runs` and `suspect_runs`, the usable and the suspect runs at
    /// commit `commit` (SQL) in `environment`, as `runCounts` reads them (counted with FILTER, as
    /// `suspectCounts` says why).
    private static func runCounts(of commit: SQLShape<WalkArguments>) -> SQLShape<WalkArguments> {
        """
        (SELECT count(*) FILTER (WHERE r.suspect = 0) FROM runs r WHERE r.commit_id = \(commit) AND r.environment = \(\.environment))
            AS usable_runs,
        (SELECT count(*) FILTER (WHERE r.suspect = 1) FROM runs r WHERE r.commit_id = \(commit) AND r.environment = \(\.environment))
            AS suspect_runs
        """
    }

    /// `runCounts(of:)` of one commit (`commitID`), as `runCounts(commitID:environment:)` asks it.
    private static let runCountsStatement: SQLShape<WalkArguments> = "SELECT \(runCounts(of: "\(\.commitID)"))"

    /// Whether `leak_states` alone holds the commit's counts in the environment: it has usable
    /// runs and no suspect one (a suspect run's checks are full records, added up by
    /// `keyCounts(commitID:environment:typeID:includingSuspect:)`).
    func statesAnswerAlone(commitID: Int64, environment: String) throws -> Bool {
        let runs = try runCounts(commitID: commitID, environment: environment)
        return runs.usable > 0 && runs.suspect == 0
    }

    /// Every key's counts at the commit. From the usable runs only (a base side), unless
    /// `includingSuspect` (a head side, where a suspect run hides nothing). `leak_states` holds
    /// the usable runs' counts; a suspect run's checks are all full records, added up here.
    ///
    /// Every key's counts (no `typeID`) are read once a snapshot: a diff's head with a suspect run
    /// asks them for its telling keys, for the base's telling keys there, and for its column of
    /// the key states along its line (`keyStates(_:environment:at:allRunsAt:)`), each time a
    /// GROUP BY over the suspect run's records.
    func keyCounts(commitID: Int64, environment: String, typeID: Int64? = nil, includingSuspect: Bool = false) throws -> [KeyCounts] {
        guard typeID == nil else { return try readKeyCounts(commitID: commitID, environment: environment, typeID: typeID,
                                                            includingSuspect: includingSuspect) }
        let at = Memo.KeyCountsAt(commitID: commitID, environment: environment, includingSuspect: includingSuspect)
        if let known = memo.keyCounts[at] { return known }
        let counts = try readKeyCounts(commitID: commitID, environment: environment, typeID: nil, includingSuspect: includingSuspect)
        memo.keyCounts[at] = counts
        return counts
    }

    private func readKeyCounts(commitID: Int64, environment: String, typeID: Int64?, includingSuspect: Bool) throws -> [KeyCounts] {
        let runs = try runCounts(commitID: commitID, environment: environment)
        guard runs.usable > 0 || (includingSuspect && runs.suspect > 0) else { return [] }
        var result: [KeyCounts] = []
        // One type's keys, or every key: two statements, not `(k.type_id = ? OR ? IS NULL)`,
        // which PostgreSQL's generic plan took for 3 rows and joined every type to each state.
        let ofType = typeID.map { (id: Int64) -> SQL in " AND k.type_id = \(id)" } ?? ""
        if runs.usable > 0, typeID == nil,
           let stored = try db.keyStates.storedStates(at: [commitID], environment: environment, atMost: nil) {
            // The commit's states as stored (PostgreSQL's rows of `state_arrays`), added up here,
            // and the keys named from what the connection knows (`keyNames(of:)`), not the
            // `leak_states` view's states joined to their names again at every diff.
            let states = Self.merged(stored, keeping: .every)[commitID] ?? [:]
            let names = try keyNames(of: Set(states.keys))
            result = states.compactMap { keyID, tally in names[keyID].map { KeyCounts(tally, named: $0) } }.inKeyOrder()
        } else if runs.usable > 0 {
            try db.query(sql: """
                SELECT \(raw: KeyCounts.columns)
                FROM leak_states ls JOIN leak_keys k ON k.id = ls.key_id
                     JOIN scenarios s ON s.id = k.scenario_id JOIN types t ON t.id = k.type_id
                WHERE ls.commit_id = \(commitID) AND ls.environment_id = (SELECT id FROM environments WHERE name = \(environment))\(ofType)
                """) { result.append(keyCounts(row: $0)) }
            result = result.inKeyOrder()
        }
        guard includingSuspect, runs.suspect > 0 else { return result }
        // Both halves, each key once with its counts added up. The suspect runs' checks come by
        // key without names, which the usable runs' counts have for the keys they checked (no
        // need to join a broken run's keys to their names again); a key only
        // a suspect run checked has the statement read them with their names.
        var merged = Dictionary(result.map { ($0.ids, $0) }, uniquingKeysWith: { first, _ in first })
        var suspect: [KeyCounts] = []
        try db.query(sql: suspectCounts(commitID: commitID, environment: environment, named: false, ofType: ofType)) {
            suspect.append(KeyCounts(row: $0))
        }
        if !suspect.allSatisfy({ merged[$0.ids] != nil }) {
            suspect = []
            try db.query(sql: suspectCounts(commitID: commitID, environment: environment, named: true, ofType: ofType)) {
                suspect.append(KeyCounts(row: $0))
            }
        }
        for counts in suspect {
            merged[counts.ids, default: KeyCounts(.zero, named: counts)].tally.merge(counts.tally)
        }
        return merged.values.inKeyOrder()
    }

    /// The counts of the suspect runs' checks at the commit by key (of one type where `ofType`
    /// says so), as `KeyCounts(row:)` reads them (with `named`, the keys' names too).
    private func suspectCounts(commitID: Int64, environment: String, named: Bool, ofType: SQL) -> SQL {
        """
        SELECT \(raw: KeyCounts.checkCounts(named: named))
        FROM runs r JOIN checks k ON k.run_id = r.id\(raw: named ? " JOIN scenarios s ON s.id = k.scenario_id JOIN types t ON t.id = k.type_id" : "")
        WHERE r.commit_id = \(commitID) AND r.environment = \(environment) AND r.suspect = 1\(ofType)
        GROUP BY k.scenario_id, k.type_id\(raw: named ? ", s.name, t.name" : "")
        """
    }

    /// The counts of `keys` at the commit, as `keyCounts(commitID:environment:includingSuspect:)`
    /// gives them, a point of the primary key each (`CROSS JOIN`: the keys first, not the commit's
    /// every state): the other side of a diff's telling keys.
    func keyCounts(commitID: Int64, environment: String, keys: Set<KeyIDs>, includingSuspect: Bool = false) throws -> [KeyCounts] {
        guard !keys.isEmpty else { return [] }
        guard try statesAnswerAlone(commitID: commitID, environment: environment) else {
            return try keyCounts(commitID: commitID, environment: environment, includingSuspect: includingSuspect)
                .filter { keys.contains($0.ids) }
        }
        var result: [KeyCounts] = []
        for batch in try keyBatches(keys) {
            try db.query(sql: """
                SELECT \(raw: KeyCounts.columns)
                FROM leak_keys k CROSS JOIN leak_states ls
                     JOIN scenarios s ON s.id = k.scenario_id JOIN types t ON t.id = k.type_id
                WHERE \(db.idCondition("k.id", batch.values))
                  AND ls.commit_id = \(commitID) AND ls.environment_id = (SELECT id FROM environments WHERE name = \(environment))
                  AND ls.key_id = k.id
                """) { row in
                let counts = keyCounts(row: row)
                if keys.contains(counts.ids) { result.append(counts) }
            }
        }
        return result.inKeyOrder()
    }

    /// The counts of a row that selects `KeyCounts.columns`, the key's id in `leak_keys`
    /// remembered for the snapshot (`Memo.keyIDs`): a diff reads the histories of keys its counts
    /// named, and `keyBatches` then looks none of them up (two statements a diff).
    func keyCounts(row: any SQLRow) -> KeyCounts {
        let counts = KeyCounts(row: row)
        memo.keyIDs[counts.ids] = .some(row.int64(at: KeyCounts.keyIDColumn))
        return counts
    }

    /// Each key's state at each of `commitIDs` that checked it, from its usable runs (every run
    /// at `allRunsAt`, a head): a range of `leak_states` by key per key (the table's own order on
    /// SQLite). Keys go as `keyBatches` gives them (all in one statement on PostgreSQL). A head
    /// with a suspect run takes its column from its counts of every run
    /// (`keyCounts(commitID:environment:typeID:includingSuspect:)`, which a diff has read
    /// already), not from a GROUP BY of the suspect run's records again.
    func keyStates(_ keys: Set<KeyIDs>, environment: String, at commitIDs: Set<Int64>,
                   allRunsAt head: Int64? = nil) throws -> KeyStateGrid {
        var grid = KeyStateGrid(commits: commitIDs)
        guard !keys.isEmpty, let low = grid.commits.first, let high = grid.commits.last else { return grid }
        var suspectAtHead = false
        if let head, commitIDs.contains(head) { suspectAtHead = try runCounts(commitID: head, environment: environment).suspect > 0 }
        let headColumn = head.flatMap(grid.column(of:))
        let unchecked = [KeyStateGrid.Cell?](repeating: nil, count: grid.commits.count)
        // Many keys at a few commits (a suspect head's keys looked for at the base's nearest
        // commits, a key slice each): the commits' rows as stored, by commit, where the store
        // hands them over (`KeyStateStore.storedStates`).
        var byKey = true
        if grid.commits.count * StoreTuning.keysForCommitRead <= keys.count,
           let byCommit = try keyCountsByCommit(keys, at: grid.commits, environment: environment) {
            byKey = false
            for (ids, columns) in byCommit {
                var states = unchecked
                var filled = false
                for (column, tally) in columns where tally.checked > 0 && !(suspectAtHead && column == headColumn) {
                    states[column] = KeyStateGrid.Cell(tally)
                    filled = true
                }
                if filled { grid.rows[ids] = states }
            }
        }
        for batch in try byKey ? keyBatches(keys) : [] {
            // Each key's counts in the order they come (`KeyStateStore.visitStates`), then sorted
            // by column and added up where a commit came in several parts: one dictionary probe a
            // key met again, not two a state (a diff hashes many thousands of states). The column
            // of a key's last state is where the next one is looked for from.
            var slots: [Int64: Int] = [:]
            var read: [(id: Int64, tallies: [ColumnTally], hint: Int)] = []
            var last: (id: Int64, slot: Int)?
            try db.keyStates.visitStates(ofKeys: batch.values, environment: environment, from: low, through: high) { id, commitID, tally in
                let slot: Int
                if let last, last.id == id {
                    slot = last.slot
                } else if let known = slots[id] {
                    slot = known
                } else {
                    slot = read.count
                    slots[id] = slot
                    read.append((id, [], 0))
                }
                last = (id, slot)
                guard let column = grid.column(of: commitID, from: read[slot].hint) else { return }
                read[slot].hint = column
                read[slot].tallies.append(ColumnTally(column: column, tally: tally))
            }
            for key in read {
                guard let ids = batch.keys[key.id] else { continue }
                var states = grid.rows[ids] ?? unchecked
                var filled = grid.rows[ids] != nil
                for next in ColumnTally.merged(key.tallies) where next.tally.checked > 0 && !(suspectAtHead && next.column == headColumn) {
                    states[next.column] = KeyStateGrid.Cell(next.tally)
                    filled = true
                }
                if filled { grid.rows[ids] = states }
            }
        }
        if suspectAtHead, let head, let headColumn {
            for counts in try keyCounts(commitID: head, environment: environment, includingSuspect: true)
            where counts.tally.checked > 0 && keys.contains(counts.ids) {
                grid.rows[counts.ids, default: unchecked][headColumn] = KeyStateGrid.Cell(counts.tally)
            }
        }
        return grid
    }

    /// The usable runs' counts of `keys` at each of `commitIDs`, by key and column of `commitIDs`
    /// (ascending), from the commits' states as stored (`KeyStateStore.storedStates`); nil where
    /// the store reads them by key, or a row holds more than `StoreTuning.commitReadStates`
    /// states (a big run's rows are read by key: its arrays as text alone would be most of the read).
    private func keyCountsByCommit(_ keys: Set<KeyIDs>, at commitIDs: [Int64], environment: String) throws
        -> [KeyIDs: [Int: KeyTally]]?
    {
        let ids = try keyIDs(of: keys)
        let wanted = Dictionary(ids.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        guard let rows = try db.keyStates.storedStates(at: commitIDs, environment: environment, atMost: StoreTuning.commitReadStates) else {
            return nil
        }
        var counts: [KeyIDs: [Int: KeyTally]] = [:]
        var column = 0
        for row in rows {
            // The rows come in commit order.
            while column < commitIDs.count, commitIDs[column] < row.commitID { column += 1 }
            guard column < commitIDs.count, commitIDs[column] == row.commitID else { continue }
            for index in 0..<row.states.count {
                guard let key = wanted[row.states.ids[index]] else { continue }
                counts[key, default: [:]][column, default: .zero].merge(row.states.tally(at: index))
            }
        }
        return counts
    }

    /// For each key, the first commit of `line` (at its position) that checked it with a result
    /// other than an error, and the state there; keys no commit of the line checked so are
    /// absent. Read a few commits at a time, newest first, the keys still unanswered only: most
    /// keys were checked at the line's first commits.
    func nearestCheckedStates(_ keys: Set<KeyIDs>, along line: [BranchCommit],
                              environment: String) throws -> [KeyIDs: (position: Int, state: KeyState)] {
        var found: [KeyIDs: (position: Int, state: KeyState)] = [:]
        var open = keys, start = 0, size = StoreTuning.nearestCheckedFirstCommits
        while !open.isEmpty, start < line.count {
            let stretch = line[start..<min(start + size, line.count)]
            let grid = try keyStates(open, environment: environment, at: Set(stretch.map(\.id)))
            let columns = grid.columns(of: stretch.map(\.id))
            for ids in open {
                let row = grid.row(ids)
                if let offset = columns.firstIndex(where: { row[$0] != nil && row[$0] != .error }), let state = row[columns[offset]] {
                    found[ids] = (start + offset, state)
                }
            }
            open.subtract(found.keys)
            start += stretch.count
            size *= StoreTuning.nearestCheckedGrowth
        }
        return found
    }

    /// Keys by their ids in `leak_keys`, `StoreTuning.keysPerStatement` to a statement on SQLite, each batch padded
    /// with its last id so that every batch is the same statement; on PostgreSQL all of them in
    /// one array parameter (the same statement for any number of keys, one round trip). A key
    /// without a row there (never checked) is in none.
    ///
    /// By id, not by (scenario, type): PostgreSQL took a batch's scenario ids and type ids for
    /// thousands of keys and hash-joined them to every state in the range; a list of ids of `leak_keys` is at most as many keys as it is long.
    private func keyBatches(_ keys: Set<KeyIDs>) throws -> [KeyBatch] {
        let ids = try keyIDs(of: keys)
        let sorted = ids.sorted { $0.value < $1.value }
        guard !sorted.isEmpty else { return [] }
        let keys = Dictionary(uniqueKeysWithValues: sorted.map { ($0.value, $0.key) })
        return db.idBatches(sorted.map(\.value), perStatement: StoreTuning.keysPerStatement).map { batch in
            KeyBatch(keys: Dictionary(uniqueKeysWithValues: batch.ids.compactMap { id in keys[id].map { (id, $0) } }), values: batch.values)
        }
    }

    /// The `leak_keys` id of each of `keys` that has one, read once a snapshot (`Memo.keyIDs`) as
    /// the writers read keys back (`WriteSession.lookUpKeys`).
    func keyIDs(of keys: Set<KeyIDs>) throws -> [KeyIDs: Int64] {
        let unknown = keys.filter { memo.keyIDs[$0] == nil }
        if !unknown.isEmpty {
            var found: [KeyIDs: Int64] = [:]
            try WriteSession.lookUpKeys(Array(unknown), on: db) { row in
                found[KeyIDs(scenarioID: row.int64("scenario_id"), typeID: row.int64("type_id"))] = row.int64("id")
            }
            for ids in unknown { memo.keyIDs[ids] = .some(found[ids]) }
        }
        return keys.reduce(into: [:]) { found, ids in
            if let id = memo.keyIDs[ids] ?? nil { found[ids] = id }
        }
    }

    private struct KeyBatch {
        /// The batch's keys by their ids in `leak_keys`.
        var keys: [Int64: KeyIDs]
        /// The batch's ids as a statement binds them (`SQLConnection.idCondition`):
        /// `StoreTuning.keysPerStatement` key ids, or (PostgreSQL) one array of them.
        var values: [SQLValue]
    }

    /// The head's suspect runs in the environment, oldest first.
    func suspectRuns(commitID: Int64, environment: String) throws -> [CommitDiff.SuspectRun] {
        var runs: [CommitDiff.SuspectRun] = []
        try db.query(sql: """
            SELECT id, check_count, leaked_count, error_count FROM runs
            WHERE commit_id = \(commitID) AND environment = \(environment) AND suspect = 1 ORDER BY id
            """) { row in
            runs.append(.init(runID: row.int64("id"), checks: row.int("check_count"), leaked: row.int("leaked_count"),
                              errors: row.int("error_count")))
        }
        return runs
    }

    /// The most telling check of each wanted key at the commit (a leak before a late release
    /// before anything else, the first of each), as `KeyObservation.fold` picks it.
    /// `knownIssue` is true when every leaking check of the key was a known issue.
    ///
    /// Leaks, late releases and errors are full records. The first passing check without a row
    /// is the key's `passed_site_id` in `leak_states` (NULL: the key's usual site, `leak_keys.site_id`),
    /// there when `slowest_pass_us` is; a full record marked `before_pass` came
    /// before it, any other after it, so the first check of a key is the one the full rows gave.
    func tellingChecks(commitID: Int64, environment: String, keys: Set<KeyIDs>, includingSuspect: Bool = false) throws -> [KeyIDs: KeyObservation] {
        guard !keys.isEmpty else { return [:] }
        var found: [KeyIDs: (rank: Int, observation: KeyObservation)] = [:]
        // The first rank-0 record of each key that came before its first row-less passing check.
        var beforePass: [KeyIDs: KeyObservation] = [:]
        var plainLeaks: Set<KeyIDs> = []
        // A row a check of the commit (every check of a suspect run), read by position, the
        // columns selected right above.
        try db.query(sql: """
            SELECT k.scenario_id, k.type_id, k.outcome, cs.file, cs.line, k.fingerprint, k.retain_path, k.message,
                   k.known_issue, k.before_pass
            FROM runs r JOIN checks k ON k.run_id = r.id JOIN check_sites cs ON cs.id = k.site_id
            WHERE r.commit_id = \(commitID) AND r.environment = \(environment) AND (r.suspect = 0 OR \(includingSuspect) = 1)
            ORDER BY k.id
            """) { row in
            let ids = KeyIDs(scenarioID: row.int64(at: 0), typeID: row.int64(at: 1))
            guard keys.contains(ids) else { return }
            if row.string(at: 2) == "leaked", row.int(at: 8) != 1 { plainLeaks.insert(ids) }
            let rank = switch row.string(at: 2) {
            case "leaked": 2
            case "lateRelease": 1
            default: 0
            }
            let observation = {
                KeyObservation(
                    state: .clean, file: row.string(at: 3) ?? "", line: row.int(at: 4), fingerprint: row.string(at: 5),
                    retainPath: row.string(at: 6).flatMap(RetainPathJSON.steps),
                    message: row.string(at: 7))
            }
            if rank == 0, row.int(at: 9) == 1, beforePass[ids] == nil { beforePass[ids] = observation() }
            if let existing = found[ids], existing.rank >= rank { return }
            found[ids] = (rank, observation())
        }
        // The keys without a leak or a late release here may have passed without a row: their sites,
        // a point of the primary key each (not the commit's every state: a 100,000-check run's).
        var passedSites: [KeyIDs: KeyObservation] = [:]
        for batch in try keyBatches(keys.filter { (found[$0]?.rank ?? 0) == 0 }) {
            try db.query(sql: """
                SELECT k.scenario_id, k.type_id, cs.file, cs.line
                FROM leak_keys k CROSS JOIN leak_states ls
                     JOIN check_sites cs ON cs.id = coalesce(ls.passed_site_id, k.site_id)
                WHERE \(db.idCondition("k.id", batch.values))
                  AND ls.commit_id = \(commitID) AND ls.environment_id = (SELECT id FROM environments WHERE name = \(environment))
                  AND ls.key_id = k.id AND ls.slowest_pass_us IS NOT NULL
                """) { row in
                let ids = KeyIDs(scenarioID: row.int64("scenario_id"), typeID: row.int64("type_id"))
                guard keys.contains(ids) else { return }
                passedSites[ids] = KeyObservation(state: .clean, file: row.string("file") ?? "", line: row.int("line"))
            }
        }
        var result: [KeyIDs: KeyObservation] = [:]
        for ids in keys {
            if let record = found[ids], record.rank > 0 {
                var observation = record.observation
                if record.rank == 2, !plainLeaks.contains(ids) { observation.knownIssue = true }
                result[ids] = observation
            } else if let first = beforePass[ids] ?? passedSites[ids] ?? found[ids]?.observation {
                result[ids] = first
            }
        }
        return result
    }

    /// The commit's sha and when its first usable run in the environment started; `at` is nil
    /// when the commit has no usable run there.
    func commitPoint(_ commitID: Int64, environment: String) throws -> (sha: String, at: String?) {
        var point = (sha: "", at: String?.none)
        try db.query(sql: """
            SELECT c.sha, \(Self.firstUsableRun(of: "c.id"), walk(environment: environment)) AS first_run
            FROM commits c WHERE c.id = \(commitID)
            """) { row in
            point = (row.string("sha") ?? "", row.string("first_run"))
        }
        return point
    }

    /// Commits of `branch` with usable runs in the environment, newest first, at most `limit`.
    ///
    /// The walk starts at the branch's newest commit with data (upload order) and follows
    /// `firstParentLine`.
    func branchCommits(_ branch: String, environment: String, limit: Int) throws -> [BranchCommit] {
        guard limit > 0, let newest = try db.scalarInt(sql: """
            SELECT c.id FROM commits c
            WHERE c.project_id = \(projectID) AND c.branch = \(branch)
              AND EXISTS (SELECT 1 FROM runs r WHERE r.commit_id = c.id AND r.environment = \(environment) AND r.suspect = 0)
            ORDER BY c.id DESC LIMIT 1
            """)
        else { return [] }
        return try firstParentLine(from: newest, branch: branch, environment: environment, limit: limit)
    }

    /// Commits with usable runs in the environment along first parents from `start` (included
    /// when it has data), newest first, at most `limit`.
    ///
    /// The walk follows first parents (`commit_parents` position 0); where a commit's first
    /// parent is unknown to the server (no upload there), it continues with `branch`'s previous
    /// commit in upload order. Commits without usable data are walked through but not listed;
    /// at most `max(limit * 20, 1,000)` commits are walked.
    ///
    /// Each stretch of known first parents is a segment: from its first commit, at most
    /// `limit - listed + 1` of its commits that are usable, where the known chain ends, or where the
    /// step budget runs out count, and the walk goes on from where the chain ended. The commits
    /// come from `lineStep`, so that the several walks of one snapshot (a diff's base line, its
    /// window, the head's own line) read each commit once.
    func firstParentLine(from start: Int64, branch: String?, environment: String, limit: Int) throws -> [BranchCommit] {
        guard limit > 0 else { return [] }
        var result: [BranchCommit] = []
        var listed: Set<Int64> = []
        /// Where segments ended, and every listed commit: where the walk never goes on from again.
        var seen: Set<Int64> = []
        var segmentStart: Int64? = start
        var steps = 0
        var fetches = 0
        let maxSteps = max(limit * 20, 1_000)
        while let from = segmentStart, result.count < limit, steps < maxSteps {
            segmentStart = nil
            let budget = maxSteps - steps - 1, counted = limit - result.count + 1
            var end: (id: Int64, depth: Int, parentKnown: Bool)?
            var current = from, depth = 0, rows = 0
            while true {
                // Each step yields at most one listed commit: the walk needs at least that many more.
                // The statements read twice as many commits each time (`StoreTuning.WalkReads`).
                let reads = db.walkReads
                let first = reads.firstWalkReadsAll && memo.lineSteps.isEmpty ? limit : reads.first
                let step = try lineStep(current, environment: environment, branch: branch,
                                        fetching: min(first << min(fetches, 20), limit - result.count)) { fetches += 1 }
                let chainEnds = step.parent == nil || depth == budget
                // A commit without usable data, inside the chain: walked through, not counted.
                if !step.usable, !chainEnds, let parent = step.parent {
                    current = parent
                    depth += 1
                    continue
                }
                rows += 1
                if step.usable, result.count < limit, listed.insert(current).inserted {
                    result.append(BranchCommit(id: current, sha: step.sha, at: step.at))
                    seen.insert(current)
                }
                if chainEnds { end = (current, depth, step.parent != nil) }
                guard !chainEnds, rows < counted, result.count < limit, let parent = step.parent else { break }
                current = parent
                depth += 1
            }
            guard result.count < limit, let end else { break }
            steps += end.depth + 1
            seen.insert(end.id)
            if let branch, !end.parentKnown, let previous = try previousOnBranch(branch, below: end.id) {
                segmentStart = seen.contains(previous) ? try previousInUploadOrder(previous, branch: branch, avoiding: seen) : previous
            }
        }
        return result
    }

    /// One commit as a first-parent walk sees it in one environment: its sha, whether it has a
    /// usable run there, when the first one started (nil where the walk knew it has one from
    /// `CommitGraph` and did not read the time), and its first parent's id when the server has
    /// that commit.
    struct LineStep {
        var sha: String
        var usable: Bool
        var at: String?
        var parent: Int64?
    }

    /// The commit as the walk sees it, from the snapshot's memo. A commit not read yet is read
    /// with `count` commits at most of the way a walk along `branch` goes on from it (`fetched` is
    /// called then), in one recursive statement: each commit's known first parent, else where the
    /// known chain ends the branch's previous commit in upload order. What each commit is (its
    /// parent, its branch's previous commit) does not depend on the way, so a walk that turns
    /// elsewhere (around a commit it has seen) still reads true steps from the memo.
    private func lineStep(_ commitID: Int64, environment: String, branch: String?, fetching count: Int,
                          fetched: () -> Void) throws -> LineStep {
        if let known = memo.lineSteps[environment]?[commitID] { return known }
        fetched()
        let count = max(count, 1)
        let memory = db.memory.flatMap { $0.keepsGraph ? $0 : nil }
        if let memory, let step = try lineStepFromGraph(commitID, graph: memory, environment: environment, branch: branch,
                                                        count: count) {
            return step
        }
        var way: [WayCommit] = []
        // One commit more than asked: the last one asked for learns what comes after it.
        try db.query(sql: Self.wayStatement(walk(branch: branch, environment: environment, commitID: commitID, depth: count + 1))) { row in
            way.append(WayCommit(depth: row.int(at: 0), id: row.isNull(at: 1) ? nil : row.int64(at: 1), sha: row.string(at: 2) ?? "",
                                 at: row.string(at: 3), isParent: row.int(at: 4) == 1))
        }
        way.sort { $0.depth < $1.depth }
        // What the way says of each commit, for the next walks on this connection (`CommitGraph`):
        // only where the connection keeps the graph.
        if let memory {
            var facts: [CommitGraph.Fact] = []
            for index in way.indices {
                guard let id = way[index].id else { break }
                facts.append(.sha(way[index].sha, of: id))
                guard index + 1 < way.count else { break }
                if way[index + 1].isParent, let parent = way[index + 1].id {
                    facts.append(.firstParent(parent, of: id))
                } else if !way[index + 1].isParent {
                    facts.append(.fallback(CommitGraph.Fallback(project: projectID, branch: branch, commit: id), goesTo: way[index + 1].id))
                }
            }
            for index in way.indices.prefix(count) {
                guard let id = way[index].id else { break }
                if way[index].at != nil { facts.append(.usableRun(at: id, environment: environment)) }
            }
            memory.learn(facts)
        }
        // The commits of the way up to the first the snapshot does not hold.
        let read = way.indices.prefix(count).prefix { way[$0].id != nil }
        if let branch {
            for index in read where index + 1 < way.count && !way[index + 1].isParent {
                memo.previousOnBranch[branch, default: [:]][way[index].id!] = .some(way[index + 1].id)
            }
        }
        // Each commit's step into the memo, where a commit it knows keeps its step; of a commit
        // read twice, its last reading (the first from the way's end).
        var known = memo.lineSteps.removeValue(forKey: environment) ?? [:]
        known.reserveCapacity(known.count + read.count + 1)
        var step: LineStep?
        for index in read.reversed() {
            let id = way[index].id!
            let nextIsParent = index + 1 < way.count && way[index + 1].isParent
            let reading = LineStep(sha: way[index].sha, usable: way[index].at != nil, at: way[index].at,
                                   parent: nextIsParent ? way[index + 1].id : nil)
            if id == commitID, step == nil { step = reading }
            if known[id] == nil { known[id] = reading }
        }
        // A commit the snapshot does not hold ends the walk.
        let found = step ?? LineStep(sha: "", usable: false, at: nil, parent: nil)
        if known[commitID] == nil { known[commitID] = found }
        memo.lineSteps[environment] = known
        return found
    }

    /// `lineStep` from what this connection learned of the graph (`CommitGraph`): the way from
    /// `commitID` followed in memory as far as it is known, at most `count` + 1 commits, and one
    /// statement for what each snapshot reads itself — each commit's first usable run, and at each
    /// commit whose first parent the server did not have, whether it has it now and where the
    /// branch goes on (a probe or two a commit where the SQL walk took four). The commits up to
    /// the first whose fallback changed are remembered (the graph learns the change, and the walk
    /// reads on from there). Nil when the graph knows nothing of the commit's step, or the first
    /// commit's fallback changed: the caller reads the way from SQL.
    private func lineStepFromGraph(_ commitID: Int64, graph memory: ConnectionMemory, environment: String,
                                   branch: String?, count: Int) throws -> LineStep? {
        let graph = memory.commitGraph
        guard graph.shas[commitID] != nil else { return nil }
        // The way, and whether each step goes to a first parent (else to the branch's previous commit).
        var way: [Int64] = [commitID]
        var toParent: [Bool] = []
        /// Whether the last commit's step is known to lead nowhere (no parent, no previous commit).
        var ends = false
        while way.count <= count {
            let current = way[way.count - 1]
            if let parent = graph.firstParents[current] {
                guard graph.shas[parent] != nil else { break }
                way.append(parent)
                toParent.append(true)
                continue
            }
            guard let fallback = graph.fallbacks[CommitGraph.Fallback(project: projectID, branch: branch, commit: current)] else { break }
            guard let previous = fallback else {
                ends = true
                break
            }
            guard graph.shas[previous] != nil else { break }
            way.append(previous)
            toParent.append(false)
        }
        // The commits whose step is known: all but the last, and the last where the way ends.
        let known = toParent.count + (ends ? 1 : 0)
        guard known > 0 else { return nil }
        let isFallback = { (index: Int) in index == toParent.count || !toParent[index] }
        // Asked of the snapshot: whether a commit has a usable run, unless the graph knows it has,
        // and at a fallback whether it changed. Nothing at all where the graph knows every step.
        let knownUsable = way.map((graph.usable[environment] ?? []).contains)
        let asked = (0..<known).filter { !knownUsable[$0] || isFallback($0) }
        var at = [String?](repeating: nil, count: way.count)
        var now = [(parent: Int64?, previous: Int64?)](repeating: (nil, nil), count: way.count)
        if !asked.isEmpty {
            let ids = PostgresArray.literal(integers: asked.map { way[$0] })
            let fallbacks = PostgresArray.literal(integers: asked.map { isFallback($0) ? 1 : 0 })
            let runs = PostgresArray.literal(integers: asked.map { knownUsable[$0] ? 0 : 1 })
            var arguments = walk(branch: branch, environment: environment)
            arguments.asked = (ids, fallbacks, runs)
            try db.query(sql: Self.graphCheckStatement(arguments)) { row in
                let n = row.int("n") - 1
                guard asked.indices.contains(n) else { return }
                at[asked[n]] = row.string("first_run")
                now[asked[n]] = (row.isNull("parent") ? nil : row.int64("parent"), row.isNull("previous") ? nil : row.int64("previous"))
            }
        }
        var steps: [Int64: LineStep] = [:]
        /// The first commit whose fallback changed, and what it is now.
        var changed: (commit: Int64, now: (parent: Int64?, previous: Int64?))?
        for index in 0..<known {
            let commit = way[index], next = index < toParent.count ? way[index + 1] : nil
            if isFallback(index) {
                // Where the parent was unknown: still unknown, and the branch still goes on to the same commit?
                guard now[index].parent == nil, now[index].previous == next else {
                    changed = (commit, now[index])
                    break
                }
                if let branch { memo.previousOnBranch[branch, default: [:]][commit] = .some(next) }
            }
            steps[commit] = LineStep(sha: graph.shas[commit] ?? "", usable: knownUsable[index] || at[index] != nil,
                                     at: at[index], parent: isFallback(index) ? nil : next)
        }
        // Learned once the walk no longer reads `graph`, which would otherwise be copied.
        var facts: [CommitGraph.Fact] = asked.filter { at[$0] != nil }.map { .usableRun(at: way[$0], environment: environment) }
        if let changed {
            if let parent = changed.now.parent {
                facts.append(.firstParent(parent, of: changed.commit))
            } else {
                facts.append(.fallback(CommitGraph.Fallback(project: projectID, branch: branch, commit: changed.commit),
                                       goesTo: changed.now.previous))
            }
        }
        memory.learn(facts)
        guard let step = steps[commitID] else { return nil }
        memo.lineSteps[environment, default: [:]].merge(steps) { known, _ in known }
        return step
    }

    /// The branch's newest commit uploaded before `commitID` (by id): where a walk goes on when
    /// the known first parents end. Usually read already on the way (`lineStep`).
    private func previousOnBranch(_ branch: String, below commitID: Int64) throws -> Int64? {
        if let known = memo.previousOnBranch[branch]?[commitID] { return known }
        let previous = try db.scalarInt(sql: "SELECT \(Self.previousOnBranch(of: "\(\.commitID)"), walk(branch: branch, commitID: commitID))")
        memo.previousOnBranch[branch, default: [:]][commitID] = .some(previous)
        return previous
    }

    /// SQL: the id of the branch's newest commit uploaded before commit `commit` (SQL; NULL:
    /// none, or no branch) — where a walk goes on from a commit without a known first parent.
    private static func previousOnBranch(of commit: SQLShape<WalkArguments>) -> SQLShape<WalkArguments> {
        "(SELECT max(b.id) FROM commits b WHERE b.project_id = \(\.projectID) AND b.branch = \(\.branch) AND b.id < \(commit))"
    }

    /// SQL: when commit `commit`'s first usable (non-suspect) run in the environment started (SQL;
    /// NULL: none) — what makes a commit count in a walk (`LineStep.at`).
    private static func firstUsableRun(of commit: SQLShape<WalkArguments>) -> SQLShape<WalkArguments> {
        "(SELECT min(r.started_at) FROM runs r WHERE r.commit_id = \(commit) AND r.environment = \(\.environment) AND r.suspect = 0)"
    }

    /// When each commit's first usable run in the environment started, for those that have one:
    /// the times a walk did not read (`BranchCommit.at`). `StoreTuning.commitIDsPerStatement`
    /// commits a statement, or all in one (`SQLConnection.idBatches`).
    func firstRunTimes(of commitIDs: [Int64], environment: String) throws -> [Int64: String] {
        var times: [Int64: String] = [:]
        for batch in db.idBatches(Array(Set(commitIDs)).sorted(), perStatement: StoreTuning.commitIDsPerStatement) {
            try db.query(sql: """
                SELECT c.id, \(Self.firstUsableRun(of: "c.id"), walk(environment: environment)) AS first_run FROM commits c
                WHERE \(db.idCondition("c.id", batch.values))
                """) { row in
                if let at = row.string("first_run") { times[row.int64("id")] = at }
            }
        }
        return times
    }

    /// The commit's parent at `position` (0: the first parent), when the server knows it.
    func parent(of commitID: Int64, position: Int) throws -> Int64? {
        if let known = memo.parents[commitID], position < known.count { return known[position] }
        return try db.scalarInt(sql: "SELECT \(Self.parentOf("\(\.commitID)", position: position), walk(commitID: commitID))")
    }

    /// SQL: the id of commit `commit`'s parent at `position` (SQL), NULL when the server has no
    /// upload of it or no row says: what `parent(of:position:)` reads.
    private static func parentOf(_ commit: SQLShape<WalkArguments>, position: Int) -> SQLShape<WalkArguments> {
        """
        (SELECT \(parentID) FROM commit_parents p \(parentJoin)
         WHERE p.commit_id = \(commit) AND p.position = \(raw: String(position)))
        """
    }

    /// Joined to `commit_parents p`: the parent's commit by the id stored with it (`parent_id`,
    /// checked against the sha: a rebuild, or two servers storing a commit and its parent at once,
    /// can leave an id behind or missing). `parentID` is then the parent's id — that
    /// one, else the commit of the parent's sha (looked up only then: `coalesce` stops at its
    /// first value, where a second join would seek for every step) — NULL when the server has no
    /// upload of it. The one way the queries go from a commit to its parent.
    private static let parentJoin: SQLShape<WalkArguments> =
        "LEFT JOIN commits pl ON pl.id = p.parent_id AND pl.project_id = \(\.projectID) AND pl.sha = p.parent_sha"

    private static let parentID: SQLShape<WalkArguments> =
        "coalesce(pl.id, (SELECT ps.id FROM commits ps WHERE ps.project_id = \(\.projectID) AND ps.sha = p.parent_sha))"

    /// What the statements written once here (`SQLShape`: the walk's, a commit's runs) read of a
    /// call: the project, and as the statement needs them the branch, the environment, a commit
    /// and how deep the way goes.
    struct WalkArguments {
        var projectID: Int64
        var branch: String?
        var environment = ""
        var commitID: Int64 = 0
        var depth = 0
        /// The commits `lineStepFromGraph` asks about, and what of each, as PostgreSQL arrays.
        var asked = (ids: "", fallbacks: "", runs: "")
    }

    /// What the snapshot says of the commits a walk took from the graph (`lineStepFromGraph`):
    /// for each (`ids`), its first usable run where `runs` is 1, and where `fallbacks` is 1 its
    /// first parent and its branch's previous commit; a row each, numbered from 1 (`n`).
    private static let graphCheckStatement: SQLShape<WalkArguments> = """
        SELECT i.n, CASE WHEN i.runs = 1 THEN \(firstUsableRun(of: "i.id")) END AS first_run,
               CASE WHEN i.fallback = 1 THEN \(parentOf("i.id", position: 0)) END AS parent,
               CASE WHEN i.fallback = 1 THEN \(previousOnBranch(of: "i.id")) END AS previous
        FROM unnest(CAST(\(\.asked.ids) AS BIGINT[]), CAST(\(\.asked.fallbacks) AS INTEGER[]), CAST(\(\.asked.runs) AS INTEGER[]))
             WITH ORDINALITY AS i(id, fallback, runs, n)
        """

    /// The arguments of this project's walk statements.
    private func walk(branch: String? = nil, environment: String = "", commitID: Int64 = 0, depth: Int = 0) -> WalkArguments {
        WalkArguments(projectID: projectID, branch: branch, environment: environment, commitID: commitID, depth: depth)
    }

    /// A commit of the way `lineStep` read, and whether it is the first parent of the one before
    /// it (else the branch's previous commit; `id` nil where there is none).
    private struct WayCommit {
        var depth: Int
        var id: Int64?
        var sha: String
        var at: String?
        var isParent: Bool
    }

    /// The way from commit `commitID`, at most `depth` commits: each commit's known first parent,
    /// else where the known chain ends the branch's previous commit in upload order. A parent
    /// reached by its id brings its sha along (the row was read for the check against it). A row
    /// a commit of the way, read by position, the columns selected right below.
    private static let wayStatement: SQLShape<WalkArguments> = """
        WITH RECURSIVE line(id, sha, depth, is_parent) AS (
            SELECT CAST(\(\.commitID) AS BIGINT), (SELECT c.sha FROM commits c WHERE c.id = \(\.commitID)), 1, 0
            UNION ALL
            SELECT coalesce(\(parentID), \(previousOnBranch(of: "line.id"))),
                   pl.sha, line.depth + 1, CASE WHEN \(parentID) IS NULL THEN 0 ELSE 1 END
            FROM line LEFT JOIN commit_parents p ON p.commit_id = line.id AND p.position = 0
                 \(parentJoin)
            WHERE line.id IS NOT NULL AND line.depth < \(\.depth))
        SELECT line.depth, line.id, coalesce(line.sha, (SELECT c.sha FROM commits c WHERE c.id = line.id)),
               \(firstUsableRun(of: "line.id")),
               line.is_parent
        FROM line
        """

    /// The sha of each of the project's commits, by id; `StoreTuning.commitIDsPerStatement` commits a statement (on
    /// PostgreSQL a statement is a round trip: a statement a commit was 50 of them for a
    /// scenario history of 50 commits). `+project_id` keeps SQLite off the index of the project's
    /// shas, which it would read whole (every commit of the project) to find the ids; the ids are
    /// looked up by primary key, the project checked on each row.
    func shas(of commitIDs: [Int64]) throws -> [Int64: String] {
        var shas: [Int64: String] = [:]
        try inIDBatches(commitIDs, { ids in "SELECT id, sha FROM commits WHERE +project_id = \(projectID) AND id IN (\(list: ids))" }) {
            shas[$0.int64("id")] = $0.string("sha") ?? ""
        }
        return shas
    }

    /// The distinct fingerprints of the type's leaked checks in the usable runs of each of
    /// `commitIDs` in the environment, in byte order; commits without any are absent. `StoreTuning.commitIDsPerStatement`
    /// commits a statement (a trend of 1,000 commits asked a statement a leaking commit).
    func leakFingerprints(typeID: Int64, environment: String, at commitIDs: [Int64]) throws -> [Int64: [String]] {
        var found: [Int64: Set<String>] = [:]
        // `+k.type_id` keeps SQLite off `checks_by_type`, which would visit the type's checks at
        // every commit instead of these commits' runs.
        try inIDBatches(commitIDs, { ids in
            """
            SELECT DISTINCT r.commit_id, k.fingerprint FROM runs r JOIN checks k ON k.run_id = r.id
            WHERE r.commit_id IN (\(list: ids)) AND r.environment = \(environment) AND r.suspect = 0 AND +k.type_id = \(typeID)
              AND k.outcome = 'leaked' AND k.fingerprint IS NOT NULL
            """
        }) { row in
            found[row.int64("commit_id"), default: []].insert(row.string("fingerprint") ?? "")
        }
        return found.mapValues { $0.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }
    }

    /// Runs the statement `sql` makes of a batch of the distinct `ids`, `StoreTuning.commitIDsPerStatement`
    /// a statement, the last batch padded with its last id so that every batch is the same statement.
    private func inIDBatches(_ ids: [Int64], _ sql: ([SQLValue]) -> SQL, row: (any SQLRow) throws -> Void) throws {
        let ids = Array(Set(ids)).sorted()
        for chunk in ids.batches(of: StoreTuning.commitIDsPerStatement) {
            try db.query(sql: sql(chunk.padded(to: StoreTuning.commitIDsPerStatement).map(SQLValue.integer)), row: row)
        }
    }

    private func previousInUploadOrder(_ commitID: Int64, branch: String, avoiding visited: Set<Int64>) throws -> Int64? {
        var below = commitID
        while let previous = try db.scalarInt(sql: """
            SELECT id FROM commits WHERE project_id = \(projectID) AND branch = \(branch) AND id < \(below) ORDER BY id DESC LIMIT 1
            """) {
            if !visited.contains(previous) { return previous }
            below = previous
        }
        return nil
    }

    /// Where the key's leaking stretch that ends at the newest commit of `line` began: the
    /// oldest commit of it along `line` (commits newest first, as `firstParentLine` walks them;
    /// commits where the key errored or was not checked are stepped over). Nil when it does not
    /// leak there. The one rule for `firstSeen` and "introduced by", so that the CLI, the API and
    /// the dashboard name the same commit.
    func leakingSince(_ keys: Set<KeyIDs>, along line: [BranchCommit], environment: String,
                      allRunsAt head: Int64? = nil) throws -> [KeyIDs: String] {
        let grid = try keyStates(keys, environment: environment, at: Set(line.map(\.id)), allRunsAt: head)
        let columns = grid.columns(of: line.map(\.id))
        return keys.reduce(into: [:]) { since, ids in
            let row = grid.row(ids)
            var first: String?
            walk: for (commit, column) in zip(line, columns) {
                switch row[column] {
                case .leaked?, .flaky?: first = commit.sha
                case .clean?, .lateRelease?: break walk
                case .error?, nil: continue
                }
            }
            since[ids] = first
        }
    }
}

/// A commit along a branch walk.
struct BranchCommit: Sendable {
    var id: Int64
    var sha: String
    /// When its first usable run started, ISO 8601; nil where the walk knew the commit has one
    /// and did not read when (`ProjectHistory.firstRunTimes` reads it).
    var at: String?
}
