import LeakReport

/// How retain paths spell types and properties.
enum RetainPathNames {
    /// `App.Screens.ProfileViewModel` → `ProfileViewModel`; generic arguments kept short too.
    static func short(_ qualified: String) -> String {
        RetainPathStep.shortName(qualified)
    }

    static func short(_ type: Any.Type) -> String {
        short(String(reflecting: type))
    }

    /// Field labels as people read them: lazy storage shows under the property's own name.
    static func property(_ label: String) -> String {
        let lazyPrefix = "$__lazy_storage_$_"
        return label.hasPrefix(lazyPrefix) ? String(label.dropFirst(lazyPrefix.count)) : label
    }

    /// `coordinator` + `children` → `coordinator.children`; tuple labels `.0` keep their dot.
    static func join(_ path: String, _ label: String) -> String {
        if path.isEmpty { return label.hasPrefix(".") ? String(label.dropFirst()) : label }
        return label.hasPrefix(".") || label.hasPrefix("[") ? path + label : path + "." + label
    }

    /// A dictionary key as a subscript: `"profile"` for strings, the description otherwise,
    /// without brackets so the path stays parseable, and cut at 40 characters.
    static func key(_ key: Any) -> String {
        var text: String
        if let string = key as? String {
            text = "\"" + string + "\""
        } else {
            text = String(describing: key)
        }
        text = String(text.map { $0 == "[" || $0 == "]" ? "_" : $0 })
        return text.count > 40 ? String(text.prefix(39)) + "…" : text
    }
}
