import PluginAPI
import SampleContracts

/// A correct plugin that counts on its declared requirement while registering, with `try!`, as authors
/// do: the host registers the clock first, so it is there. A probe that registers it alone, without
/// the clock, crashes on it.
struct NeedsClockPlugin: Plugin {
    static let hour = ServiceLocatorEasyKey<Int>(name: "fixture.hour-at-start")
    static let metadata = PluginMetadata(name: "fixture-needs-clock", version: "1.0.0", provides: [hour],
                                         requires: [SampleKeys.clock])
    static let contractLibraries: [LibraryVersion] = [.sampleContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        let clock = try! registrar.services.tryService(key: SampleKeys.clock)
        try registrar.addService(key: Self.hour, service: clock.hour())
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(NeedsClockPlugin.self) }
