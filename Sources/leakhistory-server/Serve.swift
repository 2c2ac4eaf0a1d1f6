import Dispatch
import Foundation
import LeakServer
import LeakStore

/// The default command: open the database, make sure a project exists, serve until a signal.
struct Serve {
    let configuration: ServerConfiguration

    func run() throws -> Int32 {
        let store = try ServerTool.openStore(configuration)
        if try store.projectNames().isEmpty {
            let token = try store.createProject("default")
            say("created project \"default\"; its write token (shown once, keep it): \(token.secret)")
        }
        let server = LeakServer(configuration: configuration, store: store)
        let stopRequested = DispatchSemaphore(value: 0)
        let signals = SignalWatcher(signals: [SIGTERM, SIGINT]) { count in
            if count == 1 {
                stopRequested.signal()
            } else {
                FileHandle.standardError.write(Data("leakhistory-server: second signal, exiting now\n".utf8))
                _exit(1)
            }
        }
        let port = try server.start()
        say("leakhistory-server database: \(store.location)")
        say("leakhistory-server listening on http://\(configuration.host):\(port)")
        stopRequested.wait()
        say("leakhistory-server stopping: finishing requests in flight")
        server.stop()
        say("leakhistory-server stopped")
        withExtendedLifetime(signals) {}
        return 0
    }

    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
