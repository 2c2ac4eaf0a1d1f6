import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LeakServer
import LeakStore

/// The default command: open the database, make sure a project exists, serve until a signal.
struct Serve {
    let configuration: ServerConfiguration

    func run() throws -> Int32 {
        Self.limitMallocArenas()
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
        // Refuse new connections before saying so: whoever reads the line may connect at once.
        server.stopAccepting()
        say("leakhistory-server stopping: finishing requests in flight")
        server.stop()
        say("leakhistory-server stopped")
        withExtendedLifetime(signals) {}
        return 0
    }

    /// glibc gives a thread that allocates while others do an arena of its own, up to eight per
    /// core, and each arena keeps the memory freed in it. With the request threads and workers
    /// decoding uploads side by side, `leakhistory-bench ingest` saw the server hold 90 MiB after
    /// its 1,000- and 10-check rounds and peak at 170–200 MiB in the 100,000-check uploads; with
    /// one arena per core, 51 MiB and 120 MiB, at the same speed. `MALLOC_ARENA_MAX`, when set, wins.
    private static func limitMallocArenas() {
        #if canImport(Glibc)
        // `mallopt` is in <malloc.h>, which the Glibc module leaves out; M_ARENA_MAX is -8 there.
        guard ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil, let symbol = dlsym(nil, "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        _ = mallopt(-8, Int32(clamping: max(2, ProcessInfo.processInfo.activeProcessorCount)))
        #endif
    }

    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
