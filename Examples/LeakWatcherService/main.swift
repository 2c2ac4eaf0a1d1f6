// A service that links the leak watcher alone — LeakRuntime, no XCTest, no Testing — as an app's
// debug build or a staging service would. It watches each request's handler once the request is
// done; one kind of handler keeps itself alive through a closure. With LEAKHISTORY_UPLOAD=1 and
// the server's settings (see LeakUploader.Configuration), the finding goes to the server too.
//
//   swift run leak-watcher-example
import Foundation
import LeakRuntime

/// Done with its request, and gone.
final class ProfileHandler {
    var onFinish: (() -> Void)?
}

/// Done with its request, but its completion captures it strongly: a retain cycle.
final class UploadHandler {
    var completion: (() -> Void)?

    init() {
        completion = { self.finish() }
    }

    func finish() {}
}

var configuration = LeakWatcher.Configuration(strikes: 2, report: nil)
let uploader = LeakUploader.Configuration().map(LeakUploader.init(configuration:))
if let uploader {
    configuration.upload(to: uploader)
}
let watcher = LeakWatcher(configuration: configuration) { finding in
    print("leak: \(finding.record.message ?? finding.record.type)")
}

for request in 0..<4 {
    let handler: AnyObject = request == 2 ? UploadHandler() : ProfileHandler()
    watcher.watch(handler, name: "Service/request")
}
// What `start()` does every `interval`, twice in a row, here at once.
watcher.checkNow()
let findings = watcher.checkNow()
print("\(findings.count) of 4 handlers outlived their requests")
if let uploader {
    let sent = uploader.drain(timeout: 10)
    print(sent ? "uploaded to \(uploader.configuration.server.absoluteString)" : "not all uploaded: the server did not answer")
}
exit(findings.count == 1 ? 0 : 1)
