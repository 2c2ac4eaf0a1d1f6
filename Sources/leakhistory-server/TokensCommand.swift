import LeakServer
import LeakStore

/// `leakhistory-server tokens create|list|revoke`.
enum TokensCommand {
    static func run(_ words: [String], readOnly: Bool, configuration: ServerConfiguration) throws -> Int32 {
        switch (words.first, words.count) {
        case ("create", 2):
            let token = try ServerTool.openStore(configuration, announce: true).createToken(project: words[1], scope: readOnly ? .read : .write)
            print(token.secret)
        case ("list", 2):
            let tokens = try ServerTool.openStore(configuration, announce: true).tokens(project: words[1])
            print("ID\tSCOPE\tCREATED\tREVOKED")
            for token in tokens {
                print("\(token.id)\t\(token.scope.rawValue)\t\(token.createdAt)\t\(token.revokedAt ?? "-")")
            }
        case ("revoke", 2):
            guard let id = Int64(words[1]) else { throw UsageError("'tokens revoke \(words[1])': expected a token id") }
            try ServerTool.openStore(configuration, announce: true).revokeToken(id: id)
            print("revoked token \(id)")
        default:
            throw UsageError("expected `tokens create <project> [--read]`, `tokens list <project>` or `tokens revoke <id>`")
        }
        return 0
    }
}
