/// A schema tag such as `leakhistory.check/1`: a name and a version number.
///
/// Readers accept the versions they know and refuse newer ones with a message that says to
/// upgrade, rather than guessing at fields they have never seen.
public struct SchemaVersion: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var version: Int

    public static let check = SchemaVersion(name: "leakhistory.check", version: 1)
    public static let run = SchemaVersion(name: "leakhistory.run", version: 1)

    public init(name: String, version: Int) {
        self.name = name
        self.version = version
    }

    public var description: String { "\(name)/\(version)" }

    /// Checks that `tag` names this schema at a version this build can read.
    /// - Throws: `SchemaError` naming what was found and what is supported.
    public func accept(_ tag: String) throws(SchemaError) {
        // ASCII digits only: `Int("+1")` is 1, and "leakhistory.run/+1" is no tag this build writes.
        guard let slash = tag.lastIndex(of: "/"), tag[..<slash] == name,
              case let digits = tag[tag.index(after: slash)...], !digits.isEmpty,
              digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let found = Int(digits), found >= 1
        else {
            throw SchemaError(message: "expected \"\(description)\", found \"\(tag)\"")
        }
        if found > version {
            throw SchemaError(message: """
                schema "\(tag)" is newer than this build understands (it reads \(name) up to \
                version \(version)); upgrade LeakHistory to read it
                """)
        }
    }
}

/// A schema tag that is missing, malformed or newer than this build.
public struct SchemaError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
