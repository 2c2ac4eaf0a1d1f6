import Foundation
import LeakReport

extension LeakStore {
    /// Creates a project and its first write token.
    /// - Throws: `LeakStoreError.projectExists` when the name is taken.
    public func createProject(_ name: String) throws -> IssuedToken {
        try write { writer in
            let db = writer.connection
            if try db.scalarInt(sql: "SELECT id FROM projects WHERE name = \(name)") != nil {
                throw LeakStoreError.projectExists(name)
            }
            guard let projectID = try db.scalarInt(
                sql: "INSERT INTO projects (name, created_at) VALUES (\(name), \(ReportTimestamp.string(from: Date()))) RETURNING id")
            else { throw LeakStoreError.unavailable("the project insert returned no id") }
            return try insertToken(db, projectID: projectID, project: name, scope: .write)
        }
    }

    /// Project names, sorted, at most `limit`.
    public func projectNames(limit: Int) throws -> [String] {
        try read { db in
            var names: [String] = []
            try db.query(sql: "SELECT name FROM projects ORDER BY name LIMIT \(limit)") { names.append($0.string("name") ?? "") }
            return names
        }
    }

    /// Creates a token for an existing project.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func createToken(project: String, scope: TokenScope) throws -> IssuedToken {
        try write { writer in
            let db = writer.connection
            guard let projectID = try db.scalarInt(sql: "SELECT id FROM projects WHERE name = \(project)") else {
                throw LeakStoreError.projectNotFound(project)
            }
            return try insertToken(db, projectID: projectID, project: project, scope: scope)
        }
    }

    /// The project's tokens, oldest first, revoked ones included.
    public func tokens(project: String) throws -> [TokenSummary] {
        try read { db in
            guard let projectID = try db.scalarInt(sql: "SELECT id FROM projects WHERE name = \(project)") else {
                throw LeakStoreError.projectNotFound(project)
            }
            var tokens: [TokenSummary] = []
            try db.query(sql: "SELECT id, scope, created_at, revoked_at FROM tokens WHERE project_id = \(projectID) ORDER BY id") { row in
                tokens.append(TokenSummary(
                    id: row.int64("id"), project: project, scope: TokenScope(rawValue: row.string("scope") ?? "") ?? .read,
                    createdAt: row.string("created_at") ?? "", revokedAt: row.string("revoked_at")))
            }
            return tokens
        }
    }

    /// Revokes a token; it stops working at once, and this store forgets it (`rememberedToken`).
    /// Revoking twice keeps the first time.
    /// - Throws: `LeakStoreError.tokenNotFound`.
    public func revokeToken(id: Int64) throws {
        try write { writer in
            let db = writer.connection
            guard try db.scalarInt(sql: "SELECT id FROM tokens WHERE id = \(id)") != nil else {
                throw LeakStoreError.tokenNotFound(id)
            }
            try db.run(sql: "UPDATE tokens SET revoked_at = coalesce(revoked_at, \(ReportTimestamp.string(from: Date()))) WHERE id = \(id)")
        }
        // After the commit: a check that read the token as live before it is not kept either.
        tokenMemory.forget(id: id)
    }

    /// Checks a presented token against the database: looks the row up by the id in the token,
    /// then compares the SHA-256 of the whole token with the stored one in constant time. A live
    /// token is remembered (`rememberedToken`), any other verdict forgets it.
    public func verifyToken(_ presented: String) throws -> TokenVerdict {
        try read { try verifyToken(presented, on: $0) }
    }

    /// `verifyToken` in a transaction of the caller's (`CredentialCheck`).
    func verifyToken(_ presented: String, on db: any SQLConnection) throws -> TokenVerdict {
        guard let id = Self.tokenID(in: presented) else { return .unknown }
        let presentedHash = SHA256.hex(presented)
        let generation = tokenMemory.generation
        let verdict = try databaseVerdict(db, id: id, presentedHash: presentedHash)
        if case let .valid(id, project, scope) = verdict {
            tokenMemory.remember(hash: presentedHash, .init(id: id, project: project, scope: scope), generation: generation)
        } else {
            tokenMemory.forget(hash: presentedHash)
        }
        return verdict
    }

    /// Checks `credential` (when there is one) in the transaction `db` is in, before it writes.
    func check(_ credential: CredentialCheck?, on db: any SQLConnection) throws {
        guard let credential else { return }
        try credential.authorize(try verifyToken(credential.token, on: db))
    }

    /// The verdict `verifyToken` gave `presented` within `StoreOptions.tokenMemory`, if it was
    /// `.valid`, from memory alone: no database read, so an I/O thread may ask. Nil for a token
    /// not remembered as live (never checked, unknown, revoked, or checked too long ago): ask
    /// `verifyToken`. The database has the last word: a revoke by another process is seen at the
    /// token's next `verifyToken`, which a caller admitting on this verdict must still make.
    public func rememberedToken(_ presented: String) -> TokenVerdict? {
        guard tokenMemory.lifetime != nil, Self.tokenID(in: presented) != nil,
              let live = tokenMemory.recall(hash: SHA256.hex(presented)) else { return nil }
        return .valid(id: live.id, project: live.project, scope: live.scope)
    }

    private func databaseVerdict(_ db: any SQLConnection, id: Int64, presentedHash: String) throws -> TokenVerdict {
        var verdict = TokenVerdict.unknown
        try db.query(sql: """
            SELECT t.secret_hash, t.scope, t.revoked_at, p.name
            FROM tokens t JOIN projects p ON p.id = t.project_id WHERE t.id = \(id)
            """) { row in
            guard SHA256.constantTimeEqual(row.string("secret_hash") ?? "", presentedHash) else { return }
            if !row.isNull("revoked_at") {
                verdict = .revoked(id: id)
            } else {
                verdict = .valid(id: id, project: row.string("name") ?? "",
                                 scope: TokenScope(rawValue: row.string("scope") ?? "") ?? .read)
            }
        }
        return verdict
    }

    /// `lh_<id>_<secret>` (a secret of 64 bytes, no `_`) → id. Read as bytes: splitting the
    /// token into `Character`s cost more than the database lookup.
    static func tokenID(in token: String) -> Int64? {
        let bytes = token.utf8
        guard bytes.starts(with: "lh_".utf8) else { return nil }
        let rest = bytes.dropFirst(3)
        guard let separator = rest.firstIndex(of: UInt8(ascii: "_")) else { return nil }
        let secret = rest[rest.index(after: separator)...]
        guard secret.count == 64, !secret.contains(UInt8(ascii: "_")) else { return nil }
        return Int64(Substring(rest[..<separator]))
    }

    private func insertToken(_ db: any SQLConnection, projectID: Int64, project: String, scope: TokenScope) throws -> IssuedToken {
        // The id is part of the token, so insert first and set the hash once the id is known.
        guard let id = try db.scalarInt(sql: """
            INSERT INTO tokens (project_id, scope, secret_hash, created_at)
            VALUES (\(projectID), \(scope.rawValue), '', \(ReportTimestamp.string(from: Date()))) RETURNING id
            """)
        else { throw LeakStoreError.unavailable("the token insert returned no id") }
        let secret = "lh_\(id)_" + SHA256.hexString(SHA256.randomBytes(32))
        try db.run(sql: "UPDATE tokens SET secret_hash = \(SHA256.hex(secret)) WHERE id = \(id)")
        return IssuedToken(id: id, project: project, scope: scope, secret: secret)
    }
}

extension LeakStore {
    /// The state of token `id` now, for a credential derived from it earlier (a dashboard
    /// session): live (with its project and scope), revoked, or unknown.
    public func verifyToken(id: Int64) throws -> TokenVerdict {
        try read { db in
            var verdict = TokenVerdict.unknown
            try db.query(sql: """
                SELECT t.scope, t.revoked_at, p.name FROM tokens t JOIN projects p ON p.id = t.project_id WHERE t.id = \(id)
                """) { row in
                verdict = row.isNull("revoked_at")
                    ? .valid(id: id, project: row.string("name") ?? "", scope: TokenScope(rawValue: row.string("scope") ?? "") ?? .read)
                    : .revoked(id: id)
            }
            return verdict
        }
    }
}
