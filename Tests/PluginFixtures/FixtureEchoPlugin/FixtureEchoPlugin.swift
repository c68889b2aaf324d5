import FixtureEchoSupport
import PluginAPI

/// Version 1.0.0 of `fixture-echo` (see EchoFixture).
struct EchoPlugin: EchoFixture {
    static let version = "1.0.0"
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(EchoPlugin.self) }
