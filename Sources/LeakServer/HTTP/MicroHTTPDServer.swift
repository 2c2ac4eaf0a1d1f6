import CMicroHTTPD
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The libmicrohttpd daemon. Its I/O threads only move bytes: a request's headers are checked
/// (framing, then `admit`: route, size, token) before any body byte is read, the body is read
/// up to a limit, and the complete request is handed to `respond` on the worker pool while the
/// connection is suspended; the answer goes out when the worker resumes it.
///
/// Everything here is called from libmicrohttpd's threads, so nothing in it is actor-isolated.
final class MicroHTTPDServer: Sendable {
    struct Options: Sendable {
        var host: String
        var port: UInt16
        /// I/O threads; 1 means one polling thread.
        var threads: Int
        var connectionLimit: Int
        /// Connection slots of one client (`ConnectionTable`).
        var perClientConnectionLimit: Int
        /// Whose forwarded header names the client (`TrustedProxies`).
        var trustedProxies: TrustedProxies
        var connectionMemoryBytes: Int
        var idleTimeoutSeconds: Int
        var requestDeadline: Duration
        /// A body longer than this is not kept (a longer announced one is refused by `admit`).
        var maxBodyBytes: Int
        var workers: WorkerPool.Limits
        var responseBytesPerClient: Int
        var responseBytesTotal: Int
    }

    /// A request's line and headers, before its body.
    struct Head: Sendable {
        var method: String
        /// The target as sent, still percent-encoded.
        var rawURI: String
        var path: String
        var query: [String: String]
        /// Lower-cased names; the last value wins (the framing check has seen every one).
        var headers: [String: String]
        /// The client: the connection's peer, or behind a trusted proxy the address it forwarded.
        var client: ClientAddress
        /// What the request is budgeted by: the token it showed with `client`, else `client` (`ClientKey`).
        var key: ClientKey
        /// A Content-Length over zero or a chunked body.
        var hasBody: Bool

        /// Bodies past this are big writes: an upload of about 25 checks or more as JSON, of a few
        /// hundred gzipped (as the CLI sends them); a 10-check shard is about 3 KiB.
        static let bigWriteBytes = 8 * 1_024

        /// Whether the request may be a big write, as its head tells: not a read, and a body of
        /// more than `bigWriteBytes` or of a length not given (chunked). Big writes wait for the
        /// one database writer, and leave alone the workers kept for reads and small writes
        /// (`WorkerPool.readReserve`); the body, once read, says for sure.
        var writesMuch: Bool {
            guard !["GET", "HEAD"].contains(method), hasBody else { return false }
            return headers["content-length"].flatMap(Int.init).map { $0 > Self.bigWriteBytes } ?? true
        }
    }

    /// What to do with a request once its headers are in.
    enum Admission: Sendable {
        case proceed
        /// Answer now; when a body is on its way, the connection is closed after the answer.
        case refuse(Response)
        /// Run `check` on a worker (it may query the database) before reading the body; a
        /// response refuses the request.
        case check(@Sendable () -> Response?)
    }

    /// A request as read off the wire.
    struct Incoming: Sendable {
        var head: Head
        var body: Data
        var bodyTooLarge: Bool
        /// Whether `admit`'s check ran on a worker, and passed, before the body was read.
        var credentialChecked: Bool
        var method: String { head.method }
        var path: String { head.path }
    }

    /// The daemon pointer, kept as an integer so the type stays `Sendable`; 0 when stopped.
    private let daemonAddress = Atomic<Int>(0)
    private let accepting = Atomic<Bool>(false)
    /// Requests whose headers have arrived and whose response is not yet sent.
    let inFlight: RequestsInFlight
    let connections: ConnectionTable
    let pool: WorkerPool
    let budget: ResponseBudget
    private let refusals: HTTPRefusals
    private let options: Options
    private let admit: @Sendable (Head) -> Admission
    /// The id of the token a request's headers show, when the store knows it as live without a
    /// database read (`ClientKey.credential`); nil otherwise.
    private let credential: @Sendable ([String: String]) -> Int64?
    /// Answers a request by calling its second argument once, on any thread.
    private let respond: @Sendable (consuming Incoming, @escaping @Sendable (Response) -> Void) -> Void
    /// Connections suspended and not resumed yet: their answers may come after every worker
    /// has returned (from the database's writer), and the daemon must outlive them.
    private let suspended = Atomic<Int>(0)

    init(options: Options, inFlight: RequestsInFlight, refusals: HTTPRefusals,
         credential: @escaping @Sendable ([String: String]) -> Int64?, admit: @escaping @Sendable (Head) -> Admission,
         respond: @escaping @Sendable (consuming Incoming, @escaping @Sendable (Response) -> Void) -> Void) {
        self.options = options
        self.inFlight = inFlight
        self.refusals = refusals
        self.credential = credential
        self.admit = admit
        self.respond = respond
        connections = ConnectionTable(deadline: options.requestDeadline, limit: options.perClientConnectionLimit, refusals: refusals)
        pool = WorkerPool(limits: options.workers)
        budget = ResponseBudget(perClient: options.responseBytesPerClient, total: options.responseBytesTotal)
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
        Self.raiseOpenFileLimit(toFit: options.connectionLimit)
        let context = Unmanaged.passUnretained(self).toOpaque()
        // Before the daemon: its first request may need a worker.
        pool.start()
        let daemon = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                var settings = lh_mhd_settings(
                    address: socketAddress, threads: UInt32(max(1, options.threads)),
                    connection_limit: UInt32(options.connectionLimit),
                    connection_memory: options.connectionMemoryBytes,
                    idle_timeout_seconds: UInt32(options.idleTimeoutSeconds),
                    handler: { cls, connection, url, method, _, uploadData, uploadSize, requestContext in
                        MicroHTTPDServer.server(cls).access(connection: connection!, url: url, method: method, uploadData: uploadData,
                                                uploadSize: uploadSize!, requestContext: requestContext!)
                    },
                    completed: { cls, connection, requestContext, _ in
                        MicroHTTPDServer.server(cls).completed(connection: connection, requestContext: requestContext)
                    },
                    notify_connection: { cls, connection, socketContext, code in
                        guard let connection, let socketContext else { return }
                        let server = MicroHTTPDServer.server(cls)
                        if code == .CONNECTION_NOTIFY_STARTED {
                            let peer = lh_mhd_client_sockaddr(connection).flatMap(ClientAddress.init(socketAddress:)) ?? .unspecified
                            socketContext.pointee = Unmanaged.passRetained(ConnectionContext(peer: peer)).toOpaque()
                            let proxied = server.options.trustedProxies.trusts(peer)
                            server.connections.opened(connection, socket: lh_mhd_connection_fd(connection), address: proxied ? nil : peer)
                        } else {
                            server.connections.closed(connection)
                            if let raw = socketContext.pointee { Unmanaged<ConnectionContext>.fromOpaque(raw).release() }
                            socketContext.pointee = nil
                        }
                    },
                    uri_log: { _, uri, connection in
                        // Kept on the connection, not the request: libmicrohttpd frees nothing for a
                        // request that never reaches the access handler.
                        if let connection, let raw = lh_mhd_socket_context(connection) {
                            Unmanaged<ConnectionContext>.fromOpaque(raw).takeUnretainedValue().uri = uri.map { String(cString: $0) } ?? "/"
                        }
                        return nil
                    },
                    context: context)
                return lh_mhd_start(&settings)
            }
        }
        guard let daemon else {
            pool.stop()
            throw ServerStartError("cannot listen on \(options.host):\(options.port): \(String(cString: strerror(errno))) "
                + "(is another process using the port? try --port 0 for any free port)")
        }
        daemonAddress.store(Int(bitPattern: UnsafeMutableRawPointer(daemon)), ordering: .sequentiallyConsistent)
        accepting.store(true, ordering: .sequentiallyConsistent)
        connections.start()
        return lh_mhd_bound_port(daemon)
    }

    /// Closes the listening socket, so new connections fail at once instead of waiting in the
    /// backlog for a server that will not accept them; requests in flight go on. Idempotent.
    func stopAccepting() {
        guard accepting.exchange(false, ordering: .sequentiallyConsistent) else { return }
        let address = daemonAddress.load(ordering: .sequentiallyConsistent)
        guard address != 0, let raw = UnsafeMutableRawPointer(bitPattern: address) else { return }
        // Quiesce hands the listening socket back to us to close.
        let listener = MHD_quiesce_daemon(OpaquePointer(raw))
        if listener >= 0 { close(listener) }
    }

    /// Stops accepting connections, waits up to `grace` for requests in flight, then stops.
    func stop(grace: Duration = .seconds(10)) {
        stopAccepting()
        let address = daemonAddress.exchange(0, ordering: .sequentiallyConsistent)
        guard address != 0, let raw = UnsafeMutableRawPointer(bitPattern: address) else { return }
        let daemon = OpaquePointer(raw)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: grace)
        while inFlight.count > 0, clock.now < deadline {
            usleep(5_000)
        }
        connections.stop()
        // A worker still holding a suspended connection must resume it before the daemon goes,
        // and so must the writer that answers an upload once committed (each write is bounded).
        pool.stop()
        let answersDeadline = clock.now.advanced(by: .seconds(60))
        while suspended.load(ordering: .sequentiallyConsistent) > 0, clock.now < answersDeadline {
            usleep(1_000)
        }
        MHD_stop_daemon(daemon)
    }

    private static func server(_ cls: UnsafeMutableRawPointer?) -> MicroHTTPDServer {
        Unmanaged<MicroHTTPDServer>.fromOpaque(cls!).takeUnretainedValue()
    }

    /// Thousands of connections need as many descriptors; the soft limit is often 1,024.
    private static func raiseOpenFileLimit(toFit connections: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let wanted = rlim_t(connections + 256)
        guard limit.rlim_cur < wanted else { return }
        limit.rlim_cur = min(wanted, limit.rlim_max)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    // MARK: - libmicrohttpd callbacks

    /// What the server keeps per connection: its peer, and the request target as sent (before
    /// libmicrohttpd decodes it) of the request being read.
    private final class ConnectionContext: @unchecked Sendable {
        let peer: ClientAddress
        var uri = "/"
        init(peer: ClientAddress) { self.peer = peer }
    }

    /// Per-request state between libmicrohttpd's calls to the access handler, created when the
    /// request line arrives. Worker threads write `answer` before resuming the connection, and
    /// libmicrohttpd's resume orders that write before the I/O thread's next read.
    private final class Pending: @unchecked Sendable {
        enum Phase { case headers, checking, body, handling }
        let rawURI: String
        /// The key unread answers are charged to: the peer's address until the headers say more.
        var key: ClientKey
        var phase = Phase.headers
        var head: Head?
        var body = Data()
        var tooLarge = false
        /// `admit`'s check ran (on a worker, before the body).
        var checked = false
        /// Bytes thrown away after the body went over the limit (or all of them, `refused`).
        var discarded = 0
        /// Set on a worker: the answer to send after the connection is resumed. Set on the
        /// headers with `refused`: the answer to send once the body is read and thrown away.
        var answer: Response?
        /// The request was refused on its headers, and its body is read only to be thrown away,
        /// so that the answer reaches a client still sending it (`refuseBusy`).
        var refused = false
        var closeAfterAnswer = false

        init(rawURI: String, key: ClientKey) {
            self.rawURI = rawURI
            self.key = key
        }
    }

    private func access(connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                        uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                        requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let raw = requestContext.pointee else {
            let context = lh_mhd_socket_context(connection).map { Unmanaged<ConnectionContext>.fromOpaque($0).takeUnretainedValue() }
            let peer = context?.peer ?? .unspecified
            let pending = Pending(rawURI: context?.uri ?? url.map { String(cString: $0) } ?? "/", key: .address(peer))
            requestContext.pointee = Unmanaged.passRetained(pending).toOpaque()
            inFlight.began()
            return headers(connection, url: url, method: method, peer: peer, pending: pending)
        }
        let pending = Unmanaged<Pending>.fromOpaque(raw).takeUnretainedValue()
        switch pending.phase {
        case .headers:
            return .NO
        case .checking:
            // The call after the token check resumed the connection, still before the body.
            if pending.refused {
                // Given up in the queue: the body is read and thrown away, then the 503 goes out.
                pending.phase = .body
                return .YES
            }
            if let refusal = pending.answer {
                return queue(connection, refusal, client: pending.key, close: true)
            }
            pending.phase = .body
            return .YES
        case .body:
            if uploadSize.pointee > 0 {
                receive(uploadData, count: uploadSize.pointee, into: pending)
                uploadSize.pointee = 0
                // A client that streams on past twice the limit is cut off instead of being read forever.
                return pending.discarded > 2 * options.maxBodyBytes ? .NO : .YES
            }
            return handle(connection, pending: pending)
        case .handling:
            let answer = pending.answer ?? .error(HTTPFailure(500, "internal_error", "the request was not answered"))
            return queue(connection, answer, client: pending.key, close: pending.closeAfterAnswer)
        }
    }

    /// The first call: headers only. Framing, the route's own checks, then a connection slot of
    /// the client's (`ConnectionTable`), before any body byte.
    private func headers(_ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                         peer: ClientAddress, pending: Pending) -> MHD_Result {
        let list = Self.headerList(connection)
        let client = options.trustedProxies.client(peer: peer, headers: list)
        pending.key = .address(client)
        if let failure = HTTPFraming.refusal(rawURI: pending.rawURI, headers: list) {
            return queue(connection, .error(failure), client: pending.key, close: true)
        }
        var headers: [String: String] = [:]
        for (name, value) in list { headers[name.lowercased()] = value }
        let length = headers["content-length"].flatMap(Int.init) ?? 0
        pending.key = credential(headers).map { .credential(token: $0, address: client) } ?? .address(client)
        let head = Head(method: method.map { String(cString: $0) } ?? "",
                        rawURI: pending.rawURI, path: url.map { String(cString: $0) } ?? "/",
                        query: Self.values(connection, .GET_ARGUMENT_KIND), headers: headers,
                        client: client, key: pending.key, hasBody: length > 0 || headers["transfer-encoding"] != nil)
        pending.head = head
        // A request the route refuses on its headers takes no slot; any other needs one.
        let busy = { [self] in
            refuseBusy(connection, pending: pending, announcedLength: length,
                       "this client (\(pending.key)) already has \(options.perClientConnectionLimit) connections with requests "
                           + "on them; retry after the time in Retry-After, or send fewer requests at once")
        }
        switch admit(head) {
        case let .refuse(response):
            return queue(connection, response, client: pending.key, close: head.hasBody)
        case .proceed:
            guard connections.requestArrived(connection, key: pending.key) else { return busy() }
            pending.phase = .body
            if length > 0 { pending.body.reserveCapacity(length) }
            return .YES
        case let .check(check):
            guard connections.requestArrived(connection, key: pending.key) else { return busy() }
            pending.phase = .checking
            pending.checked = true
            return suspend(connection, pending: pending, writes: head.writesMuch) { resume in
                pending.answer = check()
                resume()
            }
        }
    }

    private func receive(_ data: UnsafePointer<CChar>?, count: Int, into pending: Pending) {
        if pending.tooLarge || pending.refused {
            pending.discarded += count
        } else if pending.body.count + count > options.maxBodyBytes {
            pending.tooLarge = true
            pending.discarded = pending.body.count + count
            pending.body = Data()
        } else if let data {
            data.withMemoryRebound(to: UInt8.self, capacity: count) { pending.body.append($0, count: count) }
        }
    }

    /// The request is complete: hand it to a worker, unless the pool or the budget is full.
    private func handle(_ connection: OpaquePointer, pending: Pending) -> MHD_Result {
        connections.received(connection)
        if pending.refused, let answer = pending.answer {
            pending.phase = .handling
            return queue(connection, answer, client: pending.key, close: false)
        }
        guard budget.admits(pending.key) else {
            return overloaded(connection, pending: pending,
                              "answers to this client (or to all clients) that are not read yet exceed the server's budget; "
                                  + "read the answers already asked for, then retry")
        }
        pending.phase = .handling
        // Past twice the limit the rest of a chunked body is not read: the connection cannot go on.
        pending.closeAfterAnswer = pending.tooLarge
        let writes = pending.head!.writesMuch && pending.body.count > Head.bigWriteBytes
        // The worker takes the body out of `pending` (which lives until the answer is sent) and
        // hands it on, so that a big upload's bytes go as soon as the handler has parsed them.
        return suspend(connection, pending: pending, writes: writes) { [respond] resume in
            respond(Incoming(head: pending.head!, body: pending.body.take(), bodyTooLarge: pending.tooLarge,
                             credentialChecked: pending.checked)) { answer in
                pending.answer = answer
                resume()
            }
        }
    }

    /// Runs `work` on the pool with the connection suspended; `work` calls the function it is
    /// given once, when `pending.answer` is set (before it returns, or later from another
    /// thread), which resumes the connection. A full pool is answered 503 at once.
    /// `writes`: the job is a big write (`Head.writesMuch`), which leaves alone the workers kept for the rest.
    private func suspend(_ connection: OpaquePointer, pending: Pending, writes: Bool,
                         _ work: @escaping @Sendable (_ resume: @escaping @Sendable () -> Void) -> Void) -> MHD_Result {
        let address = Int(bitPattern: UnsafeRawPointer(connection))
        let resume: @Sendable () -> Void = { [self] in
            MHD_resume_connection(OpaquePointer(bitPattern: address))
            suspended.subtract(1, ordering: .sequentiallyConsistent)
        }
        let refusal = pool.submit(client: pending.key, writes: writes, accepted: {
            MHD_suspend_connection(connection)
            self.suspended.add(1, ordering: .sequentiallyConsistent)
        }, expired: { [self] in
            // Waited too long for a worker: told to come back instead (`WorkerPool.queueWaitLimit`).
            pending.answer = busyAnswer("this request waited for a worker longer than the server lets one wait; "
                + "retry after the time in Retry-After")
            if pending.phase == .checking {
                let length = pending.head?.headers["content-length"].flatMap(Int.init) ?? 0
                pending.refused = pending.head?.headers["transfer-encoding"] == nil && length <= Self.drainedBodyBytes
            }
            resume()
        }) {
            work(resume)
        }
        guard let refusal else { return .YES }
        let message = switch refusal {
        case .clientBusy: "this client already has as many requests waiting as it may; retry once those are answered"
        case .full, .stopped: "every worker is busy and the queue is full; retry in a second"
        }
        if pending.phase == .checking {
            // Refused before the body: it is read and thrown away first, as for a full client.
            pending.phase = .headers
            pending.checked = false
            let length = pending.head?.headers["content-length"].flatMap(Int.init) ?? 0
            return refuseBusy(connection, pending: pending, announcedLength: length, message)
        }
        return overloaded(connection, pending: pending, message)
    }

    /// The 503 a busy server answers, with `Retry-After` (`WorkerPool.retryAfterSeconds`).
    private func busyAnswer(_ message: String) -> Response {
        refusals.refusedOverloaded()
        return .error(HTTPFailure(503, "overloaded", message, headers: ["Retry-After": String(pool.retryAfterSeconds)]))
    }

    /// A request refused for load on its headers. A body of up to `drainedBodyBytes` is read and
    /// thrown away before the 503 goes out: a server that answers and closes while the client is
    /// still sending resets the connection, and the client may lose the answer with it — a
    /// connection closed without an answer, which a busy server must never do. A longer or
    /// chunked body is answered at once and the connection closed: reading it would cost more
    /// than the refusal saves (a client sending one should wait for `100 Continue`).
    private func refuseBusy(_ connection: OpaquePointer, pending: Pending, announcedLength: Int, _ message: String) -> MHD_Result {
        let answer = busyAnswer(message)
        let chunked = pending.head?.headers["transfer-encoding"] != nil
        guard !chunked, announcedLength <= Self.drainedBodyBytes else {
            return queue(connection, answer, client: pending.key, close: true)
        }
        pending.answer = answer
        pending.refused = true
        pending.phase = .body
        return .YES
    }

    /// The longest body read only to be thrown away before a 503 (`refuseBusy`): more than a
    /// gzipped CI upload of many thousand checks, little next to what a connection may send.
    static let drainedBodyBytes = 1 << 20

    /// 503 with `Retry-After` for a request read in full; the connection is closed when the body
    /// was cut off.
    private func overloaded(_ connection: OpaquePointer, pending: Pending, _ message: String) -> MHD_Result {
        queue(connection, busyAnswer(message), client: pending.key, close: pending.phase != .handling || pending.tooLarge)
    }

    /// Queues `response` with the security headers every answer carries. Its body is handed to
    /// libmicrohttpd as one buffer, which goes out in the same `send` as the headers (a body read
    /// through a callback took a second one, and the client a second wake-up), and is counted
    /// against the budget until sent (or dropped).
    private func queue(_ connection: OpaquePointer, _ response: Response, client: ClientKey, close: Bool) -> MHD_Result {
        let box = ResponseBody(data: response.body, client: client, budget: budget)
        let mhdResponse = MHD_create_response_from_buffer_with_free_callback_cls(
            box.count, box.bytes.baseAddress, { cls in Unmanaged<ResponseBody>.fromOpaque(cls!).release() },
            Unmanaged.passRetained(box).toOpaque())
        guard let mhdResponse else {
            Unmanaged.passUnretained(box).release()
            return .NO
        }
        defer { MHD_destroy_response(mhdResponse) }
        for (name, value) in SecurityHeaders.merged(into: response.headers) {
            _ = MHD_add_response_header(mhdResponse, name, value)
        }
        if close { _ = MHD_add_response_header(mhdResponse, "Connection", "close") }
        return MHD_queue_response(connection, UInt32(response.status), mhdResponse)
    }

    /// A body's bytes where libmicrohttpd may read them until it frees the response, charged to
    /// the client's budget until then.
    private final class ResponseBody: @unchecked Sendable {
        /// A copy: `Data` promises its bytes a fixed address only inside `withUnsafeBytes`.
        let bytes: UnsafeMutableRawBufferPointer
        let count: Int
        let client: ClientKey
        let budget: ResponseBudget

        init(data: Data, client: ClientKey, budget: ResponseBudget) {
            bytes = .allocate(byteCount: max(1, data.count), alignment: 1)
            bytes.copyBytes(from: data)
            count = data.count
            self.client = client
            self.budget = budget
            budget.charge(client, data.count)
        }

        deinit {
            budget.release(client, count)
            bytes.deallocate()
        }
    }

    private func completed(connection: OpaquePointer?, requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        if let connection { connections.answered(connection) }
        guard let requestContext, let raw = requestContext.pointee else { return }
        Unmanaged<Pending>.fromOpaque(raw).release()
        requestContext.pointee = nil
        inFlight.ended()
    }

    private final class Collected {
        let lowercaseKeys: Bool
        var values: [String: String] = [:]
        var list: [(name: String, value: String)] = []
        init(lowercaseKeys: Bool) { self.lowercaseKeys = lowercaseKeys }
    }

    /// Every header in the order sent, repeats included.
    private static func headerList(_ connection: OpaquePointer) -> [(name: String, value: String)] {
        let collected = Collected(lowercaseKeys: false)
        _ = MHD_get_connection_values(connection, .HEADER_KIND, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let box = Unmanaged<Collected>.fromOpaque(cls).takeUnretainedValue()
            box.list.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
            return .YES
        }, Unmanaged.passUnretained(collected).toOpaque())
        return collected.list
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
