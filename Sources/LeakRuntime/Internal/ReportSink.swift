import Foundation
import LeakReport

/// Where this process writes its leak report, decided once:
/// 1. `LEAKHISTORY_REPORT` — a file, or a folder (an existing one, or a path ending in `/`) to
///    write a file in;
/// 2. else `.build/leakhistory/` when the working directory holds `.build` (as under `swift test`);
/// 3. else, on a simulator, `~/Library/Developer/LeakHistory/` of the user on the host Mac
///    (`SIMULATOR_HOST_HOME`): under Xcode and `xcodebuild` the working directory is no package;
/// 4. else nowhere, which one line on standard error says, with how to set the variable.
/// In a folder each process writes its own file, named by `ReportFileName`: the run
/// (`LEAKHISTORY_RUN_ID`), so that `leakhistory upload` takes every file of one run and none of an
/// earlier one; the process and simulator clone; the build's commit (`LEAKHISTORY_COMMIT`).
/// Several processes may share one named file, since every line is a single append.
package enum ReportSink {
    /// Appends `check` to this process's report, if it has one. A write that fails is said once
    /// on standard error and never fails the test: the check itself has been reported already.
    package static func record(_ check: CheckRecord) {
        if let capture = capture {
            capture.append(check)
            return
        }
        guard let writer = writer.value else { return }
        do {
            try writer.append(check)
        } catch {
            warnOnce.run { FileHandle.standardError.write(Data("LeakCheck: \(error); later checks are not in the report either\n".utf8)) }
        }
    }

    /// Receives this task's records instead of the report file: how tests read what a check wrote.
    @TaskLocal package static var capture: CheckCapture?

    /// The report file this process appends to, if any.
    package static var path: String? { writer.value?.path }

    package static func reportPath(
        environment: [String: String], workingDirectory: String, processID: Int32, now: Date
    ) -> String? {
        let fileName = ReportFileName(time: now, environment: environment, processID: processID).fileName
        if let configured = environment["LEAKHISTORY_REPORT"], !configured.isEmpty {
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: configured, isDirectory: &isFolder)
            if configured.hasSuffix("/") || (exists && isFolder.boolValue) {
                return (configured as NSString).appendingPathComponent(fileName)
            }
            return configured
        }
        let build = (workingDirectory as NSString).appendingPathComponent(".build")
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: build, isDirectory: &isFolder), isFolder.boolValue {
            return (build as NSString).appendingPathComponent("leakhistory/\(fileName)")
        }
        if let hostHome = environment["SIMULATOR_HOST_HOME"], !hostHome.isEmpty {
            return (hostHome as NSString).appendingPathComponent("\(simulatorFolder)/\(fileName)")
        }
        return nil
    }

    /// Where simulator runs write by default, under the host user's home.
    package static let simulatorFolder = "Library/Developer/LeakHistory"

    private static let writer = Lazy<NDJSONWriter?> {
        let info = ProcessInfo.processInfo
        let workingDirectory = FileManager.default.currentDirectoryPath
        guard let path = reportPath(
            environment: info.environment, workingDirectory: workingDirectory,
            processID: info.processIdentifier, now: Date())
        else {
            FileHandle.standardError.write(Data((LeakMessage.noReportDestination(workingDirectory: workingDirectory) + "\n").utf8))
            return nil
        }
        do {
            return try NDJSONWriter(path: path)
        } catch {
            FileHandle.standardError.write(Data("LeakCheck: \(error); checks run but are not written to a report\n".utf8))
            return nil
        }
    }

    private static let warnOnce = Once()
}

/// Collects report records in memory (see `ReportSink.capture`).
package final class CheckCapture: Sendable {
    private let records = Locked<[CheckRecord]>([])

    package init() {}

    package func append(_ record: CheckRecord) {
        records.withLock { $0.append(record) }
    }

    package var all: [CheckRecord] { records.withLock { $0 } }
}
