import Foundation
import Testing

/// The binary's help, usage errors and exit codes.
@Suite struct CommandLineTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    @Test func helpSubcommandEqualsHelpFlag() throws {
        for command in ["upload", "diff", "check", "trend", "types"] {
            let viaHelp = try CLI.run(["help", command], in: folder.url)
            let viaFlag = try CLI.run([command, "--help"], in: folder.url)
            #expect(viaHelp.status == 0 && viaFlag.status == 0)
            #expect(viaHelp.stdout == viaFlag.stdout)
            for heading in ["OVERVIEW:", "USAGE: leakhistory \(command)", "OPTIONS:", "EXAMPLES:"] {
                #expect(viaHelp.stdout.contains(heading), "\(command) help lacks \(heading)")
            }
        }
        let overview = try CLI.run(["--help"], in: folder.url)
        #expect(overview.status == 0)
        #expect(overview.stdout.contains("SUBCOMMANDS:"))
    }

    @Test func unknownOptionNamesTheClosestOne() throws {
        let result = try CLI.run(["diff", "main..HEAD", "--frmat", "json"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("Error: Unknown option '--frmat'. Did you mean '--format'?\n"))
        #expect(result.stderr.contains("Usage: leakhistory diff"))
        #expect(result.stderr.contains("See 'leakhistory diff --help'."))
    }

    @Test func missingValueIsNamed() throws {
        let result = try CLI.run(["diff", "main..HEAD", "--server"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: Missing value for '--server <url>'"))
    }

    @Test func badChoiceIsNamed() throws {
        let result = try CLI.run(["diff", "main..HEAD", "--format", "yaml"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("'yaml' is not a valid value for '--format <format>'; use one of text, json, markdown, github"))
    }

    @Test func unknownSubcommandSuggestsOne() throws {
        let result = try CLI.run(["uplaod"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: Unknown subcommand 'uplaod'. Did you mean 'upload'?"))
    }

    @Test func notAGitRepositoryIsAUsageError() throws {
        let result = try CLI.run(["diff", "main..HEAD", "--server", "http://127.0.0.1:9", "--project", "app"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("is not in a git repository"))
    }

    @Test func noServerConfiguredSaysWhereToSetIt() throws {
        let repository = try GitFixture()
        try repository.commit("first")
        let result = try CLI.run(["diff", "main..HEAD"], in: repository.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("No server given. Pass --server"))
        #expect(result.stderr.contains("LEAKHISTORY_SERVER"))
    }

    @Test func settingsComeFromTheRepositoryFile() throws {
        let repository = try GitFixture()
        try repository.commit("first")
        try #"{"server": "http://127.0.0.1:\#(closedPort())", "project": "app"}"#
            .write(to: repository.url.appendingPathComponent(".leakhistory.json"), atomically: true, encoding: .utf8)
        let result = try CLI.run(["diff", "nope..HEAD"], in: repository.url)
        // The file supplied server and project, so the command got as far as git.
        #expect(result.status == 2)
        #expect(result.stderr.contains("Unknown revision 'nope'"))
    }

    @Test func version() throws {
        let result = try CLI.run(["--version"], in: folder.url)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("leakhistory "))
    }
}
