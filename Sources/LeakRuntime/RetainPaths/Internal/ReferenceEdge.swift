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
    /// A step between the holder's and the target: the method reference that captures it.
    var via: RetainPathStep?

    /// The steps from `holder` to the target: the reference (as `property`, of `kind`, both the
    /// edge's own unless given), then the method reference it goes through.
    func steps(from holder: String, property: String? = nil, kind: RetainPathStep.Kind? = nil) -> [RetainPathStep] {
        let step = RetainPathStep(holder: holder, property: property ?? self.property, kind: kind ?? self.kind, isPossible: !proven)
        return via.map { [step, $0] } ?? [step]
    }
}
