import LeakReport

/// One leak key's outcome counts at one commit in one environment, as `leak_states` keeps them
/// (or as the checks of the usable runs add up when a suspect run is mixed in).
struct KeyCounts: Sendable {
    var scenarioID: Int64
    var typeID: Int64
    var scenario: String
    var type: String
    var checked: Int
    var leaked: Int
    var lateRelease: Int
    var errors: Int

    var ids: KeyIDs { KeyIDs(scenarioID: scenarioID, typeID: typeID) }
    var key: LeakKey { LeakKey(scenario: scenario, type: type) }

    /// The same folding as `KeyObservation.fold`, from counts: leaked with no release is
    /// leaked, leaked beside a release is flaky, any late release is a late release, a release
    /// is clean, and errors alone are an error.
    var state: KeyState {
        Self.state(checked: checked, leaked: leaked, lateRelease: lateRelease, errors: errors)
    }

    /// Adds the counts of another state of the same key at the same commit (another run's).
    mutating func add(_ other: KeyCounts) {
        checked += other.checked
        leaked += other.leaked
        lateRelease += other.lateRelease
        errors += other.errors
    }

    /// These counts under the ids and names of `key`.
    func named(_ key: KeyCounts) -> KeyCounts {
        KeyCounts(scenarioID: key.scenarioID, typeID: key.typeID, scenario: key.scenario, type: key.type, checked: checked,
                  leaked: leaked, lateRelease: lateRelease, errors: errors)
    }

    static func state(checked: Int, leaked: Int, lateRelease: Int, errors: Int) -> KeyState {
        let released = checked - leaked - errors
        if leaked > 0 { return released > 0 ? .flaky : .leaked }
        if lateRelease > 0 { return .lateRelease }
        return released > 0 ? .clean : .error
    }
}

extension Sequence<KeyCounts> {
    /// The counts in key order: by scenario id, then type id — the order every key-count read
    /// gives (counts of one key twice keep their order). The keys are sorted, then the counts
    /// taken once each: sorted themselves, the counts moved their two names at every step (a
    /// suspect head's 300 keys, sorted four times in a diff, were a sixth of its server CPU).
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
    /// The counts from a row's eight columns from `first` on: scenario id, type id, scenario
    /// name, type name, checked, leaked, late release and error counts — the order every key-count
    /// statement selects them in.
    init(row: any SQLRow, from first: Int32 = 0) {
        self.init(scenarioID: row.int64(at: first), typeID: row.int64(at: first + 1), scenario: row.string(at: first + 2) ?? "",
                  type: row.string(at: first + 3) ?? "", checked: row.int(at: first + 4), leaked: row.int(at: first + 5),
                  lateRelease: row.int(at: first + 6), errors: row.int(at: first + 7))
    }

    /// Counts not named yet (`named(_:)` names them): PostgreSQL's arrays as stored (`StoredStates`).
    init(checked: Int, leaked: Int, lateRelease: Int, errors: Int) {
        self.init(scenarioID: 0, typeID: 0, scenario: "", type: "", checked: checked, leaked: leaked, lateRelease: lateRelease,
                  errors: errors)
    }

    /// No counts and no name: what a key's counts read as stored are added to.
    static let zero = KeyCounts(checked: 0, leaked: 0, lateRelease: 0, errors: 0)

    /// Counts that fold to `state`: a key whose state an ancestor's runs stand in for.
    init(standingFor state: KeyState, ids: KeyIDs, scenario: String, type: String) {
        let (checked, leaked, late, errors) = switch state {
        case .leaked: (1, 1, 0, 0)
        case .clean: (1, 0, 0, 0)
        case .lateRelease: (1, 0, 1, 0)
        case .flaky: (2, 1, 0, 0)
        case .error: (1, 0, 0, 1)
        }
        self.init(scenarioID: ids.scenarioID, typeID: ids.typeID, scenario: scenario, type: type, checked: checked,
                  leaked: leaked, lateRelease: late, errors: errors)
    }
}

/// A row of PostgreSQL's states as stored, from its column `first` on: ids (of keys, a run's row
/// of `state_arrays`; of commits, a key's slice of a block, `StateArrays.keySlices`), then the
/// checked, leaked, late and error counts at each — arrays of one length, read from their text
/// (`PostgresArray.integers`).
struct StoredStates {
    let ids: [Int64]
    let checked: [Int64]
    let leaked: [Int64]
    let late: [Int64]
    let errors: [Int64]
    /// The elements all five arrays hold.
    let count: Int

    init(row: any SQLRow, from first: Int32) {
        ids = PostgresArray.integers(row.string(at: first) ?? "")
        checked = PostgresArray.integers(row.string(at: first + 1) ?? "")
        leaked = PostgresArray.integers(row.string(at: first + 2) ?? "")
        late = PostgresArray.integers(row.string(at: first + 3) ?? "")
        errors = PostgresArray.integers(row.string(at: first + 4) ?? "")
        count = min(ids.count, checked.count, leaked.count, late.count, errors.count)
    }

    /// The counts of element `index`, not named.
    func counts(at index: Int) -> KeyCounts {
        KeyCounts(checked: Int(checked[index]), leaked: Int(leaked[index]), lateRelease: Int(late[index]), errors: Int(errors[index]))
    }
}
