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
