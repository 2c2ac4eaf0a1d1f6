import GzipCoding
import Foundation

/// How a fuzzer's bytes become an upload, so that the libFuzzer target and the regression tests
/// that replay its findings send exactly the same request.
///
/// The first byte picks the path through the server, the rest is the body:
/// - `mode % 3 == 0`: the body as JSON (the run decoder and validation);
/// - `mode % 3 == 1`: the body as-is with `Content-Encoding: gzip` (the inflater on garbage);
/// - `mode % 3 == 2`: the body gzip-compressed here, then sent as gzip (the inflater, then the decoder).
///
/// ```swift
/// let upload = FuzzedUpload(Data([0]) + Data(#"{"schema":"leakhistory.run/1"}"#.utf8))
/// _ = try connection.request("POST", path, body: upload.body, headers: upload.headers)
/// ```
public struct FuzzedUpload: Sendable {
    public var body: Data
    public var headers: [String: String]

    public init(_ input: Data) {
        let mode = input.first.map { $0 % 3 } ?? 0
        let payload = Data(input.dropFirst())
        switch mode {
        case 1:
            body = payload
            headers = ["Content-Encoding": "gzip"]
        case 2:
            body = (try? Gzip.compress(payload, level: 6)) ?? payload
            headers = ["Content-Encoding": "gzip"]
        default:
            body = payload
            headers = [:]
        }
    }
}
