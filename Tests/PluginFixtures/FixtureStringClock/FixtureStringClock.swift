import PluginAPI
import SampleContracts

/// Lies twice: provides `sample.clock` as a `String` (the greeter requires an `any Clock` there), and
/// its module calls itself "clock", the sample clock plugin's name.
struct StringClockPlugin: Plugin {
    static let clock = ServiceLocatorEasyKey<String>(name: SampleKeys.clock.storeKey)
    static let metadata = PluginMetadata(name: "fixture-string-clock", version: "1.0.0", provides: [clock])
    static let contractLibraries: [LibraryVersion] = [.sampleContracts]

    var name: String { "clock" }

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: Self.clock, service: "twelve o'clock")
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(StringClockPlugin.self) }
