import Dispatch

/// How the walk treats values of one type.
enum ValueRole {
    /// A class instance: an edge.
    case object
    /// Holds no references (POD, or a `String`).
    case plain
    case closure, dispatchSource, task
    /// A struct, enum, tuple or container to look inside.
    case value

    init(_ type: Any.Type) {
        switch TypeMetadata.kind(of: type) {
        case .class:
            // A `Timer` is walked as any object: it keeps its block in a stored closure.
            if type is DispatchSourceProtocol.Type {
                self = .dispatchSource
            } else {
                self = .object
            }
        case .function:
            self = .closure
        case .other:
            self = .plain
        case .struct, .enum, .optional, .tuple, .existential:
            if TypeMetadata.isPlainData(type) || type == String.self || type == Substring.self {
                self = .plain
            } else if _typeName(type, qualified: true).hasPrefix("Swift.Task<") {
                self = .task
            } else {
                self = .value
            }
        }
    }
}
