import Foundation
import LeakReport
import Testing

/// One seeded history uploaded to SQLite through one server, and to PostgreSQL through three
/// servers at once — each commit's runs spread across them, every run sent twice to two
/// different servers (a client retrying the same runKey) — must answer every diff, resolve,
/// types, trend, scenario history and commit question identically.
@Suite("SQLite and PostgreSQL answer alike")
struct EngineDifferentialTests {
    @Test(arguments: TestEngine.postgresOnly)
    func oneHistoryThroughOneSQLiteServerAndThreePostgresServersAnswersAlike(_ engine: TestEngine) throws {
        let history = SeededHistory(seed: 14)
        let sqlite = try TestServer()
        for run in history.runs { try Self.send(run.body, to: sqlite, expecting: [201]) }

        let database = try TestDatabase(engine)
        let first = try TestServer(database: database)
        // The servers are only read from the upload threads, each upload on its own connection.
        nonisolated(unsafe) let servers = [first, try TestServer(database: database, token: first.token),
                       try TestServer(database: database, token: first.token)]
        for commit in history.commitsInUploadOrder {
            let runs = history.runs.filter { $0.commit == commit }
            let failures = Collected<String>()
            DispatchQueue.concurrentPerform(iterations: runs.count * 2) { index in
                let run = runs[index / 2]
                let server = servers[(index / 2 + index % 2) % servers.count]
                do { try Self.send(run.body, to: server, expecting: [200, 201]) } catch { failures.append("\(error)") }
            }
            #expect(failures.values.isEmpty, "\(failures.values)")
        }
        let stored = try first.store.read { try $0.scalarInt("SELECT count(*) FROM runs") }
        #expect(stored == Int64(history.runs.count), "each runKey stored once")

        var compared = 0
        for (index, path) in history.questions.enumerated() {
            let expected = try Self.answer(path, from: sqlite)
            let actual = try Self.answer(path, from: servers[index % servers.count])
            #expect(actual == expected, "\(path)")
            compared += 1
        }
        #expect(compared > 100)
    }

    /// Uploads `body`, retrying while the server says 503 (busy or the database unreachable).
    static func send(_ body: Data, to server: TestServer, expecting statuses: Set<Int>) throws {
        for _ in 0..<50 {
            let reply = try server.upload(body)
            if statuses.contains(reply.status) { return }
            guard reply.status == 503 else { throw ClientError("upload answered \(reply.status): \(reply.text)") }
            usleep(50_000)
        }
        throw ClientError("upload still answered 503 after 50 tries")
    }

    /// The answer as a JSON value, without run ids (each engine numbers its runs; retries burn
    /// PostgreSQL ids) and with a commit's runs in runKey order (parallel uploads store a
    /// commit's runs in any order).
    static func answer(_ path: String, from server: TestServer) throws -> NSObject {
        let reply = path.hasPrefix("POST ")
            ? try server.client.post(String(path.dropFirst(5).prefix { $0 != " " }),
                                     body: Data(path.drop { $0 != "{" }.utf8))
            : try server.client.get(path)
        guard reply.status == 200 else { throw ClientError("\(path) answered \(reply.status): \(reply.text)") }
        return normalised(try JSONSerialization.jsonObject(with: reply.body))
    }

    static func normalised(_ value: Any) -> NSObject {
        switch value {
        case let object as [String: Any]:
            var out: [String: NSObject] = [:]
            for (key, inner) in object where key != "runID" { out[key] = normalised(inner) }
            if let runs = out["runs"] as? [NSDictionary] {
                out["runs"] = runs.sorted { ($0["runKey"] as? String ?? "") < ($1["runKey"] as? String ?? "") } as NSArray
            }
            return out as NSDictionary
        case let array as [Any]:
            return array.map(normalised) as NSArray
        default:
            return value as? NSObject ?? NSNull()
        }
    }
}

/// A deterministic history: a main line of 40 commits (every seventh without an upload), a
/// feature branch of 6 off commit 20, one or two runs a commit, keys that are always clean,
/// start leaking, get fixed, or flake; a suspect run; a second environment.
struct SeededHistory {
    struct Run {
        var commit: String
        var body: Data
    }

    private(set) var runs: [Run] = []
    private(set) var commitsInUploadOrder: [String] = []
    private(set) var questions: [String] = []

    init(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let scenarios = (0..<6).map { "Suite\($0)/test\($0)()" }
        let types = ["App.Alpha", "App.Beta", "Core.Gamma"]
        // Per key: how it behaves along the line.
        enum Behaviour { case clean, leaksFrom(Int), fixedAt(Int), flaky }
        var behaviour: [String: Behaviour] = [:]
        for scenario in scenarios {
            for type in types {
                behaviour[scenario + "|" + type] = switch random.next() % 4 {
                case 0: .clean
                case 1: .leaksFrom(Int(random.next() % 40) + 1)
                case 2: .fixedAt(Int(random.next() % 40) + 1)
                default: .flaky
                }
            }
        }
        func checks(at number: Int, random: inout SplitMix64) -> [HistoryFixture.Check] {
            var list: [HistoryFixture.Check] = []
            for scenario in scenarios {
                for type in types {
                    let leaks = switch behaviour[scenario + "|" + type]! {
                    case .clean: false
                    case let .leaksFrom(start): number >= start
                    case let .fixedAt(fix): number < fix
                    case .flaky: random.next() % 3 == 0
                    }
                    // Details are a function of the key alone, so the telling check is the same whichever run came first.
                    list.append(leaks ? .leaked(scenario, type, fingerprint: "fp-\(type)") : .clean(scenario, type))
                }
            }
            return list
        }
        let sha = HistoryFixture.sha
        func upload(_ number: Int, parent: Int?, branch: String) {
            commitsInUploadOrder.append(sha(number))
            let runCount = 1 + Int(random.next() % 2)
            for index in 0..<runCount {
                let body = HistoryFixture.runBody(commit: sha(number), branch: branch, parents: parent.map { [sha($0)] } ?? [],
                                                  runKey: "c\(number)-r\(index)", checks: checks(at: number, random: &random))
                runs.append(Run(commit: sha(number), body: body))
            }
            if number % 5 == 0 {
                let body = HistoryFixture.runBody(commit: sha(number), branch: branch, parents: parent.map { [sha($0)] } ?? [],
                                                  environment: "mac", runKey: "c\(number)-mac",
                                                  checks: checks(at: number, random: &random))
                runs.append(Run(commit: sha(number), body: body))
            }
            if number == 30 {
                let broken = (0..<25).map { HistoryFixture.Check.leaked("Broken/b\($0)()", "App.Everything") }
                runs.append(Run(commit: sha(number), body: HistoryFixture.runBody(
                    commit: sha(number), branch: branch, parents: parent.map { [sha($0)] } ?? [], runKey: "c30-suspect",
                    checks: broken, pad: false)))
            }
        }
        for number in 1...40 where number % 7 != 0 { upload(number, parent: number == 1 ? nil : number - 1, branch: "main") }
        for number in 101...106 { upload(number, parent: number == 101 ? 20 : number - 1, branch: "feature") }

        for number in 2...40 {
            questions.append("/v1/projects/app/diff?base=\(sha(number - 1))&head=\(sha(number))&environment=linux")
        }
        questions.append("/v1/projects/app/diff?base=\(sha(20))&head=\(sha(106))&environment=linux")
        questions.append("/v1/projects/app/diff?base=\(sha(14))&head=\(sha(30))&environment=linux&after=\(sha(15))")
        questions.append("/v1/projects/app/diff?head=\(sha(106))&environment=linux")
        questions.append("/v1/projects/app/diff?base=\(sha(10))&head=\(sha(35))&environment=mac")
        for number in stride(from: 8, through: 40, by: 4) {
            let candidates = (0..<6).map { "\"\(sha(number - $0))\"" }.joined(separator: ",")
            questions.append("POST /v1/projects/app/resolve {\"environment\":\"linux\",\"candidates\":[\(candidates)]}")
        }
        for branch in ["main", "feature"] {
            questions.append("/v1/projects/app/types?branch=\(branch)&environment=linux")
            for type in types + ["App.Everything"] {
                questions.append("/v1/projects/app/types/\(type)/trend?branch=\(branch)&environment=linux")
            }
        }
        for scenario in scenarios + ["Broken/b0()"] {
            let escaped = scenario.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? scenario
            questions.append("/v1/projects/app/scenarios/history?scenario=\(escaped)&environment=linux")
        }
        for commit in commitsInUploadOrder { questions.append("/v1/projects/app/commits/\(commit)") }
    }
}

