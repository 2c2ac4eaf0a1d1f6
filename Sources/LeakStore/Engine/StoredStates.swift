/// Key states as an engine stores them, a list a count (`KeyStateStore.storedStates`,
/// `visitStates`): ids (of keys, a run's row; of commits, a key's slice of a block), then the
/// checked, leaked, late and error counts at each, arrays of one length.
struct StoredStates {
    let ids: [Int64]
    let checked: [Int64]
    let leaked: [Int64]
    let late: [Int64]
    let errors: [Int64]
    /// The elements all five arrays hold.
    let count: Int

    init(ids: [Int64], checked: [Int64], leaked: [Int64], late: [Int64], errors: [Int64]) {
        self.ids = ids
        self.checked = checked
        self.leaked = leaked
        self.late = late
        self.errors = errors
        count = min(ids.count, checked.count, leaked.count, late.count, errors.count)
    }

    /// The state of element `index`.
    func tally(at index: Int) -> KeyTally {
        KeyTally(checked: checked[index], leaked: leaked[index], lateRelease: late[index], errors: errors[index])
    }
}
