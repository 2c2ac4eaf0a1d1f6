import Foundation
@testable import LeakServer
import Testing

/// Who the client is: the peer, or behind a trusted proxy the rightmost forwarded address that is
/// not itself a trusted proxy; never what an untrusted peer or the client itself wrote.
@Suite("Trusted proxies and forwarded headers")
struct TrustedProxiesTests {
    private func address(_ text: String) -> ClientAddress { ClientAddress(text)! }

    private let proxies = TrustedProxies(ranges: ["10.0.0.0/8", "2001:db8:ffff::/48"].map { AddressRange($0)! })

    private func client(_ peer: String, _ headers: [(String, String)], _ proxies: TrustedProxies? = nil) -> String {
        (proxies ?? self.proxies).client(peer: address(peer), headers: headers.map { (name: $0.0, value: $0.1) }).description
    }

    @Test func addressesParseAndPrintInBothFamilies() {
        #expect(address("192.0.2.7").description == "192.0.2.7")
        #expect(address("192.0.2.7").isIPv4)
        #expect(address("[2001:db8::1]").description == "2001:db8::1")
        #expect(address("2001:DB8:0:0::1") == address("2001:db8::1"))
        #expect(!address("::1").isIPv4)
        for bad in ["", "unknown", "_hidden", "example.com", "1.2.3", "1.2.3.4.5", "192.0.2.7:80", "::g", "[::1"] {
            #expect(ClientAddress(bad) == nil, "\(bad)")
        }
    }

    @Test func networksMatchByPrefixInBothFamilies() throws {
        let ten = try #require(AddressRange("10.0.0.0/8"))
        #expect(ten.contains(address("10.255.1.2")))
        #expect(!ten.contains(address("11.0.0.1")))
        // An IPv4 network never takes in an IPv6 address that happens to share bits.
        #expect(!ten.contains(address("a00::1")))
        let one = try #require(AddressRange("192.0.2.7"))
        #expect(one.contains(address("192.0.2.7")) && !one.contains(address("192.0.2.8")))
        let six = try #require(AddressRange("2001:db8::/32"))
        #expect(six.contains(address("2001:db8:1::5")) && !six.contains(address("2001:db9::1")))
        #expect(try #require(AddressRange("0.0.0.0/0")).contains(address("8.8.8.8")))
        #expect(try #require(AddressRange("10.1.2.3/8")).contains(address("10.9.9.9")))
        for bad in ["10.0.0.0/33", "10.0.0.0/", "10.0.0.0/x", "::/129", "10.0.0.0/8/8", "host/8", "10.0.0.0/-1"] {
            #expect(AddressRange(bad) == nil, "\(bad)")
        }
    }

    @Test func aHeaderFromAnUntrustedPeerIsIgnored() {
        #expect(client("192.0.2.7", [("X-Forwarded-For", "10.1.1.1")]) == "192.0.2.7")
        #expect(client("192.0.2.7", [("X-Forwarded-For", "203.0.113.9")]) == "192.0.2.7")
        // No proxies configured: nobody's header is read.
        #expect(client("10.0.0.2", [("X-Forwarded-For", "203.0.113.9")], TrustedProxies()) == "10.0.0.2")
    }

    @Test func theRightmostUntrustedHopIsTheClient() {
        // The client wrote 6.6.6.6 itself; the first proxy saw 203.0.113.9; a second proxy saw the first.
        #expect(client("10.0.0.2", [("X-Forwarded-For", "6.6.6.6, 203.0.113.9, 10.0.0.1")]) == "203.0.113.9")
        // Split across header lines, in order.
        #expect(client("10.0.0.2", [("X-Forwarded-For", "6.6.6.6"), ("x-forwarded-for", "203.0.113.9,10.0.0.1")]) == "203.0.113.9")
        // Every hop trusted: the request began inside, at the leftmost.
        #expect(client("10.0.0.2", [("X-Forwarded-For", "10.0.0.7, 10.0.0.1")]) == "10.0.0.7")
        // A trusted peer with no header (its own health check) is the client.
        #expect(client("10.0.0.2", []) == "10.0.0.2")
        // Ports, as some balancers write them.
        #expect(client("10.0.0.2", [("X-Forwarded-For", "203.0.113.9:51234")]) == "203.0.113.9")
    }

    @Test func ipv6HopsAndProxies() {
        #expect(client("2001:db8:ffff::2", [("X-Forwarded-For", "2001:db8:1::9")]) == "2001:db8:1::9")
        #expect(client("2001:db8:ffff::2", [("X-Forwarded-For", "[2001:db8:1::9]:443, 2001:db8:ffff::1")]) == "2001:db8:1::9")
        #expect(client("10.0.0.2", [("X-Forwarded-For", "::ffff:203.0.113.9")]) == "203.0.113.9")
    }

    @Test func anUnreadableHopWhereItMattersLeavesThePeer() {
        #expect(client("10.0.0.2", [("X-Forwarded-For", "garbage")]) == "10.0.0.2")
        #expect(client("10.0.0.2", [("X-Forwarded-For", "203.0.113.9, unknown")]) == "10.0.0.2")
        #expect(client("10.0.0.2", [("X-Forwarded-For", "")]) == "10.0.0.2")
        #expect(client("10.0.0.2", [("X-Forwarded-For", "203.0.113.9:")]) == "10.0.0.2")
        // Garbage the client wrote left of the real hop is never read.
        #expect(client("10.0.0.2", [("X-Forwarded-For", "garbage, 203.0.113.9")]) == "203.0.113.9")
    }

    @Test func forwardedIsReadWhenConfiguredAndOnlyThen() {
        let rfc = TrustedProxies(ranges: proxies.ranges, header: .forwarded)
        #expect(client("10.0.0.2", [("Forwarded", #"for=6.6.6.6, for=203.0.113.9;proto=https;by=10.0.0.2"#)], rfc) == "203.0.113.9")
        #expect(client("10.0.0.2", [("Forwarded", #"for="[2001:db8:1::9]:4711""#)], rfc) == "2001:db8:1::9")
        #expect(client("10.0.0.2", [("Forwarded", #"proto=https;For="203.0.113.9:80""#)], rfc) == "203.0.113.9")
        #expect(client("10.0.0.2", [("Forwarded", "for=unknown")], rfc) == "10.0.0.2")
        #expect(client("10.0.0.2", [("Forwarded", "for=_hidden, for=203.0.113.9")], rfc) == "203.0.113.9")
        #expect(client("10.0.0.2", [("Forwarded", #"for="203.0.113.9"#)], rfc) == "10.0.0.2")
        // A comma inside a quoted value does not split elements.
        #expect(client("10.0.0.2", [("Forwarded", #"for=203.0.113.9;x="a,b""#)], rfc) == "203.0.113.9")
        // The header not configured is the client's own text: never read.
        #expect(client("10.0.0.2", [("Forwarded", "for=6.6.6.6"), ("X-Forwarded-For", "203.0.113.9")]) == "203.0.113.9")
        #expect(client("10.0.0.2", [("Forwarded", "for=203.0.113.9"), ("X-Forwarded-For", "6.6.6.6")], rfc) == "203.0.113.9")
    }

    @Test func theSettingComesFromTheFileOrTheEnvironmentAndIsChecked() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("proxies-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("c.json").path
        try #"{"trustedProxies": ["10.0.0.0/8", "::1"], "forwardedHeader": "Forwarded"}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let file = try ServerConfiguration.load(path: path, environment: [:])
        #expect(file.trustedProxies.map(\.description) == ["10.0.0.0/8", "::1"])
        #expect(file.forwardedHeader == .forwarded)
        let environment = try ServerConfiguration.load(path: path, environment: [
            "LEAKHISTORY_TRUSTED_PROXIES": "192.0.2.1, 2001:db8::/32", "LEAKHISTORY_FORWARDED_HEADER": "x-forwarded-for",
        ])
        #expect(environment.trustedProxies.map(\.description) == ["192.0.2.1", "2001:db8::/32"])
        #expect(environment.forwardedHeader == .xForwardedFor)
        #expect(try ServerConfiguration.load(path: path, environment: ["LEAKHISTORY_TRUSTED_PROXIES": ""]).trustedProxies.isEmpty)
        let badEnvironment = #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.load(path: path, environment: ["LEAKHISTORY_TRUSTED_PROXIES": "10.0.0.0/40"])
        }
        #expect(badEnvironment?.description.contains("10.0.0.0/40") == true)
        try #"{"trustedProxies": ["proxy.internal"]}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let badFile = #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(path: path, environment: [:]) }
        #expect(badFile?.description.contains("proxy.internal") == true)
    }
}
