import Foundation

#if LIBFUZZER
/// libFuzzer's entry point, when built by `make fuzz` with `--sanitize fuzzer -Xswiftc -DLIBFUZZER`:
/// a failure aborts, and libFuzzer saves the input as `crash-<sha1>`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if let failure = UploadFuzzer.shared.check(Data(bytes: bytes, count: size)) {
        FileHandle.standardError.write(Data("leakhistory-fuzz: \(failure)\n".utf8))
        abort()
    }
    return 0
}
#else
/// Without libFuzzer: replays the inputs named on the command line (files, or folders of them)
/// through the same upload path, and exits 1 if any gets a 5xx or no answer.
@main
struct FuzzReplay {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard !arguments.isEmpty else {
            FileHandle.standardError.write(Data("""
                Usage: leakhistory-fuzz <input file or folder>...
                Replays fuzz inputs as uploads to an in-process server; exits 1 if any gets a 5xx.
                Built with `make fuzz`, the same target runs under libFuzzer instead.

                """.utf8))
            exit(2)
        }
        var files: [String] = []
        for path in arguments {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                FileHandle.standardError.write(Data("Error: no such file or folder: \(path)\n".utf8))
                exit(2)
            }
            if isFolder.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files += names.sorted().map { path + "/" + $0 }
            } else {
                files.append(path)
            }
        }
        var failed = 0
        for file in files {
            guard let input = FileManager.default.contents(atPath: file) else { continue }
            if let failure = UploadFuzzer.shared.check(input) {
                print("FAILED \(file): \(failure)")
                failed += 1
            }
        }
        print("leakhistory-fuzz: replayed \(files.count) inputs, \(failed) failed")
        exit(failed == 0 ? 0 : 1)
    }
}
#endif
