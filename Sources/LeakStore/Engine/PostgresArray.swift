/// PostgreSQL's text form of a one-dimensional array, `{1,"a \"b\"",NULL}`: how a list of
/// values travels as one parameter (`unnest($1::text[])`, `= ANY($1)`).
enum PostgresArray {
    /// `{"a","b"}`.
    static func literal(_ texts: some Sequence<String>) -> String {
        var out = "{"
        for (index, text) in texts.enumerated() {
            if index > 0 { out.append(",") }
            append(.text(text), to: &out)
        }
        return out + "}"
    }

    /// Appends one element: numbers as they are, text always quoted (so that `NULL`, "" and
    /// text with commas or braces stay text) with `"` and `\` escaped, and NULL.
    static func append(_ value: SQLValue, to out: inout String) {
        switch value {
        case .null: out.append("NULL")
        case let .integer(number): out.append(String(number))
        case let .real(number): out.append(number.description)
        case let .text(text):
            out.append("\"")
            for character in text.unicodeScalars {
                if character == "\"" || character == "\\" { out.append("\\") }
                out.unicodeScalars.append(character)
            }
            out.append("\"")
        }
    }
}
