import Glibc
import PluginAPI

/// A plugin whose `atOne` async factory starts when it registers and crashes (SIGSEGV) a moment
/// later, but only when the probe tests ask for it with HOSTKIT_FIXTURE_MISBEHAVE=1. A probe that
/// gave its verdict as soon as the module returned passed it, and the host then died.
struct AsyncCrashPlugin: Plugin {
    static let connection = ServiceLocatorEasyKey<Int>(name: "fixture.async-crash")
    static let metadata = PluginMetadata(name: "fixture-async-crash", version: "1.0.0", provides: [connection.async])

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addAsyncService(key: Self.connection, mode: .atOne) {
            try await Task.sleep(for: .milliseconds(300))
            if getenv("HOSTKIT_FIXTURE_MISBEHAVE") != nil { raise(SIGSEGV) }
            return 1
        }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(AsyncCrashPlugin.self) }
