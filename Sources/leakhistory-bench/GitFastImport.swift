import Foundation

/// Generated histories as git repositories: one `git fast-import` stream writer and importer for
/// the histories the benchmarks make (`SyntheticHistory`, `GateHistory`).
enum GitFastImport {
    /// The commits (in order, each naming its parents by index, first parent first) as a
    /// `git fast-import` stream, each on its branch; commit `i` has mark `i + 1`.
    static func stream(_ commits: [(branch: String, parents: [Int])]) -> String {
        var stream = ""
        for (index, commit) in commits.enumerated() {
            let message = "commit \(index)\n"
            stream += "commit refs/heads/\(commit.branch)\nmark :\(index + 1)\n"
            stream += "committer Bench <bench@example.com> \(1_700_000_000 + index * 60) +0000\n"
            stream += "data \(message.utf8.count)\n\(message)"
            if let first = commit.parents.first { stream += "from :\(first + 1)\n" }
            for other in commit.parents.dropFirst() { stream += "merge :\(other + 1)\n" }
            stream += "M 644 inline file.txt\ndata \(String(index).utf8.count)\n\(index)\n\n"
        }
        return stream
    }

    /// A new repository in `repository` (branch `main`) holding `stream`; each commit's sha by its index.
    static func importRepository(_ stream: String, into repository: URL) throws -> [Int: String] {
        try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: true)
        let marks = repository.appendingPathComponent(".git/bench-marks").path
        try CLIBenchmark.shell(["git", "init", "-q", "-b", "main"], in: repository)
        try CLIBenchmark.shell(["git", "fast-import", "--quiet", "--export-marks=\(marks)"], in: repository, input: stream)
        var sha: [Int: String] = [:]
        for line in try String(contentsOfFile: marks, encoding: .utf8).split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let mark = Int(parts[0].dropFirst()) { sha[mark - 1] = String(parts[1]) }
        }
        return sha
    }
}
