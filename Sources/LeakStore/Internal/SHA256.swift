import CCrypto

/// SHA-256 from OpenSSL's libcrypto, and a constant-time comparison to go with it.
public enum SHA256 {
    /// OpenSSL 3's SHA-256, looked up once. `SHA256()` and `EVP_sha256()` look the algorithm up
    /// among the providers on every call, under a lock: for a token of 40 bytes that lookup, not
    /// the hashing, was the cost of each hash of a small upload.
    private struct Algorithm: @unchecked Sendable {
        // Read-only once fetched; OpenSSL allows its use from any thread.
        let md: OpaquePointer
    }

    private static let algorithm: Algorithm = {
        guard let md = EVP_MD_fetch(nil, "SHA256", nil) else { preconditionFailure("OpenSSL has no SHA-256") }
        return Algorithm(md: md)
    }()

    /// The digest of `bytes` as 64 lowercase hex digits.
    public static func hex<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        var length: UInt32 = 0
        let input = Array(bytes)
        input.withUnsafeBufferPointer { buffer in
            _ = EVP_Digest(buffer.baseAddress, buffer.count, &digest, &length, algorithm.md, nil)
        }
        return hexString(digest)
    }

    public static func hex(_ text: String) -> String { hex(Array(text.utf8)) }

    /// The digest of input too big to gather first: `produce` hands it over in pieces, calling
    /// the function it is given with each; the digest is that of the pieces one after another.
    public static func hex(feeding produce: (_ feed: (UnsafeRawBufferPointer) -> Void) -> Void) -> String {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("OpenSSL could not allocate a digest context") }
        defer { EVP_MD_CTX_free(context) }
        precondition(EVP_DigestInit_ex(context, algorithm.md, nil) == 1, "OpenSSL has no SHA-256")
        produce { piece in _ = EVP_DigestUpdate(context, piece.baseAddress, piece.count) }
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        var length: UInt32 = 0
        _ = EVP_DigestFinal_ex(context, &digest, &length)
        return hexString(digest)
    }

    /// True when `a` and `b` are equal, taking the same time wherever they first differ.
    public static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8), right = Array(b.utf8)
        guard left.count == right.count else { return false }
        return left.withUnsafeBytes { l in
            right.withUnsafeBytes { r in CRYPTO_memcmp(l.baseAddress, r.baseAddress, l.count) == 0 }
        }
    }

    /// `count` bytes from OpenSSL's cryptographically secure generator.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = RAND_bytes(&bytes, Int32(count))
        precondition(ok == 1, "OpenSSL RAND_bytes failed: the system has no entropy source")
        return bytes
    }

    public static func hexString(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
