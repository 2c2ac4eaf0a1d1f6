// The test helpers build on the runtime (watcher, retain paths, report writing): `import LeakCheck`
// brings it along, as before the split.
@_exported import LeakRuntime
