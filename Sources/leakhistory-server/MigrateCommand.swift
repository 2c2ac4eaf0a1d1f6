import Foundation
import LeakServer
import LeakStore

/// `leakhistory-server migrate --from <database> --to <database>`: moves a team from SQLite to
/// PostgreSQL (or back), whole, and says what it copied.
enum MigrateCommand {
    static func run(from: String, to: String, configuration: ServerConfiguration) throws -> Int32 {
        let started = ContinuousClock.now
        let source = try LeakStore(database: from, options: configuration.storeOptions)
        let target = try LeakStore(database: to, options: configuration.storeOptions)
        let copied = try source.copy(into: target) { table, rows in
            print("copied \(rows) \(table)")
        }
        let seconds = Double((ContinuousClock.now - started) / .milliseconds(1)) / 1_000
        let total = copied.reduce(0) { $0 + $1.rows }
        print("migrated \(total) rows from \(source.location) to \(target.location) in \(String(format: "%.1f", seconds)) s; "
              + "every table's count verified")
        try target.close()
        return 0
    }
}
