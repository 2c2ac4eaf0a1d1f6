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
        /// A stored closure: it may capture the object, but its captures cannot be read.
        case closure
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
    /// The path as people read it: `ProfileViewModel.coordinator → MainCoordinator.children[0] →
    /// ProfileViewModel`, with module prefixes dropped.
    public static func readable(_ steps: [RetainPathStep], leakedType: String) -> String {
        guard !steps.isEmpty else { return shortName(leakedType) }
        return (steps.map { "\(shortName($0.holder)).\($0.property)" } + [shortName(leakedType)]).joined(separator: " → ")
    }

    /// `App.Profile.ViewModel` → `Profile.ViewModel`: the module dropped, nesting kept; generic
    /// arguments keep their own names.
    public static func shortName(_ typeName: String) -> String {
        guard let dot = typeName.firstIndex(of: "."), !typeName[..<dot].contains("<") else { return typeName }
        return String(typeName[typeName.index(after: dot)...])
    }
}
