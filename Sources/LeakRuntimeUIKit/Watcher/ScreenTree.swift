/// A screen that has left — a popped or dismissed view controller — as the watcher sees it:
/// the controller, its child controllers, the controller it presented, and its view hierarchy.
/// Built by the UIKit side from live objects; plain data here, so that the choice of what to
/// watch is tested on any platform.
struct ScreenTree {
    var object: AnyObject
    /// A view that is in a window again (reused by another screen): it and its subviews are
    /// in use, not left behind.
    var isInUse = false
    var children: [ScreenTree] = []

    /// The objects to watch: the app's own controllers and views, depth first from the root,
    /// each once, at most `rules.maxObjectsPerScreen`.
    func objectsToWatch(rules: ScreenWatchRules) -> [AnyObject] {
        var found: [AnyObject] = []
        var seen: Set<ObjectIdentifier> = []
        var pending: [ScreenTree] = [self]
        while let node = pending.popLast(), found.count < rules.maxObjectsPerScreen {
            guard !node.isInUse, seen.insert(ObjectIdentifier(node.object)).inserted else { continue }
            switch rules.verdict(for: node.object) {
            case .leaveAlone:
                continue
            case .watch:
                found.append(node.object)
            case .lookInside:
                break
            }
            pending.append(contentsOf: node.children.reversed())
        }
        return found
    }

    /// Whether a controller whose view just disappeared has left for good — popped, removed
    /// from its parent, dismissed, or inside a container that is being dismissed — rather than
    /// covered by another screen or its app sent to the background.
    static func hasLeft(isMovingFromParent: Bool, isBeingDismissed: Bool, isInsideDismissal: Bool) -> Bool {
        isMovingFromParent || isBeingDismissed || isInsideDismissal
    }
}
