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
}
