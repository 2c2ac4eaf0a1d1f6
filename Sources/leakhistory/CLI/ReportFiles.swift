import Foundation
import LeakReport

/// The leak reports an upload sends: the paths given, else `LEAKHISTORY_REPORT`, else
/// `.build/leakhistory/`. A folder means the `.ndjson` files in it — of LeakCheck's own files
/// (`leakcheck-<time>-<runner>-<pid>.ndjson`), only those of the newest test run, so that files
/// an earlier `swift test` left behind are not uploaded as this commit's.
enum ReportFiles {
    /// What a set of paths holds, and the files of earlier runs it passed over.
    struct Contents {
        var checks: [CheckRecord] = []
        var skippedFiles: [String] = []
    }

    static func paths(_ given: [String], context: CommandContext) -> [String] {
        if !given.isEmpty { return given }
        if let configured = context.environment["LEAKHISTORY_REPORT"], !configured.isEmpty { return [configured] }
        return [(context.workingDirectory as NSString).appendingPathComponent(".build/leakhistory")]
    }

    /// Reads every check in `paths`, in a stable order (files sorted by name).
    /// - Throws: `CommandFailure` naming the file and line of a bad record, or a path that is missing.
    static func read(_ paths: [String]) throws(CommandFailure) -> Contents {
        var contents = Contents()
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw CommandFailure("No leak report at \(path). Run your tests first (LeakCheck writes reports to .build/leakhistory/), or pass the report's path.", code: .usage)
            }
            var files = [path]
            if isFolder.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                let all = names.filter { $0.hasSuffix(".ndjson") }.sorted().map { (path as NSString).appendingPathComponent($0) }
                files = newestRun(of: all)
                contents.skippedFiles += all.filter { !files.contains($0) }
            }
            for file in files {
                do {
                    contents.checks += try NDJSONReader.checks(atPath: file)
                } catch {
                    throw CommandFailure("Bad leak report line: \(error.description). Fix or remove that line and upload again.", code: .usage)
                }
            }
        }
        return contents
    }

    /// Every check in `paths`, with no notion of runs: for report files named one by one.
    static func checks(in paths: [String]) throws(CommandFailure) -> [CheckRecord] {
        try read(paths).checks
    }

    /// `files` without LeakCheck's files of earlier runs: of the files named
    /// `leakcheck-<time>-<runner>-<pid>.ndjson`, those of the runner whose file is newest.
    /// Other files are all kept.
    static func newestRun(of files: [String]) -> [String] {
        let runners = Dictionary(uniqueKeysWithValues: files.compactMap { file in runner(of: file).map { (file, $0) } })
        let newest = runners.keys.max { modified($0) < modified($1) }
        guard let newest, let current = runners[newest] else { return files }
        return files.filter { runners[$0] == nil || runners[$0] == current }
    }

    /// The runner id in `leakcheck-<time>-<runner>-<pid>.ndjson`, or nil for any other name.
    static func runner(of file: String) -> String? {
        let name = (file as NSString).lastPathComponent
        guard name.hasPrefix("leakcheck-"), name.hasSuffix(".ndjson") else { return nil }
        let parts = name.dropFirst("leakcheck-".count).dropLast(".ndjson".count).split(separator: "-")
        guard parts.count == 3, parts.allSatisfy({ $0.allSatisfy(\.isNumber) }) else { return nil }
        return String(parts[1])
    }

    private static func modified(_ file: String) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: file))?[.modificationDate] as? Date) ?? .distantPast
    }
}
