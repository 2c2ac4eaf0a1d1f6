import LeakReport
import Testing

@Suite("Leak fingerprints")
struct LeakFingerprintTests {
    private func step(_ holder: String, _ property: String, _ kind: RetainPathStep.Kind = .strong) -> RetainPathStep {
        RetainPathStep(holder: holder, property: property, kind: kind)
    }

    @Test func fnv1a64MatchesPublishedVectors() {
        #expect(LeakFingerprint.fnv1a64([]) == 0xcbf2_9ce4_8422_2325)
        #expect(LeakFingerprint.fnv1a64(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
        #expect(LeakFingerprint.fnv1a64(Array("foobar".utf8)) == 0x8594_4171_f739_67e8)
    }

    @Test func valueIsFixedAcrossProcesses() {
        // Cross-checked with an independent FNV-1a implementation (Python).
        let fingerprint = LeakFingerprint.cycle([step("App.A", "next"), step("App.B", "next")])
        #expect(fingerprint.value == LeakFingerprint.cycle([step("App.B", "next"), step("App.A", "next")]).value)
        #expect(fingerprint.value.count == 16)
        #expect(LeakFingerprint.path([step("App.Cache", "items[3]")], to: "App.Image").value == "318b7fa3518d660d")
    }

    @Test func cycleIsRotatedToACanonicalStart() {
        let a = step("App.A", "b"), b = step("App.B", "c"), c = step("App.C", "children[2]", .collection)
        let rotations = [[a, b, c], [b, c, a], [c, a, b]].map { LeakFingerprint.cycle($0) }
        #expect(Set(rotations).count == 1)
        // The same edges in another order are another cycle.
        #expect(LeakFingerprint.cycle([a, c, b]) != rotations[0])
    }

    @Test func indicesKeysAddressesAndClosureNumbersAreIgnored() {
        let first = LeakFingerprint.cycle([
            step("Tests.(unknown context at $55d2a1c0).Node", "children[0]", .collection),
            step("Tests.Holder", "handlers[\"a\"].closure #1 in make()"),
        ])
        let second = LeakFingerprint.cycle([
            step("Tests.(unknown context at $7f0012).Node", "children[17]", .unknown),
            step("Tests.Holder", "handlers[\"zz\"].closure #3 in make()"),
        ])
        #expect(first == second)
    }

    @Test func normalisation() {
        #expect(LeakFingerprint.normalizedType("M.(unknown context at $1a2b).(unknown context at $3c).L") == "M.L")
        #expect(LeakFingerprint.normalizedType("closure #12 in closure #1 in f()") == "closure in closure in f()")
        #expect(LeakFingerprint.normalizedProperty("a[1].b[\"k\"][2]") == "a[*].b[*][*]")
        #expect(LeakFingerprint.normalizedProperty("$__lazy_storage_$_handler") == "handler")
    }

    @Test func differentLeaksDiffer() {
        let all = [
            LeakFingerprint.cycle([step("App.A", "b"), step("App.B", "a")]),
            LeakFingerprint.cycle([step("App.A", "b"), step("App.B", "owner")]),
            LeakFingerprint.cycle([step("App.A", "a")]),
            LeakFingerprint.path([step("App.A", "a")], to: "App.A"),
            LeakFingerprint.path([step("App.A", "a")], to: "App.B"),
            LeakFingerprint.unexplained(type: "App.A"),
            LeakFingerprint.unexplained(type: "App.A", suspects: ["App.A.onDone"]),
            LeakFingerprint.unexplained(type: "App.B"),
        ]
        #expect(Set(all).count == all.count)
    }

    @Test func suspectOrderDoesNotMatter() {
        #expect(LeakFingerprint.unexplained(type: "App.A", suspects: ["App.A.x", "App.B.y"])
            == LeakFingerprint.unexplained(type: "App.A", suspects: ["App.B.y", "App.A.x"]))
    }
}
