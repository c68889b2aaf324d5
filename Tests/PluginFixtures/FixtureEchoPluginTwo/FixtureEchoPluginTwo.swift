import FixtureEchoSupport
import PluginAPI

/// Version 2.0.0 of `fixture-echo` (see EchoFixture): the upgrade the reload tests install over version 1.
struct EchoPlugin: EchoFixture {
    static let version = "2.0.0"
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(EchoPlugin.self) }
