/// A dependency container that LeakCheck can resolve a service from, to check that what it
/// hands out is released. One method, shaped like most containers' own, so that adopting it is
/// usually an empty extension:
///
/// ```swift
/// extension Container: DependencyResolving {}
/// await expectDeallocation(of: APIManaging.self, resolvedFrom: container)
/// ```
public protocol DependencyResolving {
    /// The instance the container gives for `type`, or nil when it has none.
    func resolve<Service>(_ type: Service.Type) -> Service?
}
