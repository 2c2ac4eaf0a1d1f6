import Foundation

extension DecodingError {
    /// A message that names the key path at fault, as people read it:
    /// `checks[3].type: expected a string`.
    public var keyPathDescription: String {
        switch self {
        case let .typeMismatch(type, context):
            return Self.describe(context.codingPath, "expected \(Self.noun(for: type))")
        case let .valueNotFound(type, context):
            return Self.describe(context.codingPath, "expected \(Self.noun(for: type)), found null")
        case let .keyNotFound(key, context):
            return Self.describe(context.codingPath + [key], "missing")
        case let .dataCorrupted(context):
            if context.codingPath.isEmpty {
                return "not valid JSON: \(Self.rootCause(of: context))"
            }
            return Self.describe(context.codingPath, context.debugDescription)
        @unknown default:
            return String(describing: self)
        }
    }

    /// `checks[3].type` for a coding path.
    public static func keyPath(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }

    private static func describe(_ path: [any CodingKey], _ problem: String) -> String {
        path.isEmpty ? problem : "\(keyPath(path)): \(problem)"
    }

    private static func rootCause(of context: Context) -> String {
        if let underlying = context.underlyingError as NSError?,
           let detail = underlying.userInfo[NSDebugDescriptionErrorKey] as? String {
            return detail
        }
        return context.debugDescription
    }

    private static func noun(for type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type: return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        case is [Any].Type: return "an array"
        case is [String: Any].Type: return "an object"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array<") { return "an array" }
            if name.hasPrefix("Dictionary<") { return "an object" }
            return "an object (\(name))"
        }
    }
}
