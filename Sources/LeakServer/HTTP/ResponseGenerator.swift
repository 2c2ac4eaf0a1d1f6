/// A value a handler can return: it knows how to become a response.
public protocol ResponseGenerator {
    func response() throws -> Response
}

extension Response: ResponseGenerator {
    public func response() throws -> Response { self }
}
