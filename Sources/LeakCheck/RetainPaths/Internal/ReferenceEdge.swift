import LeakReport

/// One strong reference from a holder to a class instance.
struct ReferenceEdge {
    let target: AnyObject
    /// As people read it: `children[0]`, `state.loaded.owner`.
    let property: String
    let kind: RetainPathStep.Kind
}
