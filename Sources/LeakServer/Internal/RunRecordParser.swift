import Foundation
import LeakReport

/// A fast path for the body the server reads most: one `leakhistory.run/1` upload.
///
/// Decoding runs through `JSONDecoder` cost more than storing the rows, so ingest first tries this
/// single pass over the bytes. It accepts only plainly valid input and builds the same
/// `RunRecord` that `JSONDecoder` would; on anything else (a syntax error, a missing or mistyped
/// field, a null where a value is required, an integer written as `1e3`, a duplicate key) it gives
/// up and returns nil; the caller refuses a duplicate key (`duplicateKey(in:)` names it) and
/// decodes anything else with `JSONDecoder`, whose errors name the key path.
/// A test checks the two agree on every input this parser accepts.
struct RunRecordParser {
    /// Anything the fast path does not handle; never shown to a client.
    private struct GiveUp: Error {}

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// How deep unknown values nest; past a bound the parser gives up rather than recurse on.
    private var depth = 0
    private static let maxDepth = 64
    /// A body this big holds a big run, whose parsed form is the server's largest use of memory:
    /// its checks are counted before they are read, so that the array is made once at its size
    /// (grown by doubling, its last copy and the one before it were alive together: 30 MB for
    /// 100,000 checks), and the strings that repeat from check to check (a file, a type, a
    /// scenario with several types) are made once and shared.
    private static let bigBody = 1 << 20
    /// The strings of a big body made so far, by their bytes in the body (`bigBody`).
    private var made: [BodyBytes: String]?
    /// `made` stops growing at this many: a body of strings that never repeat costs no more.
    private static let madeLimit = 1 << 16

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        if bytes.count >= Self.bigBody { made = [:] }
    }

    /// The run in `data` (valid UTF-8), or nil when `JSONDecoder` should decode it instead.
    static func parse(_ data: Data) -> RunRecord? {
        data.withUnsafeBytes { raw in
            var parser = RunRecordParser(bytes: raw.bindMemory(to: UInt8.self))
            guard let run = try? parser.run() else { return nil }
            parser.skipWhitespace()
            return parser.index == parser.bytes.count ? run : nil
        }
    }

    // MARK: - The run and its parts

    private mutating func run() throws -> RunRecord {
        var schema: Bool?, project: String?, commit: String?, branch: String?, parents: [String]?
        var environment: String?, runKey: String?, startedAt: Date?, tool: RunRecord.Tool?
        var checks: [CheckRecord]?
        // Optional keys may be null, so "seen" is tracked apart from the value: one bit a key.
        var seenOptional: UInt8 = 0
        var unknown: [Key] = []
        try object { key, parser in
            switch key {
            case "schema": try Self.once(&schema, try parser.schema(.run))
            case "project": try Self.once(&project, try parser.string())
            case "commit": try Self.once(&commit, try parser.string())
            case "runKey": try Self.once(&runKey, try parser.string())
            case "startedAt": try Self.once(&startedAt, try parser.timestamp())
            case "checks":
                try Self.once(&checks, try parser.array(reserving: parser.made == nil ? 0 : parser.checksAhead()) { try $0.check() })
            case "branch":
                try Self.firstTime(1, &seenOptional)
                branch = try parser.optional { try $0.string() }
            case "parents":
                try Self.firstTime(2, &seenOptional)
                parents = try parser.optional { try $0.array { try $0.string() } }
            case "environment":
                try Self.firstTime(4, &seenOptional)
                environment = try parser.optional { try $0.string() }
            case "tool":
                try Self.firstTime(8, &seenOptional)
                tool = try parser.optional { try $0.tool() }
            default: try parser.skipUnknown(key, &unknown)
            }
        }
        guard schema == true, let project, let commit, let runKey,
              let startedAt, let checks
        else { throw GiveUp() }
        return RunRecord(project: project, commit: commit, branch: branch, parents: parents ?? [],
                         environment: environment ?? "default", runKey: runKey, startedAt: startedAt, tool: tool,
                         checks: checks)
    }

    private mutating func tool() throws -> RunRecord.Tool {
        var name: String?, version: String?
        var unknown: [Key] = []
        try object { key, parser in
            switch key {
            case "name": try Self.once(&name, try parser.string())
            case "version": try Self.once(&version, try parser.string())
            default: try parser.skipUnknown(key, &unknown)
            }
        }
        guard let name, let version else { throw GiveUp() }
        return RunRecord.Tool(name: name, version: version)
    }

    private mutating func check() throws -> CheckRecord {
        var schema: Bool?, scenario: String?, file: String?, line: Int?, type: String?
        var outcome: CheckOutcome?, waitedMs: Double?, timeoutMs: Int?, lifecycle: String?
        var retainPath: [RetainPathStep]?, fingerprint: String?, message: String?, timestamp: Date?
        var source: CheckSource?, knownIssue: Bool?, attempts: Int?, leakedAttempts: Int?
        // Optional keys may be null, so "seen" is tracked apart from the value: one bit a key.
        var seenOptional: UInt8 = 0
        var unknown: [Key] = []
        try object { key, parser in
            switch key {
            case "schema": try Self.once(&schema, try parser.schema(.check))
            case "scenario": try Self.once(&scenario, try parser.string())
            case "file": try Self.once(&file, try parser.string())
            case "line": try Self.once(&line, try parser.integer())
            case "type": try Self.once(&type, try parser.string())
            case "outcome": try Self.once(&outcome, try CheckOutcome(rawValue: parser.string()).orGiveUp())
            case "waitedMs": try Self.once(&waitedMs, try parser.number())
            case "timeoutMs": try Self.once(&timeoutMs, try parser.integer())
            case "lifecycle":
                try Self.firstTime(1, &seenOptional)
                lifecycle = try parser.optional { try $0.string() }
            case "retainPath":
                try Self.firstTime(2, &seenOptional)
                retainPath = try parser.optional { try $0.array { try $0.step() } }
            case "fingerprint":
                try Self.firstTime(4, &seenOptional)
                fingerprint = try parser.optional { try $0.string() }
            case "message":
                try Self.firstTime(8, &seenOptional)
                message = try parser.optional { try $0.string() }
            case "source":
                try Self.firstTime(16, &seenOptional)
                source = try parser.optional { try CheckSource(rawValue: $0.string()).orGiveUp() }
            case "knownIssue":
                try Self.firstTime(32, &seenOptional)
                knownIssue = try parser.optional { try $0.boolean() }
            case "attempts":
                try Self.firstTime(64, &seenOptional)
                attempts = try parser.optional { try $0.integer() }
            case "leakedAttempts":
                try Self.firstTime(128, &seenOptional)
                leakedAttempts = try parser.optional { try $0.integer() }
            case "timestamp": try Self.once(&timestamp, try parser.timestamp())
            default: try parser.skipUnknown(key, &unknown)
            }
        }
        guard schema == true, let scenario, let file, let line,
              let type, let outcome, let waitedMs, let timeoutMs, let timestamp,
              // Impossible attempts are left to `JSONDecoder`, whose error names the field.
              CheckRecord.attemptsProblem(attempts: attempts, leakedAttempts: leakedAttempts, outcome: outcome) == nil
        else { throw GiveUp() }
        return CheckRecord(scenario: scenario, file: file, line: line, type: type, outcome: outcome,
                           waitedMs: waitedMs, timeoutMs: timeoutMs, lifecycle: lifecycle ?? "none",
                           retainPath: retainPath, fingerprint: fingerprint, message: message,
                           timestamp: timestamp, source: source, knownIssue: knownIssue,
                           attempts: attempts, leakedAttempts: leakedAttempts)
    }

    private mutating func step() throws -> RetainPathStep {
        var holder: String?, property: String?, kind: RetainPathStep.Kind?, possible: Bool?
        var unknown: [Key] = []
        try object { key, parser in
            switch key {
            case "holder": try Self.once(&holder, try parser.string())
            case "property": try Self.once(&property, try parser.string())
            case "kind": try Self.once(&kind, try RetainPathStep.Kind(rawValue: parser.string()).orGiveUp())
            case "possible": try Self.once(&possible, try parser.boolean())
            default: try parser.skipUnknown(key, &unknown)
            }
        }
        guard let holder, let property, let kind else { throw GiveUp() }
        return RetainPathStep(holder: holder, property: property, kind: kind, isPossible: possible ?? false)
    }

    /// A schema the parser reads, with the spellings of its tag inside a JSON string, made once:
    /// with its slash escaped (`\/`, as `JSONEncoder` writes it, the CLI among them), and as it
    /// is (`replacingOccurrences` on every upload took a third of a 10-check upload's parsing).
    private struct Tag {
        let version: SchemaVersion
        let spellings: [[UInt8]]

        init(_ version: SchemaVersion) {
            self.version = version
            let tag = version.description
            spellings = [Array(tag.replacingOccurrences(of: "/", with: "\\/").utf8), Array(tag.utf8)]
        }

        static let run = Tag(.run), check = Tag(.check)
    }

    /// Whether the next string is a tag `tag.version` accepts. The tag as clients write it (every
    /// check has `leakhistory.check/1`) is matched in place: building it as a `String` and
    /// parsing it cost a tenth of a check's decoding (callgrind); any other spelling is read and parsed.
    private mutating func schema(_ tag: Tag) throws -> Bool {
        skipWhitespace()
        for spelling in tag.spellings {
            let end = index + spelling.count + 2
            if end <= bytes.count, bytes[index] == UInt8(ascii: "\""), bytes[end - 1] == UInt8(ascii: "\""),
               UnsafeBufferPointer(rebasing: bytes[(index + 1)..<(end - 1)]).elementsEqual(spelling) {
                index = end
                return true
            }
        }
        let text = try string()
        return (try? tag.version.accept(text)) != nil
    }

    private mutating func timestamp() throws -> Date {
        try ReportTimestamp.date(from: string()).orGiveUp()
    }

    /// Marks an optional key (`bit`) seen; a repeated key is left to `duplicateKey(in:)`.
    private static func firstTime(_ bit: UInt8, _ seen: inout UInt8) throws {
        guard seen & bit == 0 else { throw GiveUp() }
        seen |= bit
    }

    /// Sets a field the first time; a repeated key is left to `duplicateKey(in:)`.
    private static func once<T>(_ slot: inout T?, _ value: T) throws {
        guard slot == nil else { throw GiveUp() }
        slot = value
    }

    // MARK: - JSON

    private mutating func skipWhitespace() {
        while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
    }

    /// JSON's whitespace: space, tab, line feed, carriage return.
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private mutating func expect(_ byte: UInt8) throws {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { throw GiveUp() }
        index += 1
    }

    /// True (and consumed) when the next non-blank byte is `byte`.
    private mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// A member's name as its bytes in the body, matched against literals without building a
    /// `String`: a run of 1,000 checks has some 13,000 of them.
    private struct Key {
        let bytes: UnsafeBufferPointer<UInt8>

        static func ~= (name: StaticString, key: Key) -> Bool {
            name.utf8CodeUnitCount == key.bytes.count
                && zip(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount), key.bytes).allSatisfy(==)
        }
    }

    /// A key with an escape in it is left to `JSONDecoder`.
    private mutating func key() throws -> Key {
        try expect(UInt8(ascii: "\""))
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return Key(bytes: UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)]))
            case UInt8(ascii: "\\"), 0..<0x20: throw GiveUp()
            default: index += 1
            }
        }
        throw GiveUp()
    }

    private mutating func object(_ member: (Key, inout RunRecordParser) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        if take(UInt8(ascii: "}")) { return }
        repeat {
            let key = try key()
            try expect(UInt8(ascii: ":"))
            try member(key, &self)
        } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
    }

    private mutating func array<T>(reserving capacity: Int = 0, _ element: (inout RunRecordParser) throws -> T) throws -> [T] {
        try expect(UInt8(ascii: "["))
        var elements: [T] = []
        elements.reserveCapacity(capacity)
        if take(UInt8(ascii: "]")) { return elements }
        repeat {
            elements.append(try element(&self))
        } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"))
        return elements
    }

    /// nil for a JSON null, else the value.
    private mutating func optional<T>(_ value: (inout RunRecordParser) throws -> T) throws -> T? {
        if literal("null") { return nil }
        return try value(&self)
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        skipWhitespace()
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += count
        return true
    }

    private mutating func boolean() throws -> Bool {
        if literal("true") { return true }
        if literal("false") { return false }
        throw GiveUp()
    }

    private mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""))
        let start = index
        // The common case: no escapes, so the bytes are the string.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return made(text) { String(decoding: text, as: UTF8.self) }
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw GiveUp() }
            index += 1
        }
        var decoded = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                // Keyed by its bytes as written, escapes and all (`\/` in every path JSONEncoder writes).
                return made(UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)])) { String(decoding: decoded, as: UTF8.self) }
            case UInt8(ascii: "\\"):
                try escape(into: &decoded)
            case 0..<0x20:
                throw GiveUp()
            default:
                decoded.append(byte)
            }
        }
        throw GiveUp()
    }

    /// The string written as `text` (its bytes in the body between the quotes), which `make`
    /// builds: in a big body, the one made before from the same bytes when there is one
    /// (`bigBody`). Strings of up to 15 bytes are kept inside the `String` itself, and are made each time.
    private mutating func made(_ text: UnsafeBufferPointer<UInt8>, _ make: () -> String) -> String {
        guard text.count > 15, made != nil else { return make() }
        if let string = made![BodyBytes(text)] { return string }
        let string = make()
        if made!.count < Self.madeLimit { made![BodyBytes(text)] = string }
        return string
    }

    /// A check this parser accepts takes more bytes than this: its nine required members' names
    /// and shortest values alone take some 150.
    private static let checkBytesAtLeast = 128

    /// How many checks the array at the parser's place can hold, counted without reading them
    /// (the place unchanged): for `array(reserving:)`, so a hint only; 0 where it is not plainly
    /// an array. Never more than the body has room for, so that a body of empty elements
    /// (`[{},{},…]`) cannot make the parser reserve many times its own size.
    private func checksAhead() -> Int {
        min(elementsAhead(), bytes.count / Self.checkBytesAtLeast)
    }

    /// What `checksAhead` gives for `data` that is an array of checks itself (tests).
    static func checksAhead(in data: Data) -> Int {
        data.withUnsafeBytes { raw in RunRecordParser(bytes: raw.bindMemory(to: UInt8.self)).checksAhead() }
    }

    /// How many elements the array at the parser's place holds, counted without reading them.
    private func elementsAhead() -> Int {
        var ahead = self
        ahead.skipWhitespace()
        var cursor = ahead.index
        guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "[") else { return 0 }
        var nesting = 0, commas = 0, empty = true, inString = false
        while cursor < bytes.count {
            let byte = bytes[cursor]
            cursor += 1
            if inString {
                if byte == UInt8(ascii: "\\") { cursor += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true; empty = false
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                nesting += 1
                if nesting > 1 { empty = false }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                nesting -= 1
                if nesting == 0 { return empty ? 0 : commas + 1 }
            case UInt8(ascii: ","): if nesting == 1 { commas += 1 }
            case let other where Self.isWhitespace(other): break
            default: empty = false
            }
        }
        return 0
    }

    private mutating func escape(into decoded: inout [UInt8]) throws {
        guard index < bytes.count else { throw GiveUp() }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(byte)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed at once by an escaped low one.
                guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                      bytes[index + 1] == UInt8(ascii: "u")
                else { throw GiveUp() }
                index += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw GiveUp() }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw GiveUp()
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw GiveUp() }
            decoded.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            throw GiveUp()
        }
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw GiveUp() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw GiveUp()
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// The text of a number that follows JSON's grammar exactly, and whether it is a plain integer.
    private mutating func numberText() throws -> (text: String, isInteger: Bool) {
        skipWhitespace()
        let start = index
        func digits(_ parser: inout RunRecordParser) -> Int {
            let first = parser.index
            while parser.index < parser.bytes.count,
                  (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.index]) {
                parser.index += 1
            }
            return parser.index - first
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits(&self)
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { throw GiveUp() }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw GiveUp() }
            isInteger = false
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw GiveUp() }
            isInteger = false
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        return (text, isInteger)
    }

    private mutating func integer() throws -> Int {
        let (text, isInteger) = try numberText()
        guard isInteger, let value = Int(text) else { throw GiveUp() }
        return value
    }

    private mutating func number() throws -> Double {
        let (text, _) = try numberText()
        guard let value = Double(text), value.isFinite else { throw GiveUp() }
        return value
    }

    /// Skips the value of a key the model does not read; a key that repeats in its object is
    /// left to `duplicateKey(in:)`, which names it. Unknown keys are rare, so the list is short.
    private mutating func skipUnknown(_ key: Key, _ seen: inout [Key]) throws {
        guard !seen.contains(where: { $0.bytes.elementsEqual(key.bytes) }) else { throw GiveUp() }
        seen.append(key)
        try skipValue()
    }

    /// The path of the first key that appears twice in one object of `data`
    /// (`checks[1].line`), or nil when none does or `data` is not JSON. `JSONDecoder` keeps one
    /// of the values and drops the other silently, so an upload with a repeated key is refused.
    static func duplicateKey(in data: Data) -> String? {
        data.withUnsafeBytes { raw in
            var parser = RunRecordParser(bytes: raw.bindMemory(to: UInt8.self))
            return (try? parser.duplicate(at: "")) ?? nil
        }
    }

    private mutating func duplicate(at path: String) throws -> String? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw GiveUp() }
        skipWhitespace()
        guard index < bytes.count else { throw GiveUp() }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            if take(UInt8(ascii: "}")) { return nil }
            var seen = Set<String>()
            repeat {
                skipWhitespace()
                let key = try string()
                try expect(UInt8(ascii: ":"))
                let child = path.isEmpty ? key : path + "." + key
                guard seen.insert(key).inserted else { return child }
                if let found = try duplicate(at: child) { return found }
            } while take(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            index += 1
            if take(UInt8(ascii: "]")) { return nil }
            var position = 0
            repeat {
                if let found = try duplicate(at: "\(path)[\(position)]") { return found }
                position += 1
            } while take(UInt8(ascii: ","))
            try expect(UInt8(ascii: "]"))
        default:
            try skipValue()
        }
        return nil
    }

    /// Skips any JSON value, checking its syntax.
    private mutating func skipValue() throws {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw GiveUp() }
        skipWhitespace()
        guard index < bytes.count else { throw GiveUp() }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            var seen: [Key] = []
            try object { key, parser in try parser.skipUnknown(key, &seen) }
        case UInt8(ascii: "["): _ = try array { try $0.skipValue() }
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"): guard literal("true") else { throw GiveUp() }
        case UInt8(ascii: "f"): guard literal("false") else { throw GiveUp() }
        case UInt8(ascii: "n"): guard literal("null") else { throw GiveUp() }
        default: _ = try numberText()
        }
    }
}

private extension Optional {
    func orGiveUp() throws -> Wrapped {
        guard let self else { throw RunRecordParserGiveUp() }
        return self
    }
}

private struct RunRecordParserGiveUp: Error {}

/// Bytes of a body being parsed, compared and hashed by content: a key of `RunRecordParser`'s
/// strings, alive no longer than the body.
private struct BodyBytes: Hashable {
    let bytes: UnsafeBufferPointer<UInt8>

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    static func == (left: BodyBytes, right: BodyBytes) -> Bool { left.bytes.elementsEqual(right.bytes) }

    func hash(into hasher: inout Hasher) { hasher.combine(bytes: UnsafeRawBufferPointer(bytes)) }
}
