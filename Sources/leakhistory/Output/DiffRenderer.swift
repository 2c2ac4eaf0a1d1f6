import Foundation
import LeakReport

/// Prints a `DiffOutcome` in each output format.
struct DiffRenderer {
    var palette: Palette

    func render(_ outcome: DiffOutcome, as format: OutputFormat) -> String {
        switch format {
        case .text: text(outcome)
        case .json: json(outcome)
        case .markdown: markdown(outcome)
        case .github: githubAnnotations(outcome) + text(outcome)
        }
    }

    // MARK: text

    func text(_ outcome: DiffOutcome) -> String {
        var lines: [String] = []
        lines.append("Base: \(outcome.baseDescription)   Head: \(outcome.headDescription)   Environment: \(outcome.environment)")
        if outcome.hasNoBase { lines.append(noBaseMessage(outcome)) }
        for message in outcome.suspectMessages { lines.append(palette.red("FAIL: suspect head, \(message)")) }
        for category in LeakDiff.Category.printOrder {
            let entries = outcome.diff.entries(in: category)
            guard !entries.isEmpty else { continue }
            lines.append("")
            lines.append(colour(category, palette.bold("\(category.heading) (\(entries.count))")))
            for entry in entries {
                lines.append("  \(colour(category, symbol(category))) \(entry.type)  \(palette.dim("in")) \(entry.scenario)  \(palette.dim("at")) \(entry.file):\(entry.line)")
                if let path = entry.retainPath, !path.isEmpty {
                    lines.append("      retain path: \(RetainPathStep.readable(path, leakedType: entry.type))")
                }
                var details: [String] = []
                if let fingerprint = entry.fingerprint { details.append("fingerprint \(fingerprint)") }
                if let firstSeen = entry.firstSeen { details.append("first leaked at \(outcome.short(firstSeen))") }
                if let reason = entry.suppressedBecause { details.append("suppressed: \(reason)") }
                if !details.isEmpty { lines.append("      " + palette.dim(details.joined(separator: ", "))) }
            }
        }
        lines.append("")
        lines.append(summary(outcome))
        return lines.joined(separator: "\n") + "\n"
    }

    func summary(_ outcome: DiffOutcome) -> String {
        let counts = outcome.diff.counts
        let parts = LeakDiff.Category.printOrder.map { "\(counts[$0] ?? 0) \(label($0))" }
        let verdict: String
        switch outcome.exitCode {
        case _ where !outcome.suspectRuns.isEmpty:
            verdict = palette.red("FAIL: a run at head is suspect (see above).")
        case _ where outcome.hasNoBase:
            let unverified = counts[.unverified] ?? 0
            verdict = outcome.exitCode == .unavailable
                ? palette.red("FAIL: no base, and --if-no-base fail was given.")
                : palette.yellow("No base: \(unverified) leak\(unverified == 1 ? "" : "s") at head, unverified.")
        case .newLeaks:
            verdict = palette.red(outcome.strict && (counts[.new] ?? 0) == 0
                ? "FAIL: flaky leaks and --strict was given."
                : "FAIL: this change brings in \(counts[.new] ?? 0) new leak\((counts[.new] ?? 0) == 1 ? "" : "s"). Fix \((counts[.new] ?? 0) == 1 ? "it" : "them"), or suppress a known one on the server.")
        default:
            verdict = palette.green("OK: no new leaks.")
        }
        return "Summary: " + parts.joined(separator: ", ") + ".\n" + verdict
    }

    func noBaseMessage(_ outcome: DiffOutcome) -> String {
        let what = "neither the merge-base nor its first-parent ancestors searched have an upload for environment '\(outcome.environment)'"
        switch outcome.ifNoBase {
        case "fail": return palette.red("FAIL: no base: \(what). Upload from the base branch first (leakhistory check on main), or pass --if-no-base warn.")
        case "pass": return "No base: \(what). Passing, as --if-no-base pass asks; the leaks at head are listed as unverified."
        default: return palette.yellow("WARNING: no base: \(what). Nothing was compared; the leaks at head are listed as unverified. Run leakhistory check on the base branch too, to compare next time.")
        }
    }

    private func label(_ category: LeakDiff.Category) -> String {
        switch category {
        case .new: "new"
        case .flaky: "flaky"
        case .persisting: "persisting"
        case .notRun: "not run"
        case .fixed: "fixed"
        case .lateRelease: "late releases"
        case .suppressed: "suppressed"
        case .inherited: "inherited"
        case .known: "known"
        case .unverified: "unverified"
        }
    }

    private func symbol(_ category: LeakDiff.Category) -> String {
        switch category {
        case .new: "✗"
        case .fixed: "✓"
        case .flaky: "~"
        case .lateRelease: "!"
        default: "·"
        }
    }

    private func colour(_ category: LeakDiff.Category, _ text: String) -> String {
        switch category {
        case .new: palette.red(text)
        case .fixed: palette.green(text)
        case .flaky, .lateRelease, .unverified: palette.yellow(text)
        default: text
        }
    }

    // MARK: json

    /// The stable JSON document (`leakhistory.diff/1`); see the README.
    func json(_ outcome: DiffOutcome) -> String {
        struct Document: Encodable {
            var schema = "leakhistory.diff/1"
            var environment: String
            var base: DiffOutcome.BaseChoice?
            var baseLabel: String?
            var head: String
            var headLabel: String?
            var result: String
            var exitCode: Int32
            var suspectRuns: [DiffResponse.SuspectRun]?
            var counts: [String: Int]
            var entries: [LeakDiff.Entry]
        }
        var counts = Dictionary(uniqueKeysWithValues: LeakDiff.Category.allCases.map { ($0.rawValue, 0) })
        for (category, count) in outcome.diff.counts { counts[category.rawValue] = count }
        let result: String
        switch outcome.exitCode {
        case .newLeaks: result = "fail"
        case .unavailable: result = "noBase"
        default: result = outcome.hasNoBase ? "noBase" : "pass"
        }
        let document = Document(
            environment: outcome.environment, base: outcome.base, baseLabel: outcome.baseLabel, head: outcome.head,
            headLabel: outcome.headLabel, result: result, exitCode: outcome.exitCode.rawValue,
            suspectRuns: outcome.suspectRuns.isEmpty ? nil : outcome.suspectRuns, counts: counts,
            entries: outcome.diff.entries)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(document)) ?? Data(), as: UTF8.self) + "\n"
    }

    // MARK: markdown

    func markdown(_ outcome: DiffOutcome) -> String {
        let headline = !outcome.suspectRuns.isEmpty ? "❌ suspect run at head"
            : outcome.hasNoBase ? (outcome.exitCode == .unavailable ? "❌ no base" : "⚠️ no base")
            : outcome.exitCode == .newLeaks ? "❌ new leaks" : "✅ no new leaks"
        var text = "### LeakHistory: \(headline)\n\n"
        text += "Base \(code(outcome.baseDescription)) · head \(code(outcome.headDescription)) · environment \(code(outcome.environment))\n\n"
        let plain = DiffRenderer(palette: Palette(enabled: false))
        if outcome.hasNoBase { text += plain.noBaseMessage(outcome) + "\n\n" }
        for message in outcome.suspectMessages { text += "**Suspect head:** \(message)\n\n" }
        for category in LeakDiff.Category.printOrder {
            let entries = outcome.diff.entries(in: category)
            guard !entries.isEmpty else { continue }
            text += "#### \(category.heading) (\(entries.count))\n\n| Type | Scenario | Where | Retain path |\n|---|---|---|---|\n"
            for entry in entries {
                let path = entry.retainPath.map { RetainPathStep.readable($0, leakedType: entry.type) } ?? ""
                text += "| \(cell(entry.type)) | \(cell(entry.scenario)) | \(cell("\(entry.file):\(entry.line)")) | \(cell(path)) |\n"
            }
            text += "\n"
        }
        let counts = outcome.diff.counts
        text += LeakDiff.Category.printOrder.map { "\(counts[$0] ?? 0) \(label($0))" }.joined(separator: " · ") + "\n"
        return text
    }

    private func code(_ text: String) -> String { "`\(text.replacingOccurrences(of: "`", with: "'"))`" }

    private func cell(_ text: String) -> String {
        text.isEmpty ? "" : code(text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " "))
    }

    // MARK: github

    /// `::error file=…,line=…::` for new leaks and suspect runs, `::warning` for flaky ones,
    /// late releases and the unverified leaks of a head without a base.
    func githubAnnotations(_ outcome: DiffOutcome) -> String {
        var text = ""
        for message in outcome.suspectMessages {
            text += "::error title=\(property("LeakHistory: suspect run"))::\(data(message))\n"
        }
        for entry in outcome.diff.entries {
            let level: String
            switch entry.category {
            case .new: level = "error"
            case .flaky where outcome.strict: level = "error"
            case .flaky, .lateRelease, .unverified: level = "warning"
            default: continue
            }
            let path = entry.retainPath.map { " Retain path: " + RetainPathStep.readable($0, leakedType: entry.type) } ?? ""
            let message = "\(entry.category.heading): \(entry.type) in \(entry.scenario).\(path)"
            text += "::\(level) file=\(property(entry.file)),line=\(entry.line),title=\(property("LeakHistory: \(entry.category.rawValue) leak"))::\(data(message))\n"
        }
        return text
    }

    /// GitHub's escaping for annotation properties and messages.
    private func data(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }

    private func property(_ text: String) -> String {
        data(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
