/// What a request's share of the server is counted by — its connections, its workers, its place
/// in the fairness order, its unread answers: the credential it showed from its address, else
/// its address alone.
///
/// A request whose bearer token the store knows as live (`LeakStorage.rememberedToken`) is
/// counted by that token and its client's address together, apart from the address's other
/// requests: tokenless and stalled connections from the same address (a misbehaving job on the
/// same CI machine, a NAT) cannot take its share, and neither can the same token used from
/// elsewhere. Any other request is counted by its client's address (behind a trusted proxy,
/// the real client's).
enum ClientKey: Hashable, Sendable, CustomStringConvertible {
    case address(ClientAddress)
    /// A token, by its id (which names its project too), shown from an address.
    case credential(token: Int64, address: ClientAddress)

    var description: String {
        switch self {
        case let .address(address): "\(address)"
        case let .credential(token, address): "token \(token) from \(address)"
        }
    }
}
