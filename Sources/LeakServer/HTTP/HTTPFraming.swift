import Foundation

/// The HTTP/1.1 framing rules libmicrohttpd does not enforce itself, checked on the headers
/// before any body byte is read. A request that breaks one is answered and its connection
/// closed: the bytes after it cannot be trusted to start a new request (request smuggling).
enum HTTPFraming {
    /// The refusal for a request line and headers (names as sent, in order), or nil.
    static func refusal(rawURI: String, headers: [(name: String, value: String)]) -> HTTPFailure? {
        // libmicrohttpd decodes %00 and cuts the value there: `?branch=main%00evil` would answer for main.
        if rawURI.utf8.contains(0) || containsEncodedNUL(rawURI) {
            return .badRequest("the path or query contains %00 (a NUL byte), which no name or value here may hold",
                               code: "invalid_request")
        }
        let lengths = headers.filter { $0.name.lowercased() == "content-length" }.map(\.value)
        let codings = headers.filter { $0.name.lowercased() == "transfer-encoding" }.map(\.value)
        if lengths.count > 1 {
            return .badRequest("the request has \(lengths.count) Content-Length headers; send exactly one",
                               code: "invalid_framing")
        }
        if let length = lengths.first, length.isEmpty || !length.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            return .badRequest("Content-Length \"\(QueryInput.clip(length))\" is not a whole number of bytes",
                               code: "invalid_framing")
        }
        guard !codings.isEmpty else { return nil }
        if !lengths.isEmpty {
            return .badRequest("the request has both Transfer-Encoding and Content-Length; send one of them",
                               code: "invalid_framing")
        }
        let coding = codings.joined(separator: ",").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard coding == ["chunked"] else {
            return HTTPFailure(501, "unsupported_transfer_encoding",
                               "Transfer-Encoding \"\(QueryInput.clip(codings.joined(separator: ", ")))\" is not supported; "
                                   + "send Transfer-Encoding: chunked or a Content-Length")
        }
        return nil
    }

    private static func containsEncodedNUL(_ uri: String) -> Bool {
        let bytes = Array(uri.utf8)
        guard bytes.count >= 3 else { return false }
        for index in 0...(bytes.count - 3) where bytes[index] == UInt8(ascii: "%")
            && bytes[index + 1] == UInt8(ascii: "0") && bytes[index + 2] == UInt8(ascii: "0") {
            return true
        }
        return false
    }
}
