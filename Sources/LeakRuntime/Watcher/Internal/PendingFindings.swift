/// A budget found exceeded, with one of its instances to search a retain path for.
struct ExceededBudget {
    let budget: LeakBudget
    let count: Int
    let sample: AnyObject
    let sampleEntry: WatchedObject
}

/// What a check found, before retain paths are searched outside the lock.
struct PendingFindings {
    var leaks: [(entry: WatchedObject, object: AnyObject)] = []
    var lateReleases: [(entry: WatchedObject, fingerprint: String?)] = []
    var budgets: [ExceededBudget] = []
}
