/// A value a handler can return: it knows how to become a response.
public protocol ResponseGenerator {
    func response() throws -> Response
}

extension Response: ResponseGenerator {
    public func response() throws -> Response { self }
}

extension ResponseGenerator where Self: Encodable {
    /// An `Encodable` value that opts in answers as `200` JSON.
    public func response() throws -> Response { try Response.json(self) }
}
