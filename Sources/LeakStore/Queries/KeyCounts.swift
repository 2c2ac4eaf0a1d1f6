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
    /// What a statement of a commit's key counts selects for `init(row:)` and
    /// `ProjectHistory.keyCounts(row:)`, from `leak_keys k`, `scenarios s`, `types t` and
    /// `leak_states ls`.
    static let columns = """
        k.scenario_id, k.type_id, s.name AS scenario, t.name AS type, ls.checked_count, ls.leaked_count,
        ls.late_release_count, ls.error_count, k.id AS key_id
        """

    /// The counts of a row by its columns' names: `scenario_id`, `type_id`, with `named` the
    /// names `scenario` and `type`, and `checked_count`, `leaked_count`, `late_release_count`,
    /// `error_count`.
    init(row: any SQLRow, named: Bool = true) {
        self.init(scenarioID: row.int64("scenario_id"), typeID: row.int64("type_id"),
                  scenario: named ? row.string("scenario") ?? "" : "", type: named ? row.string("type") ?? "" : "",
                  tally: KeyTally(checked: row.int64("checked_count"), leaked: row.int64("leaked_count"),
                                  lateRelease: row.int64("late_release_count"), errors: row.int64("error_count")))
    }
}
