import Foundation

/// How many times a check whose object leaked runs in all: the first attempt, then fresh objects
/// from the same factory and lifecycle to confirm it. A leak that every attempt shows is
/// confirmed; one that some attempt released is intermittent at its source.
///
/// Precedence: the call's `attempts:`, then the test's trait, then its suite's trait (under
/// XCTest, the test case's `DeallocationCheckConfiguring.deallocationAttempts`), then
/// `LEAKHISTORY_ATTEMPTS` in the environment (CI sets it for every test that says nothing), then 3.
/// A value below 1 counts as 1: the check runs once and nothing is confirmed.
enum ConfirmationAttempts {
    /// Three attempts tell a real leak (it leaks in every attempt) from an intermittent one: a
    /// check that leaks in 30% of its runs leaks in all three of them 9% of the time, one that
    /// leaks in 5% of its runs 0.25% of the time, and each further attempt costs nothing until a
    /// leak is seen, then the same single extra wait.
    static let defaultCount = 3

    static let variable = "LEAKHISTORY_ATTEMPTS"

    /// Set by `.checksDeallocation(attempts:)` for the test it scopes.
    @TaskLocal static var configured: Int?

    /// The attempts of a check that can be repeated: `call`, else `configured`, else the
    /// environment's, else `defaultCount`; at least 1.
    static func count(call: Int?, configured: Int? = configured) -> Int {
        max(1, call ?? configured ?? fromEnvironment.value ?? defaultCount)
    }

    /// The count `environment` sets: nil when it sets none; `.failure` carries a value that is
    /// not a whole number.
    static func count(in environment: [String: String]) -> Result<Int, NotUnderstood>? {
        guard let text = environment[variable]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let count = Int(text) else { return .failure(NotUnderstood(value: text)) }
        return .success(count)
    }

    struct NotUnderstood: Error {
        var value: String
    }

    private static let fromEnvironment = Lazy<Int?> {
        switch count(in: ProcessInfo.processInfo.environment) {
        case nil: return nil
        case let .success(count): return count
        case let .failure(notUnderstood):
            FileHandle.standardError.write(Data((LeakMessage.attemptsNotUnderstood(notUnderstood.value) + "\n").utf8))
            return nil
        }
    }
}
