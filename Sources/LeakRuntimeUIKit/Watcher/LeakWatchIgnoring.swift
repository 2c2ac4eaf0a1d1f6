/// Adopt in a view controller or view that outlives its screen on purpose (a cached controller,
/// a shared view): the view-controller watcher leaves it, and everything inside it, alone.
///
/// ```swift
/// final class PlayerViewController: UIViewController, LeakWatchIgnoring {}   // kept for the mini player
/// ```
public protocol LeakWatchIgnoring: AnyObject {}
