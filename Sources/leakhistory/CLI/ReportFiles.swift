import Foundation
import LeakReport

/// The leak reports an upload sends: the paths given, else `LEAKHISTORY_REPORT`, else
/// `.build/leakhistory/` and the folder simulators write to by default
/// (`~/Library/Developer/LeakHistory/`), those that exist. A folder means the `.ndjson` files in
/// it — of LeakCheck's own files (`ReportFileName`), only those of one test run: the run asked
/// for (`--run-id`, `LEAKHISTORY_RUN_ID`), else the newest file's, so that files an earlier run
/// left behind are not uploaded as this commit's, and every process and simulator clone of the
/// run is.
enum ReportFiles {
    /// What a set of paths holds, and the files of other runs it passed over.
    struct Contents {
        var checks: [CheckRecord] = []
        var skippedFiles: [String] = []
        /// The run whose files were taken, when they name one.
        var run: String?
        /// The commits the taken files recorded (`LEAKHISTORY_COMMIT` at test time).
        var recordedCommits: Set<String> = []
    }

    static func paths(_ given: [String], context: CommandContext) -> [String] {
        if !given.isEmpty { return given }
        if let configured = context.environment["LEAKHISTORY_REPORT"], !configured.isEmpty { return [configured] }
        let build = (context.workingDirectory as NSString).appendingPathComponent(".build/leakhistory")
        let simulators = context.environment["HOME"].map { ($0 as NSString).appendingPathComponent(simulatorFolder) }
        let existing = [build, simulators].compactMap { $0 }.filter { FileManager.default.fileExists(atPath: $0) }
        return existing.isEmpty ? [build] : existing
    }

    /// Where LeakCheck on a simulator writes by default, under the Mac user's home (its
    /// `SIMULATOR_HOST_HOME`).
    static let simulatorFolder = "Library/Developer/LeakHistory"

    /// Reads every check in `paths`, in a stable order (files sorted by name); in folders, of the
    /// run `runID` (sanitized as `ReportFileName` writes it), else of the newest run.
    /// - Throws: `CommandFailure` naming the file and line of a bad record, or a path that is missing.
    static func read(_ paths: [String], runID: String? = nil) throws(CommandFailure) -> Contents {
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
                let run = selectRun(of: all, runID: runID)
                files = run.files
                contents.run = contents.run ?? run.run
                contents.skippedFiles += all.filter { !files.contains($0) }
            }
            contents.recordedCommits.formUnion(files.compactMap { ReportFileName(parsing: $0)?.commit })
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

    /// `files` without LeakCheck's files of other runs: of the files `ReportFileName` names, those
    /// of run `runID`, else of the run of the newest file (files without a run id count as one
    /// run: they cannot be told apart). Other files are all kept.
    static func selectRun(of files: [String], runID: String?) -> (files: [String], run: String?) {
        let names = Dictionary(uniqueKeysWithValues: files.compactMap { file in ReportFileName(parsing: file).map { (file, $0) } })
        let run: String?
        if let runID {
            run = ReportFileName(time: Date(), environment: [ReportFileName.runVariable: runID], processID: 0).run
        } else if let newest = names.keys.max(by: { modified($0) < modified($1) }) {
            run = names[newest]?.run
        } else {
            return (files, nil)
        }
        return (files.filter { names[$0] == nil || names[$0]?.run == run }, run)
    }

    private static func modified(_ file: String) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: file))?[.modificationDate] as? Date) ?? .distantPast
    }
}
