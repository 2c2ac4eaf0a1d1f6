import Foundation
import Testing
@testable import leakhistory

/// The placeholders of `check --confirm-with`, expanded as SwiftPM and xcodebuild read them.
@Suite struct RerunCommandTests {
    static let scenarios = ["ProfileTests/open()", "CacheTests/fill(size:)", "Outer/Inner/testClose()", "A.B/c+d()"]

    @Test func theFilterMatchesEachScenarioAsSwiftPMNamesItAndNoNeighbour() throws {
        let filter = RerunCommand.filter(for: Self.scenarios)
        #expect(filter == #"(^|[./])(A\.B/c\+d|CacheTests/fill|Outer/Inner/testClose|ProfileTests/open)(\(|$)"#)
        let regex = try NSRegularExpression(pattern: filter)
        func matches(_ name: String) -> Bool {
            regex.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
        }
        // Swift Testing ids (with the argument list) and XCTest names (without).
        for name in ["AppTests.ProfileTests/open()", "AppTests.CacheTests/fill(size:)", "AppTests.Outer/Inner/testClose",
                     "AppTests.A.B/c+d()", "ProfileTests/open()"] {
            #expect(matches(name), "\(name)")
        }
        for name in ["AppTests.ProfileTests/openAll()", "AppTests.MyProfileTests/open()", "AppTests.AxB/c+d()",
                     "AppTests.CacheTests/fillAll"] {
            #expect(!matches(name), "\(name)")
        }
    }

    @Test func placeholdersExpandQuotedForTheShell() throws {
        let swiftPM = try RerunCommand("swift test --filter {filter}")
        #expect(swiftPM.expanded(for: ["S/it's()"]) == #"swift test --filter '(^|[./])(S/it'\''s)(\(|$)'"#)
        let xcode = try RerunCommand("xcodebuild test -scheme App {only-testing:AppTests}")
        #expect(xcode.expanded(for: ["ProfileTests/open()", "Outer/Inner/testClose()"])
            == "xcodebuild test -scheme App '-only-testing:AppTests/ProfileTests/open()' '-only-testing:AppTests/Outer/Inner/testClose'")
        let script = try RerunCommand("./rerun.sh {scenarios} --out ${HOME}/x")
        #expect(script.expanded(for: ["A/b()", "C/d()"]) == "./rerun.sh 'A/b()' 'C/d()' --out ${HOME}/x")
    }

    @Test(arguments: [
        ("swift test --filter {filtr}", "Unknown placeholder '{filtr}' in '--confirm-with'; use {filter}, {only-testing:TARGET}, {scenarios}"),
        ("xcodebuild {only-testing:}", "Unknown placeholder '{only-testing:}'"),
        ("  ", "'--confirm-with' needs a command"),
    ])
    func aPlaceholderItDoesNotKnowIsAUsageError(template: String, message: String) {
        let error = #expect(throws: UsageError.self) { try RerunCommand(template) }
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
    }
}
