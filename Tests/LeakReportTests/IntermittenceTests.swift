import Testing
@testable import LeakReport

@Suite struct IntermittenceTests {
    /// `L` leaked, `c` clean, `F` runs disagreed, `e` errored, `.` not checked; oldest first.
    static func line(_ text: String) -> [KeyState?] {
        text.map { symbol in
            switch symbol {
            case "L": .leaked
            case "c": .clean
            case "F": .flaky
            case "e": .error
            case "l": .lateRelease
            default: nil
            }
        }
    }

    @Test(arguments: [
        ("", false),
        ("cccccL", false),                 // first leak ever: no evidence yet
        ("cLcccL", true),                  // leaked once between clean commits
        ("cccFcc", true),                  // runs at one commit disagreed
        ("cLLccc", false),                 // a two-commit leak, then clean for good: a fix
        ("cLLcccccL", false),              // which held: the leak coming back is a regression
        ("cLLcL", true),                   // a one-commit clean spell between leaks
        ("cLLLc", false),                  // a three-commit leak then clean: a fix...
        ("cLLLcL", true),                  // ...that held one commit before it came back
        ("cLLLccL", true),                 // ...or two
        ("cLLLcccL", false),               // held three: a regression, new
        ("LLLLLL", false),                 // leaking all along
        ("LcL", true),                     // a one-commit clean spell between leaks
        ("c.L..c.L", true),                // commits that did not check it are skipped
        ("cLeeecL", true),                 // and so are errors
        ("clLlL", true),                   // a late release counts as released
    ])
    func showsIntermittence(_ text: String, _ expected: Bool) {
        #expect(Intermittence.shows(Self.line(text)) == expected, "\(text)")
    }

    /// A leak at the first commit of a line that starts the key's history was seen at one commit.
    @Test func aLeakAtTheStartOfHistoryCountsAsBriefOnlyThere() {
        #expect(Intermittence.shows(Self.line("LcccL"), fromStart: true))
        #expect(!Intermittence.shows(Self.line("LcccL")), "a window that begins mid-history does not see the leak's start")
        #expect(!Intermittence.shows(Self.line("LLcccL"), fromStart: true))
    }

    /// After a leak that held `longLeakCommits`, a two-commit fix holds; a one-commit gap does not.
    @Test(arguments: [
        (String(repeating: "L", count: Intermittence.longLeakCommits) + "ccL", false),
        (String(repeating: "L", count: Intermittence.longLeakCommits) + "cL", true),
        (String(repeating: "L", count: Intermittence.longLeakCommits - 1) + "ccL", true),
    ])
    func aLongLeakNeedsAShorterFix(_ text: String, _ expected: Bool) {
        #expect(Intermittence.shows(Self.line("c" + text)) == expected, "\(text)")
    }

    /// Evidence adds up across lines; a head leak that held outweighs one recent episode, not two.
    @Test func evidenceAddsUpAndAHeldLeakOutweighsOneEpisode() {
        let one = Intermittence.evidence(Self.line("cLccccc"))
        #expect(one == Intermittence.Evidence(episodes: 1, recentEpisodes: 1))
        #expect(one.showsIntermittence())
        #expect(!one.showsIntermittence(headHeld: true))
        #expect((one + one).showsIntermittence(headHeld: true))
        #expect(Intermittence.evidence(Self.line("cccFc")).showsIntermittence(headHeld: true))
        #expect(Intermittence.leakHeld(Self.line("cLL")))
        #expect(Intermittence.leakHeld(Self.line("cL.eL")))
        #expect(!Intermittence.leakHeld(Self.line("LcL")))
    }

    /// A merge that lost its branch's leak is an episode; a branch that inherited the leak is not.
    @Test(arguments: [
        ("cLc", 1), ("LLc", 0), ("cLL", 0), ("c.c", 0), ("cFc", 1), ("clc", 0), ("lLc", 1),
    ])
    func aMergedBranchThatLostItsLeak(_ text: String, _ episodes: Int) {
        let states = Self.line(text)
        let evidence = Intermittence.evidence(mergedBranch: states[0], tip: states[1], merge: states[2], recent: true)
        #expect(evidence.episodes == episodes, "\(text)")
    }

    /// One brief leak long ago is not enough; two are, and so is one recent one.
    @Test func aSingleBriefLeakCountsOnlyWhenRecent() {
        let quiet = String(repeating: "c", count: Intermittence.recentCommits)
        #expect(!Intermittence.shows(Self.line("cLc" + quiet + "L")))
        #expect(Intermittence.shows(Self.line("cLcLc" + quiet + "L")))
        #expect(Intermittence.shows(Self.line(quiet + "cLc" + "L")))
    }
}
