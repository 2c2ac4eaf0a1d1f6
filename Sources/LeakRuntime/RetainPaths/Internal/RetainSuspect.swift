import LeakReport

/// A stored value that may hold an object without a reference `Mirror` can show.
struct RetainSuspect: Hashable {
    enum Kind {
        case closure, task, dispatchSource

        /// `closure`, `task`, `dispatch source`.
        var word: String {
            switch self {
            case .closure: "closure"
            case .task: "task"
            case .dispatchSource: "dispatch source"
            }
        }
    }

    /// Module-qualified, as in `RetainPathStep.holder`.
    let holder: String
    let property: String
    let kind: Kind

    /// `SelfCapturingClosure.onDone is a closure; a closure that captures self strongly keeps it alive`
    var sentence: String {
        let name = RetainPathNames.short(holder) + "." + property
        switch kind {
        case .closure:
            return "\(name) is a closure; a closure that captures self strongly keeps it alive"
        case .task:
            return "\(name) is a Task; a task that captures self keeps it alive until the task ends"
        case .dispatchSource:
            return "\(name) is a dispatch source; its handlers keep what they capture alive until it is cancelled"
        }
    }

    /// The suspect as the last step of a possible path: what it may capture comes next.
    var step: RetainPathStep {
        RetainPathStep(holder: holder, property: property, kind: kind == .task ? .task : .closure, isPossible: true)
    }
}
