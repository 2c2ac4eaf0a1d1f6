import Foundation

// Thin by design: parse, run, exit. Everything that matters lives in LeakServer and LeakStore.
exit(ServerTool.run(Array(CommandLine.arguments.dropFirst())))
