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

    /// Attempts are hashed only when they say something else than their defaults: a run stored
    /// before attempts existed (its hash stored with it) still matches its retry, and
    /// `attempts: 1` or a leaked check's `leakedAttempts` equal to its attempts is no change;
    /// other attempts are (a retry with them is a 409).
    @Test func attemptsChangeTheHashOnlyWhenTheySayMoreThanTheDefaults() {
        let plain = Self.base.contentHash()
        var same = Self.base
        same.checks[0].attempts = 1
        same.checks[0].leakedAttempts = 1
        same.checks[1].attempts = 1
        same.checks[1].leakedAttempts = 0
        #expect(same.contentHash() == plain)
        var changes: [RunRecord] = []
        var run = Self.base
        run.checks[0].attempts = 3; changes.append(run)
        run.checks[0].leakedAttempts = 2; changes.append(run)
        run = Self.base; run.checks[1].attempts = 3; changes.append(run)
        run = Self.base; run.checks[1].leakedAttempts = 1; changes.append(run)
        let hashes = Set(changes.map { $0.contentHash() } + [plain])
        #expect(hashes.count == changes.count + 1)
    }

    @Test func theStoredRetainPathIsJSONThatReadsBackTheSame() throws {
        let steps = [
            RetainPathStep(holder: "App.\"Quoted\"\\Holder", property: "children[0]\n\t\u{1}", kind: .collection),
            RetainPathStep(holder: "Ünïcødé 🚀", property: "state.some.owner", kind: .closure),
        ]
        let text = RetainPathJSON.text(steps)
        #expect(try JSONDecoder().decode([RetainPathStep].self, from: Data(text.utf8)) == steps)
        #expect(RetainPathJSON.steps(text) == steps)
        #expect(RetainPathJSON.text([RetainPathStep(holder: "A", property: "b", kind: .strong)])
                == #"[{"holder":"A","kind":"strong","property":"b"}]"#)
        // A step not proven strong says so; a row stored before that member existed reads as proven.
        let possible = [RetainPathStep(holder: "A", property: "b", kind: .closure, isPossible: true)]
        #expect(RetainPathJSON.text(possible) == #"[{"holder":"A","kind":"closure","possible":true,"property":"b"}]"#)
        #expect(RetainPathJSON.steps(RetainPathJSON.text(possible)) == possible)
        #expect(RetainPathJSON.steps(#"[{"possible" : false, "holder":"A","kind":"closure","property":"b"}]"#)
                == [RetainPathStep(holder: "A", property: "b", kind: .closure)])
        #expect(try JSONDecoder().decode([RetainPathStep].self, from: Data(RetainPathJSON.text(possible).utf8)) == possible)
    }

    /// The reader by hand answers as `JSONDecoder` does: what `JSONEncoder` wrote (slashes
    /// escaped, another key order), white space, escapes of every kind, a character past the
    /// first plane as a surrogate pair; what is not a retain path is nothing.
    @Test func aStoredRetainPathReadsAsJSONDecoderReadsIt() throws {
        let steps = [
            RetainPathStep(holder: "App/Module.Holder", property: "a\u{8}b\u{c}c/d", kind: .global),
            RetainPathStep(holder: "𝄞 Clef", property: "", kind: .unknown),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted]
        let encoded = String(decoding: try encoder.encode(steps), as: UTF8.self)
        #expect(encoded.contains("\\/"))
        let texts = [
            encoded,
            #"[ {"kind" : "strong", "property":"x\u00e9\ud834\udd1e", "holder":"A"} ]"#,
            "[]",
            #"[{"holder":"A","kind":"strong","property":"b","extra":1}]"#,
            #"[{"holder":"A","kind":"sideways","property":"b"}]"#,
            #"[{"holder":"A","kind":"strong"}]"#,
            #"[{"holder":"A","kind":"strong","property":"b"}"#,
            #"[{"holder":"A","kind":"strong","property":"\ud834"}]"#,
            "not json",
            #"[{"holder":"A\"#, #"[{"holder":"A"#, #"[{"holder":"A\u00"#,
        ]
        for text in texts {
            #expect(RetainPathJSON.steps(text) == (try? JSONDecoder().decode([RetainPathStep].self, from: Data(text.utf8))),
                    "\(text)")
        }
        #expect(RetainPathJSON.steps(encoded) == steps)
        #expect(RetainPathJSON.steps(texts[1]) == [RetainPathStep(holder: "A", property: "xé𝄞", kind: .strong)])
        #expect(RetainPathJSON.steps("not json") == nil)
    }
}
