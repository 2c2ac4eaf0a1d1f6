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

    /// `{1,2}`.
    static func literal(integers: some Sequence<Int64>) -> String {
        "{" + integers.map(String.init).joined(separator: ",") + "}"
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

    /// The integers of an array's text form, `{1,-2,3}` (what PostgreSQL sends for an integer
    /// array): in order, NULL elements left out. Anything else than digits, signs and commas is
    /// passed over.
    static func integers(_ text: String) -> [Int64] {
        var text = text
        return text.withUTF8 { bytes in
            var values: [Int64] = []
            values.reserveCapacity(bytes.count / 2)
            var value: Int64 = 0, negative = false, digits = false
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    value = value &* 10 &+ Int64(byte &- UInt8(ascii: "0"))
                    digits = true
                case UInt8(ascii: "-"):
                    negative = true
                case UInt8(ascii: ","), UInt8(ascii: "}"):
                    if digits { values.append(negative ? -value : value) }
                    value = 0
                    negative = false
                    digits = false
                default:
                    break
                }
            }
            return values
        }
    }
}
