import Foundation

/// The git repository the CLI runs in, through the `git` command.
struct GitRepository: Sendable {
    var directory: String

    /// The repository that holds `directory`.
    /// - Throws: `CommandFailure` (usage) when `directory` is not in a git repository.
    static func containing(_ directory: String) throws(CommandFailure) -> GitRepository {
        let probe = GitRepository(directory: directory)
        let root: String
        do {
            root = try probe.run(["rev-parse", "--show-toplevel"])
        } catch {
            throw CommandFailure(
                "\(directory) is not in a git repository (\(error.message)). Run leakhistory inside your checkout, or pass --commit and --branch.",
                code: .usage)
        }
        return GitRepository(directory: root)
    }

    /// The full SHA of `revision` (a branch, tag, SHA or `HEAD~2`).
    func commit(_ revision: String) throws(CommandFailure) -> String {
        do {
            return try run(["rev-parse", "--verify", "--quiet", "--end-of-options", "\(revision)^{commit}"])
        } catch {
            throw CommandFailure(
                "Unknown revision '\(revision)' in \(directory): no branch, tag or commit has that name. Check the spelling, or fetch it (git fetch origin \(revision)).",
                code: .usage)
        }
    }

    /// The best common ancestor of two commits, or nil when they share none.
    func mergeBase(_ a: String, _ b: String) throws(CommandFailure) -> String? {
        try? run(["merge-base", a, b])
    }

    /// `commit` and its first-parent ancestors, nearest first, at most `limit` of them.
    func firstParentLine(from commit: String, limit: Int) throws(CommandFailure) -> [String] {
        try run(["rev-list", "--first-parent", "--max-count=\(limit)", commit]).split(separator: "\n").map(String.init)
    }

    /// The first-parent commits of `tip` after `ancestor` (excluded), oldest first: the commits a
    /// branch gained since `ancestor`, at most `limit` of the oldest and `limit` of the newest.
    func firstParentCommits(of tip: String, after ancestor: String, limit: Int) throws(CommandFailure) -> [String] {
        let all = try run(["rev-list", "--first-parent", "--reverse", tip, "^\(ancestor)"]).split(separator: "\n").map(String.init)
        return all.count <= 2 * limit ? all : Array(all.prefix(limit) + all.suffix(limit))
    }

    /// The commits reachable from `tip` and not from `ancestor`, every parent followed (what
    /// `tip` merged in too), newest first, at most `limit`.
    func commits(of tip: String, notIn ancestor: String, limit: Int) throws(CommandFailure) -> [String] {
        try run(["rev-list", "--max-count=\(limit)", tip, "^\(ancestor)"]).split(separator: "\n").map(String.init)
    }

    /// The parents of `commit`, first parent first; empty when it is not in this clone.
    func parents(of commit: String) -> [String] {
        guard let line = try? run(["rev-list", "--parents", "-n", "1", commit]) else { return [] }
        return line.split(separator: " ").dropFirst().map(String.init)
    }

    /// The checked-out branch, or nil on a detached HEAD.
    func currentBranch() -> String? {
        try? run(["symbolic-ref", "--short", "-q", "HEAD"])
    }

    /// Runs git and returns its trimmed standard output.
    /// - Throws: `CommandFailure` carrying git's own message when it fails.
    @discardableResult
    func run(_ arguments: [String]) throws(CommandFailure) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", directory] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw CommandFailure("cannot run git: \(error.localizedDescription). Install git and make sure it is on PATH.", code: .usage)
        }
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: outData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw CommandFailure(message.isEmpty ? "git \(arguments.joined(separator: " ")) failed" : message, code: .usage)
        }
        return text
    }
}
