import Foundation
import LeakServer
import LeakStore

/// `leakhistory-server` and its subcommands.
enum ServerTool {
    static let usage = """
        OVERVIEW: Ingests leak reports over HTTP into SQLite (the default) or PostgreSQL.

        USAGE: leakhistory-server [--config <path>] [--host <address>] [--port <port>] [--database <path>]
                                  [--retention-days <days>]
               leakhistory-server projects create <name>
               leakhistory-server tokens create <project> [--read]
               leakhistory-server tokens list <project>
               leakhistory-server tokens revoke <id>
               leakhistory-server migrate --from <database> --to <database>

        OPTIONS:
          --config <path>      The configuration file (default: config/leakhistory.json; built-in
                               defaults when that file is missing).
          --host <address>     The IPv4 address to listen on (default 127.0.0.1).
          --port <port>        The port; 0 picks a free one (default 8080).
          --database <path|url>
                               The SQLite file (default ./leakhistory.sqlite; also sqlite:///path),
                               or a PostgreSQL URL, postgres://user@host:port/db, which any number
                               of servers can share.
          --retention-days <days>
                               Drop the check records (file, line, retain path, message of each
                               leak) of runs older than this in the background; the per-key states
                               that diffs, trends and first-seen read stay. 0: keep everything
                               (the default).
          --read               With `tokens create`: a read-only token.
          --from, --to <database>
                               With `migrate`: copy the whole of one database (projects, tokens,
                               runs, checks, suppressions) into another, empty one, e.g. from
                               sqlite:///var/lib/leaks.sqlite to postgres://…; counts are verified.
          -h, --help           Show this help.

        ENVIRONMENT:
          LEAKHISTORY_HOST, LEAKHISTORY_PORT, LEAKHISTORY_DATABASE, LEAKHISTORY_SYNCHRONOUS,
          LEAKHISTORY_REQUIRE_READ_TOKEN, LEAKHISTORY_THREADS, LEAKHISTORY_MAX_BODY_BYTES,
          LEAKHISTORY_RETENTION_DAYS override the file; flags override both.

        EXAMPLES:
          leakhistory-server --port 0 --database /tmp/leaks.sqlite
          leakhistory-server --database postgres://leakhistory@db.internal:5432/leaks
          leakhistory-server projects create app
          leakhistory-server tokens revoke 3
          leakhistory-server migrate --from sqlite:///var/lib/leaks.sqlite --to postgres://ci@db/leaks

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
            case ["migrate"]:
                guard let from = parsed.from, let to = parsed.to else {
                    return usageError("migrate needs --from <database> and --to <database>")
                }
                return try MigrateCommand.run(from: from, to: to, configuration: configuration)
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
    /// error which database it opened, and when it had to create a SQLite file: an admin command
    /// run in the wrong folder then says so instead of quietly filling a fresh database.
    static func openStore(_ configuration: ServerConfiguration, announce: Bool = false) throws -> LeakStore {
        let database = configuration.database
        let isServer = database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
        let file = database.hasPrefix("sqlite://") ? String(database.dropFirst("sqlite://".count)) : database
        let existed = isServer || FileManager.default.fileExists(atPath: file)
        // An older database is upgraded in place first; its progress goes to standard error (a
        // new database has nothing to upgrade and says nothing).
        let store = try LeakStore(database: database, options: configuration.storeOptions) { step in
            guard step.total > 0 else { return }
            FileHandle.standardError.write(Data("leakhistory-server: \(step)\n".utf8))
        }
        if announce {
            let location = isServer ? store.location : URL(fileURLWithPath: file).standardizedFileURL.path
            FileHandle.standardError.write(Data((existed ? "Database: \(location)\n"
                : "Database: \(location) (did not exist: created it; pass --database or set it in --config to use another)\n").utf8))
        }
        return store
    }
}
