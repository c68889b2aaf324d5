import Glibc
import PluginAPI

/// Provides a message of the day, made once, on the first get.
struct MotdPlugin: Plugin {
    static let motd = ServiceLocatorEasyKey<String>(name: "template.motd")
    static let metadata = PluginMetadata(name: "motd", version: "1.0.0", provides: [motd.storeKey])

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addLazyService(key: Self.motd) { "Message of the day for process \(getpid())" }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(MotdPlugin.self) }
