import Foundation

/// The dashboard's URLs, built in one place so that links pasted into a pull request stay
/// stable. Values are percent-encoded (only RFC 3986 unreserved characters stay as they are);
/// the result is still interpolated into `HTML`, which escapes it for the attribute.
struct DashboardLinks {
    /// The project the links belong to.
    var project: String

    /// `/`
    static let projects = "/"

    /// `/p/{project}`, optionally with `branch` and `environment`.
    func project(branch: String? = nil, environment: String? = nil) -> String {
        "/p/\(Self.segment(project))" + Self.query(["branch": branch, "environment": environment])
    }

    /// `/p/{project}/types/{type}?branch=&environment=`. A type holding `/` cannot travel in a
    /// path segment (the server decodes `%2F` before routing), so it goes in `?type=` instead.
    func type(_ type: String, branch: String?, environment: String?) -> String {
        typePath(type) + Self.query(["type": type.contains("/") ? type : nil, "branch": branch, "environment": environment])
    }

    /// The path part of `type(_:branch:environment:)`: a form's action.
    func typePath(_ type: String) -> String {
        "/p/\(Self.segment(project))/types/\(type.contains("/") ? "-" : Self.segment(type))"
    }

    /// `/p/{project}/commits/{sha}`
    func commit(_ sha: String) -> String {
        "/p/\(Self.segment(project))/commits/\(Self.segment(sha))"
    }

    /// `/p/{project}/diff?base=&head=&environment=`; without arguments, the form's action.
    func diff(base: String? = nil, head: String? = nil, environment: String? = nil) -> String {
        "/p/\(Self.segment(project))/diff" + Self.query(["base": base, "head": head, "environment": environment])
    }

    /// A value percent-encoded for a path segment or a query argument.
    static func segment(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// `?a=1&b=2` from the non-nil arguments, in a fixed order (base, head, type, branch,
    /// environment) so that the same page always has the same URL; empty when none.
    static func query(_ arguments: [String: String?]) -> String {
        let order = ["base", "head", "type", "branch", "environment"]
        let parts = order.compactMap { name -> String? in
            guard let value = arguments[name] ?? nil else { return nil }
            return "\(name)=\(segment(value))"
        }
        return parts.isEmpty ? "" : "?" + parts.joined(separator: "&")
    }

    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
