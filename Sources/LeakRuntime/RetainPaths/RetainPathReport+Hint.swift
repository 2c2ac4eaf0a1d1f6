import LeakReport

extension RetainPathReport {
    /// What to change so the object is released, following the kind of the proven path: the
    /// holder on the path that keeps it (the closure that captures it, the global, the task, the
    /// timer, the observer, the object that is leaked too), not a guess. Nil when no path is proven:
    /// the failure message then lists what usually keeps an object alive.
    ///
    /// ```swift
    /// findRetainPath(to: viewModel).hint
    /// // "ProfileViewModel.onDone is a closure that captures it strongly: capture it weakly ([weak self]), or set onDone to nil when it is done."
    /// ```
    package var hint: String? {
        guard isProven, let steps, let last = steps.last else { return nil }
        let holder = RetainPathNames.short(last.holder)
        let owner = holder + (last.property.isEmpty ? "" : "." + last.property)
        let first = steps[0]
        if steps.contains(where: { $0.holder == "Foundation.Timer" }) {
            return "a Timer's block captures it: invalidate the timer when it is done, or capture weakly ([weak self]) in its block."
        }
        if first.kind == .global, first.holder == "FoundationEssentials._defaultCenter" {
            return "a NotificationCenter observer's block captures it: remove the observer (removeObserver(_:) with the token "
                + "addObserver returned) when it is done, or capture weakly ([weak self]) in the block."
        }
        if throughAsyncAfter {
            return "a block scheduled with asyncAfter captures it, and keeps it until the block has run: use a shorter delay, "
                + "a cancellable timer or DispatchWorkItem, or capture weakly ([weak self]) in the block."
        }
        if throughDispatchSource {
            return "a dispatch source's handler captures it: cancel the source when it is done, or capture weakly ([weak self]) in the handler."
        }
        switch origin {
        case .global:
            return "the global \(RetainPathNames.short(first.holder)) keeps it: remove it from there when it is done, or keep it weakly."
        case .root:
            let root = RetainPathNames.short(first.holder)
            return "\(root) keeps it, and \(root) is alive: release it there, or find what keeps \(root) alive (if it leaked too, "
                + "its own path is the leak to fix)."
        case .cycle, .none:
            break
        }
        switch last.kind {
        case .closure:
            return "\(owner) is a closure that captures it strongly: capture it weakly ([weak self]), or set "
                + "\(last.property.isEmpty ? "the closure" : last.property) to nil when it is done."
        case .task:
            return "the task in \(owner) captures it and is still running: cancel the task when it is done, or capture weakly ([weak self])."
        case .methodReference:
            return "a method reference made in \(owner) captures it strongly: pass a closure that captures it weakly "
                + "({ [weak self] in self?.method($0) }) instead, or release what stores the reference when it is done."
        default:
            return "the references on this path form a cycle: make one of them weak (a delegate, parent or owner reference), "
                + "or break it when the object is done."
        }
    }
}
