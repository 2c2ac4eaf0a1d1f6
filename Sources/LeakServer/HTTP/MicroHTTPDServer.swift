import CMicroHTTPD
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The libmicrohttpd daemon: accepts connections on its own thread pool, reads each request's
/// body (up to a limit) and hands the complete request to `respond`, on the same thread.
///
/// Everything here is called from libmicrohttpd's threads, so nothing in it is actor-isolated.
final class MicroHTTPDServer: Sendable {
    struct Options: Sendable {
        var host: String
        var port: UInt16
        /// The thread pool size; 1 means one polling thread.
        var threads: Int
        var connectionLimit: Int
        var connectionTimeoutSeconds: Int
        /// A body longer than this is not read: the request arrives with `bodyTooLarge` set.
        var maxBodyBytes: Int
    }

    /// A request as read off the wire.
    struct Incoming: Sendable {
        var method: String
        var path: String
        var query: [String: String]
        var headers: [String: String]
        var body: Data
        var bodyTooLarge: Bool
    }

    /// The daemon pointer, kept as an integer so the type stays `Sendable`; 0 when stopped.
    private let daemonAddress = Atomic<Int>(0)
    /// Requests whose headers have arrived and whose response is not yet sent.
    let inFlight: RequestsInFlight
    private let options: Options
    private let respond: @Sendable (Incoming) -> Response

    init(options: Options, inFlight: RequestsInFlight, respond: @escaping @Sendable (Incoming) -> Response) {
        self.options = options
        self.inFlight = inFlight
        self.respond = respond
    }

    /// libmicrohttpd holds an unretained pointer to this object: never let it outlive the daemon.
    deinit { stop(grace: .zero) }

    /// Binds and starts serving; returns the bound port (the real one when asked for port 0).
    func start() throws -> UInt16 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = options.port.bigEndian
        let host = options.host == "localhost" ? "127.0.0.1" : options.host
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw ServerStartError("cannot listen on host \"\(options.host)\": give an IPv4 address such as 127.0.0.1 or 0.0.0.0")
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        let daemon = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                lh_mhd_start(
                    socketAddress, UInt32(max(1, options.threads)), UInt32(options.connectionLimit),
                    UInt32(options.connectionTimeoutSeconds),
                    { cls, connection, url, method, _, uploadData, uploadSize, requestContext in
                        let server = Unmanaged<MicroHTTPDServer>.fromOpaque(cls!).takeUnretainedValue()
                        return server.access(connection: connection!, url: url, method: method, uploadData: uploadData,
                                             uploadSize: uploadSize!, requestContext: requestContext!)
                    }, context,
                    { cls, _, requestContext, _ in
                        let server = Unmanaged<MicroHTTPDServer>.fromOpaque(cls!).takeUnretainedValue()
                        server.completed(requestContext: requestContext)
                    }, context)
            }
        }
        guard let daemon else {
            throw ServerStartError("cannot listen on \(options.host):\(options.port): \(String(cString: strerror(errno))) "
                + "(is another process using the port? try --port 0 for any free port)")
        }
        daemonAddress.store(Int(bitPattern: UnsafeMutableRawPointer(daemon)), ordering: .sequentiallyConsistent)
        return lh_mhd_bound_port(daemon)
    }

    /// Stops accepting connections, waits up to `grace` for requests in flight, then stops.
    func stop(grace: Duration = .seconds(10)) {
        let address = daemonAddress.exchange(0, ordering: .sequentiallyConsistent)
        guard address != 0, let raw = UnsafeMutableRawPointer(bitPattern: address) else { return }
        let daemon = OpaquePointer(raw)
        // Quiesce hands the listening socket back; closing it now makes new connections fail
        // at once instead of waiting in the backlog for a server that will not accept them.
        let listener = MHD_quiesce_daemon(daemon)
        if listener >= 0 { close(listener) }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: grace)
        while inFlight.count > 0, clock.now < deadline {
            usleep(5_000)
        }
        MHD_stop_daemon(daemon)
    }

    // MARK: - libmicrohttpd callbacks

    /// Per-request state between libmicrohttpd's calls to the access handler.
    private final class Pending {
        var body = Data()
        var tooLarge = false
        /// Bytes thrown away after the body went over the limit.
        var discarded = 0
    }

    private func access(connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                        uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                        requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let raw = requestContext.pointee else {
            // First call: headers only. Refuse an announced oversize body before reading it.
            let pending = Pending()
            inFlight.began()
            requestContext.pointee = Unmanaged.passRetained(pending).toOpaque()
            if let length = Self.value(connection, .HEADER_KIND, "Content-Length").flatMap(Int.init) {
                if length > options.maxBodyBytes {
                    pending.tooLarge = true
                    return answer(connection, url: url, method: method, pending: pending)
                }
                pending.body.reserveCapacity(length)
            }
            return .YES
        }
        let pending = Unmanaged<Pending>.fromOpaque(raw).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if pending.tooLarge {
                // The 413 goes out once the body ends; a client that streams on past twice the
                // limit is cut off instead of being read forever.
                pending.discarded += uploadSize.pointee
                if pending.discarded > 2 * options.maxBodyBytes { return .NO }
            } else if let uploadData {
                if pending.body.count + uploadSize.pointee > options.maxBodyBytes {
                    pending.tooLarge = true
                    pending.discarded = pending.body.count + uploadSize.pointee
                    pending.body = Data()
                } else {
                    uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                        pending.body.append($0, count: uploadSize.pointee)
                    }
                }
            }
            uploadSize.pointee = 0
            return .YES
        }
        return answer(connection, url: url, method: method, pending: pending)
    }

    private func answer(_ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                        pending: Pending) -> MHD_Result {
        let incoming = Incoming(
            method: method.map { String(cString: $0) } ?? "",
            path: url.map { String(cString: $0) } ?? "/",
            query: Self.values(connection, .GET_ARGUMENT_KIND),
            headers: Self.values(connection, .HEADER_KIND),
            body: pending.body, bodyTooLarge: pending.tooLarge)
        pending.body = Data()
        let response = respond(incoming)
        let mhdResponse = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                            .RESPMEM_MUST_COPY)
        }
        guard let mhdResponse else { return .NO }
        defer { MHD_destroy_response(mhdResponse) }
        for (name, value) in response.headers {
            _ = MHD_add_response_header(mhdResponse, name, value)
        }
        return MHD_queue_response(connection, UInt32(response.status), mhdResponse)
    }

    private func completed(requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard let requestContext, let raw = requestContext.pointee else { return }
        Unmanaged<Pending>.fromOpaque(raw).release()
        requestContext.pointee = nil
        inFlight.ended()
    }

    private static func value(_ connection: OpaquePointer, _ kind: MHD_ValueKind, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, kind, name).map { String(cString: $0) }
    }

    private final class Collected {
        let lowercaseKeys: Bool
        var values: [String: String] = [:]
        init(lowercaseKeys: Bool) { self.lowercaseKeys = lowercaseKeys }
    }

    private static func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [String: String] {
        let collected = Collected(lowercaseKeys: kind == .HEADER_KIND)
        _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let box = Unmanaged<Collected>.fromOpaque(cls).takeUnretainedValue()
            let name = String(cString: key)
            box.values[box.lowercaseKeys ? name.lowercased() : name] = value.map { String(cString: $0) } ?? ""
            return .YES
        }, Unmanaged.passUnretained(collected).toOpaque())
        return collected.values
    }
}
