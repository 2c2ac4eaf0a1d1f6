import LeakServer

/// The command line split into options and the command words.
struct ParsedArguments {
    var configPath: String?
    var host: String?
    var port: Int?
    var database: String?
    var retentionDays: Int?
    /// `migrate --from <database> --to <database>`.
    var from: String?
    var to: String?
    var readToken = false
    var help = false
    var command: [String] = []

    private static let valueOptions = ["--config", "--host", "--port", "--database", "--from", "--to", "--retention-days"]

    init(_ arguments: [String]) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if Self.valueOptions.contains(name) {
                guard let value = inlineValue ?? (index < arguments.count ? arguments[index] : nil) else {
                    throw UsageError("Missing value for '\(name) <\(name.dropFirst(2))>'")
                }
                if inlineValue == nil { index += 1 }
                switch name {
                case "--config": configPath = value
                case "--host": host = value
                case "--database": database = value
                case "--from": from = value
                case "--to": to = value
                case "--retention-days":
                    guard let days = Int(value) else { throw UsageError("'--retention-days \(value)': expected a number of days") }
                    retentionDays = days
                default:
                    guard let number = Int(value) else { throw UsageError("'--port \(value)': expected a number") }
                    port = number
                }
            } else if argument == "--read" {
                readToken = true
            } else if argument == "--help" || argument == "-h" || argument == "help" {
                help = true
            } else if argument.hasPrefix("-") {
                let known = Self.valueOptions + ["--read", "--help"]
                let suggestion = known.min { distance($0, argument) < distance($1, argument) }
                var message = "Unknown option '\(argument)'."
                if let suggestion, distance(suggestion, argument) <= 3 { message += " Did you mean '\(suggestion)'?" }
                throw UsageError(message)
            } else {
                command.append(argument)
            }
        }
    }

    /// The configuration file and environment, with the flags on top.
    func configuration(environment: [String: String]) throws -> ServerConfiguration {
        var configuration = try ServerConfiguration.load(path: configPath, environment: environment)
        if let host { configuration.host = host }
        if let port { configuration.port = port }
        if let database { configuration.database = database }
        if let retentionDays { configuration.retentionDays = retentionDays == 0 ? nil : retentionDays }
        try configuration.validate()
        return configuration
    }
}

/// Edit distance, for "Did you mean" suggestions.
private func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    var row = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
        var previous = row[0]
        row[0] = i
        for j in stride(from: 1, through: b.count, by: 1) {
            let old = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
            previous = old
        }
    }
    return row[b.count]
}
