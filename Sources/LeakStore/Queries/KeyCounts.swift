import LeakReport

/// One leak key's state at one commit in one environment (`KeyTally`, as `leak_states` keeps it,
/// or as the checks of the usable runs add up when a suspect run is mixed in), with the key's
/// ids and names: what an answer shows.
struct KeyCounts: Sendable {
    var scenarioID: Int64
    var typeID: Int64
    var scenario: String
    var type: String
    var tally: KeyTally

    var ids: KeyIDs { KeyIDs(scenarioID: scenarioID, typeID: typeID) }
    var key: LeakKey { LeakKey(scenario: scenario, type: type) }
    var state: KeyState { tally.state }

    /// `tally` under the ids and names of `key`.
    init(_ tally: KeyTally, named key: KeyCounts) {
        self.init(scenarioID: key.scenarioID, typeID: key.typeID, scenario: key.scenario, type: key.type, tally: tally)
    }

    init(scenarioID: Int64, typeID: Int64, scenario: String, type: String, tally: KeyTally = .zero) {
        self.scenarioID = scenarioID
        self.typeID = typeID
        self.scenario = scenario
        self.type = type
        self.tally = tally
    }
}

extension Sequence<KeyCounts> {
    /// The counts in key order: by scenario id, then type id — the order every key-count read
    /// gives (counts of one key twice keep their order). The keys are sorted, then the counts
    /// taken once each: sorted themselves, the counts would move their two names at every step (a
    /// suspect head's keys are sorted four times in a diff).
    func inKeyOrder() -> [KeyCounts] {
        let counts = Array(self)
        var order = counts.indices.map { (scenarioID: counts[$0].scenarioID, typeID: counts[$0].typeID, index: $0) }
        let precedes = { (a: (scenarioID: Int64, typeID: Int64, index: Int), b: (scenarioID: Int64, typeID: Int64, index: Int)) in
            (a.scenarioID, a.typeID, a.index) < (b.scenarioID, b.typeID, b.index)
        }
        if zip(order, order.dropFirst()).allSatisfy(precedes) { return counts }
        order.sort(by: precedes)
        return order.map { counts[$0.index] }
    }
}

/// A leak key by its interned ids.
struct KeyIDs: Hashable, Sendable {
    var scenarioID: Int64
    var typeID: Int64
}

extension KeyCounts {
    /// What a statement of a commit's key counts selects, in the order `init(row:)` reads them,
    /// from `leak_keys k`, `scenarios s`, `types t` and `leak_states ls`; the key's id last
    /// (`keyIDColumn`).
    static let columns = """
        k.scenario_id, k.type_id, s.name, t.name, ls.checked_count, ls.leaked_count, ls.late_release_count, ls.error_count, k.id
        """

    /// The column of `columns` that holds the key's id in `leak_keys`.
    static let keyIDColumn: Int32 = 8

    /// What a statement of the checks `k` of suspect runs counted by key selects, in the order
    /// `init(row:)` reads them: with `named`, the key's names from `scenarios s` and `types t`,
    /// else NULL (no name). Counted with FILTER, not `sum(outcome = …)`: PostgreSQL's
    /// `sum(boolean)` is an aggregate written in SQL (`0001_pg_initial.sql`), a function call a
    /// row and column.
    static func checkCounts(named: Bool) -> String {
        """
        k.scenario_id, k.type_id, \(named ? "s.name, t.name" : "NULL, NULL"), count(*), count(*) FILTER (WHERE k.outcome = 'leaked'),
        count(*) FILTER (WHERE k.outcome = 'lateRelease'), count(*) FILTER (WHERE k.outcome = 'error')
        """
    }

    /// The counts of a row that selects `columns` or `checkCounts`, by position: a commit's
    /// every key is a row each (100,000 for a big run), read where the lists above are written.
    init(row: any SQLRow) {
        self.init(scenarioID: row.int64(at: 0), typeID: row.int64(at: 1), scenario: row.string(at: 2) ?? "",
                  type: row.string(at: 3) ?? "",
                  tally: KeyTally(checked: row.int64(at: 4), leaked: row.int64(at: 5), lateRelease: row.int64(at: 6),
                                  errors: row.int64(at: 7)))
    }
}
