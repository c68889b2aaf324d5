import Glibc
import PluginAPI

/// A plugin whose module never finishes registering, when HOSTKIT_FIXTURE_MISBEHAVE=1 (see FixtureCrash).
struct HangPlugin: Plugin {
    static let metadata = PluginMetadata(name: "fixture-hang", version: "1.0.0", provides: [])

    func registerServices(in registrar: ModuleRegistrar) throws {
        while getenv("HOSTKIT_FIXTURE_MISBEHAVE") != nil {
            sleep(1)
        }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(HangPlugin.self) }
