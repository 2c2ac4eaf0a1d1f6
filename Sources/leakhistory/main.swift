import Foundation

let code = await LeakHistoryCLI.main(Array(CommandLine.arguments.dropFirst()), context: .current)
exit(code.rawValue)
