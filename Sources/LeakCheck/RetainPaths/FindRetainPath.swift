import LeakReport

/// Finds what keeps `object` alive: the shortest path of strong references from the object back
/// to itself (a retain cycle), or else from one of `roots` (a cache, a container, a singleton).
///
/// ```swift
/// let report = findRetainPath(to: viewModel, roots: [AppCache.shared])
/// print(report.readable)
/// // ProfileViewModel.coordinator → MainCoordinator.children[0] → ProfileViewModel
/// ```
///
/// The search walks stored properties with `Mirror`, breadth first, and reads the Swift runtime's
/// field metadata to leave out `weak` and `unowned` references; a step it cannot classify has the
/// kind `unknown`. Closures cannot be looked into: when no path is found, the closures, tasks,
/// timers and dispatch sources stored on the object and on what it reaches are named as suspects.
/// Like `Mirror`, it reads stored properties without synchronisation: call it while the objects
/// it reaches are not being mutated on other threads.
///
/// - Parameters:
///   - object: The object that outlived its check.
///   - roots: Values that may hold it from outside, searched when it is in no cycle.
///   - limits: Bounds on depth and on the objects looked at.
public func findRetainPath(
    to object: AnyObject, roots: [Any] = [], limits: RetainPathLimits = RetainPathLimits()
) -> RetainPathReport {
    var search = RetainPathSearch(target: object, limits: limits)
    return search.run(roots: roots)
}
