import LeakReport

/// One check as the store keeps it, whichever way it came: an upload, or a row of the layout
/// before compact storage that the upgrade copies over.
struct IncomingCheck {
    var scenarioID: Int64
    var typeID: Int64
    var outcome: CheckOutcome
    var waitedMs: Double
    var timeoutMs: Int64
    var file: String
    var line: Int64
    var lifecycle: String
    var fingerprint: String?
    /// The retain path as JSON text (`RetainPathJSON`).
    var retainPath: String?
    var message: String?
    var source: String?
    /// Empty for a check that gets no row (`CompactCheckWriter.isRowless`): nothing reads it.
    var checkedAt: String
    /// A leak recorded inside `withKnownIssue`.
    var knownIssue: Bool
    /// The check's confirmation attempts and those that leaked, as reported (nil: the default,
    /// `CheckRecord.attemptCount`); kept on full records only, read for the leaks at a head.
    var attempts: Int64? = nil
    var leakedAttempts: Int64? = nil

    var site: CheckSite { CheckSite(file: file, line: line, lifecycle: lifecycle) }
}

/// Where a check was written and what was done to the object: `check_sites`, interned.
struct CheckSite: Hashable, Comparable {
    var file: String
    var line: Int64
    var lifecycle: String

    static func < (a: CheckSite, b: CheckSite) -> Bool { (a.file, a.line, a.lifecycle) < (b.file, b.line, b.lifecycle) }
}

/// Stores a run's checks in the compact layout: the one rule for which check gets a row.
///
/// A passing check of a usable run that carries no fingerprint, retain path or message gets no
/// row: it adds to its key's `leak_states` row at the commit (the counts, the site of the first
/// such check, the slowest wait). Every other check — leaked, late, errored, a passing one with
/// something to say, every check of a suspect run — is a full record in `checks`, marked
/// `before_pass` when it came before the first row-less passing check of its key at the commit,
/// so that the first check of a key is known exactly. `leak_states` counts the usable runs only;
/// a suspect run's counts are its records.
struct CompactCheckWriter {
    /// The table of key states and the table of full records written to.
    let states: String
    let checks: String
    /// How `states` names a key.
    let keys: KeyColumns

    enum KeyColumns {
        /// By its id in `leak_keys` (migration 8): the live layout.
        case keyID
        /// By its scenario and type ids: the table migration 6 fills, before keys were interned.
        case scenarioAndType
    }

    init(states: String, checks: String, keys: KeyColumns) {
        self.states = states
        self.checks = checks
        self.keys = keys
        let keyColumns = keys == .keyID ? "key_id" : "scenario_id, type_id"
        stateColumns = """
            \(states) (commit_id, environment_id, \(keyColumns), checked_count, leaked_count,
                late_release_count, error_count, passed_site_id, slowest_pass_us)
            """
        stateConflict = """
                    ON CONFLICT (commit_id, environment_id, \(keyColumns)) DO UPDATE SET
                        checked_count = \(states).checked_count + excluded.checked_count,
                        leaked_count = \(states).leaked_count + excluded.leaked_count,
                        late_release_count = \(states).late_release_count + excluded.late_release_count,
                        error_count = \(states).error_count + excluded.error_count,
                        passed_site_id = CASE WHEN \(states).slowest_pass_us IS NULL THEN excluded.passed_site_id
                                              ELSE \(states).passed_site_id END,
                        slowest_pass_us = CASE WHEN \(states).slowest_pass_us IS NULL
                                                 OR excluded.slowest_pass_us > \(states).slowest_pass_us
                                               THEN excluded.slowest_pass_us ELSE \(states).slowest_pass_us END
            """
        // The attempts came with migration 16, after the table migration 6 fills.
        keepsAttempts = keys == .keyID
        recordInsert = RowInsert(into: """
            \(checks) (run_id, scenario_id, type_id, outcome, waited_ms, timeout_ms, site_id, fingerprint, retain_path,
                message, source, checked_at, known_issue, before_pass\(keepsAttempts ? ", attempts, leaked_attempts" : ""))
            """, columnCount: keepsAttempts ? 16 : 14)
        stateUpsert = RowInsert(into: stateColumns, columnCount: keys == .keyID ? 9 : 10, suffix: stateConflict)
    }

    /// Which of `keys` (a batch of `WriteSession.keyReadBackSize`) have a row-less passing check
    /// at the commit in the environment already.
    private func passedReadBack(_ keys: [KeyIDs], commitID: Int64, environmentID: Int64) -> SQL {
        let passedState: SQL = switch self.keys {
        case .keyID: """
            JOIN leak_keys k ON k.scenario_id = w.scenario_id AND k.type_id = w.type_id
            JOIN \(raw: states) ls ON ls.commit_id = \(commitID) AND ls.environment_id = \(environmentID) AND ls.key_id = k.id
            """
        case .scenarioAndType: """
            JOIN \(raw: states) ls ON ls.commit_id = \(commitID) AND ls.environment_id = \(environmentID)
                AND ls.scenario_id = w.scenario_id AND ls.type_id = w.type_id
            """
        }
        return """
            WITH wanted (scenario_id, type_id) AS (VALUES \(WriteSession.keyPairs(keys)))
            SELECT w.scenario_id, w.type_id FROM wanted w
            \(passedState)
            WHERE ls.slowest_pass_us IS NOT NULL
            """
    }

    /// The live tables.
    static let live = CompactCheckWriter(states: "leak_states", checks: "checks", keys: .keyID)

    /// Whether this writes the live layout, whose states are packed where the engine packs them.
    private var isLive: Bool { states == Self.live.states && checks == Self.live.checks && keys == .keyID }
    /// The tables migration 6 fills before they replace the old ones.
    static let converting = CompactCheckWriter(states: "leak_states_compact", checks: "checks_compact", keys: .scenarioAndType)

    /// Whether `check` of a run gets no row of its own.
    static func isRowless(_ check: IncomingCheck, suspectRun: Bool) -> Bool {
        !suspectRun && check.outcome == .deallocated && check.fingerprint == nil && check.retainPath == nil && check.message == nil
    }

    /// Stores the checks of run `runID` (in upload order) at the commit.
    func store(_ incoming: [IncomingCheck], runID: Int64, commitID: Int64, environment: String, suspect: Bool,
               writer: WriteSession) throws {
        let db = writer.connection
        let environmentID = try writer.intern(environment, in: "environments")
        // Keys whose first row-less passing check at this commit came in an earlier run, among
        // the keys of this run's full records, the only ones `storeRecords` asks about: read by
        // key, not the commit's every state (a 1,000-check run's commit has 1,000).
        var passed: Set<KeyIDs> = []
        let recordKeys = Set(incoming.lazy.filter { !Self.isRowless($0, suspectRun: suspect) }
            .map { KeyIDs(scenarioID: $0.scenarioID, typeID: $0.typeID) })
        if !recordKeys.isEmpty,
           try db.scalarInt(sql: "SELECT 1 FROM runs WHERE commit_id = \(commitID) AND environment = \(environment) AND id <> \(runID) LIMIT 1")
            != nil {
            let sorted = recordKeys.sorted { ($0.scenarioID, $0.typeID) < ($1.scenarioID, $1.typeID) }
            if isLive, let passedKeyIDs = try db.keyStates.passedKeys(commitID: commitID, environmentID: environmentID) {
                // The commit's states in this environment, read as they are: a few runs' states, not
                // the merged, sorted rows of every environment `leak_states` would make of them.
                if !passedKeyIDs.isEmpty {
                    try writer.readKeys(sorted.filter { writer.keyIDs[$0] == nil })
                    passed = recordKeys.filter { writer.keyIDs[$0].map { passedKeyIDs.contains($0.id) } ?? false }
                }
            } else {
                for chunk in sorted.batches(of: StoreTuning.keysPerStatement) {
                    let size = WriteSession.keyReadBackSize(chunk.count)
                    try db.query(sql: passedReadBack(chunk.padded(to: size), commitID: commitID, environmentID: environmentID)) { row in
                        passed.insert(KeyIDs(scenarioID: row.int64("scenario_id"), typeID: row.int64("type_id")))
                    }
                }
            }
        }
        let run = try storeRecords(incoming, runID: runID, suspect: suspect, writer: writer, after: CompactRun(passed: passed))
        try storeStates(run.sortedStates[...], commitID: commitID, environmentID: environmentID, writer: writer)
    }

    /// Stores the full records among `incoming`, the next checks of run `runID` in upload order,
    /// after the checks `earlier` gathered; returns what these checks add to the key states
    /// (`CompactRun.add`), which `storeStates` stores. A run stored in slices
    /// (`LeakStore.ingest`) writes its records slice by slice in upload order, and its key states
    /// afterwards in key order, so that each slice's transaction touches a few neighbouring
    /// pages of each index. The slice's own states come back, not `earlier` grown by them: a
    /// write body may run again, so it must not change what it was given, and a copy of the
    /// states gathered so far for each slice of a big run would hold two of them.
    func storeRecords(_ incoming: [IncomingCheck], runID: Int64, suspect: Bool, writer: WriteSession,
                      after earlier: CompactRun) throws -> CompactRun {
        var run = CompactRun()
        // Each check's site is looked up once; the new ones are interned in sorted order, so
        // that two servers storing runs with the same sites lock rows in the same order.
        var siteIDs = incoming.map { writer.siteIDs[$0.site] }
        let newSites = Set(zip(incoming, siteIDs).lazy.filter { $0.1 == nil }.map(\.0.site)).sorted()
        for site in newSites { _ = try writer.intern(site) }
        if !newSites.isEmpty {
            for index in siteIDs.indices where siteIDs[index] == nil { siteIDs[index] = writer.siteIDs[incoming[index].site] }
        }
        // A run's checks are mostly of different keys: grown one by one, the table was copied a dozen times.
        run.states.reserveCapacity(incoming.count)
        var records: [[SQLValue]] = []
        for (check, siteID) in zip(incoming, siteIDs) {
            let ids = KeyIDs(scenarioID: check.scenarioID, typeID: check.typeID)
            let siteID = siteID ?? 0
            if !suspect { run.states[ids, default: KeyTally()].add(check.outcome) }
            if Self.isRowless(check, suspectRun: suspect) {
                run.states[ids]?.pass(siteID: siteID, waitedMs: check.waitedMs)
                run.passed.insert(ids)
                continue
            }
            records.append([
                .integer(runID), .integer(check.scenarioID), .integer(check.typeID), .text(check.outcome.rawValue),
                .real(check.waitedMs), .integer(check.timeoutMs), .integer(siteID), .text(check.fingerprint),
                .text(check.retainPath), .text(check.message), .text(check.source), .text(check.checkedAt),
                check.knownIssue && check.outcome == .leaked ? .integer(1) : .null,
                run.passed.contains(ids) || earlier.passed.contains(ids) ? .null : .integer(1),
            ] + (keepsAttempts ? [check.attempts.map(SQLValue.integer) ?? .null, check.leakedAttempts.map(SQLValue.integer) ?? .null] : []))
        }
        try writer.connection.insert(recordInsert, rows: records)
        return run
    }

    /// Adds key states (`CompactRun.sortedStates`, or a slice of them) to the commit's: packed
    /// where the live layout is (`StateBlobs`: both engines), upserted a row a key into the table
    /// an upgrade fills (`converting`).
    func storeStates(_ keyStates: ArraySlice<(key: KeyIDs, value: KeyTally)>, commitID: Int64, environmentID: Int64,
                     writer: WriteSession) throws {
        if isLive {
            let db = writer.connection
            let stored = try storedStates(keyStates, writer: writer)
            try StateBlobs.append(stored, commitID: commitID, environmentID: environmentID, db: db)
            try StateBlobs.settleIfDue(added: stored.count, session: writer, db: db)
            return
        }
        let named: [(key: [SQLValue], state: KeyTally)] = switch keys {
        case .keyID: try storedStates(keyStates, writer: writer).map { ([.integer($0.keyID)], $0.state) }
        case .scenarioAndType: keyStates.map { ([.integer($0.key.scenarioID), .integer($0.key.typeID)], $0.value) }
        }
        try writer.connection.insert(stateUpsert, rows: named.map { key, state in
            // One array a row, appended to, not three concatenated (each concatenation copies the row).
            var row: [SQLValue] = []
            row.reserveCapacity(stateUpsert.columnCount)
            row.append(.integer(commitID))
            row.append(.integer(environmentID))
            row.append(contentsOf: key)
            row.append(.integer(state.checked))
            row.append(.integer(state.leaked))
            row.append(.integer(state.lateRelease))
            row.append(.integer(state.errors))
            row.append(state.passedSiteID.map(SQLValue.integer) ?? .null)
            row.append(state.slowestPassUs.map(SQLValue.integer) ?? .null)
            return row
        })
    }

    /// Key states as they are stored, by key id (interned here, in the order given: sorted, so
    /// that two servers storing runs of one commit lock rows in the same order), the passing site
    /// left out (nil) where it is the key's usual one (`InternedKey.siteID`).
    func storedStates(_ keyStates: ArraySlice<(key: KeyIDs, value: KeyTally)>,
                      writer: WriteSession) throws -> [(keyID: Int64, state: KeyTally)] {
        precondition(keys == .keyID, "only the live layout names keys by id")
        try writer.intern(keys: keyStates.map { ($0.key, $0.value.passedSiteID) })
        return try keyStates.map { ids, state in
            guard let interned = writer.keyIDs[ids] else {
                throw LeakStoreError.unavailable("the key \(ids.scenarioID), \(ids.typeID) has no id after interning")
            }
            var stored = state
            if stored.passedSiteID == interned.siteID { stored.passedSiteID = nil }
            return (interned.id, stored)
        }
    }

    /// Unmarks the records of run `runID` that came before their key's first row-less passing
    /// check, when an earlier run at commit `commitID` passed the key: the run is being published
    /// after those runs (`LeakStore.ingest`), as if it had been stored there from the start.
    func unmarkRecordsAfterEarlierPasses(runID: Int64, commitID: Int64, environmentID: Int64, db: any SQLConnection) throws {
        if isLive, let passed = try db.keyStates.passedKeys(commitID: commitID, environmentID: environmentID) {
            // The commit's states read once, not the commit's states merged again for each record
            // (each update changes the database, and `leak_states` keeps nothing across a change
            // inside a transaction), which made a big run's publish slow.
            guard !passed.isEmpty else { return }
            var unmarked: [Int64] = []
            try db.query(sql: """
                SELECT c.id AS check_id, k.id AS key_id
                FROM \(raw: checks) c JOIN leak_keys k ON k.scenario_id = c.scenario_id AND k.type_id = c.type_id
                WHERE c.run_id = \(runID) AND c.before_pass = 1
                """) { row in
                if passed.contains(row.int64("key_id")) { unmarked.append(row.int64("check_id")) }
            }
            for id in unmarked { try db.run(sql: "UPDATE \(raw: checks) SET before_pass = NULL WHERE id = \(id)") }
            return
        }
        let (source, sameKey) = switch keys {
        case .keyID: ("\(states) s JOIN leak_keys k ON k.id = s.key_id",
                      "k.scenario_id = \(checks).scenario_id AND k.type_id = \(checks).type_id")
        case .scenarioAndType: ("\(states) s", "s.scenario_id = \(checks).scenario_id AND s.type_id = \(checks).type_id")
        }
        try db.run(sql: """
            UPDATE \(raw: checks) SET before_pass = NULL
            WHERE run_id = \(runID) AND before_pass = 1 AND EXISTS (
                SELECT 1 FROM \(raw: source)
                WHERE s.commit_id = \(commitID) AND s.environment_id = \(environmentID) AND \(raw: sameKey) AND s.slowest_pass_us IS NOT NULL)
            """)
    }

    /// Made once (`init`): the connection looks its prepared statement up by the text.
    private let recordInsert: RowInsert
    /// Whether `checks` has the attempts' columns.
    private let keepsAttempts: Bool
    private let stateUpsert: RowInsert

    /// The columns that name a key in `states`.
    private var keyColumns: String { keys == .keyID ? "key_id" : "scenario_id, type_id" }

    private let stateColumns: String

    /// How a key's state adds up what comes after it: the counts add, the first passing site stays, the slowest wait wins.
    private let stateConflict: String
}

/// What a run's checks add to the key states at its commit, gathered while its records are stored.
struct CompactRun {
    /// Keys whose first row-less passing check at the commit is already known: a record after it is not `before_pass`.
    var passed: Set<KeyIDs>
    var states: [KeyIDs: KeyTally] = [:]

    init(passed: Set<KeyIDs> = []) { self.passed = passed }

    /// Adds what the next checks of the same run gathered (`CompactCheckWriter.storeRecords`).
    mutating func add(_ later: CompactRun) {
        passed.formUnion(later.passed)
        for (key, state) in later.states { states[key, default: KeyTally()].merge(state) }
    }

    /// In key order.
    var sortedStates: [(key: KeyIDs, value: KeyTally)] {
        states.sorted { ($0.key.scenarioID, $0.key.typeID) < ($1.key.scenarioID, $1.key.typeID) }
    }
}

/// A row of `leak_keys`: the key's id, and its usual site, which its states leave out (a NULL
/// `passed_site_id` beside a `slowest_pass_us` is this site).
struct InternedKey {
    var id: Int64
    var siteID: Int64?
}

extension WriteSession {
    /// The id of `name` in `table` (`types`, `scenarios` or `environments`), inserting it the
    /// first time. Safe when several servers intern the same name at once: the insert that
    /// loses does nothing, and the name is read again.
    func intern(_ name: String, in table: StaticString) throws -> Int64 {
        if let id = internedNames[table.description]?[name] { return id }
        let select = "SELECT id FROM \(table) WHERE name = ?"
        let db = connection
        guard let id = try db.scalarInt(select, [.text(name)])
            ?? db.scalarInt("INSERT INTO \(table) (name) VALUES (?) ON CONFLICT (name) DO NOTHING RETURNING id", [.text(name)])
            ?? db.scalarInt(select, [.text(name)])
        else { throw LeakStoreError.unavailable("interning \(name) in \(table) returned no id") }
        internedNames[table.description, default: [:]][name] = id
        return id
    }

    /// The id of a check site, inserting it the first time (safe under racing servers, as `intern(_:in:)`).
    func intern(_ site: CheckSite) throws -> Int64 {
        if let id = siteIDs[site] { return id }
        let select = "SELECT id FROM check_sites WHERE file = ? AND line = ? AND lifecycle = ?"
        let values: [SQLValue] = [.text(site.file), .integer(site.line), .text(site.lifecycle)]
        let db = connection
        guard let id = try db.scalarInt(select, values)
            ?? db.scalarInt("""
                INSERT INTO check_sites (file, line, lifecycle) VALUES (?, ?, ?)
                ON CONFLICT (file, line, lifecycle) DO NOTHING RETURNING id
                """, values)
            ?? db.scalarInt(select, values)
        else { throw LeakStoreError.unavailable("interning the site \(site.file):\(site.line) returned no id") }
        siteIDs[site] = id
        return id
    }

    /// Interns the leak keys this session does not know yet: inserts the ones not in `leak_keys`
    /// (in the order given: sorted, so that racing servers lock rows in the same order), each
    /// with its usual site (the site of its first row-less passing check, when it has one), and
    /// keeps the rows the insert returns; reads back only those it did not return (another server
    /// inserted them first, or SQLite could not tell: `RowInsert.returnsAddedRows`). The insert
    /// leaves the keys already there, and the read back finds them with the same ids: a new run's
    /// keys are mostly new, and a read first would find none of them. PostgreSQL, where a conflict uses up an id of the sequence, reads the
    /// known keys and inserts the others in one statement (`SQLConnection.internKeys`).
    func intern(keys wanted: [(key: KeyIDs, siteID: Int64?)]) throws {
        let unknown = wanted.filter { keyIDs[$0.key] == nil }
        guard !unknown.isEmpty else { return }
        try connection.internKeys(unknown.map { ($0.key.scenarioID, $0.key.typeID, $0.siteID) }, row: rememberKey)
        let lost = unknown.filter { keyIDs[$0.key] == nil }
        guard !lost.isEmpty else { return }
        try readKeys(lost.map(\.key))
        if let lost = lost.first(where: { keyIDs[$0.key] == nil })?.key {
            throw LeakStoreError.unavailable("interning the key \(lost.scenarioID), \(lost.typeID) returned no id")
        }
    }

    /// A `leak_keys` row, as `keyInsert` and `keyReadBack` return it, kept in `keyIDs`.
    private func rememberKey(_ row: any SQLRow) {
        keyIDs[KeyIDs(scenarioID: row.int64("scenario_id"), typeID: row.int64("type_id"))] =
            InternedKey(id: row.int64("id"), siteID: row.isNull("site_id") ? nil : row.int64("site_id"))
    }

    /// Returns the rows it adds; one that another server added first it leaves, and returns nothing for.
    static let keyInsert = RowInsert(
        into: "leak_keys (scenario_id, type_id, site_id)", columnCount: 3,
        suffix: "ON CONFLICT (scenario_id, type_id) DO NOTHING", returnsAddedRows: true)

    /// Reads the `leak_keys` rows of `keys` there are into `keyIDs`.
    func readKeys(_ keys: [KeyIDs]) throws {
        try Self.lookUpKeys(keys, on: connection, row: rememberKey)
    }

    /// Hands `row` the `leak_keys` row (id, scenario, type, site) of each of `keys` there is,
    /// `StoreTuning.keysPerStatement` keys a statement: the writers' read-back, and the readers' ids of the keys they
    /// read states of (`ProjectHistory.keyBatches`).
    static func lookUpKeys(_ keys: [KeyIDs], on db: any SQLConnection, row: (any SQLRow) throws -> Void) throws {
        for chunk in keys.batches(of: StoreTuning.keysPerStatement) {
            // Padded with the last key up to a statement's size, so that eight prepared statements
            // serve every batch, and a run's ten new keys are looked up 16 times, not 128.
            let size = keyReadBackSize(chunk.count)
            try db.query(sql: """
                WITH wanted (scenario_id, type_id) AS (VALUES \(keyPairs(chunk.padded(to: size))))
                SELECT k.id, k.scenario_id, k.type_id, k.site_id
                FROM wanted w JOIN leak_keys k ON k.scenario_id = w.scenario_id AND k.type_id = w.type_id
                """, row: row)
        }
    }

    /// How many pairs the statement that reads `count` keys (1 to `StoreTuning.keysPerStatement`) binds: the power
    /// of two at or above `count`.
    static func keyReadBackSize(_ count: Int) -> Int {
        precondition((1...StoreTuning.keysPerStatement).contains(count), "a key read-back reads 1 to \(StoreTuning.keysPerStatement) keys")
        return count == 1 ? 1 : 1 << (Int.bitWidth - (count - 1).leadingZeroBitCount)
    }

    /// The (scenario, type) pairs of `keys` as a `VALUES` list, bound.
    static func keyPairs(_ keys: [KeyIDs]) -> SQL {
        SQL(joining: keys.lazy.map { (key: KeyIDs) -> SQL in "(CAST(\(key.scenarioID) AS BIGINT), CAST(\(key.typeID) AS BIGINT))" },
            separator: ", ")
    }
}
