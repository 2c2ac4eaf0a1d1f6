import LeakReport

/// Reads of `leak_states` by index range, so that what a page or a trend costs follows the keys it
/// shows, not the size of the commits it passes: a commit holding a 100,000-key run costs one
/// type's or one scenario's keys there, and a branch's line of commits is one range, not a query
/// a commit.
extension ProjectHistory {
    /// Keys of one type or of one scenario: the few keys of it in `leak_keys`, then one range
    /// of `leak_states` by (key, environment, commit) per key over commits: the table's own order on
    /// SQLite, its index by key on PostgreSQL.
    enum KeyFilter {
        case type(Int64)
        case scenario(Int64)

        /// The condition on `leak_keys k` that picks the filter's keys.
        var keyCondition: SQL {
            switch self {
            case let .type(id): "k.type_id = \(id)"
            case let .scenario(id): "k.scenario_id = \(id)"
            }
        }
    }

    /// The counts of the filter's keys at each of `commitIDs` (commits with usable runs), as
    /// `keyCounts(commitID:…)` gives them commit by commit (in key order): the keys' ids, their
    /// histories over the range (`KeyStateStore.history`), one index range a key, then the names
    /// of the keys with a state at one of the commits, which the connection mostly knows
    /// (`keyNames(of:)`): a type has a few hundred keys and a trend of 50 commits shows about half
    /// of them, and reading every key's names at every trend was most of its growth since
    /// `e007e89` (BENCHMARKS.md, 'Issue 47: the trend's cost found and fixed'). A commit that also
    /// holds a suspect run adds up its usable checks. (Joined to their names in SQL, PostgreSQL's
    /// planner looked the names up a state at a time.)
    func keyCounts(_ filter: KeyFilter, environment: String, at commitIDs: [Int64]) throws -> [Int64: [KeyCounts]] {
        guard let low = commitIDs.min(), let high = commitIDs.max() else { return [:] }
        let wanted = Set(commitIDs)
        let suspect = try suspectCommits(among: wanted, environment: environment)
        var result: [Int64: [KeyCounts]] = [:]
        // A row a key, its id the one column.
        var keyIDs: Set<Int64> = []
        try db.query(sql: "SELECT k.id FROM leak_keys k WHERE \(filter.keyCondition)") { keyIDs.insert($0.int64(at: 0)) }
        let histories = try db.keyStates.history(of: keyIDs, environment: environment, from: low, through: high)
        let names = try keyNames(of: Set(histories.compactMap { keyID, states in
            states.contains { wanted.contains($0.commitID) } ? keyID : nil
        }))
        for (keyID, states) in histories {
            guard let name = names[keyID] else { continue }
            for (commitID, tally) in states where wanted.contains(commitID) {
                result[commitID, default: []].append(KeyCounts(tally, named: name))
            }
        }
        for commitID in result.keys {
            result[commitID] = result[commitID]?.inKeyOrder()
        }
        // A commit with a suspect run counts its usable runs alone, as
        // `keyCounts(commitID:environment:)` does: a suspect run adds no state, so the range's
        // states there are the usable runs' — none without one. (Read again a commit at a time,
        // every state of the commit, they were most of a commit page's time on PostgreSQL.)
        for commitID in suspect where try runCounts(commitID: commitID, environment: environment).usable == 0 {
            result[commitID] = nil
        }
        return result
    }

    /// Those of `commitIDs` that hold a suspect run in the environment: one range of
    /// `runs_by_commit_environment` from the lowest to the highest, read once a snapshot for
    /// each range (the type ranges of a page's trends all ask it of the same commits).
    func suspectCommits(among commitIDs: Set<Int64>, environment: String) throws -> Set<Int64> {
        guard let low = commitIDs.min(), let high = commitIDs.max() else { return [] }
        let range = Memo.SuspectRange(environment: environment, low: low, high: high)
        if let known = memo.suspect[range] { return known.intersection(commitIDs) }
        var suspect: Set<Int64> = []
        try db.query(sql: """
            SELECT DISTINCT commit_id FROM runs WHERE commit_id BETWEEN \(low) AND \(high) AND environment = \(environment) AND suspect = 1
            """) { suspect.insert($0.int64("commit_id")) }
        memo.suspect[range] = suspect
        return suspect.intersection(commitIDs)
    }

    /// Answers one read snapshot already has: it lives as long as the `ProjectHistory` of that
    /// read, on that read's thread.
    final class Memo {
        struct SuspectRange: Hashable {
            var environment: String
            var low: Int64
            var high: Int64
        }

        var suspect: [SuspectRange: Set<Int64>] = [:]
        /// Commits as the first-parent walks saw them, by environment (`firstParentLine`).
        var lineSteps: [String: [Int64: LineStep]] = [:]
        /// Each branch's previous commit in upload order before a commit (nil inside: none).
        var previousOnBranch: [String: [Int64: Int64?]] = [:]
        /// Each commit's usable and suspect runs, by environment (`runCounts`).
        var runCounts: [String: [Int64: (usable: Int, suspect: Int)]] = [:]
        /// Commits' branches and first two parents (nil: not known), as `commitID(_:environment:)` read them.
        var branches: [Int64: String?] = [:]
        var parents: [Int64: [Int64?]] = [:]
        /// Commits' ids by sha and environment as `commitID(_:environment:)` read them (nil: the
        /// project has no such commit).
        var commitIDs: [String: [String: Int64?]] = [:]

        struct KeyCountsAt: Hashable {
            var commitID: Int64
            var environment: String
            var includingSuspect: Bool
        }

        /// Every key's counts at a commit (`keyCounts(commitID:environment:typeID:includingSuspect:)`).
        var keyCounts: [KeyCountsAt: [KeyCounts]] = [:]
        /// Keys' ids in `leak_keys`, nil for a key without one (`keyBatches`).
        var keyIDs: [KeyIDs: Int64?] = [:]
    }

    /// Which of a commit's keys a read wants, by their outcomes there.
    /// The keys at the commit whose state `filter` holds for (of one type, when `typeID` is given), as
    /// `keyCounts(commitID:environment:typeID:includingSuspect:).filter { filter.holds($0.tally) }` gives
    /// them, without reading the keys that did not, where `leak_states` answers alone: a commit of
    /// a 100,000-check run costs its few hundred telling states, not 100,000 keys.
    func keyCounts(commitID: Int64, environment: String, typeID: Int64? = nil, includingSuspect: Bool = false,
                   having filter: KeyTally.Filter) throws -> [KeyCounts] {
        guard try statesAnswerAlone(commitID: commitID, environment: environment) else {
            return try keyCounts(commitID: commitID, environment: environment, typeID: typeID, includingSuspect: includingSuspect)
                .filter { filter.holds($0.tally) }
        }
        // One type's keys: a range of `leak_states` by key each (on PostgreSQL their blocks);
        // every key: the commit's states (packed, a blob read once a snapshot on SQLite, the
        // commit's arrays on PostgreSQL).
        let environmentID: SQL = "(SELECT id FROM environments WHERE name = \(environment))"
        let source = typeID.map { (id: Int64) -> SQL in
            """
            leak_keys k JOIN \(statesOfKeys("SELECT k.id FROM leak_keys k WHERE k.type_id = \(id)", environment: environmentID,
                                            from: "\(commitID)", through: "\(commitID)")) ls ON ls.key_id = k.id
            """
        } ?? "leak_states ls JOIN leak_keys k ON k.id = ls.key_id"
        let ofType = typeID.map { (id: Int64) -> SQL in " AND k.type_id = \(id)" } ?? ""
        var result: [KeyCounts] = []
        try db.query(sql: """
            SELECT \(raw: KeyCounts.columns)
            FROM \(source) JOIN scenarios s ON s.id = k.scenario_id JOIN types t ON t.id = k.type_id
            WHERE ls.commit_id = \(commitID) AND ls.environment_id = \(environmentID)
              AND \(raw: filter.predicate(on: db))\(ofType)
            """) { row in
            result.append(keyCounts(row: row))
        }
        return result.inKeyOrder()
    }

    /// A diff's two sides' counts (`includingSuspect` at the head, the usable runs at the base) of
    /// every key telling (leaked, flaky or released late) at either: each side's telling keys,
    /// then the other side's counts of them, in key order.
    ///
    /// On PostgreSQL the usable runs' states of both commits — all of a side's counts but a head's
    /// suspect runs' — are their rows of `state_arrays` (one a run), read as they are, and the
    /// telling keys' counts added up by key here (`merged`), then named (`keyNames`): two
    /// statements. A head with a suspect run takes every key's counts
    /// (`keyCounts(commitID:environment:typeID:includingSuspect:)`, which its column of the key
    /// states along the lines reads anyway), and the base keeps its counts of the keys telling
    /// there too, rather than four statements — each side's telling keys, then the other's counts
    /// of them, each unnesting and grouping a commit's few hundred states in the `leak_states`
    /// view again — or one statement doing it all in SQL (a window over both commits' grouped
    /// states; both measured in BENCHMARKS.md). SQLite reads a commit's packed states once a snapshot and picks
    /// its telling ones while reading (`LeakStatesTable`): there the four reads cost a few blob
    /// seeks.
    func tellingCounts(head: Int64?, base: Int64?, environment: String) throws -> (head: [KeyCounts], base: [KeyCounts]) {
        if let head {
            let headSuspect = try runCounts(commitID: head, environment: environment).suspect > 0
            if let runs = try db.keyStates.storedStates(at: [base, headSuspect ? nil : head].compactMap { $0 }, environment: environment,
                                                        atMost: nil) {
                let headCounts = headSuspect ? try keyCounts(commitID: head, environment: environment, includingSuspect: true) : nil
                let tellingAtHead = Set((headCounts ?? []).filter(\.tally.isTelling).map(\.ids))
                let states = Self.merged(runs, keeping: .telling(alsoKeeping: Set(try keyIDs(of: tellingAtHead).values)))
                let names = try keyNames(of: Set(states.values.flatMap(\.keys)))
                let named = { (tallies: [Int64: KeyTally]) in
                    tallies.compactMap { keyID, tally in names[keyID].map { KeyCounts(tally, named: $0) } }
                }
                let telling = Set(names.values.map(\.ids)).union(tellingAtHead)
                let headSide = headCounts ?? named(states[head] ?? [:])
                return (headSide.filter { telling.contains($0.ids) }.inKeyOrder(),
                        named(base.flatMap { states[$0] } ?? [:]).inKeyOrder())
            }
        }
        let headTelling = try head.map {
            try keyCounts(commitID: $0, environment: environment, includingSuspect: true, having: .telling)
        } ?? []
        let baseTelling = try base.map { try keyCounts(commitID: $0, environment: environment, having: .telling) } ?? []
        let tellingAtHead = Set(headTelling.map(\.ids)), tellingAtBase = Set(baseTelling.map(\.ids))
        let headOthers = try head.map {
            try keyCounts(commitID: $0, environment: environment, keys: tellingAtBase.subtracting(tellingAtHead), includingSuspect: true)
        } ?? []
        let baseOthers = try base.map {
            try keyCounts(commitID: $0, environment: environment, keys: tellingAtHead.subtracting(tellingAtBase))
        } ?? []
        return ((headTelling + headOthers).inKeyOrder(), (baseTelling + baseOthers).inKeyOrder())
    }

    /// Which keys' counts `merged` keeps.
    enum KeptKeys {
        /// Each key telling (leaked, flaky or late) at one of the commits, and these.
        case telling(alsoKeeping: Set<Int64>)
        /// Every key.
        case every
    }

    /// The counts of the keys `kept` says at each commit of `runs` (`KeyStateStore.storedStates`),
    /// by key id and not named yet (`keyNames`): the rows, one a run, merged by key as the
    /// `leak_states` view adds them (`KeyTally.merge`). Keeping only the telling keys passes the
    /// others over: a commit with a big run would put every key of it in a dictionary for a diff
    /// that shows a few hundred.
    static func merged(_ runs: [(commitID: Int64, states: StoredStates)], keeping kept: KeptKeys) -> [Int64: [Int64: KeyTally]] {
        // The keys kept, nil for every key. A key whose counts add up to a leak or a late release
        // has one in a run's row.
        var keeping: Set<Int64>?
        if case .telling(let also) = kept {
            keeping = also
            for run in runs {
                for index in 0..<run.states.count where run.states.tally(at: index).isTelling {
                    keeping?.insert(run.states.ids[index])
                }
            }
        }
        var states: [Int64: [Int64: KeyTally]] = [:]
        for run in runs {
            for index in 0..<run.states.count where keeping?.contains(run.states.ids[index]) ?? true {
                states[run.commitID, default: [:]][run.states.ids[index], default: .zero].merge(run.states.tally(at: index))
            }
        }
        return states
    }

    /// Each key's ids and names by its id in `leak_keys`, counts zero (`KeyCounts.named(_:)`
    /// puts them on counts read by key id): those the connection knows from its earlier reads
    /// (`ConnectionMemory.keyNames`), the others read.
    func keyNames(of keyIDs: Set<Int64>) throws -> [Int64: KeyCounts] {
        guard !keyIDs.isEmpty else { return [:] }
        let load = { (unknown: [Int64]) throws -> [Int64: KeyCounts] in
            var names: [Int64: KeyCounts] = [:]
            for batch in db.idBatches(unknown, perStatement: StoreTuning.keysPerStatement) {
                names.merge(try readKeyNames(where: db.idCondition("k.id", batch.values)), uniquingKeysWith: { known, _ in known })
            }
            return names
        }
        let names = try db.memory?.keyNames(of: keyIDs, load: load) ?? load(keyIDs.sorted())
        for (id, named) in names { memo.keyIDs[named.ids] = .some(id) }
        return names
    }

    /// A row a key, read by position (the columns selected right below).
    private func readKeyNames(where condition: SQL) throws -> [Int64: KeyCounts] {
        var names: [Int64: KeyCounts] = [:]
        try db.query(sql: """
            SELECT k.id, k.scenario_id, k.type_id, s.name, t.name
            FROM leak_keys k JOIN scenarios s ON s.id = k.scenario_id JOIN types t ON t.id = k.type_id
            WHERE \(condition)
            """) { row in
            let id = row.int64(at: 0)
            let named = KeyCounts(scenarioID: row.int64(at: 1), typeID: row.int64(at: 2), scenario: row.string(at: 3) ?? "",
                                  type: row.string(at: 4) ?? "")
            memo.keyIDs[named.ids] = .some(id)
            names[id] = named
        }
        return names
    }
}

extension ProjectHistory {
    /// `leak_states` as a read of keys' histories names it (`KeyStateStore.relation(ofKeys:…)`).
    func statesOfKeys(_ keys: SQL, environment: SQL, from low: SQL, through high: SQL) -> SQL {
        db.keyStates.relation(ofKeys: keys, environment: environment, from: low, through: high)
    }
}

extension KeyTally.Filter {
    /// The condition on `leak_states ls` (`KeyStateStore.condition`).
    func predicate(on db: any SQLConnection) -> String {
        db.keyStates.condition(self, on: "ls")
    }
}
