/// The attempts of a check: how many times it ran with fresh objects, how many of those leaked,
/// and the one rule that says which values a check may carry. The report reader, the server's
/// validation and its fast parser all ask `attemptsProblem`, so they refuse the same lines with
/// the same words.
extension CheckRecord {
    /// How many times the check ran: `attempts`, or 1 when absent (a report written before
    /// attempts, or a check that could not be repeated).
    public var attemptCount: Int { attempts ?? 1 }

    /// How many attempts leaked: `leakedAttempts`, or when absent every attempt of a leaked check
    /// and none of any other.
    public var leakedAttemptCount: Int {
        leakedAttempts ?? (outcome == .leaked ? attemptCount : 0)
    }

    /// True for a leak that some attempt released: leaked, but not in every attempt.
    public var isIntermittent: Bool {
        outcome == .leaked && leakedAttemptCount < attemptCount
    }

    /// Why this check's attempts cannot be, naming the field; nil when they can.
    public var attemptsProblem: CheckFieldProblem? {
        Self.attemptsProblem(attempts: attempts, leakedAttempts: leakedAttempts, outcome: outcome)
    }

    /// Why these attempt values cannot be on a check with `outcome`, naming the field
    /// (`leakedAttempts: 4 is more than attempts (3)`); nil when they can.
    ///
    /// `attempts` is 1 or more (absent: 1); `leakedAttempts` is 0 to `attempts` (absent: all of
    /// them for a leaked check, else 0), and a leaked check leaked in at least one attempt. A
    /// check with another outcome may carry leaked attempts (a tool whose attempt leaked and
    /// then released): that is valid here, and the server decides what it means.
    /// Both are stored as 32-bit integers, hence the upper bound.
    public static func attemptsProblem(attempts: Int?, leakedAttempts: Int?,
                                       outcome: CheckOutcome) -> CheckFieldProblem? {
        if let attempts, !(1...Self.maxAttempts).contains(attempts) {
            return CheckFieldProblem(field: "attempts", problem: "expected 1 to \(Self.maxAttempts), found \(attempts)")
        }
        guard let leakedAttempts else { return nil }
        if leakedAttempts < 0 {
            return CheckFieldProblem(field: "leakedAttempts", problem: "expected 0 or more, found \(leakedAttempts)")
        }
        if leakedAttempts > attempts ?? 1 {
            let count = attempts.map { "\($0)" } ?? "1, as it is absent"
            return CheckFieldProblem(field: "leakedAttempts", problem: "\(leakedAttempts) is more than attempts (\(count))")
        }
        if outcome == .leaked, leakedAttempts == 0 {
            return CheckFieldProblem(
                field: "leakedAttempts",
                problem: "0 on a leaked check; a leaked check leaked in at least one attempt (omit the field to mean all of them)")
        }
        return nil
    }

    /// The most attempts a check may carry: the largest value a 32-bit column holds.
    public static let maxAttempts = Int(Int32.max)
}

/// A field of a check whose value cannot be, and why: `leakedAttempts: 4 is more than attempts (3)`.
/// Prefix the check's place to show it in a run: `checks[3].` + `description`.
public struct CheckFieldProblem: Sendable, Hashable, CustomStringConvertible {
    /// The field's name on the wire, e.g. `leakedAttempts`.
    public var field: String
    /// What is wrong with its value, without the field's name.
    public var problem: String

    public init(field: String, problem: String) {
        self.field = field
        self.problem = problem
    }

    public var description: String { "\(field): \(problem)" }
}
