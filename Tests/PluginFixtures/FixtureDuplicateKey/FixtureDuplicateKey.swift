import PluginAPI
import SampleContracts

/// A second clock: provides a key the clock plugin already provides, so the later one is refused.
struct DuplicateClockPlugin: Plugin {
    static let metadata = PluginMetadata(
        name: "fixture-duplicate-clock", version: "1.0.0", provides: [SampleKeys.clock])

    static let contractLibraries: [LibraryVersion] = [.sampleContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: SampleKeys.clock, service: StoppedClock())
    }
}

/// Always midnight.
struct StoppedClock: Clock {
    func now() -> Double { 0 }
    func hour() -> Int { 0 }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(DuplicateClockPlugin.self) }
