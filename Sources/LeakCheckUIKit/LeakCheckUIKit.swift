// The lifecycles build on the runtime's view-controller watcher: `import LeakCheckUIKit` brings it
// along, as before the split.
@_exported import LeakRuntimeUIKit
