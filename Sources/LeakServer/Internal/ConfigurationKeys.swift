/// Keys starting with `_` are comments; any other key the type does not know is an error.
enum ConfigurationKeys {
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static func refuseUnknown(in decoder: any Decoder, known: [String]) throws {
        let all = try decoder.container(keyedBy: AnyKey.self)
        for key in all.allKeys where !key.stringValue.hasPrefix("_") && !known.contains(key.stringValue) {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: all,
                debugDescription: "unknown setting; known settings here are \(known.joined(separator: ", "))")
        }
    }
}
