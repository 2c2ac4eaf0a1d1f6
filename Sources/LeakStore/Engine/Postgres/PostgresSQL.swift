/// The store's SQL, written once for both engines, as PostgreSQL takes it: `?` and `?N`
/// parameters become `$N`, and SQLite's `INDEXED BY <index>` hints are dropped (PostgreSQL's
/// planner takes no hints). Quoted text and comments (`-- …` to the line's end, `/* … */`) are
/// left as they are: a `?` or an apostrophe inside them is text.
enum PostgresSQL {
    static func translate(_ sql: String) -> String {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var next = 1
        var chars = Array(sql.unicodeScalars)[...]
        while let c = chars.first {
            chars = chars.dropFirst()
            switch c {
            case "'", "\"":
                out.unicodeScalars.append(c)
                while let d = chars.first {
                    chars = chars.dropFirst()
                    out.unicodeScalars.append(d)
                    if d == c { break }
                }
            case "-" where chars.first == "-":
                // A line comment, to the end of its line.
                out.unicodeScalars.append(c)
                while let d = chars.first {
                    chars = chars.dropFirst()
                    out.unicodeScalars.append(d)
                    if d == "\n" { break }
                }
            case "/" where chars.first == "*":
                // A block comment, to its `*/` (the `*` of `/*` does not end it).
                out += "/*"
                chars = chars.dropFirst()
                var previous: Unicode.Scalar = " "
                while let d = chars.first {
                    chars = chars.dropFirst()
                    out.unicodeScalars.append(d)
                    if previous == "*", d == "/" { break }
                    previous = d
                }
            case "?":
                var digits = ""
                while let d = chars.first, ("0"..."9").contains(d) {
                    digits.unicodeScalars.append(d)
                    chars = chars.dropFirst()
                }
                if digits.isEmpty {
                    out += "$\(next)"
                    next += 1
                } else {
                    out += "$" + digits
                }
            case "I" where String(String.UnicodeScalarView(chars.prefix(10))) == "NDEXED BY ":
                chars = chars.dropFirst(10)
                while let d = chars.first, d == "_" || d.properties.isAlphabetic || ("0"..."9").contains(d) {
                    chars = chars.dropFirst()
                }
            default:
                out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
