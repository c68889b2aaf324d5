import Glibc
import PluginAPI
import SampleContracts

/// Provides the system clock.
struct ClockPlugin: Plugin {
    static let metadata = PluginMetadata(name: "clock", version: "1.0.0", provides: [SampleKeys.clock])

    static let contractLibraries: [LibraryVersion] = [.sampleContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: SampleKeys.clock, service: SystemClock())
    }
}

/// The wall clock of this machine.
struct SystemClock: Clock {
    func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    func hour() -> Int {
        Int(now() / 3600) % 24
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(ClockPlugin.self) }
