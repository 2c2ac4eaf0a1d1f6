import Foundation
import LeakReport

/// The leak reports an upload sends: the paths given, else `LEAKHISTORY_REPORT`, else
/// `.build/leakhistory/`. A folder means every `.ndjson` file in it.
enum ReportFiles {
    static func paths(_ given: [String], context: CommandContext) -> [String] {
        if !given.isEmpty { return given }
        if let configured = context.environment["LEAKHISTORY_REPORT"], !configured.isEmpty { return [configured] }
        return [(context.workingDirectory as NSString).appendingPathComponent(".build/leakhistory")]
    }

    /// Reads every check in `paths`, in a stable order (files sorted by name).
    /// - Throws: `CommandFailure` naming the file and line of a bad record, or a path that is missing.
    static func checks(in paths: [String]) throws(CommandFailure) -> [CheckRecord] {
        var checks: [CheckRecord] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw CommandFailure("No leak report at \(path). Run your tests first (LeakCheck writes reports to .build/leakhistory/), or pass the report's path.", code: .usage)
            }
            let files: [String]
            if isFolder.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files = names.filter { $0.hasSuffix(".ndjson") }.sorted().map { (path as NSString).appendingPathComponent($0) }
            } else {
                files = [path]
            }
            for file in files {
                do {
                    checks += try NDJSONReader.checks(atPath: file)
                } catch {
                    throw CommandFailure("Bad leak report line: \(error.description). Fix or remove that line and upload again.", code: .usage)
                }
            }
        }
        return checks
    }
}
