import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address, as the server tells clients apart: IPv4 is held in its IPv6-mapped
/// form (`::ffff:a.b.c.d`), so that one value and one comparison serve both families.
///
/// ```swift
/// ClientAddress("192.0.2.7")?.description     // "192.0.2.7"
/// ClientAddress("[2001:db8::1]")?.description // "2001:db8::1"
/// ```
public struct ClientAddress: Hashable, Sendable, CustomStringConvertible {
    /// The first and last 8 of the 16 bytes, read in network order: two words, not an array, so
    /// that a key of the worker pool's tables costs no allocation.
    private let high: UInt64
    private let low: UInt64

    /// `bytes`: 4 (IPv4) or 16 (IPv6) bytes in network order; nil for any other count.
    public init?(bytes: [UInt8]) {
        let all: [UInt8]
        switch bytes.count {
        case 4: all = Self.mappedPrefix + bytes
        case 16: all = bytes
        default: return nil
        }
        high = all[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        low = all[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The 16 bytes in network order.
    public var bytes: [UInt8] {
        (0..<16).map { index in UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> (56 - 8 * UInt64(index % 8))) }
    }

    /// Parses `192.0.2.7`, `2001:db8::1`, or either bracketed (`[2001:db8::1]`); nil for
    /// anything else (a host name, `unknown`, an obfuscated `_hidden` identifier, a port).
    public init?(_ text: some StringProtocol) {
        var text = String(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var four = in_addr()
        if text.contains("."), !text.contains(":"), inet_pton(AF_INET, text, &four) == 1 {
            self.init(bytes: withUnsafeBytes(of: four.s_addr) { Array($0) })
            return
        }
        var six = in6_addr()
        guard text.contains(":"), inet_pton(AF_INET6, text, &six) == 1 else { return nil }
        self.init(bytes: withUnsafeBytes(of: six) { Array($0) })
    }

    /// The address in a `sockaddr_in` or `sockaddr_in6`; nil for another family.
    init?(socketAddress: UnsafePointer<sockaddr>) {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            let address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
            self.init(bytes: withUnsafeBytes(of: address) { Array($0) })
        case AF_INET6:
            let address = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            self.init(bytes: withUnsafeBytes(of: address) { Array($0) })
        default:
            return nil
        }
    }

    /// The address a connection whose peer cannot be read is charged to: `::`, one bucket for all.
    public static let unspecified = ClientAddress(bytes: [UInt8](repeating: 0, count: 16))!

    /// Whether this is an IPv4 address (held mapped).
    public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    public var description: String {
        if isIPv4 { return bytes[12...].map(String.init).joined(separator: ".") }
        var six = in6_addr()
        withUnsafeMutableBytes(of: &six) { $0.copyBytes(from: bytes) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &six, &text, socklen_t(text.count)) != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
}

/// An address or a network of them in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`, or a single
/// address, a network of one), as `trustedProxies` names them.
public struct AddressRange: Hashable, Sendable, CustomStringConvertible {
    public let network: ClientAddress
    /// Leading bits that must match, counted on the 16-byte form (an IPv4 `/8` is 104 here).
    let prefixBits: Int
    public let description: String

    /// Parses `address` or `address/bits`; nil when either part is not valid.
    public init?(_ text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = ClientAddress(parts[0]) else { return nil }
        let width = address.isIPv4 ? 32 : 128
        var bits = width
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...width).contains(given), parts[1].allSatisfy(\.isNumber) else { return nil }
            bits = given
        }
        prefixBits = bits + (address.isIPv4 ? 96 : 0)
        network = ClientAddress(bytes: Self.masked(address.bytes, prefixBits))!
        description = text.trimmingCharacters(in: .whitespaces)
    }

    public func contains(_ address: ClientAddress) -> Bool {
        Self.masked(address.bytes, prefixBits) == network.bytes
    }

    private static func masked(_ bytes: [UInt8], _ bits: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(8, max(0, bits - index * 8))
            return kept == 8 ? byte : byte & UInt8(truncatingIfNeeded: 0xFF << (8 - kept))
        }
    }
}

extension AddressRange: Codable {
    /// Read from and written as its text (`"10.0.0.0/8"`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let range = AddressRange(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(text)\" is not an address or network: expected e.g. 10.0.0.2, 10.0.0.0/8 or 2001:db8::/32")
        }
        self = range
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
