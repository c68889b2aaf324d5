import Glibc
import PluginAPI

/// A plugin whose module ends the process with `exit` while registering, with the status in
/// HOSTKIT_FIXTURE_EXIT_STATUS, but only when the probe tests ask for it with HOSTKIT_FIXTURE_MISBEHAVE.
struct ExitPlugin: Plugin {
    static let metadata = PluginMetadata(name: "fixture-exit", version: "1.0.0", provides: [])

    func registerServices(in registrar: ModuleRegistrar) throws {
        guard getenv("HOSTKIT_FIXTURE_MISBEHAVE") != nil else { return }
        exit(getenv("HOSTKIT_FIXTURE_EXIT_STATUS").flatMap { Int32(String(cString: $0)) } ?? 0)
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(ExitPlugin.self) }
