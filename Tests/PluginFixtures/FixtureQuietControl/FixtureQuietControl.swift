import FixtureLifecycleSupport
import Foundation
import PluginAPI

/// Provides the control the lifecycle fixtures require (`fixture.lifecycle`) for a host that has
/// none of its own (`host` in a test): it answers `ok` to every event, but for the one event the
/// environment variable `HOSTKIT_FIXTURE_LIFECYCLE_THROW` names (`throw`) and the one
/// `HOSTKIT_FIXTURE_LIFECYCLE_HANG` names (`hang-async`: until cancelled).
struct QuietControlPlugin: Plugin {
    static let metadata = PluginMetadata(name: "fixture-quiet-control", version: "1.0.0", provides: [lifecycleControlKey])

    func registerServices(in registrar: ModuleRegistrar) throws {
        let refused = ProcessInfo.processInfo.environment["HOSTKIT_FIXTURE_LIFECYCLE_THROW"]
        let hung = ProcessInfo.processInfo.environment["HOSTKIT_FIXTURE_LIFECYCLE_HANG"]
        try registrar.addService(key: lifecycleControlKey, service: { @Sendable event in
            event == refused ? "throw" : event == hung ? "hang-async" : "ok"
        })
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(QuietControlPlugin.self) }
