/// What a token may do.
public enum TokenScope: String, Sendable, Hashable, Codable {
    /// Read the project's history (only needed when the server requires read tokens).
    case read
    /// Upload runs; also reads.
    case write
}

/// A token just created: the only moment its secret text exists outside the caller's hands.
public struct IssuedToken: Sendable, Hashable {
    public var id: Int64
    public var project: String
    public var scope: TokenScope
    /// `lh_<id>_<64 hex digits>`: what goes after `Authorization: Bearer`.
    public var secret: String
}

/// A stored token as `tokens list` shows it: never its secret.
public struct TokenSummary: Sendable, Hashable {
    /// The id `tokens revoke` takes, also the number after `lh_` in the token.
    public var id: Int64
    public var project: String
    public var scope: TokenScope
    public var createdAt: String
    public var revokedAt: String?
}

/// The outcome of presenting a token.
public enum TokenVerdict: Sendable, Hashable {
    /// A live token of `project` (by name) with `scope`.
    case valid(id: Int64, project: String, scope: TokenScope)
    /// A real token that was revoked.
    case revoked(id: Int64)
    /// Malformed, unknown, or the secret does not match.
    case unknown
}

/// A bearer token for the store to check in the transaction that would use it, before anything
/// is written, and what the caller makes of the verdict: `authorize` throws to refuse (the
/// transaction then writes nothing). An upload admitted on a remembered token
/// (`LeakStorage.rememberedToken`) is checked this way: one transaction instead of a read before
/// it, and the verdict is that of the data the write sees.
public struct CredentialCheck: Sendable {
    public let token: String
    public let authorize: @Sendable (TokenVerdict) throws -> Void

    public init(token: String, authorize: @escaping @Sendable (TokenVerdict) throws -> Void) {
        self.token = token
        self.authorize = authorize
    }
}
