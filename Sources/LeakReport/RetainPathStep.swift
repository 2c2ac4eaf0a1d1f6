/// One reference on the way from a holder to the leaked object.
///
/// A path `ProfileViewModel.coordinator → MainCoordinator.children[0] → ProfileViewModel`
/// has two steps: (`ProfileViewModel`, `coordinator`, strong) and
/// (`MainCoordinator`, `children[0]`, collection).
///
/// On the wire a step is `{"holder":…,"property":…,"kind":…}`, plus `"possible":true` for a
/// step not proven strong (readers that do not know the member ignore it; a step without it is
/// proven, as every step reported before it existed was).
public struct RetainPathStep: Codable, Sendable, Hashable {
    /// What kind of reference a step is.
    public enum Kind: String, Codable, Sendable, CaseIterable {
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
        /// A method reference (`subscribe(onNext: validate)`), which captures the next object, its
        /// receiver: `holder` and `property` say where it was written (`App.Model`, `init()`).
        case methodReference
        /// A `Task` whose closure captures the next object; it holds it until the task ends.
        case task
        /// A dispatch timer libdispatch has armed, whose handler (`property`, `eventHandler`)
        /// captures the next object; it holds it until the timer is cancelled. `holder` names
        /// the timer and its queue: `DispatchSource timer (armed, on queue "interval")`.
        case timer
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
    /// True when the reference is not proven strong: it was read from memory without its type,
    /// or it is a suspect (a closure whose captures could not be read) the search could not
    /// look into. A path with such a step is a possible path, and prints so.
    public var isPossible: Bool

    public init(holder: String, property: String, kind: Kind, isPossible: Bool = false) {
        self.holder = holder
        self.property = property
        self.kind = kind
        self.isPossible = isPossible
    }

    /// Proven strong: read with its type, and of a known kind.
    public var isProven: Bool { !isPossible && kind != .unknown }

    enum CodingKeys: String, CodingKey {
        case holder, property, kind
        case isPossible = "possible"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        holder = try c.decode(String.self, forKey: .holder)
        property = try c.decode(String.self, forKey: .property)
        kind = try c.decode(Kind.self, forKey: .kind)
        isPossible = try c.decodeIfPresent(Bool.self, forKey: .isPossible) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(holder, forKey: .holder)
        try c.encode(property, forKey: .property)
        try c.encode(kind, forKey: .kind)
        if isPossible { try c.encode(true, forKey: .isPossible) }
    }
}

// How a path prints: the one formatter of the test's message, the report, every CLI format and
// the dashboard.
extension RetainPathStep {
    /// Whether every step of a non-empty path is proven strong.
    public static func isProven(_ steps: [RetainPathStep]) -> Bool {
        !steps.isEmpty && steps.allSatisfy(\.isProven)
    }

    /// The path as people read it, the same in failure messages, the CLI and the dashboard:
    /// `ProfileViewModel.coordinator → MainCoordinator.children[0] → ProfileViewModel`,
    /// `ProfileViewModel.onDone (closure) → captures ProfileViewModel`,
    /// `Cache.shared.entries["a"] → Image`,
    /// `DispatchSource timer (armed, on queue "interval") → eventHandler (closure) → captures Feed`;
    /// module prefixes dropped. A possible path names the
    /// steps not proven strong after it:
    /// `Feed.subject → Subject.observers (closure) → captures Feed (possible: Subject.observers is not proven to hold it strongly)`.
    public static func readable(_ steps: [RetainPathStep], leakedType: String) -> String {
        var text = readableParts(steps, leakedType: leakedType).joined(separator: " → ")
        let unproven = steps.filter { !$0.isProven }.map(\.readableName)
        if !unproven.isEmpty {
            let names = unproven.count == 1 ? unproven[0] : unproven.dropLast().joined(separator: ", ") + " and " + unproven.last!
            text += " (possible: \(names) \(unproven.count == 1 ? "is" : "are") not proven to hold it strongly)"
        }
        return text
    }

    /// The path's parts, one a step (an armed timer's two: the timer, then its handler) and the
    /// leaked type last, as `readable` joins them; a code flow's locations (SARIF) show them one
    /// by one, with `readableFlow`.
    public static func readableParts(_ steps: [RetainPathStep], leakedType: String) -> [String] {
        readableFlow(steps, leakedType: leakedType).map(\.text)
    }

    /// `readableParts`, each with whether the step it prints is proven strong (the leaked type
    /// is).
    public static func readableFlow(_ steps: [RetainPathStep], leakedType: String) -> [(text: String, isProven: Bool)] {
        var parts: [(text: String, isProven: Bool)] = []
        var captures = false
        for step in steps {
            var part = (captures ? "captures " : "") + step.readableName
            switch step.kind {
            case .closure: part += " (closure)"
            case .task: part += " (task)"
            case .methodReference:
                part = (captures ? "captures " : "") + "method reference made in " + step.readableName
            case .timer:
                // The timer, then its handler: libdispatch holds the one, the other captures.
                parts.append(((captures ? "captures " : "") + step.holder, step.isProven))
                part = step.property + " (closure)"
            default: break
            }
            captures = [.closure, .capture, .task, .timer, .methodReference].contains(step.kind)
            parts.append((part, step.isProven))
        }
        parts.append(((captures ? "captures " : "") + shortName(leakedType), true))
        return parts
    }

    /// Where the step is, without its kind: `MainCoordinator.children[0]`, `closure`,
    /// `Cache.shared`, `DispatchSource timer (armed, on queue "interval") eventHandler`.
    public var readableName: String {
        let suffix = property.isEmpty || property.hasPrefix("[") ? property : "." + property
        switch kind {
        case .global: return Self.globalName(holder) + suffix
        case .timer: return property.isEmpty ? holder : holder + " " + property
        case .capture: return "closure" + suffix
        default: return Self.shortName(holder) + suffix
        }
    }

    /// `App.Screens.ProfileViewModel` → `ProfileViewModel`; every dotted prefix dropped, inside
    /// generic arguments too: `Swift.Array<App.Node>` → `Array<Node>`; the anonymous context of
    /// a private or local type too: `RxSwift.(unknown context at $7f3a).SinkDisposer` → `SinkDisposer`.
    public static func shortName(_ typeName: String) -> String {
        var result = ""
        var word = ""
        var parenthesised = 0
        for character in LeakFingerprint.droppingAnonymousContexts(typeName) {
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
        let name = LeakFingerprint.droppingAnonymousContexts(name)
        let parts = name.split(separator: ".")
        guard parts.count > 2 else { return name }
        return parts.suffix(2).joined(separator: ".")
    }
}
