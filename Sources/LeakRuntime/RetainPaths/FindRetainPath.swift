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
/// The search reads stored properties from the runtime's field metadata (classes and structs;
/// `Mirror` only where the metadata cannot be read), leaves out `weak` and `unowned` references,
/// and follows stored closures into their contexts, a running task's closure, a dispatch source's
/// handlers and a `Mutex`'s value by their layouts. When the object is in no cycle and no root
/// holds it, it searches from the process's global and static variables and the dispatch timers
/// libdispatch has armed (Linux; elsewhere the report says they were not searched, see
/// `SearchCoverage`): first backwards,
/// scanning memory for what holds the object up to the globals that do, then forward and typed
/// from those globals through those holders only (from every global when that finds nothing).
/// Holders it cannot lay out are read as words: such a path is marked possible (`isProven`
/// false). Only when no path is found are stored closures that capture something strongly,
/// running tasks and dispatch sources named as suspects.
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
    let coverage = SearchCoverage.current
    guard coverage.searches else { return coverage.unsearchedReport(for: object) }
    var search = RetainPathSearch(target: object, limits: limits)
    return coverage.noting(search.run(roots: roots), limits: limits)
}
