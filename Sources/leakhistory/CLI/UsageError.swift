/// A command line the tool cannot act on: exit code 2, the message, the usage line, and where
/// to read more.
struct UsageError: Error, Sendable {
    var message: String
    var command: CommandSpec?

    init(_ message: String, command: CommandSpec?) {
        self.message = message
        self.command = command
    }

    /// `Unknown option '--foo'. Did you mean '--format'?`
    init(unknownOption name: String, among names: [String], command: CommandSpec) {
        var message = "Unknown option '\(name)'."
        if let closest = closestMatch(to: name, among: names) {
            message += " Did you mean '\(closest)'?"
        }
        self.init(message, command: command)
    }

    /// What goes to standard error.
    var rendered: String {
        guard let command else {
            return "Error: \(message)\nUsage: leakhistory <command> [<options>]\nSee 'leakhistory --help'.\n"
        }
        return "Error: \(message)\nUsage: \(command.usageLine)\nSee 'leakhistory \(command.name) --help'.\n"
    }
}

/// The candidate nearest to `word` by edit distance, if it is near enough to be a likely typo.
func closestMatch(to word: String, among candidates: [String]) -> String? {
    let scored = candidates.map { ($0, editDistance(word, $0)) }.min { $0.1 < $1.1 }
    guard let (best, distance) = scored else { return nil }
    return distance <= max(2, best.count / 3) ? best : nil
}

/// Levenshtein distance.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...max(b.count, 1) where j <= b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
