/// Who the client of a request really is. A connection's peer is the client unless it is one of
/// the configured proxies (`trustedProxies`); then the proxies' forwarded header names the
/// client, and it is read from the right: each proxy appends the address it received the request
/// from, so the rightmost address that is not itself a trusted proxy is the client. Whatever a
/// client writes into the header itself stays to the left of that and is never read. A header
/// from a peer that is not trusted is ignored whole, and one that cannot be read where it
/// matters (`unknown`, an obfuscated `_name`, garbage) leaves the peer as the client.
///
/// ```swift
/// let proxies = TrustedProxies(ranges: [AddressRange("10.0.0.0/8")!], header: .xForwardedFor)
/// proxies.client(peer: ClientAddress("10.0.0.2")!, headers: [("X-Forwarded-For", "6.6.6.6, 192.0.2.7")])
/// // 192.0.2.7: 6.6.6.6 is what the client claimed, 192.0.2.7 what the proxy saw.
/// ```
public struct TrustedProxies: Sendable, Hashable {
    /// The header the proxies write. Only one is read: a proxy that sets one passes the other
    /// through as the client sent it, so reading both would believe the client.
    public enum Header: String, Sendable, Hashable, Codable, CaseIterable {
        /// `X-Forwarded-For: client, proxy1, proxy2` (nginx, HAProxy, cloud load balancers).
        case xForwardedFor = "X-Forwarded-For"
        /// RFC 7239 `Forwarded: for=client;proto=https, for=proxy1`.
        case forwarded = "Forwarded"
    }

    public var ranges: [AddressRange]
    public var header: Header

    public init(ranges: [AddressRange] = [], header: Header = .xForwardedFor) {
        self.ranges = ranges
        self.header = header
    }

    public func trusts(_ address: ClientAddress) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// The client of a request that arrived from `peer` with `headers` (names as sent, in order,
    /// repeats included: several header lines are one list, in order).
    public func client(peer: ClientAddress, headers: [(name: String, value: String)]) -> ClientAddress {
        guard !ranges.isEmpty, trusts(peer) else { return peer }
        let name = header.rawValue.lowercased()
        let values = headers.filter { $0.name.lowercased() == name }.map(\.value)
        let hops = header == .forwarded ? Self.forwardedHops(values) : Self.listedHops(values)
        guard let hops else { return peer }
        for hop in hops.reversed() {
            guard let address = hop else { return peer }
            if !trusts(address) { return address }
        }
        // Every hop is a trusted proxy: the request began inside, at the leftmost one.
        return hops.first.flatMap { $0 } ?? peer
    }

    /// The addresses of `X-Forwarded-For` values, left to right; nil entries could not be read.
    static func listedHops(_ values: [String]) -> [ClientAddress?] {
        values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map { hopAddress($0) }
    }

    /// The `for=` addresses of RFC 7239 `Forwarded` values, one per element, left to right; an
    /// element without `for=` or with an unreadable one is a nil entry. Nil when a quoted string
    /// is not closed: then nothing in it can be placed.
    static func forwardedHops(_ values: [String]) -> [ClientAddress?]? {
        var hops: [ClientAddress?] = []
        for value in values {
            guard let elements = split(value, at: ",") else { return nil }
            for element in elements {
                guard let pairs = split(element, at: ";") else { return nil }
                let forValue = pairs.lazy.compactMap { pair -> Substring? in
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "for" else { return nil }
                    return parts[1]
                }.first
                hops.append(forValue.flatMap { hopAddress($0) })
            }
        }
        return hops
    }

    /// One hop's address: quotes, brackets and a port taken off (`"[2001:db8::1]:4711"`,
    /// `192.0.2.7:8080`); nil for anything that is not an address.
    static func hopAddress(_ text: Substring) -> ClientAddress? {
        var hop = text.trimmingCharacters(in: .whitespaces)
        if hop.count >= 2, hop.hasPrefix("\""), hop.hasSuffix("\"") { hop = String(hop.dropFirst().dropLast()) }
        if hop.hasPrefix("["), let close = hop.firstIndex(of: "]") {
            let rest = hop[hop.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber) && rest.count > 1) else { return nil }
            return ClientAddress(hop[hop.index(after: hop.startIndex)..<close])
        }
        let colons = hop.filter { $0 == ":" }.count
        if colons == 1, let colon = hop.firstIndex(of: ":") {
            let port = hop[hop.index(after: colon)...]
            guard !port.isEmpty, port.allSatisfy(\.isNumber) else { return nil }
            return ClientAddress(hop[..<colon])
        }
        return ClientAddress(hop)
    }

    /// `text` split at each `separator` outside a quoted string; nil when a quote is not closed.
    private static func split(_ text: some StringProtocol, at separator: Character) -> [Substring]? {
        let text = Substring(text)
        var parts: [Substring] = []
        var start = text.startIndex, index = text.startIndex
        var quoted = false
        while index < text.endIndex {
            let character = text[index]
            if quoted, character == "\\" {
                index = text.index(after: index)
                if index == text.endIndex { break }
            } else if character == "\"" {
                quoted.toggle()
            } else if !quoted, character == separator {
                parts.append(text[start..<index])
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        guard !quoted else { return nil }
        parts.append(text[start...])
        return parts
    }
}
