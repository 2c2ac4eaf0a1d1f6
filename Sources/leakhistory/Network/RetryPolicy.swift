import Foundation

/// When the CLI asks again after a busy or unreachable server, and when it gives up.
///
/// A server that is busy answers 503 with `Retry-After` (seconds); the CLI waits that long and
/// up to half as long again, at random, so that a CI fleet refused at the same moment does not
/// come back at the same moment, and goes on asking while the waits add up to no more than
/// `waitBudget`. Without `Retry-After` (a connection refused or reset, another 5xx) the server
/// may be down, not busy: the CLI backs off exponentially from `firstBackoff`, with the same
/// jitter, `blindRetries` times, then gives up, so that a job whose server is gone fails fast.
///
/// ```swift
/// var policy = RetryPolicy()
/// if let wait = policy.nextWait(retryAfter: 2) { try await Task.sleep(for: wait) }
/// ```
struct RetryPolicy: Sendable {
    /// The longest the CLI waits in all, across its retries: long enough for a server to work
    /// through a burst of a whole CI fleet's uploads, short enough to fail a job that cannot reach it.
    var waitBudget: Duration = .seconds(120)
    /// The first backoff when the server gave no `Retry-After`; each retry doubles it.
    var firstBackoff: Duration = .milliseconds(250)
    /// The longest single wait, whatever the server asks: a server that asks for more is treated as
    /// asking for this.
    var longestWait: Duration = .seconds(30)
    /// Retries without `Retry-After`.
    var blindRetries = 3
    /// A number in 0..<1; the jitter's source (fixed in tests).
    var random: @Sendable () -> Double = { Double.random(in: 0..<1) }

    init(waitBudget: Duration = .seconds(120), firstBackoff: Duration = .milliseconds(250), longestWait: Duration = .seconds(30),
         blindRetries: Int = 3, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.waitBudget = waitBudget
        self.firstBackoff = firstBackoff
        self.longestWait = longestWait
        self.blindRetries = blindRetries
        self.random = random
    }

    /// No retry at all: one attempt, its answer or error as it comes.
    static let never = RetryPolicy(waitBudget: .zero, blindRetries: 0)

    private(set) var attempts = 1
    private(set) var waited: Duration = .zero
    private var blind = 0

    /// The wait before the next attempt, or nil to give up. `retryAfter`: the seconds the
    /// server's `Retry-After` asked for, if it sent one.
    mutating func nextWait(retryAfter: Int?) -> Duration? {
        let base: Duration
        if let retryAfter, retryAfter >= 0 {
            // Never less than the first backoff: `Retry-After: 0` again and again must still use up the budget.
            base = min(max(.seconds(retryAfter), firstBackoff), longestWait)
        } else {
            guard blind < blindRetries else { return nil }
            base = min(firstBackoff * (1 << min(blind, 16)), longestWait)
        }
        let wait = base + base * (random() / 2)
        guard waited + wait <= waitBudget else { return nil }
        if retryAfter == nil { blind += 1 }
        attempts += 1
        waited += wait
        return wait
    }

    /// The seconds of an HTTP `Retry-After` value given as a number; nil for a date or garbage
    /// (the CLI then backs off on its own).
    static func seconds(inRetryAfter value: String?) -> Int? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty, value.allSatisfy(\.isNumber) else { return nil }
        return Int(value)
    }
}
