extension CheckRecord {
    /// Why the check's `attempts` and `leakedAttempts` cannot be as they are, naming the field
    /// under `path`: `checks[3].leakedAttempts: 4 is more than attempts (3)`; nil when they can.
    ///
    /// ```swift
    /// if let problem = check.attemptsProblem(at: "checks[\(index)]") { throw invalid(problem) }
    /// ```
    /// A leaked check leaked in at least one attempt. A check with another outcome and leaked
    /// attempts is valid: an attempt leaked, another released it (`outcomeCounted`).
    public func attemptsProblem(at path: @autoclosure () -> String) -> String? {
        if let attempts, attempts < 1 {
            return "\(path()).attempts: expected 1 or more, found \(attempts)"
        }
        guard let leakedAttempts else { return nil }
        if leakedAttempts < 0 {
            return "\(path()).leakedAttempts: expected 0 or more, found \(leakedAttempts)"
        }
        if leakedAttempts > attemptCount {
            return "\(path()).leakedAttempts: \(leakedAttempts) is more than attempts (\(attemptCount))"
        }
        if leakedAttempts == 0, outcome == .leaked {
            return "\(path()).leakedAttempts: 0 for a leaked check; a leaked check leaked in 1 attempt or more"
        }
        return nil
    }

    /// The outcome a history counts: a check that leaked in some attempt is a leak, also when its
    /// last attempt released the object (a tool that reports the last attempt's outcome) — a leak
    /// not confirmed in every attempt, which the gate judges intermittent. Any other as reported.
    public var outcomeCounted: CheckOutcome {
        leakedAttemptCount > 0 ? .leaked : outcome
    }
}
