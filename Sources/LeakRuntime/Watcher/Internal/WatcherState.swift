/// The watched objects and the bookkeeping of checks; owned by the watcher's state lock.
struct WatcherState {
    private(set) var entries: [WatchedObject] = []
    /// The live entry for each watched object.
    private var byIdentifier: [ObjectIdentifier: WatchedObject] = [:]
    private var ignoredTypes: Set<ObjectIdentifier> = []
    private var exceededBudgets: Set<LeakBudget> = []

    mutating func apply(_ requests: [WatcherRequest]) {
        for request in requests {
            switch request {
            case .watch(let entry):
                guard entry.reference.object != nil, live(entry.reference.identifier) == nil else { continue }
                add(entry)
            case .rewatch(let entry):
                guard entry.reference.object != nil else { continue }
                // A fresh start: strikes at zero, and the rewatching call's name and location.
                if let existing = live(entry.reference.identifier) {
                    entries.removeAll { $0 === existing }
                }
                add(entry)
            case .ignore(let reference):
                guard let object = reference.object else { continue }
                if let existing = live(reference.identifier) {
                    existing.ignored = true
                } else {
                    // Remember the instance, so that a later `watch` leaves it alone.
                    let entry = WatchedObject(
                        object, name: nil, location: CallerLocation(fileID: "", filePath: "", line: 0, column: 0))
                    entry.ignored = true
                    add(entry)
                }
            case .ignoreType(let identifier):
                ignoredTypes.insert(identifier)
            }
        }
    }

    /// Strikes every live, watched object; drops the deallocated ones; counts budgets.
    mutating func check(configuration: LeakWatcher.Configuration) -> PendingFindings {
        var pending = PendingFindings()
        var survivors: [WatchedObject] = []
        survivors.reserveCapacity(entries.count)
        var counts: [LeakBudget.Subject: (count: Int, sample: AnyObject, entry: WatchedObject)] = [:]
        let budgetSubjects = Set(configuration.budgets.map(\.subject))
        for entry in entries {
            guard let object = entry.reference.object else {
                if entry.reported { pending.lateReleases.append((entry, entry.fingerprint)) }
                if byIdentifier[entry.reference.identifier] === entry {
                    byIdentifier[entry.reference.identifier] = nil
                }
                continue
            }
            survivors.append(entry)
            if entry.ignored || ignoredTypes.contains(entry.typeIdentifier) || isAllowed(entry, configuration) {
                entry.strikes = 0
                continue
            }
            if !budgetSubjects.isEmpty {
                for subject in [LeakBudget.Subject.type(entry.typeName)] + (entry.name.map { [.group($0)] } ?? [])
                where budgetSubjects.contains(subject) {
                    let count = (counts[subject]?.count ?? 0) + 1
                    counts[subject] = (count, object, entry)
                }
            }
            entry.strikes += 1
            if entry.strikes >= configuration.strikes, !entry.reported {
                entry.reported = true
                pending.leaks.append((entry, object))
            }
        }
        entries = survivors
        for budget in configuration.budgets {
            let counted = counts[budget.subject]
            let count = counted?.count ?? 0
            if count > budget.limit, let counted {
                if exceededBudgets.insert(budget).inserted {
                    pending.budgets.append(ExceededBudget(
                        budget: budget, count: count, sample: counted.sample, sampleEntry: counted.entry))
                }
            } else {
                exceededBudgets.remove(budget)
            }
        }
        return pending
    }

    private func live(_ identifier: ObjectIdentifier) -> WatchedObject? {
        guard let entry = byIdentifier[identifier], entry.reference.object != nil else { return nil }
        return entry
    }

    private mutating func add(_ entry: WatchedObject) {
        entries.append(entry)
        byIdentifier[entry.reference.identifier] = entry
    }

    private func isAllowed(_ entry: WatchedObject, _ configuration: LeakWatcher.Configuration) -> Bool {
        guard !configuration.allowlist.isEmpty else { return false }
        if let allowed = entry.allowlisted { return allowed }
        let allowed = configuration.allowlist.contains(entry.typeName)
            || configuration.allowlist.contains(RetainPathNames.short(entry.typeName))
        entry.allowlisted = allowed
        return allowed
    }
}
