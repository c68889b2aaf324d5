import FixtureLifecycleSupport
import PluginAPI

/// Version 3 of `fixture-versioned`: it no longer provides `fixture.versioned`, which
/// `fixture-versioned-user` requires; it provides `fixture.versioned.three` instead.
struct Versioned: Plugin {
    static let three = ServiceLocatorEasyKey<String>(name: "fixture.versioned.three")
    static let metadata = PluginMetadata(name: "fixture-versioned", version: "3.0.0", provides: [three])

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: Self.three, service: "3")
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(Versioned.self) }
