import Foundation
import Synchronization

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

/// An answer that comes later, from another thread: `start` is handed the function to call once
/// with it. The dispatcher passes its own on and frees the worker meanwhile (an upload is
/// answered from the database's writer thread once committed); `response()` waits for it, for
/// any other caller.
public struct DeferredResponse: ResponseGenerator, Sendable {
    public typealias Answer = @Sendable (Result<Response, any Error>) -> Void
    let start: @Sendable (@escaping Answer) -> Void

    public init(_ start: @escaping @Sendable (@escaping Answer) -> Void) {
        self.start = start
    }

    public func response() throws -> Response {
        let answer = Mutex<Result<Response, any Error>?>(nil)
        let answered = DispatchSemaphore(value: 0)
        start { result in
            answer.withLock { $0 = result }
            answered.signal()
        }
        answered.wait()
        return try answer.withLock { $0 }!.get()
    }
}
