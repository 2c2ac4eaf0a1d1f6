/// At most `limit` live watched instances of a type, or of a group named in `watch(_:name:)`.
///
/// ```swift
/// var configuration = LeakWatcher.Configuration()
/// configuration.budgets = [.type(ProfileViewModel.self, atMost: 2), .group("Screens", atMost: 5)]
/// ```
/// A budget is reported once when it is exceeded, and again only after the count has come back
/// within it.
public struct LeakBudget: Sendable, Hashable {
    public enum Subject: Sendable, Hashable {
        /// A module-qualified type name, as `String(reflecting:)` spells it.
        case type(String)
        /// The `name` objects were watched under.
        case group(String)
    }

    public var subject: Subject
    public var limit: Int

    public init(subject: Subject, limit: Int) {
        self.subject = subject
        self.limit = max(0, limit)
    }

    public static func type(_ type: AnyObject.Type, atMost limit: Int) -> LeakBudget {
        LeakBudget(subject: .type(String(reflecting: type)), limit: limit)
    }

    public static func group(_ name: String, atMost limit: Int) -> LeakBudget {
        LeakBudget(subject: .group(name), limit: limit)
    }

    var label: String {
        switch subject {
        case .type(let name): return RetainPathNames.short(name)
        case .group(let name): return name
        }
    }
}
