// leakhistory-bench: the project's speed figures, each beside a baseline measured in the same
// run. Build in release: `swift run -c release leakhistory-bench library`.
import Foundation

let usage = """
    OVERVIEW: Measures LeakHistory's speed against baselines taken in the same run.

    USAGE: leakhistory-bench <suite> [--quick]

    SUITES:
      library   a passing expectDeallocation (report line included) vs. a bare weak-reference loop
      retain    retain-path search over 100,000 objects vs. a plain Mirror walk; the watcher's check
      queries   diff, trend, types and resolve over HTTP on a seeded database vs. one indexed lookup
      cli       leakhistory diff main..HEAD in a 10,000-commit repository vs. git rev-parse HEAD
      all       every suite above

    OPTIONS:
      --quick   a small version that runs in seconds (what .ci/run uses so the harness never rots)
    """

var arguments = Array(CommandLine.arguments.dropFirst())
let quick = arguments.contains("--quick")
arguments.removeAll { $0 == "--quick" }
guard let suite = arguments.first, arguments.count == 1, ["library", "retain", "queries", "cli", "all"].contains(suite) else {
    FileHandle.standardError.write(Data("Error: expected one suite: library, retain, queries, cli or all\n\n\(usage)\n".utf8))
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
if suite == "cli" || suite == "all" {
    do {
        print(try CLIBenchmark.run(quick: quick).render())
    } catch {
        FileHandle.standardError.write(Data("Error: the cli benchmark failed: \(error)\n".utf8))
        exit(1)
    }
}
