/// One reference on the way from a holder to the leaked object.
///
/// A path `ProfileViewModel.coordinator → MainCoordinator.children[0] → ProfileViewModel`
/// has two steps: (`ProfileViewModel`, `coordinator`, strong) and
/// (`MainCoordinator`, `children[0]`, collection).
public struct RetainPathStep: Codable, Sendable, Hashable {
    /// What kind of reference a step is.
    public enum Kind: String, Codable, Sendable {
        /// A plain strong stored property.
        case strong
        /// A stored closure (`property`) whose captures hold the next object: the closure's own
        /// context, a captured closure's, or a captured `var`'s box.
        case closure
        /// A closure context found holding the next object, with no stored property to name it
        /// (found by searching memory backwards).
        case capture
        /// A global or static variable: `holder` is its qualified name, `LeakCorpusTests.registry`.
        case global
        /// A `Task` whose closure captures the next object; it holds it until the task ends.
        case task
        /// An element of an array, dictionary or set.
        case collection
        /// The reference could not be classified (for example, weak-ness unknown on this platform).
        case unknown
    }

    /// The module-qualified type of the object that holds the reference.
    public var holder: String
    /// The property path inside the holder, as people read it: `children[0]`, `state.some.owner`.
    public var property: String
    public var kind: Kind

    public init(holder: String, property: String, kind: Kind) {
        self.holder = holder
        self.property = property
        self.kind = kind
    }
}

extension RetainPathStep {
    /// The path as people read it, the same in failure messages, the CLI and the dashboard:
    /// `ProfileViewModel.coordinator → MainCoordinator.children[0] → ProfileViewModel`,
    /// `ProfileViewModel.onDone (closure) → captures ProfileViewModel`,
    /// `Cache.shared.entries["a"] → Image`; module prefixes dropped.
    public static func readable(_ steps: [RetainPathStep], leakedType: String) -> String {
        var parts: [String] = []
        var captures = false
        for step in steps {
            let property = step.property.isEmpty || step.property.hasPrefix("[") ? step.property : "." + step.property
            var part = (captures ? "captures " : "")
            switch step.kind {
            case .global:
                part += globalName(step.holder) + property
            case .capture:
                part += "closure" + property
            default:
                part += shortName(step.holder) + property
            }
            switch step.kind {
            case .closure: part += " (closure)"
            case .task: part += " (task)"
            default: break
            }
            captures = [.closure, .capture, .task].contains(step.kind)
            parts.append(part)
        }
        parts.append((captures ? "captures " : "") + shortName(leakedType))
        return parts.joined(separator: " → ")
    }

    /// `App.Screens.ProfileViewModel` → `ProfileViewModel`; every dotted prefix dropped, inside
    /// generic arguments too: `Swift.Array<App.Node>` → `Array<Node>`.
    public static func shortName(_ typeName: String) -> String {
        var result = ""
        var word = ""
        var parenthesised = 0
        for character in typeName {
            switch character {
            case "(":
                parenthesised += 1
                word.append(character)
            case ")":
                parenthesised -= 1
                word.append(character)
            case "." where parenthesised == 0:
                word = ""
            case "<", ">", ",", " ", "[", "]", ":", "?":
                result += word
                result.append(character)
                word = ""
            default:
                word.append(character)
            }
        }
        return result + word
    }

    /// A global keeps its module (`LeakCorpusTests.registry`); a static keeps its type only
    /// (`Cache.shared`).
    static func globalName(_ name: String) -> String {
        let parts = name.split(separator: ".")
        guard parts.count > 2 else { return name }
        return parts.suffix(2).joined(separator: ".")
    }
}
