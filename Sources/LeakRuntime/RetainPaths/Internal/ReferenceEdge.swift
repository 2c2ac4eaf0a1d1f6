import LeakReport

/// One strong reference from a holder to a class instance.
struct ReferenceEdge {
    let target: AnyObject
    /// As people read it: `children[0]`, `state.loaded.owner`.
    let property: String
    let kind: RetainPathStep.Kind
    /// False when the reference was found by reading memory without its type (a word that is a
    /// live object's address), so it may not be a strong reference.
    let proven: Bool
}
