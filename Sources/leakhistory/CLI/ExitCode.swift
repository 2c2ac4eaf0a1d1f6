/// The exit codes a build can act on.
enum ExitCode: Int32 {
    /// No new leaks (or the command did what it was asked).
    case success = 0
    /// New leaks (or, with `--strict`, flaky ones).
    case newLeaks = 1
    /// A usage or configuration error: fix the command line or the settings.
    case usage = 2
    /// The server is unreachable or answered with an error, or there is no base and
    /// `--if-no-base fail` was given.
    case unavailable = 3
}

/// A failure the command explains itself, with the exit code it maps to.
struct CommandFailure: Error, Sendable {
    var message: String
    var code: ExitCode

    init(_ message: String, code: ExitCode) {
        self.message = message
        self.code = code
    }
}
