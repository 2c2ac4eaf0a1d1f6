/// What callers asked for since the last check.
enum WatcherRequest {
    case watch(WatchedObject)
    case ignore(WeakObject)
    case rewatch(WatchedObject)
    case ignoreType(ObjectIdentifier)
}

/// Requests queued by callers, and the counts they may read without waiting for a check.
struct WatcherInbox {
    var requests: [WatcherRequest] = []
    var watchedCount = 0
    var dropped = 0
}
