import Foundation
import Testing
@testable import LeakReport

@Suite struct LeakGroupTests {
    private func entry(_ category: LeakDiff.Category, _ scenario: String, _ type: String, fingerprint: String?,
                       file: String = "T.swift", line: Int = 1, path: [RetainPathStep]? = nil,
                       firstSeen: String? = nil) -> LeakDiff.Entry {
        LeakDiff.Entry(category: category, scenario: scenario, type: type, file: file, line: line, fingerprint: fingerprint,
                       retainPath: path, message: "\(type) in \(scenario)", firstSeen: firstSeen)
    }

    @Test func entriesOfOneCategorySharingAFingerprintAreOneGroup() {
        let path = [RetainPathStep(holder: "App.Coordinator", property: "children[0]", kind: .collection)]
        let groups = LeakGroup.grouping([
            entry(.new, "B/b()", "App.Coordinator", fingerprint: "cycle", line: 30),
            entry(.new, "A/a()", "App.ViewModel", fingerprint: "cycle", line: 20),
            entry(.new, "C/c()", "App.Coordinator", fingerprint: "cycle", line: 40, path: path, firstSeen: "abc"),
            entry(.new, "D/d()", "App.Other", fingerprint: "other"),
        ])
        #expect(groups.count == 2)
        let cycle = groups[0]
        #expect(cycle.fingerprint == "cycle")
        #expect(cycle.types == ["App.Coordinator", "App.ViewModel"])
        #expect(cycle.scenarios == ["A/a()", "B/b()", "C/c()"])
        // The first occurrence is the earliest place: where an annotation goes.
        #expect((cycle.file, cycle.line) == ("T.swift", 20))
        #expect(cycle.others.map(\.scenario) == ["B/b()", "C/c()"])
        // The retain path once, from the occurrence that has one, read with its own type.
        #expect(cycle.readablePath == "Coordinator.children[0] → Coordinator")
        #expect(cycle.firstSeen == "abc")
        #expect(cycle.message == "App.ViewModel in A/a()")
        #expect(cycle.title == "App.Coordinator, App.ViewModel in 3 scenarios")
        #expect(groups[1].title == "App.Other in D/d()")
    }

    @Test func aProvenPathIsShownBeforeAPossibleOne() {
        let possible = [RetainPathStep(holder: "App.Subject", property: "observers", kind: .closure, isPossible: true)]
        let proven = [RetainPathStep(holder: "App.Model", property: "bag", kind: .strong)]
        let group = LeakGroup.grouping([
            entry(.new, "A/a()", "App.Model", fingerprint: "f", line: 1, path: possible),
            entry(.new, "B/b()", "App.Model", fingerprint: "f", line: 2, path: proven),
        ])[0]
        #expect(group.retainPath == proven)
        let alone = LeakGroup.grouping([entry(.new, "A/a()", "App.Model", fingerprint: "f", path: possible)])[0]
        #expect(alone.readablePath == "Subject.observers (closure) → captures Model (possible: Subject.observers is not proven to hold it strongly)")
    }

    @Test func entriesWithoutAFingerprintStandAloneAndCategoriesStayApart() {
        let groups = LeakGroup.grouping([
            entry(.fixed, "A/a()", "App.A", fingerprint: "same"),
            entry(.new, "A/a()", "App.B", fingerprint: "same"),
            entry(.new, "B/b()", "App.C", fingerprint: nil),
            entry(.new, "C/c()", "App.D", fingerprint: nil),
            entry(.persisting, "D/d()", "App.E", fingerprint: "same"),
        ])
        // In print order: new first, fixed after persisting.
        #expect(groups.map(\.category) == [.new, .new, .new, .persisting, .fixed])
        #expect(groups.map(\.types) == [["App.B"], ["App.C"], ["App.D"], ["App.E"], ["App.A"]])
        #expect(groups.allSatisfy { $0.occurrences.count == 1 })
    }

    @Test func aSuppressionIsNamedOnWhatItCoversAndALapsedOneStaysVisible() {
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        let head = KeyObservation.fold([
            CheckRecord(scenario: "A/a()", file: "T.swift", line: 1, type: "App.Cache", outcome: .leaked, waitedMs: 1,
                        timeoutMs: 2000, fingerprint: "f1"),
            CheckRecord(scenario: "B/b()", file: "T.swift", line: 2, type: "App.Timer", outcome: .leaked, waitedMs: 1,
                        timeoutMs: 2000, fingerprint: "f2"),
        ])
        let rules = [
            LeakSuppression(id: 1, type: "App.Cache", reason: "kept on purpose", createdBy: "ana@example.com"),
            LeakSuppression(id: 2, fingerprint: "f2", reason: "until the rewrite", expiresAt: now.addingTimeInterval(-86_400)),
        ]
        let diff = LeakDiff(base: [:], head: head, suppressions: rules, now: now)
        #expect(diff.entries.map(\.category) == [.suppressed, .new])
        #expect(diff.entries[0].suppression?.summary == "#1 \"kept on purpose\" (no expiry, added by ana@example.com)")
        #expect(diff.entries[1].suppression?.expired == true)
        #expect(diff.entries[1].suppression?.summary == "#2 \"until the rewrite\" (expired 2033-05-17)")
        #expect(diff.groups.map(\.suppression?.id) == [2, 1])
    }
}
