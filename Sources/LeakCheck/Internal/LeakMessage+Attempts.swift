/// The words about a check's confirmation attempts.
extension LeakMessage {
    /// What the attempts of a leak showed, one sentence a leaked object: `leakedAttempts` of
    /// `attempts` leaked it.
    static func attempts(_ survivors: [(typeName: String, leakedAttempts: Int)], of attempts: Int, groupSize: Int) -> String {
        survivors.map { survivor in
            let subject = groupSize == 1 ? "It" : survivor.typeName
            if survivor.leakedAttempts < attempts {
                return "\(subject) leaked in \(survivor.leakedAttempts) of \(attempts) attempts: intermittent. The check ran "
                    + "again with fresh objects from the same factory and lifecycle, and some were released: what holds "
                    + "it depends on timing (a Task, a queued block, a timer) or on state the attempts share. A real leak "
                    + "all the same, reported as intermittent."
            }
            return "\(subject) leaked in \(attempts) of \(attempts) attempts: confirmed with fresh objects from the same "
                + "factory and lifecycle."
        }.joined(separator: "\n")
    }

    static func attemptsNotUnderstood(_ value: String) -> String {
        "LeakCheck: \(ConfirmationAttempts.variable)=\(value) is not understood (use a whole number such as 3; 1 runs "
            + "each check once); leaks are confirmed in \(ConfirmationAttempts.defaultCount) attempts as usual."
    }
}
