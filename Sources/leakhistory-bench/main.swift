// leakhistory-bench: the project's speed figures, each beside a baseline measured in the same
// run. Build in release: `swift run -c release leakhistory-bench library`.
import Foundation

let usage = """
    OVERVIEW: Measures LeakHistory's speed against baselines taken in the same run.

    USAGE: leakhistory-bench <suite> [--quick]

    SUITES:
      library   a passing expectDeallocation (report line included) vs. a bare weak-reference loop
      ingest    uploads from a client process to leakhistory-server (1,000-check runs: checks/s; 10-check runs:
                uploads/s) vs. Datasette's insert API driven by the same client (when datasette is on PATH) and
                raw SQLite inserts; peak server RSS; small requests during a 100,000-check upload
      retain    retain-path search over 100,000 objects vs. a plain Mirror walk; the watcher's check;
                the search from globals with 50 and 200 MB of heap vs. a plain scan of that memory
      queries   diff, types, trend, resolve, scenario history and every dashboard page over HTTP on a realistic
                history at 1M and 10M checks (LEAKHISTORY_BENCH_QUERIES_CHECKS=a,b for other sizes) vs. one
                indexed lookup, and the growth between the sizes
      storage   bytes on disk per passing check on a realistic history at 1M and 10M checks vs. a row per
                check; the upgrade in place of a 1M-check database
      cli       leakhistory diff main..HEAD in a 10,000-commit repository vs. git rev-parse HEAD
      gate      two seeded histories shaped like issue 45's (a server project, a merge-heavy library) with
                ground truth, every build judged by leakhistory check, with reports of 3 attempts and without:
                false failures and new leaks passed per build kind, decidable from the data or not
                (LEAKHISTORY_BENCH_GATE_RECORD=FILE records one pass; LEAKHISTORY_BENCH_GATE_REPLAY=FILE
                scores a recording with the rule as built now, in seconds)
      engines   the same uploads and diffs on SQLite, PostgreSQL with 1 server and with 3 servers; migrate of
                SQLite into PostgreSQL (needs LEAKHISTORY_BENCH_POSTGRES=postgres://…; skipped without it)
      all       every suite above

    RELIABILITY (not part of all; they need the leakhistory-server binary built beside this one):
      crash-test  SIGKILL the server 20 times under uploads, then fill a small disk; exits 1 on any loss
      load [--seconds N]
                  16 clients of mixed traffic for N seconds (default 60); exits 1 on any error
      attack      every issue-13 attack at once (slow connections, tokenless 30 MiB bodies, gzip bombs,
                  a page flood, non-reading clients) against a steady client, from other addresses, from the
                  steady client's own address, and through a trusted forwarding proxy; exits 1 unless it is
                  served (ATTACK_SKIP=slow,bodies,bombs,pages,readers leaves attacks out, to find which one
                  hurts; ATTACK_MODES=other,same,proxy runs only those settings)
      burst       200 simultaneous `leakhistory upload` of 2,000 checks from one address, direct and through
                  a trusted proxy (needs leakhistory built beside this); exits 1 unless all are stored and no
                  connection is closed without an answer
      bad-input   a 200 MiB upload, 10,000 idle connections, a 1 byte/s client; exits 1 unless refused cleanly

    OPTIONS:
      --quick   a small version that runs in seconds (what .ci/run uses so the harness never rots)
    """

var arguments = Array(CommandLine.arguments.dropFirst())
let quick = arguments.contains("--quick")
arguments.removeAll { $0 == "--quick" }
if arguments.first == "ingest-client" {
    // The ingest suite's client process (IngestClient), not a suite of its own.
    exit(IngestClient.main(Array(arguments.dropFirst())))
}
/// Runs a reliability test named `name` (`what` in its error line) and exits: 0 when it passed.
func runReliability(_ name: String, _ what: String, _ test: () throws -> Bool) -> Never {
    do {
        let passed = try test()
        print(passed ? "\(name): PASSED" : "\(name): FAILED")
        exit(passed ? 0 : 1)
    } catch {
        FileHandle.standardError.write(Data("Error: the \(what) could not run: \(error)\n".utf8))
        exit(1)
    }
}
if arguments == ["crash-test"] { runReliability("crash-test", "crash test") { try CrashTest.run() } }
if arguments == ["burst"] { runReliability("burst", "burst test") { try BurstTest.run(quick: quick) } }
if arguments == ["attack"] { runReliability("attack", "attack test") { try AttackTest.run(quick: quick) } }
if arguments == ["bad-input"] { runReliability("bad-input", "bad-input test") { try BadInputTest.run() } }
if arguments.first == "load" {
    var seconds = 60
    if arguments.count == 3, arguments[1] == "--seconds", let value = Int(arguments[2]), value > 0 {
        seconds = value
    } else if arguments.count != 1 {
        FileHandle.standardError.write(Data("Error: expected `load [--seconds N]`\n\n\(usage)\n".utf8))
        exit(2)
    }
    do {
        let passed = try LoadTest.run(seconds: seconds)
        print(passed ? "load: PASSED (no errors)" : "load: FAILED")
        exit(passed ? 0 : 1)
    } catch {
        FileHandle.standardError.write(Data("Error: the load test could not run: \(error)\n".utf8))
        exit(1)
    }
}
guard let suite = arguments.first, arguments.count == 1, ["library", "ingest", "retain", "queries", "storage", "cli", "gate", "engines", "all"].contains(suite) else {
    FileHandle.standardError.write(Data("Error: expected one suite: library, ingest, retain, queries, storage, cli, gate, engines or all\n\n\(usage)\n".utf8))
    exit(2)
}

// Report lines go to a temporary file, as they would in a test run, unless the caller chose one.
if ProcessInfo.processInfo.environment["LEAKHISTORY_REPORT"] == nil {
    let report = FileManager.default.temporaryDirectory.appendingPathComponent("leakhistory-bench-\(getpid()).ndjson").path
    setenv("LEAKHISTORY_REPORT", report, 1)
    atexit { if let path = getenv("LEAKHISTORY_REPORT") { unlink(path) } }
}

if suite == "library" || suite == "all" {
    print(await LibraryBenchmark.run(quick: quick).render())
}
if suite == "ingest" || suite == "all" {
    do {
        print(try IngestBenchmark.run(quick: quick).render())
    } catch {
        FileHandle.standardError.write(Data("Error: the ingest benchmark failed: \(error)\n".utf8))
        exit(1)
    }
}
if suite == "engines" || suite == "all" {
    do {
        if let table = try EngineBenchmark.run(quick: quick) { print(table.render()) }
    } catch {
        FileHandle.standardError.write(Data("Error: the engines benchmark failed: \(error)\n".utf8))
        exit(1)
    }
}
if suite == "retain" || suite == "all" {
    print(await RetainPathBenchmark.run(quick: quick).render())
}
if suite == "queries" || suite == "all" {
    do {
        print(try QueriesBenchmark.run(quick: quick).render())
    } catch {
        FileHandle.standardError.write(Data("Error: the queries benchmark failed: \(error)\n".utf8))
        exit(1)
    }
}
if suite == "storage" || suite == "all" {
    do {
        print(try StorageBenchmark.run(quick: quick).render())
    } catch {
        FileHandle.standardError.write(Data("Error: the storage benchmark failed: \(error)\n".utf8))
        exit(1)
    }
}
if suite == "cli" || suite == "all" {
    do {
        print(try CLIBenchmark.run(quick: quick).render())
    } catch {
        FileHandle.standardError.write(Data("Error: the cli benchmark failed: \(error)\n".utf8))
        exit(1)
    }
}
if suite == "gate" || suite == "all" {
    do {
        print(try GateBenchmark.run(quick: quick))
    } catch {
        FileHandle.standardError.write(Data("Error: the gate benchmark failed: \(error)\n".utf8))
        exit(1)
    }
}
