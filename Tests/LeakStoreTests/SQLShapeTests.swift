@testable import LeakStore
import Testing

/// Statements written once (`SQLShape`) bind what `SQL` binds, in the same order, and keep their
/// text from one use to the next.
@Suite("SQL shapes")
struct SQLShapeTests {
    struct Step {
        var projectID: Int64
        var branch: String?
        var depth: Int
    }

    static let join: SQLShape<Step> = "JOIN commits c ON c.project_id = \(\.projectID)"
    static let step: SQLShape<Step> = """
        SELECT c.id FROM line \(join) WHERE c.branch = \(\.branch) AND line.depth < \(\.depth) AND c.project_id = \(\.projectID)
        """

    @Test func aShapeBindsWhatTheSameSQLBinds() {
        let arguments = Step(projectID: 7, branch: "main", depth: 9)
        let written: SQL = """
            SELECT c.id FROM line JOIN commits c ON c.project_id = \(Int64(7)) WHERE c.branch = \("main") AND line.depth < \(9) \
            AND c.project_id = \(Int64(7))
            """
        let shaped = Self.step(arguments)
        #expect(shaped.text == written.text)
        #expect(shaped.values == written.values)
        #expect(Self.step(Step(projectID: 8, branch: nil, depth: 1)).values == [.integer(8), .null, .integer(1), .integer(8)],
                "each use reads its own values, NULL for nil")
        #expect(Self.step(Step(projectID: 8, branch: nil, depth: 1)).text == shaped.text)
    }

    @Test func aShapeInsideSQLTakesItsValuesInPlace() {
        let sql: SQL = "SELECT \(Int64(1)), (SELECT 1 FROM line \(Self.join, Step(projectID: 5, branch: nil, depth: 0))) WHERE x = \("y")"
        #expect(sql.text == "SELECT ?, (SELECT 1 FROM line JOIN commits c ON c.project_id = ?) WHERE x = ?")
        #expect(sql.values == [.integer(1), .integer(5), .text("y")])
    }

    @Test(arguments: [0, 1, 2, 5, 128])
    func anINListHasAPlaceholderAValue(_ count: Int) {
        let values = (0..<count).map { SQLValue.integer(Int64($0)) }
        let sql: SQL = "id IN (\(list: values))"
        #expect(sql.text == "id IN (" + Array(repeating: "?", count: count).joined(separator: ", ") + ")")
        #expect(sql.values == values)
    }
}
