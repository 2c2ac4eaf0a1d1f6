import Foundation
import LeakReport
@testable import LeakStore
import Testing

@Suite("Content hash and stored retain paths")
struct ContentHashTests {
    static let base = LeakStoreTests.run()

    @Test func equalRunsHashEqualAndAnyChangedValueChangesTheHash() {
        #expect(Self.base.contentHash() == LeakStoreTests.run().contentHash())
        var changes: [RunRecord] = []
        var run = Self.base
        run.branch = nil; changes.append(run)
        run = Self.base; run.checks[0].line += 1; changes.append(run)
        run = Self.base; run.checks[1].message = ""; changes.append(run)
        run = Self.base; run.checks[0].retainPath = []; changes.append(run)
        run = Self.base; run.checks[0].scenario = "S/"; run.checks[0].file = "0()S.swift"; changes.append(run)
        run = Self.base; run.checks.removeLast(); changes.append(run)
        let hashes = Set(changes.map { $0.contentHash() } + [Self.base.contentHash()])
        #expect(hashes.count == changes.count + 1)
    }

    @Test func theStoredRetainPathIsJSONThatReadsBackTheSame() throws {
        let steps = [
            RetainPathStep(holder: "App.\"Quoted\"\\Holder", property: "children[0]\n\t\u{1}", kind: .collection),
            RetainPathStep(holder: "Ünïcødé 🚀", property: "state.some.owner", kind: .closure),
        ]
        let text = RetainPathJSON.text(steps)
        #expect(try JSONDecoder().decode([RetainPathStep].self, from: Data(text.utf8)) == steps)
        #expect(RetainPathJSON.text([RetainPathStep(holder: "A", property: "b", kind: .strong)])
                == #"[{"holder":"A","kind":"strong","property":"b"}]"#)
    }
}
