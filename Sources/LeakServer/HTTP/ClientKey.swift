/// What a request's share of the server is counted by — its connections, its workers, its place
/// in the fairness order, its unread answers: the credential it showed, else its address.
///
/// A request whose bearer token the store knows as live (`LeakStorage.rememberedToken`) is
/// counted by that token, not by its address, so that tokenless and stalled connections from the
/// same address (a misbehaving job on the same CI machine, a NAT) cannot take its share; any
/// other request is counted by its client's address (behind a trusted proxy, the real client's).
enum ClientKey: Hashable, Sendable, CustomStringConvertible {
    case address(ClientAddress)
    /// A token by its id (which names its project too).
    case token(Int64)

    var description: String {
        switch self {
        case let .address(address): "\(address)"
        case let .token(id): "token \(id)"
        }
    }
}
