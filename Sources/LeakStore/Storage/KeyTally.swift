import LeakReport

/// A key's state at one commit in one environment: the one value for it, which ingest gathers,
/// both engines pack, and every query reads. How many checks the usable runs there made of the
/// key (`checked`), how many of them leaked, released late or ended in an error; and, for the
/// passing checks that got no row of their own, the first one's site and the slowest wait.
///
/// Two states of one key at one commit (two runs, or one run's slices) `merge`. The key's names
/// are attached where an answer needs them (`KeyCounts`), never carried here.
///
/// ```swift
/// var tally = KeyTally()
/// tally.add(.leaked)
/// tally.merge(otherRun)      // the counts add
/// tally.isLeaking            // true
/// ```
struct KeyTally: Hashable, Sendable {
    var checked: Int64 = 0
    var leaked: Int64 = 0
    var lateRelease: Int64 = 0
    var errors: Int64 = 0
    /// The site of the first passing check stored without a row; nil when there was none, or
    /// when it was the key's usual site (`InternedKey.siteID`: then `slowestPassUs` is set).
    var passedSiteID: Int64?
    /// The slowest wait of the passing checks stored without a row, in whole microseconds.
    var slowestPassUs: Int64?

    /// No checks.
    static let zero = KeyTally()

    /// Adds one check's outcome.
    mutating func add(_ outcome: CheckOutcome) {
        checked += 1
        switch outcome {
        case .leaked: leaked += 1
        case .lateRelease: lateRelease += 1
        case .error: errors += 1
        case .deallocated: break
        }
    }

    /// A passing check stored without a row: the first one's site, the slowest wait (whole
    /// microseconds, rounded up).
    mutating func pass(siteID: Int64, waitedMs: Double) {
        if passedSiteID == nil { passedSiteID = siteID }
        let micros = Int64(min((waitedMs * 1_000).rounded(.up), 9e15))
        slowestPassUs = max(slowestPassUs ?? micros, micros)
    }

    /// Adds `later`, a state of the same key at the same commit from a run stored after this one:
    /// the counts add, the first passing site stays, the slowest wait wins.
    mutating func merge(_ later: KeyTally) {
        checked += later.checked
        leaked += later.leaked
        lateRelease += later.lateRelease
        errors += later.errors
        if slowestPassUs == nil {
            passedSiteID = later.passedSiteID
            slowestPassUs = later.slowestPassUs
        } else if let slowest = later.slowestPassUs, slowest > slowestPassUs! {
            slowestPassUs = slowest
        }
    }

    /// Some check leaked the key: the state is leaked or flaky.
    var isLeaking: Bool { leaked > 0 }

    /// The key can land in a diff's category here: it leaked, or released late.
    var isTelling: Bool { leaked > 0 || lateRelease > 0 }

    /// The state these counts fold to (as `KeyObservation.fold` folds checks): leaked with no
    /// release is leaked, leaked beside a release is flaky, any late release is a late release, a
    /// release is clean, and errors alone are an error.
    var state: KeyState {
        let released = checked - leaked - errors
        if leaked > 0 { return released > 0 ? .flaky : .leaked }
        if lateRelease > 0 { return .lateRelease }
        return released > 0 ? .clean : .error
    }

    /// Counts that fold to `state`: a key whose state an ancestor's runs stand in for.
    init(standingFor state: KeyState) {
        switch state {
        case .leaked: self.init(checked: 1, leaked: 1)
        case .clean: self.init(checked: 1)
        case .lateRelease: self.init(checked: 1, lateRelease: 1)
        case .flaky: self.init(checked: 2, leaked: 1)
        case .error: self.init(checked: 1, errors: 1)
        }
    }

    init(checked: Int64 = 0, leaked: Int64 = 0, lateRelease: Int64 = 0, errors: Int64 = 0,
         passedSiteID: Int64? = nil, slowestPassUs: Int64? = nil) {
        self.checked = checked
        self.leaked = leaked
        self.lateRelease = lateRelease
        self.errors = errors
        self.passedSiteID = passedSiteID
        self.slowestPassUs = slowestPassUs
    }

    /// `entries` in the order of their `position`, those at one position merged with `merge`:
    /// rows an engine hands over as it stored them (several runs at one commit), made one a
    /// position.
    static func mergedInOrder<Entry, Position: Comparable>(_ entries: [Entry], by position: (Entry) -> Position,
                                                           merge: (inout Entry, Entry) -> Void) -> [Entry] {
        if zip(entries, entries.dropFirst()).allSatisfy({ position($0) < position($1) }) { return entries }
        var result: [Entry] = []
        result.reserveCapacity(entries.count)
        for next in entries.sorted(by: { position($0) < position($1) }) {
            if let last = result.last, position(last) == position(next) {
                merge(&result[result.count - 1], next)
            } else {
                result.append(next)
            }
        }
        return result
    }

    /// Which states a read wants: those that leaked, or those that tell.
    enum Filter: Sendable {
        /// `isLeaking`: leaked or flaky.
        case leaking
        /// `isTelling`: leaked, flaky or released late.
        case telling

        func holds(_ tally: KeyTally) -> Bool {
            switch self {
            case .leaking: tally.isLeaking
            case .telling: tally.isTelling
            }
        }

        /// The same rule in SQL, on the count columns of `leak_states` named `alias`.
        func condition(on alias: String) -> String {
            switch self {
            case .leaking: "\(alias).leaked_count > 0"
            case .telling: "(\(alias).leaked_count > 0 OR \(alias).late_release_count > 0)"
            }
        }
    }
}
