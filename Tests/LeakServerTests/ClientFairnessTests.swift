import Foundation
@testable import LeakServer
import LoopbackClient
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Each client keeps its own share — behind a proxy, beside a misbehaving job on its own address,
/// in a burst — and a busy server answers every request it turns away.
@Suite("Fair shares per client")
struct ClientFairnessTests {
    /// Where the test proxy's connections to the server come from.
    static let proxySource = "127.77.0.1"

    /// A `POST /resolve` whose body is announced and half sent: a request in flight, holding a
    /// connection slot of its client, until the socket is closed.
    static func requestInFlight(_ client: HTTPClient, headers: [String] = []) throws -> Int32 {
        let socket = try client.openSocket()
        let head = (["POST /v1/projects/app/resolve HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json",
                     "Content-Length: 1000"] + headers + ["", #"{"candidates":"#]).joined(separator: "\r\n")
        guard send(socket, head, head.utf8.count, Int32(MSG_NOSIGNAL)) == head.utf8.count else {
            close(socket)
            throw ClientError("the head of a request in flight could not be sent")
        }
        return socket
    }

    /// Waits until the server has `count` requests in flight besides the one asking.
    static func waitForRequestsInFlight(_ server: TestServer, _ count: Int) throws {
        for _ in 0..<500 {
            let metrics = try HTTPClient(port: server.port, source: "127.0.0.99").get("/metrics").text
            if metrics.contains("leakhistory_http_requests_in_flight \(count + 1)\n") { return }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw ClientError("the server never had \(count) requests in flight")
    }

    @Test(arguments: [true, false])
    func twoClientsBehindOneProxyEachKeepTheirOwnLimits(trusted: Bool) throws {
        let server = try TestServer {
            $0.perClientConnectionLimit = 4
            if trusted { $0.trustedProxies = [AddressRange("127.77.0.0/16")!] }
        }
        let proxy = try ForwardingProxy(upstreamPort: server.port, source: Self.proxySource)
        defer { proxy.stop() }
        let hostile = HTTPClient(port: proxy.port, source: "127.0.0.21")
        let good = HTTPClient(port: proxy.port, source: "127.0.0.20")
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<4 { held.append(try Self.requestInFlight(hostile)) }
        try Self.waitForRequestsInFlight(server, 4)

        let fifth = try hostile.get("/healthz")
        #expect(fifth.status == 503)
        #expect(fifth.headers["retry-after"] != nil)
        let other = try good.get("/healthz")
        if trusted {
            // The good client is a client of its own, with its own slots.
            #expect(other.status == 200)
        } else {
            // Without the setting the proxy is one client, and the hostile one took its share.
            #expect(other.status == 503)
        }
    }

    @Test func aForwardedHeaderFromAnUntrustedPeerChangesNothing() throws {
        let server = try TestServer {
            $0.perClientConnectionLimit = 4
            $0.trustedProxies = [AddressRange("127.77.0.0/16")!]
        }
        let hostile = HTTPClient(port: server.port, source: "127.0.0.21")
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for index in 0..<4 { held.append(try Self.requestInFlight(hostile, headers: ["X-Forwarded-For: 10.9.9.\(index)"])) }
        try Self.waitForRequestsInFlight(server, 4)
        let spoofed = try hostile.get("/healthz", headers: ["X-Forwarded-For": "10.9.9.9"])
        #expect(spoofed.status == 503)
        #expect(try HTTPClient(port: server.port, source: "127.0.0.20").get("/healthz").status == 200)
    }

    /// Tokenless requests from an address hold all its slots; a request from the same address
    /// with a token the server has seen live is counted by its token and served.
    @Test func aTokenIsCountedApartFromTokenlessConnectionsOfItsAddress() throws {
        let server = try TestServer { $0.perClientConnectionLimit = 4 }
        let shared = HTTPClient(port: server.port, source: "127.0.0.9")
        // The token is checked once, from elsewhere, so that the server knows it as live.
        #expect(try HTTPClient(port: server.port, source: "127.0.0.50")
            .post(server.runsPath, body: RunFixture.body(runKey: "first"), headers: ["Authorization": "Bearer \(server.token)"]).status == 201)
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<4 { held.append(try Self.requestInFlight(shared)) }
        try Self.waitForRequestsInFlight(server, 4)

        #expect(try shared.get("/healthz").status == 503)
        let upload = try shared.post(server.runsPath, body: RunFixture.body(runKey: "second"),
                                     headers: ["Authorization": "Bearer \(server.token)"])
        #expect(upload.status == 201, "\(upload.text)")
        let read = try shared.get("/v1/projects/app/types?branch=main", headers: ["Authorization": "Bearer \(server.token)"])
        #expect(read.status == 200, "\(read.text)")
    }

    /// Connections that never send their headers give way, oldest first, once their address has
    /// more open than its limit; a connection that has talked is never pushed out.
    @Test func stalledConnectionsGiveWayOldestFirst() throws {
        let server = try TestServer { $0.perClientConnectionLimit = 2 }
        let client = HTTPClient(port: server.port, source: "127.0.0.9")
        let talking = try client.openAnsweredSocket()
        defer { close(talking) }
        let oldest = try client.openSocket()
        defer { close(oldest) }
        Thread.sleep(forTimeInterval: 0.05)
        let younger = try client.openSocket()
        defer { close(younger) }
        // Both silent connections must have stalled before the next one opens.
        Thread.sleep(forTimeInterval: ConnectionTable.stallAfter.seconds + 0.3)
        #expect(try client.get("/healthz").status == 200)
        var closedByServer: [Bool] = []
        for socket in [oldest, younger, talking] {
            var probe = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            var byte: UInt8 = 0
            let readable = poll(&probe, 1, socket == oldest ? 2_000 : 200) > 0
            closedByServer.append(readable && recv(socket, &byte, 1, Int32(MSG_DONTWAIT)) <= 0)
        }
        #expect(closedByServer == [true, false, false])
        #expect(try HTTPClient(port: server.port, source: "127.0.0.99").get("/metrics").text
            .contains("leakhistory_http_stalled_gave_way_total 1\n"))
    }

    /// Forty uploads at once from one address, on a server that runs one at a time with room for
    /// few: every connection gets an answer, each a 201 or a 503 with Retry-After, and the 503s
    /// asked again are all stored in the end.
    @Test func aBurstFromOneAddressIsAnsweredEveryTimeAndStoredOnRetry() throws {
        let server = try TestServer {
            $0.perClientConnectionLimit = 6
            $0.perClientQueue = 2
            $0.workers = 1
        }
        let client = HTTPClient(port: server.port, source: "127.0.0.9")
        let headers = ["Authorization": "Bearer \(server.token)"]
        let path = server.runsPath
        let uploads = 40
        let statuses = Collected<Int>()
        let unanswered = Collected<String>()
        let pending = Collected<Int>()
        // A thread each, released together, so that the connections really arrive at once.
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for index in 0..<uploads {
            done.enter()
            Thread {
                start.wait()
                defer { done.leave() }
                do {
                    let reply = try client.post(path, body: RunFixture.body(runKey: "burst-\(index)"), headers: headers)
                    statuses.append(reply.status)
                    if reply.status == 503 {
                        if reply.headers["retry-after"] == nil { unanswered.append("503 without Retry-After") }
                        pending.append(index)
                    }
                } catch {
                    unanswered.append("\(error)")
                }
            }.start()
        }
        for _ in 0..<uploads { start.signal() }
        done.wait()
        #expect(unanswered.values.isEmpty, "\(unanswered.values.prefix(3))")
        #expect(statuses.values.count == uploads)
        #expect(statuses.values.allSatisfy { $0 == 201 || $0 == 503 }, "\(statuses.values)")
        var left = pending.values
        for _ in 0..<200 where !left.isEmpty {
            left = try left.filter { index in
                try client.post(server.runsPath, body: RunFixture.body(runKey: "burst-\(index)"), headers: headers).status != 201
            }
        }
        #expect(left.isEmpty)
        #expect(try server.store.read { try $0.scalarInt("SELECT count(*) FROM runs") } == Int64(uploads))
    }
}

private extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
