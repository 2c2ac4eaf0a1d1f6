/// The one rule for a commit id everywhere the server reads one (uploads, queries, pages):
/// 40 ASCII hex digits. `Character.isHexDigit` also accepts full-width digits such as "０".
enum CommitID {
    static func isValid(_ text: String) -> Bool {
        text.utf8.count == 40 && text.utf8.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        }
    }
}
