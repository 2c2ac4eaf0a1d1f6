/// The server could not start: the message says why and what to try.
public struct ServerStartError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
