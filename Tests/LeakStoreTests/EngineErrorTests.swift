import CSQLite
@testable import LeakStore
import Testing

/// Each engine's own failure codes become the boundary's three words; anything else stays the
/// engine's error (a logged 500).
@Suite("Engine errors")
struct EngineErrorTests {
    @Test func sqliteFullBusyAndInterrupted() {
        #expect(SQLiteError(code: SQLITE_FULL, message: "database or disk is full", sql: "INSERT …").storeError
            == .full("database or disk is full"))
        #expect(SQLiteError(code: SQLITE_BUSY | (2 << 8), message: "database is locked", sql: nil).storeError
            == .busy("database is locked"))
        #expect(SQLiteError(code: SQLITE_INTERRUPT, message: "interrupted", sql: nil).storeError == .queryTimeout("interrupted"))
    }

    @Test("Any other SQLite error stays the engine's", arguments: [SQLITE_CONSTRAINT | (8 << 8), SQLITE_IOERR | (3 << 8), SQLITE_CORRUPT])
    func sqliteOthers(_ code: Int32) {
        #expect(SQLiteError(code: code, message: "", sql: nil).storeError == nil)
    }

    @Test func postgresStates() {
        func error(_ state: String, lost: Bool = false) -> PostgresError {
            PostgresError(sqlState: state, message: "m", sql: nil, connectionLost: lost)
        }
        #expect(error("", lost: true).storeError == .unavailable("m"))
        #expect(error("08006").storeError == .unavailable("m"))
        #expect(error("57P01").storeError == .unavailable("m"))
        #expect(error("53100").storeError == .full("m"))
        #expect(error("55P03").storeError == .busy("m"))
        #expect(error("23502").storeError == nil)
        #expect(error("23505").isLostRace && error("40001").isLostRace && error("40P01").isLostRace)
        #expect(!error("23502").isLostRace)
    }

    @Test func postgresTranslationRenumbersParametersAndDropsIndexHints() {
        #expect(PostgresSQL.translate("SELECT a FROM t INDEXED BY t_by_b WHERE b = ? AND c = '?' AND d = ?")
            == "SELECT a FROM t  WHERE b = $1 AND c = '?' AND d = $2")
        #expect(PostgresSQL.translate("WHERE x = ?1 AND (?3 IS NULL OR y = ?3) AND z = ?2")
            == "WHERE x = $1 AND ($3 IS NULL OR y = $3) AND z = $2")
        #expect(PostgresSQL.translate("INSERT INTO \"types\" (name) VALUES (?)") == "INSERT INTO \"types\" (name) VALUES ($1)")
    }

    /// An apostrophe or a `?` in a comment is text: it neither opens a quote that swallows the
    /// parameters after it nor becomes one.
    @Test func postgresTranslationLeavesCommentsAlone() {
        #expect(PostgresSQL.translate("SELECT a -- the key's id, or ?\nFROM t WHERE b = ? AND c = ?")
            == "SELECT a -- the key's id, or ?\nFROM t WHERE b = $1 AND c = $2")
        #expect(PostgresSQL.translate("SELECT /* don't ask ? */ a FROM t WHERE b = ?") == "SELECT /* don't ask ? */ a FROM t WHERE b = $1")
        #expect(PostgresSQL.translate("SELECT /*/ it's */ ? , 1 - -1, 4 / 2") == "SELECT /*/ it's */ $1 , 1 - -1, 4 / 2")
        #expect(PostgresSQL.translate("SELECT a - ? FROM t -- last") == "SELECT a - $1 FROM t -- last")
    }

    @Test func databaseLocations() {
        #expect(DatabaseLocation("./leakhistory.sqlite") == .sqlite(path: "./leakhistory.sqlite"))
        #expect(DatabaseLocation("sqlite:///var/lib/leaks.sqlite") == .sqlite(path: "/var/lib/leaks.sqlite"))
        #expect(DatabaseLocation("postgres://ci@db:5432/leaks") == .postgres(url: "postgres://ci@db:5432/leaks"))
        #expect(DatabaseLocation("postgresql://db/leaks") == .postgres(url: "postgresql://db/leaks"))
        #expect(PostgresEngine.redacted("postgres://ci:secret@db:5432/leaks") == "postgres://ci:***@db:5432/leaks")
    }
}
