import LeakRuntime

/// Hands the screens that have left to a `LeakWatcher`: the platform-neutral half of
/// `ViewControllerLeakWatcher`, which only turns live controllers into `ScreenTree`s.
struct ScreenDepartures: Sendable {
    let watcher: LeakWatcher
    let rules: ScreenWatchRules
    /// Where reports say the objects were watched: the `start()` call.
    let location: CallerLocation

    /// Watches what `tree` holds of the app's own, under the scenario
    /// `ViewControllerLeakWatcher/<screen>`, so that every object of one screen shares a name
    /// (and a `LeakBudget.group`). Returns how many objects it watched.
    @discardableResult
    func watch(_ tree: ScreenTree) -> Int {
        let typeName = String(reflecting: type(of: tree.object))
        let screen = typeName.split(separator: ".").last.map(String.init) ?? typeName
        let objects = tree.objectsToWatch(rules: rules)
        for object in objects {
            watcher.watch(
                object, name: "ViewControllerLeakWatcher/\(screen)", fileID: location.fileID, filePath: location.filePath,
                line: location.line, column: location.column)
        }
        return objects.count
    }
}
