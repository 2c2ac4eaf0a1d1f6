import Foundation

/// The name of the report file a test process writes in a folder:
/// `leakcheck-<time>-<run>-<process>[-<commit>].ndjson`. Written by LeakCheck, read by
/// `leakhistory upload`: one owner of the format for both.
///
/// ```swift
/// let name = ReportFileName(time: Date(), environment: ProcessInfo.processInfo.environment, processID: 4242)
/// name.fileName   // "leakcheck-20260301120000-ci-981-4242.ndjson"
/// ```
/// - `run`: the test run, from `LEAKHISTORY_RUN_ID` (a CI job, an `xcodebuild` invocation), so
///   that `upload` takes every file of one run — every process and every parallel simulator
///   clone — and none of an earlier one. `_` when it is not set: such files cannot be told apart.
/// - `process`: the process id, then the simulator's (`SIMULATOR_UDID`, its first 8 digits), so
///   that two clones never write one file.
/// - `commit`: `LEAKHISTORY_COMMIT` when it is a 40-digit hash: the build's commit, recorded at
///   test time (on a device or simulator the checkout may have moved on by upload time).
public struct ReportFileName: Hashable, Sendable {
    /// `yyyyMMddHHmmss`, UTC.
    public var time: String
    /// Nil when the run had no `LEAKHISTORY_RUN_ID`.
    public var run: String?
    public var process: String
    public var commit: String?

    public static let runVariable = "LEAKHISTORY_RUN_ID"
    public static let commitVariable = "LEAKHISTORY_COMMIT"

    public init(time: String, run: String?, process: String, commit: String?) {
        self.time = time
        self.run = run
        self.process = process
        self.commit = commit
    }

    /// The name a process started at `time` writes under `environment`.
    public init(time: Date, environment: [String: String], processID: Int32) {
        self.time = String(ReportTimestamp.string(from: time).filter(\.isNumber).prefix(14))
        run = environment[Self.runVariable].flatMap(Self.sanitizedRun)
        let simulator = environment["SIMULATOR_UDID"].map { $0.filter(\.isHexDigit).prefix(8).lowercased() } ?? ""
        process = simulator.isEmpty ? "\(processID)" : "\(processID).\(simulator)"
        commit = environment[Self.commitVariable].flatMap(Self.commitHash)
    }

    public var fileName: String {
        "leakcheck-\(time)-\(run ?? "_")-\(process)" + (commit.map { "-\($0)" } ?? "") + ".ndjson"
    }

    /// Parses a file name (or path) LeakCheck wrote; nil for any other name.
    public init?(parsing path: String) {
        let name = (path as NSString).lastPathComponent
        guard name.hasPrefix("leakcheck-"), name.hasSuffix(".ndjson") else { return nil }
        let parts = name.dropFirst("leakcheck-".count).dropLast(".ndjson".count)
            .split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 || parts.count == 4, parts[0].count == 14, parts[0].allSatisfy(\.isNumber),
              parts[1] == "_" || Self.sanitizedRun(parts[1]) == parts[1],
              !parts[2].isEmpty, parts[2].allSatisfy({ $0.isNumber || $0.isHexDigit || $0 == "." })
        else { return nil }
        var commit: String?
        if parts.count == 4 {
            guard let hash = Self.commitHash(parts[3]) else { return nil }
            commit = hash
        }
        self.init(time: parts[0], run: parts[1] == "_" ? nil : parts[1], process: parts[2], commit: commit)
    }

    /// A run id as a file name can hold it: letters, digits, `_` and `.`; others become `_`.
    static func sanitizedRun(_ value: String) -> String? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed != "_" else { return nil }
        return String(trimmed.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "_") ? $0 : "_" })
    }

    static func commitHash(_ value: String) -> String? {
        let hash = value.trimmingCharacters(in: .whitespaces).lowercased()
        return hash.count == 40 && hash.allSatisfy(\.isHexDigit) ? hash : nil
    }
}
