/// A command line parsed against a `CommandSpec`.
struct ParsedArguments: Sendable {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
    var wantsHelp = false

    func value(_ name: String) -> String? { values[name] }
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// Parses `arguments` (without the command name). `--name value` and `--name=value` both
    /// work; `--` ends the options.
    static func parse(_ arguments: [String], for spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" { optionsEnded = true; continue }
            if argument == "--help" || argument == "-h" { parsed.wantsHelp = true; continue }
            let (name, inlineValue) = split(argument)
            guard let option = spec.option(named: name) else {
                throw UsageError(unknownOption: name, among: spec.options.map(\.name) + ["--help"], command: spec)
            }
            if option.valueName == nil {
                if inlineValue != nil {
                    throw UsageError("'\(name)' takes no value", command: spec)
                }
                parsed.flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError("Missing value for '\(option.usage)'", command: spec)
            }
            if let choices = option.choices, !choices.contains(value) {
                throw UsageError("'\(value)' is not a valid value for '\(option.usage)'; use one of \(choices.joined(separator: ", "))", command: spec)
            }
            parsed.values[name] = value
        }
        return parsed
    }

    private static func split(_ argument: String) -> (String, String?) {
        guard let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}
