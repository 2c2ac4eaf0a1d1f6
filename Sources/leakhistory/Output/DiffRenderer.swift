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
        case .sarif: SARIFLog(outcome).json
        }
    }

    // MARK: text

    func text(_ outcome: DiffOutcome) -> String {
        var lines: [String] = []
        lines.append("Base: \(outcome.baseDescription)   Head: \(outcome.headDescription)   Environment: \(outcome.environment)")
        if let link = outcome.dashboardURL { lines.append("Dashboard: \(link)") }
        if outcome.hasNoBase { lines.append(noBaseMessage(outcome)) }
        for message in outcome.suspectMessages { lines.append(palette.red("FAIL: suspect head, \(message)")) }
        let groups = outcome.diff.groups
        for category in LeakDiff.Category.printOrder {
            let inCategory = groups.filter { $0.category == category }
            guard !inCategory.isEmpty else { continue }
            lines.append("")
            lines.append(colour(category, palette.bold("\(category.heading) (\(LeakGroup.tally(inCategory)))")))
            for group in inCategory {
                let what = group.scenarios.count == 1 ? "\(palette.dim("in")) \(group.scenarios[0])" : "\(palette.dim("in")) \(group.scenarios.count) scenarios"
                lines.append("  \(colour(category, symbol(category))) \(group.types.joined(separator: ", "))  \(what)  \(palette.dim("at")) \(outcome.relativePath(group.file)):\(group.line)")
                if group.occurrences.count > 1 {
                    lines.append("      also: " + group.others.map { "\($0.scenario) (\($0.type), \(outcome.relativePath($0.file)):\($0.line))" }.joined(separator: "; "))
                }
                if let path = group.readablePath { lines.append("      retain path: \(path)") }
                if let evidence = group.evidence { lines.append("      why: \(evidence.summary)") }
                var details: [String] = []
                if let fingerprint = group.fingerprint { details.append("fingerprint \(fingerprint)") }
                if let firstSeen = group.firstSeen { details.append("first leaked at \(outcome.short(firstSeen))") }
                if let commit = group.inheritedFrom { details.append("leaks on the base branch at \(outcome.short(commit))") }
                if !details.isEmpty { lines.append("      " + palette.dim(details.joined(separator: ", "))) }
                if let note = group.suppression { lines.append("      " + Self.suppressionLine(note)) }
            }
        }
        lines.append("")
        lines.append(summary(outcome))
        return lines.joined(separator: "\n") + "\n"
    }

    /// The rule next to what it covers; a lapsed one said to no longer apply.
    static func suppressionLine(_ note: LeakDiff.SuppressionNote) -> String {
        note.expired ? "suppression \(note.summary) no longer applies" : "suppressed by \(note.summary)"
    }

    func summary(_ outcome: DiffOutcome) -> String {
        let counts = outcome.diff.counts
        let parts = LeakDiff.Category.printOrder.map { "\(counts[$0] ?? 0) \($0.countLabel)" }
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
                : "FAIL: this change brings in \(counts[.new] ?? 0) new leak\((counts[.new] ?? 0) == 1 ? "" : "s"). Fix \((counts[.new] ?? 0) == 1 ? "it" : "them"), or suppress a known one (leakhistory suppress add).")
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
            var dashboardUrl: String?
            var groups: [LeakGroup]
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
            dashboardUrl: outcome.dashboardURL, groups: outcome.diff.groups, entries: outcome.diff.entries)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(document)) ?? Data(), as: UTF8.self) + "\n"
    }

    // MARK: markdown

    /// A pull-request comment: the verdict, the counts, the dashboard link, then one table row
    /// per root cause — new and flaky open, the other categories folded.
    func markdown(_ outcome: DiffOutcome) -> String {
        let counts = outcome.diff.counts
        let new = counts[.new] ?? 0
        let groups = outcome.diff.groups
        let newGroups = groups.filter { $0.category == .new }.count
        let headline = !outcome.suspectRuns.isEmpty ? "❌ suspect run at head"
            : outcome.hasNoBase ? (outcome.exitCode == .unavailable ? "❌ no base" : "⚠️ no base")
            : outcome.exitCode != .newLeaks ? "✅ no new leaks"
            : new == 0 ? "❌ flaky leaks (--strict)"
            : "❌ \(new) new leak\(new == 1 ? "" : "s")\(newGroups == new ? "" : " in \(newGroups) root cause\(newGroups == 1 ? "" : "s")")"
        var text = "### LeakHistory: \(headline)\n\n"
        let shown = LeakDiff.Category.printOrder.filter { $0 == .new || $0 == .fixed || $0 == .persisting || (counts[$0] ?? 0) > 0 }
        text += shown.map { category in
            let part = "\(counts[category] ?? 0) \(category.countLabel)"
            return category == .new ? "**\(part)**" : part
        }.joined(separator: " · ") + "\n\n"
        text += "Base \(code(outcome.baseDescription)) · head \(code(outcome.headDescription)) · environment \(code(outcome.environment))"
        if let link = outcome.dashboardURL { text += " · [open on the dashboard](\(link))" }
        text += "\n\n"
        let plain = DiffRenderer(palette: Palette(enabled: false))
        if outcome.hasNoBase { text += plain.noBaseMessage(outcome) + "\n\n" }
        for message in outcome.suspectMessages { text += "**Suspect head:** \(message)\n\n" }
        for category in LeakDiff.Category.printOrder {
            let inCategory = groups.filter { $0.category == category }
            guard !inCategory.isEmpty else { continue }
            let heading = "\(category.heading) (\(LeakGroup.tally(inCategory)))"
            let open = category == .new || category == .flaky
            text += open ? "#### \(heading)\n\n" : "<details><summary>\(heading)</summary>\n\n"
            text += "| Leak | Scenarios | Where | Retain path | First seen |\n|---|---|---|---|---|\n"
            for group in inCategory {
                var leak = group.types.map(cell).joined(separator: ", ")
                if let note = group.suppression { leak += "<br>" + Self.suppressionLine(note).replacingOccurrences(of: "|", with: "\\|") }
                if let commit = group.inheritedFrom { leak += "<br>leaks on the base branch at \(cell(outcome.short(commit)))" }
                if let evidence = group.evidence { leak += "<br>why: " + Self.escapedForTable(evidence.summary) }
                let scenarios = group.scenarios.count == 1 ? cell(group.scenarios[0])
                    : "\(group.scenarios.count): " + group.scenarios.map(cell).joined(separator: ", ")
                let place = cell("\(outcome.relativePath(group.file)):\(group.line)")
                text += "| \(leak) | \(scenarios) | \(place) | \(group.readablePath.map(cell) ?? "—") | \(group.firstSeen.map { cell(outcome.short($0)) } ?? "—") |\n"
            }
            text += open ? "\n" : "\n</details>\n\n"
        }
        return text
    }

    /// Plain text inside a table cell: no column break, no line break.
    static func escapedForTable(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }

    private func code(_ text: String) -> String { "`\(text.replacingOccurrences(of: "`", with: "'"))`" }

    private func cell(_ text: String) -> String {
        text.isEmpty ? "" : code(text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " "))
    }

    // MARK: github

    /// One `::error file=…,line=…::` per new root cause (and per suspect run), at its first
    /// occurrence, listing the others; `::warning` for flaky ones, late releases and the
    /// unverified leaks of a head without a base; each with the dashboard link.
    func githubAnnotations(_ outcome: DiffOutcome) -> String {
        var text = ""
        // A build that fails for want of a base says why where GitHub shows failures.
        if outcome.hasNoBase && outcome.ifNoBase == "fail" {
            text += "::error title=\(property("LeakHistory: no base"))::\(data(DiffRenderer(palette: Palette(enabled: false)).noBaseMessage(outcome)))\n"
        }
        for message in outcome.suspectMessages {
            text += "::error title=\(property("LeakHistory: suspect run"))::\(data(message))\n"
        }
        for group in outcome.diff.groups {
            let level: String
            switch group.category {
            case .new: level = "error"
            case .flaky where outcome.strict: level = "error"
            case .flaky, .lateRelease, .unverified: level = "warning"
            default: continue
            }
            var message = "\(group.category.heading): \(group.title)."
            if !group.others.isEmpty {
                message += " Also: " + group.others.map { "\($0.scenario) (\($0.type), \(outcome.relativePath($0.file)):\($0.line))" }.joined(separator: "; ") + "."
            }
            if let path = group.readablePath { message += " Retain path: \(path)." }
            if let evidence = group.evidence { message += " Why: \(evidence.summary)." }
            if let fingerprint = group.fingerprint { message += " Fingerprint \(fingerprint)." }
            if let note = group.suppression { message += " " + Self.suppressionLine(note) + "." }
            if let link = outcome.dashboardURL { message += "\nDashboard: \(link)" }
            text += "::\(level) file=\(property(outcome.relativePath(group.file))),line=\(group.line),title=\(property("LeakHistory: \(group.category.rawValue) leak"))::\(data(message))\n"
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
