import Foundation
import LeakServer
import LeakStore

/// `leakhistory-server` and its subcommands.
enum ServerTool {
    static let usage = """
        OVERVIEW: Ingests leak reports into SQLite over HTTP.

        USAGE: leakhistory-server [--config <path>] [--host <address>] [--port <port>] [--database <path>]
               leakhistory-server projects create <name>
               leakhistory-server tokens create <project> [--read]
               leakhistory-server tokens list <project>
               leakhistory-server tokens revoke <id>

        OPTIONS:
          --config <path>      The configuration file (default: config/leakhistory.json; built-in
                               defaults when that file is missing).
          --host <address>     The IPv4 address to listen on (default 127.0.0.1).
          --port <port>        The port; 0 picks a free one (default 8080).
          --database <path>    The SQLite file (default ./leakhistory.sqlite).
          --read               With `tokens create`: a read-only token.
          -h, --help           Show this help.

        ENVIRONMENT:
          LEAKHISTORY_HOST, LEAKHISTORY_PORT, LEAKHISTORY_DATABASE, LEAKHISTORY_SYNCHRONOUS,
          LEAKHISTORY_REQUIRE_READ_TOKEN, LEAKHISTORY_THREADS, LEAKHISTORY_MAX_BODY_BYTES
          override the file; flags override both.

        EXAMPLES:
          leakhistory-server --port 0 --database /tmp/leaks.sqlite
          leakhistory-server projects create app
          leakhistory-server tokens revoke 3

        """

    /// Runs the command line; returns the exit status.
    static func run(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments)
        } catch {
            return usageError("\(error)")
        }
        if parsed.help {
            print(usage, terminator: "")
            return 0
        }
        let configuration: ServerConfiguration
        do {
            configuration = try parsed.configuration(environment: ProcessInfo.processInfo.environment)
        } catch {
            return failure("\(error)")
        }
        do {
            switch parsed.command {
            case []:
                return try Serve(configuration: configuration).run()
            case let words where words.first == "projects":
                return try ProjectsCommand.run(Array(words.dropFirst()), configuration: configuration)
            case let words where words.first == "tokens":
                return try TokensCommand.run(Array(words.dropFirst()), readOnly: parsed.readToken,
                                             configuration: configuration)
            default:
                return usageError("unknown command '\(parsed.command.joined(separator: " "))'")
            }
        } catch let error as UsageError {
            return usageError(error.description)
        } catch {
            return failure("\(error)")
        }
    }

    static func failure(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
        return 1
    }

    static func usageError(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("""
            Error: \(message)
            Usage: leakhistory-server [--config <path>] [--port <port>] [--database <path>] [projects|tokens …]
            See 'leakhistory-server --help'.

            """.utf8))
        return 2
    }

    /// Opens (creating and migrating) the configured database. With `announce`, says on standard
    /// error which file it opened, and when it had to create it: an admin command run in the
    /// wrong folder then says so instead of quietly filling a fresh database.
    static func openStore(_ configuration: ServerConfiguration, announce: Bool = false) throws -> LeakStore {
        if announce {
            let path = URL(fileURLWithPath: configuration.database).standardizedFileURL.path
            let existed = FileManager.default.fileExists(atPath: path)
            FileHandle.standardError.write(Data((existed ? "Database: \(path)\n"
                : "Database: \(path) (did not exist: created it; pass --database or set it in --config to use another)\n").utf8))
        }
        return try LeakStore(path: configuration.database, options: configuration.storeOptions)
    }
}
