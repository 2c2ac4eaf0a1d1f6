import Foundation

/// `LEAKHISTORY_REPORT_ONLY=1`: leaks are still checked, written to the report as `leaked` and
/// shown as warnings, but they do not fail the test, so that `leakhistory check` is the one gate
/// for leaks in CI. Everything else fails as usual: a lifecycle that throws, a container that
/// resolves nothing, a tracked object without the trait — those are mistakes in the test, not
/// leaks, and the gate cannot tell a red test from them.
package enum ReportOnlyMode {
    package static let variable = "LEAKHISTORY_REPORT_ONLY"

    /// Whether `environment` turns the mode on; nil for a value that means neither.
    package static func isOn(in environment: [String: String]) -> Bool? {
        guard let value = environment[variable]?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        switch value {
        case "1", "true", "yes", "on": return true
        case "", "0", "false", "no", "off": return false
        default: return nil
        }
    }

    /// Set by tests to run a block in one mode whatever the environment says.
    @TaskLocal package static var override: Bool?

    /// The mode in force for the current task.
    package static var isOn: Bool { override ?? fromEnvironment.value }

    private static let fromEnvironment = Lazy<Bool> {
        let environment = ProcessInfo.processInfo.environment
        if let on = isOn(in: environment) { return on }
        FileHandle.standardError.write(Data((LeakMessage.reportOnlyNotUnderstood(environment[variable] ?? "") + "\n").utf8))
        return false
    }
}
